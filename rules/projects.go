package rules

import (
	"slices"
	"sort"
	"strings"

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

	tags map[string]map[string][]*model.Archive // tagsFor, once
}

// groupProjects returns the projects of group g, sorted by name; computed
// once per group.
func groupProjects(c *Context, g string) []*project {
	if ps, ok := c.projects[g]; ok {
		return ps
	}
	if c.projects == nil {
		c.projects = map[string][]*project{}
	}
	ps := splitProjects(c, g)
	c.projects[g] = ps
	return ps
}

// splitProjects splits the sites of group g into projects.
func splitProjects(c *Context, g string) []*project {
	owners := newOwnerMatcher(c.Policy.Owners(g))
	byName := map[string]*project{}
	for _, s := range c.groupSites(g) {
		for _, k := range s.Kernels {
			name, _, _ := SplitKey(k)
			path := pathOf(s, name)
			pn := owners.owner(path, name)
			p := byName[pn]
			if p == nil {
				p = &project{Name: pn, Kernels: map[string]bool{}, Site: s}
				byName[pn] = p
			}
			p.Kernels[k] = true
			if len(p.Paths) == 0 || p.Paths[len(p.Paths)-1] != path {
				p.Paths = append(p.Paths, path)
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

// groupSites returns the sites of group g in site order (indexed once).
func (c *Context) groupSites(g string) []*Site {
	if c.sitesByGroup == nil {
		c.sitesByGroup = map[string][]*Site{}
		for _, s := range c.Sites {
			c.sitesByGroup[s.Group] = append(c.sitesByGroup[s.Group], s)
		}
	}
	return c.sitesByGroup[g]
}

// label names the project for messages: "rocFFT (bin/rocfft-test)", or
// just the path when the project is one binary named after it.
func (p *project) label() string {
	paths := strings.Join(p.Paths, ", ")
	if paths == p.Name {
		return p.Name
	}
	return p.Name + " (" + paths + ")"
}

func pathOf(s *Site, kernelName string) string {
	if s.Binary != nil {
		return s.Binary.Path
	}
	return kernelName
}

// ownerMatcher assigns binaries and kernel names to the policy's owners
// of a group, trying owners in name order.
type ownerMatcher struct {
	names  []string
	owners map[string][]string
}

func newOwnerMatcher(owners map[string][]string) ownerMatcher {
	names := make([]string, 0, len(owners))
	for n := range owners {
		names = append(names, n)
	}
	sort.Strings(names)
	return ownerMatcher{names: names, owners: owners}
}

// owner names the project of a kernel: the first owner (by name) one of
// whose globs matches the binary's path or the kernel name, else the path.
func (m ownerMatcher) owner(path, kernelName string) string {
	for _, n := range m.names {
		for _, g := range m.owners[n] {
			if policy.MatchGlob(g, path) || policy.MatchGlob(g, kernelName) {
				return n
			}
		}
	}
	return path
}

// keyPlace is one place a kernel key is stored: an archive and the TOC
// arch (tag) of the entry, parsed.
type keyPlace struct {
	archive *model.Archive
	tag     *tag
}

// tag is a TOC arch that is a valid target ID, parsed once per group.
type tag struct {
	name string
	id   targetid.ID
}

func (s keyPlace) proc() string { return s.tag.id.Processor }

// keyIndex maps each kernel key of a kpack group to where its archives
// store it, archives in path order. Built once per group (Context.keyIndex)
// so per-project and per-kernel questions cost the project's own kernels,
// not a scan of the group.
type keyIndex map[string][]keyPlace

func newKeyIndex(g *model.Group) keyIndex {
	idx := keyIndex{}
	tags := map[string]*tag{} // nil for an arch that is not a target ID
	for _, a := range g.Archives {
		if a.Info == nil {
			continue
		}
		for key, arches := range a.Info.Kernels {
			for _, ae := range arches {
				t, ok := tags[ae.Arch]
				if !ok {
					if id, err := targetid.Parse(ae.Arch); err == nil {
						t = &tag{name: ae.Arch, id: id}
					}
					tags[ae.Arch] = t
				}
				if t != nil {
					idx[key] = append(idx[key], keyPlace{archive: a, tag: t})
				}
			}
		}
	}
	return idx
}

// tagsFor returns, per processor, the archive tags (TOC arches) under
// which the project's kernels are stored in the group's archives, and the
// archives that hold them (in path order, each once). Computed once per
// project; callers must not modify it.
func tagsFor(idx keyIndex, p *project) map[string]map[string][]*model.Archive {
	if p.tags != nil {
		return p.tags
	}
	out := map[string]map[string][]*model.Archive{}
	for key := range p.Kernels {
		for _, s := range idx[key] {
			addTag(out, s)
		}
	}
	for _, m := range out {
		for tag, list := range m {
			sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
			m[tag] = slices.Compact(list)
		}
	}
	p.tags = out
	return out
}

func addTag(out map[string]map[string][]*model.Archive, s keyPlace) {
	m := out[s.proc()]
	if m == nil {
		m = map[string][]*model.Archive{}
		out[s.proc()] = m
	}
	list := m[s.tag.name]
	if len(list) == 0 || list[len(list)-1] != s.archive {
		m[s.tag.name] = append(list, s.archive)
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
