package rules

import (
	"slices"
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
)

// project is one owner of kernels inside a kpack group: a project named in
// the policy's groups.<g>.owners, or else one host binary (or, for an
// archive-only group, one kernel name).
type project struct {
	Name    string
	Paths   []string  // binaries (or kernel names) it owns
	Kernels []string  // kernel keys, distinct, in SortKernels order
	Site    *sim.Site // first site, for the location

	last   *sim.Site // the last site that added kernels
	merged bool      // kernels came from several sites
	run    *sim.Site // Kernels is run.Kernels[runEnd-len(Kernels):runEnd] (not a copy)
	runEnd int

	tags  *tagSet  // tagsFor, once
	masks []uint64 // where each kernel is stored (keyIndex.kernelMasks), once
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
	sites := c.groupSites(g)
	n := 0 // an upper bound of the projects: one per binary, or per kernel name of an archive-only site
	for _, s := range sites {
		if s.Binary == nil {
			n += len(s.Kernels)
		} else {
			n++
		}
	}
	// Project names usually arrive in order (sites by path, a site's
	// kernels sorted, no owners): a name other than the last one is then
	// new, and no map is needed. The first name out of order builds one.
	var byName map[string]*project
	var last *project
	order := make([]*project, 0, n)
	// One allocation for the projects and their first path; a project's
	// kernels are a slice of its site's while they are one run of them
	// (an archive-only group has a project per kernel name: 20,000 small
	// allocations each became garbage to collect).
	slab := make([]project, 0, n)
	firstPaths := make([]string, 0, n)
	// A binary's kernels share its path and kernel name: their owner is
	// matched once (owner globs cost kernels x globs before: 3,000 owners
	// over 30,000 kernels took 8 s).
	var lastPath, lastName, pn string
	matched := false
	for _, s := range sites {
		for ki, k := range s.Kernels {
			name, _, _ := finding.SplitKey(k)
			path := pathOf(s, name)
			if !matched || path != lastPath || name != lastName {
				lastPath, lastName, pn, matched = path, name, owners.owner(path, name), true
			}
			p := last
			if p == nil || p.Name != pn {
				if p != nil && byName == nil && pn < p.Name {
					byName = projectsByName(order)
				}
				p = byName[pn] // nil while names arrive in order: pn is new
			}
			if p == nil {
				slab = append(slab, project{Name: pn, Site: s, last: s})
				p = &slab[len(slab)-1]
				if byName != nil {
					byName[pn] = p
				}
				order = append(order, p)
			}
			last = p
			if p.last != s {
				p.last, p.merged = s, true
			}
			if p.run == s && p.runEnd == ki { // the next kernel of the run
				p.Kernels = s.Kernels[ki-len(p.Kernels) : ki+1 : ki+1]
				p.runEnd++
			} else if len(p.Kernels) == 0 {
				p.Kernels, p.run, p.runEnd = s.Kernels[ki:ki+1:ki+1], s, ki+1
			} else { // a copy from here on: full slices, so append never writes into s.Kernels
				p.Kernels, p.run = append(p.Kernels, k), nil
			}
			switch {
			case len(p.Paths) == 0:
				firstPaths = append(firstPaths, path)
				p.Paths = firstPaths[len(firstPaths)-1 : len(firstPaths) : len(firstPaths)]
			case p.Paths[len(p.Paths)-1] != path:
				p.Paths = append(p.Paths, path)
			}
		}
	}
	for _, p := range order {
		if p.merged { // a site's kernels are sorted and distinct; several sites' need merging
			finding.SortKernels(p.Kernels)
			p.Kernels = slices.Compact(p.Kernels)
		}
	}
	// First-seen order is usually sorted already (sites by path, an
	// archive-only site's kernels by name): sorting is then one pass.
	byFirst := func(a, b *project) int { return strings.Compare(a.Name, b.Name) }
	if !slices.IsSortedFunc(order, byFirst) {
		slices.SortFunc(order, byFirst)
	}
	return order
}

// projectsByName indexes projects by name.
func projectsByName(projects []*project) map[string]*project {
	m := make(map[string]*project, len(projects))
	for _, p := range projects {
		m[p.Name] = p
	}
	return m
}

// groupSites returns the sites of group g in site order (indexed once).
func (c *Context) groupSites(g string) []*sim.Site {
	if c.sitesByGroup == nil {
		c.sitesByGroup = map[string][]*sim.Site{}
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

func pathOf(s *sim.Site, kernelName string) string {
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
			if finding.MatchGlob(g, path) || finding.MatchGlob(g, kernelName) {
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
