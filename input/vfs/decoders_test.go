package vfs

import (
	"testing"

	"github.com/rocm-tools/kpack-lint/input/vfs/xzra"
	"github.com/rocm-tools/kpack-lint/internal/testutil/pkgbuild"
)

// TestInPlaceDecoders: every decoder of xz blocks (the Go one, liblzma
// where it loads, XZ Utils' xz where it is on PATH) serves the same bytes
// of every member of the tar.xz, .deb and rpm read in place, and of a
// tar.xz of one block, streamed (by liblzma too with Options.Liblzma).
func TestInPlaceDecoders(t *testing.T) {
	decoders := map[string]Options{"go": {}}
	if xzra.HaveLiblzma() {
		decoders["liblzma"] = Options{Liblzma: true}
	}
	if xz := xzra.FindXZ(); xz != "" {
		decoders["xz"] = Options{XZ: xz}
	}
	files := blockFiles()
	inputs := inPlaceInputs(t)
	inputs["tar.xz of one block"] = pkgbuild.Write(t, "one.tar.xz", pkgbuild.Compress(t, "xz", pkgbuild.Tar(t, files)))
	for in, p := range inputs {
		for name, opt := range decoders {
			tr, err := Open([]string{p}, opt)
			if err != nil || len(tr.Problems) != 0 {
				t.Fatalf("%s, %s: %v %v", in, name, err, tr.Problems)
			}
			for _, f := range files {
				if f.Dir || f.Link != "" {
					continue
				}
				if got := readEntry(t, tr.Entry(f.Path)); got != string(f.Data) {
					t.Errorf("%s, %s: %s differs (%d bytes, want %d)", in, name, f.Path, len(got), len(f.Data))
				}
			}
			tr.Close()
		}
	}
}
