package kerneldb

import (
	"reflect"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb/kerneldbtest"
)

// TestWalkFiles: walkFiles follows symlinked folders and files, enters
// each real folder once (a link cycle ends), and stops at its limit.
func TestWalkFiles(t *testing.T) {
	tree := kerneldbtest.New()
	tree.Add("db/a/x.dat", []byte("x"))
	tree.Add("store/y.dat", []byte("y"))
	tree.Link("db/b", "../store")
	tree.Link("db/a/z.dat", "x.dat")
	tree.Link("db/a/loop", "..")
	dir := t.TempDir()
	tree.Write(t, dir)
	vt, err := vfs.Open([]string{dir}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vt.Close()
	v := newView(vt)
	var got []string
	if !v.walkFiles("db", 100, func(p string, e *vfs.Entry) { got = append(got, p+"="+e.Path) }) {
		t.Fatal("stopped early")
	}
	want := []string{"db/a/x.dat=db/a/x.dat", "db/a/z.dat=db/a/x.dat", "db/b/y.dat=store/y.dat"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if v.walkFiles("db", 3, func(string, *vfs.Entry) {}) {
		t.Error("a limit of 3 entries was not hit")
	}
}
