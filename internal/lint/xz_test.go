package lint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/vfs/xzra"
)

// TestXZDecoder: --xz's choices resolve as documented: auto prefers
// liblzma, then xz on PATH; go is the built-in decoder; liblzma fails
// where it does not load; a path must be XZ Utils' xz.
func TestXZDecoder(t *testing.T) {
	if auto, err := XZDecoder("auto"); err != nil || auto != (XZ{Auto: true}) {
		t.Fatalf("auto = %+v, %v: want the choice left to the first stream", auto, err)
	}
	switch liblzma, path := xzra.AutoDecoder(); {
	case xzra.HaveLiblzma() && (!liblzma || path != ""):
		t.Errorf("auto picks %v, %q with liblzma loaded", liblzma, path)
	case !xzra.HaveLiblzma() && (liblzma || path != xzra.FindXZ()):
		t.Errorf("auto picks %v, %q without liblzma", liblzma, path)
	}
	if z, err := XZDecoder("go"); err != nil || z != (XZ{}) {
		t.Errorf("go = %+v, %v", z, err)
	}
	z, err := XZDecoder("liblzma")
	if xzra.HaveLiblzma() != (err == nil) || err == nil && z != (XZ{Liblzma: true}) {
		t.Errorf("liblzma = %+v, %v (loaded: %v)", z, err, xzra.HaveLiblzma())
	}
	if _, err := XZDecoder(filepath.Join(t.TempDir(), "none")); err == nil || strings.Contains(err.Error(), "none") {
		t.Errorf("a missing program: %v (want an error that does not repeat the path)", err)
	}
	if xz := xzra.FindXZ(); xz != "" {
		if z, err := XZDecoder(xz); err != nil || z != (XZ{Path: xz}) {
			t.Errorf("%s = %+v, %v", xz, z, err)
		}
	}
}
