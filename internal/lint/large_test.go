package lint_test

import (
	"archive/tar"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/internal/lint"
)

// TestLargeTarball measures check on a multi-GB .tar.zst of archives. It
// runs only with KPACK_LINT_BIG=<GiB> (e.g. 2) and logs peak Go memory;
// the CLI's RSS is measured the same way with /usr/bin/time -v (see the
// issue notes). KPACK_LINT_BIG_KEEP=path keeps the tarball there.
func TestLargeTarball(t *testing.T) {
	gib := os.Getenv("KPACK_LINT_BIG")
	if gib == "" {
		t.Skip("set KPACK_LINT_BIG=2 to lint a 2 GiB tarball")
	}
	var n int
	fmt.Sscan(gib, &n)
	path := os.Getenv("KPACK_LINT_BIG_KEEP")
	if path == "" {
		path = t.TempDir() + "/big.tar.zst"
	}
	writeBigTarball(t, path, int64(n)<<30)
	fs := runCheck(t, lint.Config{Targets: []string{"gfx942"}}, path)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("%d findings; Go Sys %d MiB, TotalAlloc %d MiB", len(fs), ms.Sys>>20, ms.TotalAlloc>>20)
	if len(fs) != 0 {
		t.Errorf("clean build: %+v", fs[0])
	}
}

// writeBigTarball writes archives of 32 MiB (32 x 1 MiB stored kernels) for
// group big_<i>, one per gfx942 target, until size bytes are written.
func writeBigTarball(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(zw)
	blob := make([]byte, 1<<20)
	for i := range blob {
		blob[i] = byte(i * 7)
	}
	for i, written := 0, int64(0); written < size; i++ {
		var ks []kpacktest.Kernel
		for k := 0; k < 32; k++ {
			ks = append(ks, kpacktest.Kernel{Key: fmt.Sprintf("lib/libbig%d.so#%d", i, k), Arch: "gfx942", Data: blob})
		}
		data := kpacktest.Build(kpacktest.Spec{Group: fmt.Sprintf("big%d", i), Scheme: kpack.SchemeNone, Kernels: ks})
		hdr := &tar.Header{Name: fmt.Sprintf("lib/.kpack/big%d_gfx942.kpack", i), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
		written += int64(len(data))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}
