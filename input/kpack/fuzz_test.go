package kpack_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
)

// FuzzOpen checks that no input makes Open, Fetch or Verify panic or
// allocate beyond the limits; seeds are the testdata archives.
func FuzzOpen(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.kpack"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(kpacktest.Build(zstdSpec))
	f.Add(kpacktest.Build(noopSpec))
	opt := kpack.Options{MaxTOCSize: 1 << 20, MaxKernelSize: 1 << 20, MaxEntries: 1 << 12}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		a, err := kpack.OpenOptions(r, int64(len(b)), opt)
		if err != nil {
			return
		}
		for _, key := range a.KernelKeys() {
			for _, arch := range a.KernelArches(key) {
				out, code, err := a.Fetch(r, key, arch)
				if (code == kpack.Success) != (err == nil) || uint64(len(out)) > opt.MaxKernelSize {
					t.Fatalf("Fetch(%s, %s) = %d bytes, %v, %v", key, arch, len(out), code, err)
				}
			}
		}
		a.Verify(r, kpack.VerifyOptions{})
	})
}
