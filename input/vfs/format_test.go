package vfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormatTable: an input's kind and progress word come from its
// file-name ending (any case, the longest that matches), a directory and
// any other file from stat; every kind of the table has a loader.
func TestFormatTable(t *testing.T) {
	for name, want := range map[string][2]string{
		"x.whl": {"zip", "wheel"}, "X.WHL": {"zip", "wheel"}, "x.zip": {"zip", "zip"}, "x.tar": {"tar", "tar"},
		"x.tar.gz": {"tar.gz", "tar.gz"}, "x.tgz": {"tar.gz", "tar.gz"}, "x.tar.zst": {"tar.zst", "tar.zst"},
		"x.tzst": {"tar.zst", "tar.zst"}, "x.tar.xz": {"tar.xz", "tar.xz"}, "x.txz": {"tar.xz", "tar.xz"},
		"x.deb": {"deb", "Debian package"}, "x.rpm": {"rpm", "rpm package"}, "x.so": {"file", "file"}, "tar": {"file", "file"},
	} {
		if f := formatByName(name); f.Kind != want[0] || f.Word != want[1] {
			t.Errorf("formatByName(%q) = %s, %q; want %s, %q", name, f.Kind, f.Word, want[0], want[1])
		}
	}
	dir := t.TempDir()
	if f, err := inputFormat(dir); err != nil || f.Kind != "dir" || f.Word != "directory" {
		t.Errorf("a directory: %+v, %v", f, err)
	}
	if _, err := inputFormat(filepath.Join(dir, "none.whl")); err == nil || !strings.HasPrefix(err.Error(), "input ") {
		t.Errorf("a missing input: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "lib.so"), nil, 0o644)
	if f, _ := inputFormat(filepath.Join(dir, "lib.so")); f.Kind != "file" {
		t.Errorf("a file: %+v", f)
	}
	for _, f := range Formats() {
		if f.load == nil || f.Kind == "" || f.Word == "" {
			t.Errorf("format %+v: incomplete", f)
		}
	}
}
