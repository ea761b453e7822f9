package vfs

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Hard links of a folder input share an Identity (device and inode); a
// file with one link has none.
func TestIdentityHardLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no inode identity")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := Open([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	ids := map[string]Identity{}
	for _, e := range tr.Files() {
		if id, ok := e.Identity(); ok {
			ids[e.Path] = id
		}
	}
	if len(ids) != 2 || ids["a"] != ids["b"] {
		t.Errorf("identities %v, want a and b equal and none for c", ids)
	}
}

// A tar hard-link member shares the Identity of the member it links to.
func TestIdentityTarHardLink(t *testing.T) {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	w.WriteHeader(&tar.Header{Name: "a", Size: 1, Mode: 0o644, Typeflag: tar.TypeReg})
	w.Write([]byte("x"))
	w.WriteHeader(&tar.Header{Name: "b", Linkname: "a", Typeflag: tar.TypeLink})
	w.WriteHeader(&tar.Header{Name: "c", Size: 1, Mode: 0o644, Typeflag: tar.TypeReg})
	w.Write([]byte("x"))
	w.Close()
	p := filepath.Join(t.TempDir(), "t.tar")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := Open([]string{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	ids := map[string]Identity{}
	for _, e := range tr.Files() {
		id, _ := e.Identity()
		ids[e.Path] = id
	}
	if ids["a"] != ids["b"] || ids["a"] == ids["c"] {
		t.Errorf("identities %v, want a == b != c", ids)
	}
}
