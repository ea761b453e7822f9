package kerneldb

import (
	"io/fs"
	"path"
	"sort"
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

// show is p as messages name it: cleaned, relative to the build root.
func show(p string) string {
	c := path.Clean(p)
	return strings.TrimPrefix(c, "/")
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

// filesUnder returns every regular file (symlinks excluded) below folder p,
// sorted by path.
func (v *view) filesUnder(p string) []*vfs.Entry {
	r, ok := v.real(p)
	if !ok {
		return nil
	}
	prefix := r + "/"
	if r == "." {
		prefix = ""
	}
	files := v.t.Files() // sorted by path: one prefix is one run
	var out []*vfs.Entry
	for i := sort.Search(len(files), func(i int) bool { return files[i].Path >= prefix }); i < len(files); i++ {
		e := files[i]
		if !strings.HasPrefix(e.Path, prefix) {
			break
		}
		if !e.IsLink() {
			out = append(out, e)
		}
	}
	return out
}
