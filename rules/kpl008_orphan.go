package rules

import (
	"fmt"
	"slices"

	"github.com/rocm-tools/kpack-lint/model"
)

// checkOrphans is KPL008: TOC keys of a group's archives that no shipped
// host binary references (unknown kernel_name, or a co_index beyond the
// binary's HIPK wrappers). Groups without host binaries are not judged:
// their kernels are what they ship. One finding per (group, kernel name).
func checkOrphans(c *Context) []Finding {
	refs := referencedKeys(c)
	var out []Finding
	for _, g := range c.Build.Groups {
		if len(g.Binaries) == 0 {
			continue
		}
		out = append(out, groupOrphans(c.Build, g, refs)...)
	}
	return out
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

// groupOrphans lists a group's unreferenced keys by kernel name. Keys of a
// binary that was not kpack-transformed are KPL011's, not orphans.
func groupOrphans(b *model.Build, g *model.Group, refs map[string]bool) []Finding {
	// Slices, not a set per name: a hostile TOC may hold a million names.
	byName := map[string][]string{}        // kernel name -> orphan keys
	where := map[string][]*model.Archive{} // kernel name -> archives, in path order
	for _, a := range g.Archives {
		if a.Info == nil {
			continue
		}
		for key := range a.Info.Kernels {
			if refs[key] {
				continue
			}
			name, _, _ := SplitKey(key)
			if b.Untransformed(name) != nil {
				continue
			}
			byName[name] = append(byName[name], key)
			if w := where[name]; len(w) == 0 || w[len(w)-1] != a {
				where[name] = append(w, a)
			}
		}
	}
	var out []Finding
	names := sortedKeys(byName)
	for i, name := range names {
		if i == MaxFindingsPerFile-1 && len(names) > MaxFindingsPerFile {
			return append(out, manyOrphans(g, names[i:], byName, where))
		}
		out = append(out, orphanFinding(g, name, distinctKernels(byName[name]), where[name]))
	}
	return out
}

// distinctKernels sorts keys (SortKernels) and drops repeats.
func distinctKernels(keys []string) []string {
	SortKernels(keys)
	return slices.Compact(keys)
}

// manyOrphans is one finding for the orphan kernel names past
// MaxFindingsPerFile-1 of a group, with every key in Kernels, so that the
// report stays in proportion to the TOC (200,000 names once made 200,000
// findings and 1-3.5 GiB of memory).
func manyOrphans(g *model.Group, names []string, byName map[string][]string, where map[string][]*model.Archive) Finding {
	var keys []string
	seen := map[*model.Archive]bool{}
	var archives []*model.Archive
	for _, n := range names {
		keys = append(keys, byName[n]...)
		for _, a := range where[n] {
			if !seen[a] {
				seen[a] = true
				archives = append(archives, a)
			}
		}
	}
	keys = distinctKernels(keys)
	_, locs := archiveLocations(archives)
	return Finding{
		RuleID: "KPL008",
		Message: fmt.Sprintf("%d more kernel names in kpack group %s have TOC keys that no shipped host binary references "+
			"(%d keys; names %s; every key is listed in the finding's kernels). They are dead weight. "+
			"Fix: drop them from the archives, or ship the host binaries that load them.",
			len(names), g.Name, len(keys), capList(names, 5, ", ")),
		Location: locs[0],
		Kernels:  keys,
		Group:    g.Name,
		Subject:  subject(g.Name, "orphan", "more"),
	}
}

func orphanFinding(g *model.Group, name string, keys []string, archives []*model.Archive) Finding {
	paths, related := archiveLocations(archives)
	return Finding{
		RuleID: "KPL008",
		Message: fmt.Sprintf("%s in kpack group %s (%s) are referenced by no shipped host binary: no binary has kernel_name %q "+
			"with those co_indexes. They are dead weight. Fix: drop them from the archives, or ship the host binary that loads them.",
			ShortKernels(keys), g.Name, capList(paths, MaxListed, ", "), name),
		Location: ArchiveLocation(archives[0]),
		Related:  related[1:],
		Kernels:  keys,
		Group:    g.Name,
		Subject:  subject(g.Name, name, "orphan"),
	}
}
