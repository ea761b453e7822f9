//go:build unix

package vfs

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// sink keeps a read the compiler must not drop.
var sink byte

// TestMap: a file's bytes are lent without a copy; a range outside the
// file or a reader that is not a file is refused; touching a view past
// the end of a file that shrank is a fault IsFault recognises.
func TestMap(t *testing.T) {
	page := os.Getpagesize()
	want := bytes.Repeat([]byte("kpack-lint "), 3*page/11+1)
	p := filepath.Join(t.TempDir(), "a.kpack")
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	r := &fileReader{File: f, size: int64(len(want))}
	defer r.Close()
	data, unmap, ok := Map(r, 100, 2*page)
	if !ok || !bytes.Equal(data, want[100:100+2*page]) || cap(data) != len(data) {
		t.Fatalf("Map = %d bytes (ok %v), want the file's bytes 100..", len(data), ok)
	}
	unmap()
	for _, c := range []struct {
		r      ReaderAt
		off    int64
		n      int
		reason string
	}{
		{r, int64(len(want)) - 10, 11, "past the end"},
		{r, -1, 10, "negative offset"},
		{r, 0, 0, "empty"},
		{memReader(want), 0, 10, "in memory"},
	} {
		if _, _, ok := Map(c.r, c.off, c.n); ok {
			t.Errorf("%s: mapped", c.reason)
		}
	}

	data, unmap, ok = Map(r, int64(page), 2*page)
	if !ok {
		t.Fatal("not mapped")
	}
	defer unmap()
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	faulted := func() (fault bool) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { fault = IsFault(recover(), data) }()
		sink = data[len(data)-1]
		return false
	}()
	if !faulted {
		t.Error("touching a view of a truncated file did not fault")
	}
	if IsFault("some other panic", data) || IsFault(nil, data) {
		t.Error("IsFault accepts a value that is not a fault")
	}
	other := make([]byte, 10)
	outside := func() (fault bool) { // a fault outside the view is a bug, not a shrunk file
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { fault = IsFault(recover(), other) }()
		sink = data[len(data)-1]
		return false
	}()
	if outside {
		t.Error("IsFault accepts a fault outside the view it is given")
	}
}
