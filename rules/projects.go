package rules

import (
	"sort"

	"github.com/rocm-tools/kpack-lint/model"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// project is one owner of kernels inside a kpack group: a project named in
// the policy's groups.<g>.owners, or else one host binary (or, for an
// archive-only group, one kernel name).
type project struct {
	Name    string
	Paths   []string        // binaries (or kernel names) it owns
	Kernels map[string]bool // kernel keys
	Site    *Site           // first site, for the location
}

// groupProjects splits the sites of group g into projects.
func groupProjects(c *Context, g string) []*project {
	owners := c.Policy.Owners(g)
	byName := map[string]*project{}
	for _, s := range c.Sites {
		if s.Group != g {
			continue
		}
		for _, k := range s.Kernels {
			name, _, _ := SplitKey(k)
			pn := ownerOf(owners, s, name)
			p := byName[pn]
			if p == nil {
				p = &project{Name: pn, Kernels: map[string]bool{}, Site: s}
				byName[pn] = p
			}
			p.Kernels[k] = true
			if len(p.Paths) == 0 || p.Paths[len(p.Paths)-1] != pathOf(s, name) {
				p.Paths = append(p.Paths, pathOf(s, name))
			}
		}
	}
	out := make([]*project, 0, len(byName))
	for _, p := range byName {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func pathOf(s *Site, kernelName string) string {
	if s.Binary != nil {
		return s.Binary.Path
	}
	return kernelName
}

func ownerOf(owners map[string][]string, s *Site, kernelName string) string {
	p := pathOf(s, kernelName)
	names := make([]string, 0, len(owners))
	for n := range owners {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, g := range owners[n] {
			if policy.MatchGlob(g, p) || policy.MatchGlob(g, kernelName) {
				return n
			}
		}
	}
	return p
}

// tagsFor returns, per processor, the sorted archive tags (TOC arches) under
// which the project's kernels are stored in the group's archives, and the
// archives that hold them.
func tagsFor(g *model.Group, p *project) map[string]map[string][]*model.Archive {
	out := map[string]map[string][]*model.Archive{}
	for _, a := range g.Archives {
		if a.Info == nil {
			continue
		}
		for key, arches := range a.Info.Kernels {
			if !p.Kernels[key] {
				continue
			}
			for _, ae := range arches {
				addTag(out, ae.Arch, a)
			}
		}
	}
	return out
}

func addTag(out map[string]map[string][]*model.Archive, arch string, a *model.Archive) {
	id, err := targetid.Parse(arch)
	if err != nil {
		return
	}
	m := out[id.Processor]
	if m == nil {
		m = map[string][]*model.Archive{}
		out[id.Processor] = m
	}
	list := m[arch]
	if len(list) == 0 || list[len(list)-1] != a {
		m[arch] = append(list, a)
	}
}

func sortedTags(m map[string][]*model.Archive) []string {
	out := make([]string, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
