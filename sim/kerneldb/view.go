package kerneldb

import (
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/input/vfs"
)

// view answers the questions a library asks the file system (does this
// path exist, is it a folder, what does this folder hold) over the merged
// tree. Paths are slash paths relative to the build root and may hold ".."
// and symlinks, which resolve as the kernel resolves them (vfs.Tree.Lookup).
type view struct {
	t *vfs.Tree
	// scanned memoises rodata: each distinct file (a symlink resolves to
	// its target, hard links share a vfs identity) is scanned once per
	// set of needles.
	scanned map[scanKey][]bool
	// matched memoises rodataMatch likewise.
	matched map[scanKey][][]string
}

// scanKey is one file and the needles looked for in it.
type scanKey struct {
	file    any // vfs.Identity, else the *vfs.Entry
	needles string
}

func newView(t *vfs.Tree) *view { return &view{t: t} }

// join appends name to dir without cleaning, so ".." after a symlink
// resolves physically, as open(2) does.
func join(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

// show is p as messages name it: cleaned, relative to the build root; the
// build root itself is "/" (as the environment variables name it).
func show(p string) string {
	c := strings.TrimLeft(path.Clean(p), "/")
	if c == "" || c == "." {
		return "/"
	}
	return c
}

// real returns the real path of p (file or folder) and whether it exists.
func (v *view) real(p string) (string, bool) {
	r, err := v.t.RealPath(p)
	return r, err == nil
}

// isDir reports whether p resolves to a folder.
func (v *view) isDir(p string) bool {
	r, ok := v.real(p)
	return ok && (r == "." || v.t.IsDir(r))
}

// entry returns the file p resolves to, or nil.
func (v *view) entry(p string) *vfs.Entry {
	e, _, err := v.t.Lookup(p)
	if err != nil {
		return nil
	}
	return e
}

// isFile reports whether p resolves to a file.
func (v *view) isFile(p string) bool { return v.entry(p) != nil }

// exists reports whether p resolves to a file or folder (TestPath).
func (v *view) exists(p string) bool {
	_, ok := v.real(p)
	return ok
}

// list returns the names in folder p, sorted; nil when p is not a folder.
func (v *view) list(p string) []string {
	r, ok := v.real(p)
	if !ok {
		return nil
	}
	ents, err := fs.ReadDir(v.t.FS(), r)
	if err != nil {
		return nil
	}
	out := make([]string, len(ents))
	for i, e := range ents {
		out[i] = e.Name()
	}
	return out
}

// maxWalkDepth bounds how many folder symlinks walkFiles follows in a row
// (Tensile and MIOpen folders are one or two levels deep).
const maxWalkDepth = 8

// walkFiles calls fn for every file below folder p: the tree path it is
// reached by (symlinks followed, as open(2) follows them) and the regular
// file it resolves to, in path order within each real folder. Real files
// come from one scan of the sorted tree; a symlink to a file counts as
// that file, one to a folder is walked in turn (each real folder once, at
// most maxWalkDepth links deep, so cycles end). It visits at most limit
// files and links and reports whether it saw them all.
func (v *view) walkFiles(p string, limit int, fn func(logical string, e *vfs.Entry)) bool {
	root, ok := v.real(p)
	if !ok {
		return true
	}
	visited := map[string]bool{}
	n := 0
	var walk func(logical, real string, depth int) bool
	walk = func(logical, real string, depth int) bool {
		if visited[real] || depth > maxWalkDepth {
			return true
		}
		visited[real] = true
		prefix := real + "/"
		if real == "." {
			prefix = ""
		}
		for _, e := range v.entriesUnder(prefix) {
			if n++; n > limit {
				return false
			}
			lp := join(logical, strings.TrimPrefix(e.Path, prefix))
			if !e.IsLink() {
				fn(lp, e)
				continue
			}
			r, ok := v.real(lp)
			switch {
			case !ok: // dangling or looping link
			case r == "." || v.t.IsDir(r):
				if !walk(lp, r, depth+1) {
					return false
				}
			default:
				if f := v.t.Entry(r); f != nil {
					fn(lp, f)
				}
			}
		}
		return true
	}
	return walk(p, root, 0)
}

// entriesUnder returns the tree's files and symlinks whose paths start
// with prefix ("" for all), in path order: one run of the sorted list.
func (v *view) entriesUnder(prefix string) []*vfs.Entry {
	files := v.t.Files()
	i := sort.Search(len(files), func(i int) bool { return files[i].Path >= prefix })
	j := i + sort.Search(len(files)-i, func(k int) bool { return !strings.HasPrefix(files[i+k].Path, prefix) })
	return files[i:j]
}
