package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGen(t *testing.T) {
	root := t.TempDir()
	for range 2 { // the second run reuses the tree
		var out, errs bytes.Buffer
		if code := run([]string{"gen", "-root", root, "-shape", "group:3", "-small"}, &out, &errs); code != 0 {
			t.Fatalf("exit %d: %s", code, errs.String())
		}
		dir := strings.TrimSpace(out.String())
		if dir != filepath.Join(root, "group-3-x1-seed1-o256") {
			t.Errorf("printed %q", dir)
		}
		if !strings.Contains(errs.String(), "2 archives") || !strings.Contains(errs.String(), "3 host binaries") {
			t.Errorf("summary: %s", errs.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "tree", "lib", ".kpack", "scale_test_gfx942.kpack")); err != nil {
			t.Error(err)
		}
	}
	var out bytes.Buffer
	if code := run([]string{"resident", root}, &out, &out); code != 0 || !strings.Contains(out.String(), "bytes in the page cache") {
		t.Errorf("resident: exit %d: %s", code, out.String())
	}
	if code := run([]string{"evict", root}, &out, &out); code != 0 {
		t.Errorf("evict: exit %d: %s", code, out.String())
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"bogus"}, {"gen"}, {"gen", "-out", "x", "-root", "y"},
		{"gen", "-out", t.TempDir(), "-shape", "nope"}, {"evict"}} {
		var out, errs bytes.Buffer
		if code := run(args, &out, &errs); code != 2 || !strings.Contains(errs.String(), "usage:") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs.String())
		}
	}
}
