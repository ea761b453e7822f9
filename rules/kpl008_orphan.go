package rules

import (
	"fmt"

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
	refs := map[string]bool{}
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
	byName := map[string]map[string]bool{}        // kernel name -> orphan keys
	where := map[string]map[*model.Archive]bool{} // kernel name -> archives
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
			if byName[name] == nil {
				byName[name] = map[string]bool{}
				where[name] = map[*model.Archive]bool{}
			}
			byName[name][key] = true
			where[name][a] = true
		}
	}
	var out []Finding
	for _, name := range sortedKeys(byName) {
		out = append(out, orphanFinding(g, name, sortedSet(byName[name]), where[name]))
	}
	return out
}

func orphanFinding(g *model.Group, name string, keys []string, in map[*model.Archive]bool) Finding {
	archives := make([]*model.Archive, 0, len(in))
	for a := range in {
		archives = append(archives, a)
	}
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
