package rules

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/vfs"
)

// nearMiss is a file next to an archive the loader looked for whose name
// differs from it only as file stores and copies change names: ':'
// replaced by '_' (stores and file systems that reject ':' in names), the
// letter case, or the extension. The loader opens archives by their exact
// name (SPEC 4.3), so it never finds such a file.
type nearMiss struct {
	path   string   // the file, as the tree names it
	want   string   // the name the loader looked for
	how    []string // what differs: colonReplaced, "in another case", "with another extension"
	holds  []string // the finding's kernels its TOC holds (nil: not read as an archive)
	arches []string // its gfx_arches, when it was read as an archive
}

// nearMisses finds, in the folders of the archive paths a load looked
// for, the kpack archives whose names are near misses of one of them
// (nearMiss) and that hold at least one of the kernels, or that carry the
// kpack magic without the .kpack extension (then not read as archives, so
// what they hold is unknown). Folders are listed once per check (dirs).
func nearMisses(c *Context, looked, kernels []string, dirs map[string][]string) []nearMiss {
	wanted := map[string]string{} // near-miss key -> the path looked for
	var folders []string
	for _, p := range looked {
		if p == "" {
			continue
		}
		k := nearKey(path.Base(p))
		if _, ok := wanted[path.Dir(p)+"\x00"+k]; !ok {
			wanted[path.Dir(p)+"\x00"+k] = p
		}
		if !slices.Contains(folders, path.Dir(p)) {
			folders = append(folders, path.Dir(p))
		}
	}
	var out []nearMiss
	for _, d := range folders {
		names, ok := dirs[d]
		if !ok {
			names = listFolder(c.Build.Tree, d)
			dirs[d] = names
		}
		for _, n := range names {
			want, ok := wanted[d+"\x00"+nearKey(n)]
			if !ok {
				continue
			}
			if p := path.Join(d, n); p != want && !slices.Contains(looked, p) {
				if m, ok := judgeNearMiss(c, p, want, kernels); ok {
					out = append(out, m)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b nearMiss) int { return strings.Compare(a.path, b.path) })
	return out
}

// listFolder returns the names of the files in folder d of the tree.
func listFolder(t *vfs.Tree, d string) []string {
	if t == nil {
		return nil
	}
	ents, err := fs.ReadDir(t.FS(), d)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// nearKey is a file name as near misses compare it: lower case, ':' as
// '_', without the extension (".kpack" and what follows it, else the last
// dot's).
func nearKey(name string) string {
	k := strings.ReplaceAll(strings.ToLower(name), ":", "_")
	if i := strings.Index(k, ".kpack"); i >= 0 {
		return k[:i]
	}
	if i := strings.LastIndexByte(k, '.'); i > 0 {
		return k[:i]
	}
	return k
}

// judgeNearMiss returns the near miss at p, a near-miss name of want, when
// it is a kpack archive holding one of kernels, or a file with the kpack
// magic that was not read as an archive.
func judgeNearMiss(c *Context, p, want string, kernels []string) (nearMiss, bool) {
	m := nearMiss{path: p, want: want, how: nameDiffs(path.Base(want), path.Base(p))}
	if a := c.Build.ArchiveAt(p); a != nil {
		if a.Info == nil {
			return nearMiss{}, false
		}
		for _, k := range kernels {
			if _, ok := a.Info.Kernels[k]; ok {
				m.holds = append(m.holds, k)
			}
		}
		m.arches = a.Info.Arches
		return m, len(m.holds) > 0
	}
	e := c.Build.Tree.Entry(p)
	if e == nil {
		return nearMiss{}, false
	}
	head, err := e.Head(len(kpack.Magic))
	return m, err == nil && bytes.Equal(head, []byte(kpack.Magic))
}

// nameDiffs says how name differs from want, which it matches under
// nearKey.
func nameDiffs(want, name string) []string {
	var out []string
	wStem, wExt := splitExt(want)
	nStem, nExt := splitExt(name)
	if strings.Contains(wStem, ":") && !strings.Contains(nStem, ":") {
		out = append(out, colonReplaced)
	}
	if strings.ReplaceAll(wStem, ":", "_") != strings.ReplaceAll(nStem, ":", "_") {
		out = append(out, "in another case")
	}
	if wExt != nExt {
		out = append(out, "with another extension")
	}
	return out
}

// colonReplaced is how a near miss that stores ':' as '_' differs.
const colonReplaced = "with ':' replaced by '_'"

// splitExt splits a name at ".kpack" (any case), else at its last dot.
func splitExt(name string) (stem, ext string) {
	if i := strings.Index(strings.ToLower(name), ".kpack"); i >= 0 {
		return name[:i], name[i:]
	}
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i], name[i:]
	}
	return name, ""
}

// nearMissText is the did-you-mean of a KPL006 message.
func nearMissText(ms []nearMiss) string {
	var parts []string
	for _, m := range ms[:min(len(ms), finding.MaxListed)] {
		s := m.path + " (" + path.Base(m.want) + " " + strings.Join(m.how, " and ")
		switch {
		case m.holds != nil:
			s += "; it holds " + finding.ShortKernels(m.holds) + " for gfx_arches [" + strings.Join(m.arches, ", ") + "]"
		default:
			s += "; a kpack archive by its magic, not read as one: its name does not end in .kpack"
		}
		parts = append(parts, s+")")
	}
	out := strings.Join(parts, ", ")
	if len(ms) > finding.MaxListed {
		out += fmt.Sprintf(" ... and %d more", len(ms)-finding.MaxListed)
	}
	return "; did you mean " + out + "? The loader opens archives only by their exact name"
}

// nearMissFix is the fix when near misses exist: install the archive under
// the name looked for.
func nearMissFix(ms []nearMiss) string {
	m := ms[0]
	fix := "install " + m.path + " as " + path.Base(m.want)
	if slices.Contains(m.how, colonReplaced) {
		fix += " (a store or file system that rejects ':' in names cannot hold it: restore the name when the package is installed)"
	}
	return fix + "."
}

// nearMissLocations locates the near misses, at most finding.MaxListed.
func nearMissLocations(c *Context, ms []nearMiss) []finding.Location {
	var out []finding.Location
	for _, m := range ms[:min(len(ms), finding.MaxListed)] {
		if e := c.Build.Tree.Entry(m.path); e != nil {
			out = append(out, finding.Location{Input: e.Input, Path: m.path})
		}
	}
	return out
}
