package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
)

// orphanKernel is KPL008: an archive holds kernels no shipped host binary
// references. Its findings take their ID from it (Run); explain shows
// nothing of it: nobody loads orphan kernels.
var orphanKernel = Rule{
	Rule: finding.Rule{
		ID: "KPL008", Name: "orphan-kernel", Level: finding.LevelNote,
		Title: "An archive holds kernels no shipped host binary references",
		Text:  "TOC keys whose kernel name no host binary carries, or co_indexes beyond the binary's wrapper count: dead weight.",
		Help:  "Drop the kernels from the archive, or ship the host binary that uses them.",
	},
	Checks: []Check{checkOrphans},
}

// checkOrphans is KPL008: TOC keys of a group's archives that no shipped
// host binary references (unknown kernel_name, or a co_index beyond the
// binary's HIPK wrappers). Groups without host binaries are not judged:
// their kernels are what they ship. One finding per (group, kernel name).
//
// An entry a kernel of the group's own binaries is was marked by prepare
// (keyIndex.referenced: no lookup); the rest are looked up among every
// binary's keys (a binary may look for archives of another group), a set
// built only when some entry needs it.
func checkOrphans(c *Context) []finding.Finding {
	refs := &lazyRefs{c: c}
	var out []finding.Finding
	for _, g := range c.Build.Groups {
		if len(g.Binaries) == 0 {
			continue
		}
		out = append(out, groupOrphans(c.Build, g, c.keyIdx[g.Name], refs)...)
	}
	return out
}

// lazyRefs is the set of kernel keys host-binary sites load, built on
// first use.
type lazyRefs struct {
	c    *Context
	keys map[string]bool
}

func (r *lazyRefs) has(key string) bool {
	if r.keys == nil {
		r.keys = referencedKeys(r.c)
	}
	return r.keys[key]
}

// referencedKeys lists every kernel key a host binary site loads.
func referencedKeys(c *Context) map[string]bool {
	n := 0
	for _, s := range c.Sites {
		if s.Binary != nil {
			n += len(s.Kernels)
		}
	}
	refs := make(map[string]bool, n) // sized once: no rehashing as it grows
	for _, s := range c.Sites {
		if s.Binary == nil {
			continue
		}
		for _, k := range s.Kernels {
			refs[k] = true
		}
	}
	return refs
}

// orphan is one unreferenced TOC key and the archive holding it.
type orphan struct {
	key, name string
	co        uint64
	archive   *model.Archive
}

// groupOrphans lists a group's unreferenced keys by kernel name. Keys of a
// binary that was not kpack-transformed are KPL011's, not orphans. The keys
// go into one slice sorted by name and co_index, not a set per name: a
// hostile TOC may hold a million names.
// idx (nil when prepare did not run) gives the entries the group's own
// binaries load without a lookup.
func groupOrphans(b *model.Build, g *model.Group, idx *keyIndex, refs *lazyRefs) []finding.Finding {
	var all []orphan // most builds have few orphans: not sized by the TOC
	i := -1          // a's position in idx.archives (the archives that open, in group order)
	for _, a := range g.Archives {
		if a.Info == nil {
			continue
		}
		i++
		if idx.allReferenced(i) {
			continue // the common case: a word test per 64 entries
		}
		for key, entries := range a.Info.Kernels {
			if len(entries) > 0 && idx.referenced(i, entries[0].Entry) || refs.has(key) {
				continue
			}
			name, co, _ := finding.SplitKey(key)
			if b.Untransformed(name) != nil {
				continue
			}
			all = append(all, orphan{key: key, name: name, co: co, archive: a})
		}
	}
	slices.SortFunc(all, func(x, y orphan) int {
		return cmp.Or(strings.Compare(x.name, y.name), cmp.Compare(x.co, y.co), strings.Compare(x.key, y.key),
			strings.Compare(x.archive.Path, y.archive.Path))
	})
	var out []finding.Finding
	for i, n := 0, 0; i < len(all); n++ {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		if n == MaxFindingsPerFile-1 && j < len(all) { // more names follow: merge them all

			return append(out, manyOrphans(g, all[i:]))
		}
		out = append(out, orphanFinding(g, all[i].name, orphanKeys(all[i:j]), orphanArchives(all[i:j])))
		i = j
	}
	return out
}

// orphanKeys lists the distinct keys of sorted orphans.
func orphanKeys(os []orphan) []string {
	keys := make([]string, 0, len(os))
	for _, o := range os {
		if len(keys) == 0 || keys[len(keys)-1] != o.key {
			keys = append(keys, o.key)
		}
	}
	return keys
}

// orphanArchives lists the distinct archives of orphans, in path order.
func orphanArchives(os []orphan) []*model.Archive {
	var out []*model.Archive
	seen := map[*model.Archive]bool{}
	for _, o := range os {
		if !seen[o.archive] {
			seen[o.archive] = true
			out = append(out, o.archive)
		}
	}
	slices.SortFunc(out, func(x, y *model.Archive) int { return strings.Compare(x.Path, y.Path) })
	return out
}

// manyOrphans is one finding for the orphan kernel names past
// MaxFindingsPerFile-1 of a group, with every key in Kernels, so that the
// report stays in proportion to the TOC (200,000 names once made 200,000
// findings and 1-3.5 GiB of memory).
func manyOrphans(g *model.Group, os []orphan) finding.Finding {
	keys := orphanKeys(os)
	names := make([]string, 0, len(keys))
	for _, o := range os {
		if len(names) == 0 || names[len(names)-1] != o.name {
			names = append(names, o.name)
		}
	}
	archives := orphanArchives(os)
	_, locs := archiveLocations(archives)
	return finding.Finding{
		Message: fmt.Sprintf("%d more kernel names in kpack group %s have TOC keys that no shipped host binary references "+
			"(%d keys; names %s; every key is listed in the finding's kernels). They are dead weight. "+
			"Fix: drop them from the archives, or ship the host binaries that load them.",
			len(names), g.Name, len(keys), finding.CapList(names, finding.MaxListed, ", ")),
		Location: locs[0],
		Kernels:  keys,
		Group:    g.Name,
		Subject:  subject(g.Name, "orphan", "more"),
	}
}

func orphanFinding(g *model.Group, name string, keys []string, archives []*model.Archive) finding.Finding {
	paths, related := archiveLocations(archives)
	return finding.Finding{
		Message: fmt.Sprintf("%s in kpack group %s (%s) are referenced by no shipped host binary: no binary has kernel_name %q "+
			"with those co_indexes. They are dead weight. Fix: drop them from the archives, or ship the host binary that loads them.",
			finding.ShortKernels(keys), g.Name, finding.CapList(paths, finding.MaxListed, ", "), name),
		Location: sim.ArchiveLocation(archives[0]),
		Related:  related[1:],
		Kernels:  keys,
		Group:    g.Name,
		Subject:  subject(g.Name, name, "orphan"),
	}
}
