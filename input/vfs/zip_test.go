package vfs

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// makeZip writes nodes into dir/name; members alternate stored and deflated.
func makeZip(t *testing.T, name string, nodes []node) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i, n := range nodes {
		h := &zip.FileHeader{Name: n.path, Method: zip.Deflate}
		if i%2 == 0 {
			h.Method = zip.Store
		}
		data := n.data
		if n.link != "" {
			h.SetMode(fs.ModeSymlink | 0o777)
			data = n.link
		} else {
			h.SetMode(0o644)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestZipFS(t *testing.T) {
	tr := openTree(t, makeZip(t, "x.zip", soTree))
	if tr.Inputs[0].Kind != "zip" || len(tr.Problems) != 0 {
		t.Fatalf("inputs %+v problems %+v", tr.Inputs, tr.Problems)
	}
	_, real, err := tr.Lookup("lib/libfoo.so")
	if err != nil || real != "lib/libfoo.so.5" {
		t.Fatalf("Lookup = %q, %v", real, err)
	}
	checkFS(t, tr, "lib/libfoo.so.5", "lib/libfoo.so", ".kpack/foo_gfx942.kpack", "bin/tool", "lib64", "abs")
}

func TestZipSpillToTempFile(t *testing.T) {
	big := strings.Repeat("kpack", 10000)
	zp := makeZip(t, "big.zip", []node{reg("stored", big), reg("deflated", big)})
	tr, err := Open([]string{zp}, Options{MaxMemberBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, e := range tr.Files() {
		ra, err := e.Open()
		if err != nil {
			t.Fatal(err)
		}
		if got := readEntry(t, e); got != big {
			t.Errorf("%s: content mismatch (%d bytes)", e.Path, len(got))
		}
		ra.Close()
	}
	zb := tr.Files()[0].be.(*zipBackend)
	if len(zb.spills) != 1 || zb.spilled.Load() != int64(len(big)) {
		t.Errorf("%d spill files of %d bytes, want 1 of %d (the deflated member)", len(zb.spills), zb.spilled.Load(), len(big))
	}
}

func TestZipRefusedAndBad(t *testing.T) {
	zp := makeZip(t, "evil.zip", []node{reg("../evil", "x"), reg("/abs", "y"), reg("ok/../fine", "z")})
	bad := filepath.Join(t.TempDir(), "bad.whl")
	if err := os.WriteFile(bad, []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := openTree(t, zp, bad)
	if got := paths(tr.Files()); got != "fine" {
		t.Errorf("Files = %q", got)
	}
	var probs []string
	for _, p := range tr.Problems {
		probs = append(probs, p.String())
	}
	if len(probs) != 3 || !strings.Contains(probs[2], "bad zip") {
		t.Errorf("Problems = %q", probs)
	}
}

// TestWheelSymlinksAreFiles: pip installs a wheel's symlink member as a
// regular file holding the link text; vfs shows it the same way, with a
// Problem naming it.
func TestWheelSymlinksAreFiles(t *testing.T) {
	tr := openTree(t, makeZip(t, "x.whl", soTree))
	e := tr.Entry("lib/libfoo.so")
	if e == nil || e.IsLink() || e.Size != int64(len("libfoo.so.5")) {
		t.Fatalf("lib/libfoo.so = %+v, want a regular file with the link text", e)
	}
	h, err := e.Head(64)
	if err != nil || string(h) != "libfoo.so.5" {
		t.Errorf("content = %q, %v", h, err)
	}
	if len(tr.Problems) != 3 {
		t.Errorf("problems = %v, want one per symlink member", tr.Problems)
	}
}
