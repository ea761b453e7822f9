package kerneldb

import (
	"io/fs"
	"path"
	"strings"

	"github.com/rocm-tools/kpack-lint/vfs"
)

// view answers the questions a library asks the file system (does this
// path exist, is it a folder, what does this folder hold) over the merged
// tree. Paths are slash paths relative to the build root and may hold ".."
// and symlinks, which resolve as the kernel resolves them (vfs.Tree.Lookup).
type view struct {
	t *vfs.Tree
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

// maxWalkDepth bounds how deep walkFiles descends below its folder
// (Tensile and MIOpen folders are one or two levels deep).
const maxWalkDepth = 8

// walkFiles calls fn, in name order, for every file below folder p: the
// tree path it is reached by (symlinks followed, as open(2) follows them)
// and the regular file it resolves to. Each real folder is entered once
// (no cycles) and at most maxWalkDepth levels deep. It visits at most
// limit entries (files and folders) and reports whether it saw them all.
func (v *view) walkFiles(p string, limit int, fn func(logical string, e *vfs.Entry)) bool {
	root, ok := v.real(p)
	if !ok {
		return true
	}
	type item struct {
		logical string
		depth   int
	}
	visited := map[string]bool{root: true}
	stack := []item{{p, 0}}
	n := 0
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		names := v.list(it.logical)
		var dirs []item
		for _, name := range names {
			if n++; n > limit {
				return false
			}
			logical := join(it.logical, name)
			r, ok := v.real(logical)
			if !ok {
				continue // dangling or looping link
			}
			if r == "." || v.t.IsDir(r) {
				if !visited[r] && it.depth < maxWalkDepth {
					visited[r] = true
					dirs = append(dirs, item{logical, it.depth + 1})
				}
				continue
			}
			if e := v.t.Entry(r); e != nil {
				fn(logical, e)
			}
		}
		for i := len(dirs) - 1; i >= 0; i-- { // pop in name order
			stack = append(stack, dirs[i])
		}
	}
	return true
}
