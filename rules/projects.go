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

// keyPlace is one place a kernel key is stored: an archive, the TOC arch
// (tag) of the entry and that arch's processor.
type keyPlace struct {
	archive *model.Archive
	tag     string
	proc    string
}

// keyIndex maps each kernel key of a kpack group to where its archives
// store it, archives in path order. Built once per group (Context.keyIndex)
// so per-project and per-kernel questions cost the project's own kernels,
// not a scan of the group.
type keyIndex map[string][]keyPlace

func newKeyIndex(g *model.Group) keyIndex {
	idx := keyIndex{}
	for _, a := range g.Archives {
		if a.Info == nil {
			continue
		}
		for key, arches := range a.Info.Kernels {
			for _, ae := range arches {
				id, err := targetid.Parse(ae.Arch)
				if err != nil {
					continue
				}
				idx[key] = append(idx[key], keyPlace{archive: a, tag: ae.Arch, proc: id.Processor})
			}
		}
	}
	return idx
}

// tagsFor returns, per processor, the archive tags (TOC arches) under
// which the project's kernels are stored in the group's archives, and the
// archives that hold them (in path order, each once).
func tagsFor(idx keyIndex, p *project) map[string]map[string][]*model.Archive {
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
	return out
}

func addTag(out map[string]map[string][]*model.Archive, s keyPlace) {
	m := out[s.proc]
	if m == nil {
		m = map[string][]*model.Archive{}
		out[s.proc] = m
	}
	list := m[s.tag]
	if len(list) == 0 || list[len(list)-1] != s.archive {
		m[s.tag] = append(list, s.archive)
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
