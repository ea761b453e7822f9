package vfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
)

// fifo-toctou-hang: a regular file the walk saw, swapped for a FIFO before
// it is opened, is refused at once instead of blocking in open(2).
func TestFIFOSwappedAfterWalkRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x_gfx950.kpack")
	os.WriteFile(p, []byte("KPAK"), 0o644)
	tr := openTree(t, dir)
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	e := tr.Entry("x_gfx950.kpack")
	if _, err := e.Open(); !errors.Is(err, fsutil.ErrNotRegular) {
		t.Errorf("Open err = %v", err)
	}
	if _, err := e.Head(4); !errors.Is(err, fsutil.ErrNotRegular) {
		t.Errorf("Head err = %v", err)
	}
	if r, ok, err := e.OpenDirect(); r != nil || !ok || !errors.Is(err, fsutil.ErrNotRegular) {
		t.Errorf("OpenDirect = %v, %v, %v", r, ok, err)
	}
}

// A deep tree is walked with one open per folder (each relative to its
// parent), never from the root again: 1,000 levels here (4,000 took 68 s
// when every folder was reopened from the top).
func TestDeepTreeWalked(t *testing.T) {
	const depth = 1000
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := root
	for i := range depth {
		if err := dir.Mkdir("d", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := dir.WriteFile("f", []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		sub, err := dir.OpenRoot("d")
		if err != nil {
			t.Fatal(err)
		}
		if dir != root {
			dir.Close()
		}
		dir = sub
	}
	dir.Close()
	tr := openTree(t, root.Name())
	root.Close()
	files := tr.Files()
	if len(files) != depth || len(tr.Problems) != 0 {
		t.Fatalf("%d files, problems %v", len(files), tr.Problems)
	}
	deepest := strings.Repeat("d/", depth-1) + "f"
	if e := tr.Entry(deepest); e == nil || !tr.IsDir(strings.Repeat("d/", depth-1)) {
		t.Errorf("deepest file %v", e)
	}
}

// tarzst-duplicate-reread: duplicates of a member not kept are compared by
// digests hashed in one pass over the stream, whatever their number.
func TestDuplicateMembersHashedOnce(t *testing.T) {
	var nodes []node
	for i := range 500 {
		nodes = append(nodes, reg("share/doc.txt", fmt.Sprintf("%08d", i%250)))
	}
	p := makeTar(t, "tar.gz", nodes)
	tr, err := Open([]string{p}, Options{Want: func(string, []byte) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if len(tr.Replaced) != 499 {
		t.Fatalf("%d replacements", len(tr.Replaced))
	}
	b := tr.backends[0].(*tarBackend)
	passes := 0
	for _, r := range tr.Replaced {
		before := len(b.digests)
		same, err := SameContent(r.Old, r.New)
		if err != nil || same {
			t.Fatalf("SameContent = %v, %v", same, err)
		}
		if len(b.digests) > before {
			passes++
		}
	}
	if passes != 1 || len(b.digests) != 500 {
		t.Errorf("%d hashing passes, %d digests", passes, len(b.digests))
	}
	// Equal contents compare equal by digest too.
	if same, err := SameContent(tr.Replaced[0].Old, tr.Replaced[249].New); err != nil || !same {
		t.Errorf("same bytes: %v, %v", same, err)
	}
}
