package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// node describes a test tree entry: content, or a symlink when link != "".
type node struct {
	path, data, link string
	hard             bool // tar only: hard link to link
}

func reg(p, data string) node   { return node{path: p, data: data} }
func symlink(p, to string) node { return node{path: p, link: to} }

// makeDir builds a directory input under t.TempDir().
func makeDir(t *testing.T, nodes []node) string {
	t.Helper()
	root := t.TempDir()
	for _, n := range nodes {
		p := filepath.Join(root, filepath.FromSlash(n.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if n.link != "" {
			err = os.Symlink(n.link, p)
		} else {
			err = os.WriteFile(p, []byte(n.data), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func openTree(t *testing.T, inputs ...string) *Tree {
	t.Helper()
	tr, err := Open(inputs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func readEntry(t *testing.T, e *Entry) string {
	t.Helper()
	ra, err := e.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ra.Close()
	b, err := io.ReadAll(io.NewSectionReader(ra, 0, ra.Size()))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func paths(es []*Entry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.Path)
	}
	return strings.Join(s, " ")
}

var soTree = []node{
	reg("lib/libfoo.so.5", "ELF-foo"),
	symlink("lib/libfoo.so", "libfoo.so.5"),
	reg(".kpack/foo_gfx942.kpack", "KPACK"),
	reg("bin/tool", "tool"),
	symlink("lib64", "lib"),
	symlink("abs", "/lib/libfoo.so"),
}

func TestDirLookupAndFiles(t *testing.T) {
	tr := openTree(t, makeDir(t, soTree))
	if got, want := paths(tr.Files()), ".kpack/foo_gfx942.kpack abs bin/tool lib/libfoo.so lib/libfoo.so.5 lib64"; got != want {
		t.Fatalf("Files = %q, want %q", got, want)
	}
	for _, p := range []string{"lib/libfoo.so", "lib64/libfoo.so", "abs", "./lib/../lib64/libfoo.so.5"} {
		e, real, err := tr.Lookup(p)
		if err != nil {
			t.Fatalf("Lookup(%s): %v", p, err)
		}
		if real != "lib/libfoo.so.5" || e.Path != real || readEntry(t, e) != "ELF-foo" {
			t.Errorf("Lookup(%s) = %v, %q", p, e, real)
		}
	}
	if l := tr.Entry("lib/libfoo.so"); l == nil || l.Link != "libfoo.so.5" || !l.IsLink() {
		t.Errorf("Entry(lib/libfoo.so) = %+v", l)
	}
	if _, _, err := tr.Lookup("lib"); !errors.Is(err, ErrIsDir) {
		t.Errorf("Lookup(lib) err = %v, want ErrIsDir", err)
	}
	if _, _, err := tr.Lookup("nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lookup(nope) err = %v", err)
	}
	if _, _, err := tr.Lookup("bin/tool/x"); !errors.Is(err, ErrNotDir) {
		t.Errorf("Lookup(bin/tool/x) err = %v", err)
	}
	if _, _, err := tr.Lookup("../x"); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("Lookup(../x) err = %v", err)
	}
}

func TestSymlinkLoopAndEscape(t *testing.T) {
	tr := openTree(t, makeDir(t, []node{
		symlink("a", "b"), symlink("b", "a"),
		symlink("self", "self"),
		symlink("dir/up", "../../etc/passwd"),
		symlink("dangling", "missing"),
	}))
	for _, p := range []string{"a", "self", "a/x"} {
		if _, _, err := tr.Lookup(p); !errors.Is(err, ErrSymlinkLoop) {
			t.Errorf("Lookup(%s) err = %v, want ErrSymlinkLoop", p, err)
		}
	}
	if _, _, err := tr.Lookup("dir/up"); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("Lookup(dir/up) err = %v, want ErrOutsideRoot", err)
	}
	if _, _, err := tr.Lookup("dangling"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lookup(dangling) err = %v", err)
	}
	if _, err := fs.Stat(tr.FS(), "a"); !errors.Is(err, ErrSymlinkLoop) {
		t.Errorf("Stat(a) err = %v", err)
	}
	if fi, err := tr.FS().Lstat("a"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat(a) = %v, %v", fi, err)
	}
}

func TestOverlay(t *testing.T) {
	a := makeDir(t, []node{reg("lib/x.so", "old"), reg("lib/same", "s"), reg("only-a", "a")})
	b := makeDir(t, []node{reg("lib/x.so", "new"), reg("lib/same", "s"), symlink("only-b", "lib/x.so")})
	tr := openTree(t, a, b)
	if got, want := paths(tr.Files()), "lib/same lib/x.so only-a only-b"; got != want {
		t.Fatalf("Files = %q, want %q", got, want)
	}
	e, _, err := tr.Lookup("only-b")
	if err != nil || e.Input != 1 || readEntry(t, e) != "new" {
		t.Fatalf("Lookup(only-b) = %v %v", e, err)
	}
	if len(tr.Replaced) != 2 {
		t.Fatalf("Replaced = %+v", tr.Replaced)
	}
	for _, r := range tr.Replaced {
		same, err := SameContent(r.Old, r.New)
		if err != nil {
			t.Fatal(err)
		}
		if want := r.Path == "lib/same"; same != want || r.Old.Input != 0 || r.New.Input != 1 {
			t.Errorf("%s: same=%v old=%d new=%d", r.Path, same, r.Old.Input, r.New.Input)
		}
	}
}

func TestFileDirClash(t *testing.T) {
	a := makeDir(t, []node{reg("lib/foo", "file")})
	b := makeDir(t, []node{reg("lib/foo/bar", "x")})
	tr := openTree(t, a, b)
	if got := paths(tr.Files()); got != "lib/foo/bar" {
		t.Fatalf("Files = %q", got)
	}
	if len(tr.Problems) != 1 || tr.Problems[0].Path != "lib/foo" {
		t.Fatalf("Problems = %+v", tr.Problems)
	}
}

func TestSingleFileInput(t *testing.T) {
	dir := makeDir(t, []node{reg("sub/foo_gfx942.kpack", "KPACK")})
	var progress strings.Builder
	tr, err := Open([]string{filepath.Join(dir, "sub", "foo_gfx942.kpack")}, Options{Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if got := paths(tr.Files()); got != "foo_gfx942.kpack" || tr.Inputs[0].Kind != "file" {
		t.Fatalf("Files = %q kind %s", got, tr.Inputs[0].Kind)
	}
	if readEntry(t, tr.Files()[0]) != "KPACK" || !strings.Contains(progress.String(), "(1 entries)") {
		t.Fatalf("progress %q", progress.String())
	}
}

func TestMissingInput(t *testing.T) {
	if _, err := Open([]string{filepath.Join(t.TempDir(), "nope")}, Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
}

func TestFSDir(t *testing.T) {
	tr := openTree(t, makeDir(t, soTree))
	checkFS(t, tr, "lib/libfoo.so.5", "lib/libfoo.so", ".kpack/foo_gfx942.kpack", "bin/tool", "lib64", "abs")
}

// checkFS runs fstest.TestFS and checks the fs.ReadLinkFS methods.
func checkFS(t *testing.T, tr *Tree, expected ...string) {
	t.Helper()
	fsys := tr.FS()
	var _ interface {
		fs.StatFS
		ReadLink(string) (string, error)
		Lstat(string) (fs.FileInfo, error)
	} = fsys
	if err := fstest.TestFS(fsys, expected...); err != nil {
		t.Fatal(err)
	}
	if got, err := fsys.ReadLink("lib/libfoo.so"); err != nil || got != "libfoo.so.5" {
		t.Errorf("ReadLink = %q, %v", got, err)
	}
	if _, err := fsys.ReadLink("bin/tool"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ReadLink(regular) err = %v", err)
	}
	b, err := fs.ReadFile(fsys, "lib64/libfoo.so")
	if err != nil || string(b) != "ELF-foo" {
		t.Errorf("ReadFile via links = %q, %v", b, err)
	}
}

// TestHeadIsCheap: Head on a compressed-tar member that Want rejected
// returns the recorded first bytes without re-reading the stream, and on
// zip and directory entries the first bytes of the file.
func TestHeadIsCheap(t *testing.T) {
	tgz := makeTar(t, "tar.gz", []node{reg("big.bin", "ZERO"+strings.Repeat("\x00", 4096)), reg("lib/x.so", "\x7fELF"+strings.Repeat("\x00", 200))})
	tr, err := Open([]string{tgz}, Options{Want: func(p string, head []byte) bool { return string(head[:4]) == "\x7fELF" }})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for p, want := range map[string]string{"big.bin": "ZERO", "lib/x.so": "\x7fELF"} {
		h, err := tr.Entry(p).Head(4)
		if err != nil || string(h) != want {
			t.Errorf("%s: Head = %q, %v; want %q", p, h, err, want)
		}
	}
}

// TestOpenDirect: a directory input's file opens directly (relative to
// its kept folder); members of a compressed tarball do not, so that Head
// can sniff them without decompressing anything twice.
func TestOpenDirect(t *testing.T) {
	nodes := []node{reg("lib/.kpack/a.kpack", "KPAK and more"), reg("bin/x", "\x7fELF...")}
	for _, tc := range []struct {
		input  string
		direct bool
	}{{makeDir(t, nodes), true}, {makeTar(t, "tar.gz", nodes), false}} {
		tr := openTree(t, tc.input)
		r, ok, err := tr.Entry("lib/.kpack/a.kpack").OpenDirect()
		if ok != tc.direct || err != nil || (r != nil) != tc.direct {
			t.Fatalf("%s: OpenDirect = %v, %v, %v", tc.input, r, ok, err)
		}
		if !ok {
			continue
		}
		rest := make([]byte, 13)
		if _, err := r.ReadAt(rest, 0); err != nil || string(rest) != "KPAK and more" {
			t.Errorf("reader gives %q, %v", rest, err)
		}
		r.Close()
	}
}

// TestResolveClean: the allocation-free path gives what the walk gives,
// for every path of a tree with symlinked folders and files, and for
// paths through them, missing or unclean.
func TestResolveClean(t *testing.T) {
	tr := openTree(t, makeDir(t, append(slices.Clone(soTree),
		reg("lib/sub/x", "x"), symlink("lib/sublink", "sub"), symlink("loop", "loop"), symlink("lib/chain", "sublink/x"), symlink("lib/up", "../bin/tool"),
		symlink("lib/abs", "/bin/tool"), symlink("lib/dot", "./sub/x"), symlink("l1", "l2"), symlink("l2", "lib/chain"))))
	ps := []string{".", "", "lib", "lib/", "lib/sub", "lib/sub/x", "lib/sublink/x", "lib64/sub/x", "lib64",
		"lib/../lib/sub/x", "./lib/sub/x", "lib//sub/x", "bin/tool/x", "nope", "nope/x", "loop", "loop/x", "abs", "l1", "lib/chain", "lib/up", "lib/abs", "lib/dot",
		"lib/missing", "lib/sub/missing.kpack"}
	for _, e := range tr.Files() {
		ps = append(ps, e.Path, e.Path+"/x")
	}
	for _, p := range ps {
		for _, follow := range []bool{true, false} {
			got, gotErr := tr.resolve(p, follow)
			want, err := tr.walk(p, follow)
			if got != want || fmt.Sprint(gotErr) != fmt.Sprint(err) || errors.Is(gotErr, fs.ErrNotExist) != errors.Is(err, fs.ErrNotExist) {
				t.Errorf("resolve(%q, %v) = %q, %v; the walk gives %q, %v", p, follow, got, gotErr, want, err)
			}
		}
	}
	for _, p := range []string{"lib/sub/x", "lib/sub", "bin/tool", "lib/libfoo.so.5"} {
		if _, ok, _ := tr.resolveClean(p, true); !ok {
			t.Errorf("resolveClean(%q) takes the walk", p)
		}
	}
}
