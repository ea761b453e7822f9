package rules

import (
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/model"
	"github.com/rocm-tools/kpack-lint/policy"
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
	mask []uint64                               // places of its kernels (placesOf), once
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

func sortedTags(m map[string][]*model.Archive) []string {
	out := make([]string, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
