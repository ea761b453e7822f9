package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/model"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// checkStripped is KPL003: a variant target names a feature setting
// (gfx950:xnack+ in ASAN builds) but a project's kernels for that processor
// sit only in archives whose tag lacks it (rocFFT strips GPU_TARGETS
// feature flags, ROCM-31644).
func checkStripped(c *Context) []Finding {
	var out []Finding
	for _, g := range c.Build.Groups {
		for _, p := range groupProjects(c, g.Name) {
			tags := tagsFor(g, p)
			for _, t := range c.Targets {
				if f, ok := strippedFinding(c, g, p, tags, t); ok {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

func strippedFinding(c *Context, g *model.Group, p *project, tags map[string]map[string][]*model.Archive, target string) (Finding, bool) {
	want, err := targetid.Parse(target)
	if err != nil || len(want.Features) == 0 {
		return Finding{}, false
	}
	have := tags[want.Processor]
	agents := agentsOf(c, target)
	if len(have) == 0 || len(agents) == 0 {
		return Finding{}, false // nothing stored (KPL001/KPL006 say so) or nothing simulated
	}
	missing := strippedFeatures(want, have)
	if len(missing) == 0 {
		return Finding{}, false
	}
	tagList := sortedTags(have)
	var archives []string
	var related []Location
	for _, t := range tagList {
		for _, a := range have[t] {
			archives = append(archives, a.Path)
			related = append(related, ArchiveLocation(a))
		}
	}
	flags := strings.Join(missing, ", ")
	msg := fmt.Sprintf("%s (%s) in kpack group %s has kernels for %s only under %s (%s), none tagged %s, but %s targets %s: "+
		"the project built its device code with the feature flags stripped, so agents %s get no code object built for %s. "+
		"Fix: keep the feature flags in the project's GPU_TARGETS (do not strip ':%s'), or give the project its own kpack group.",
		p.Name, strings.Join(p.Paths, ", "), g.Name, want.Processor, strings.Join(tagList, ", "), strings.Join(archives, ", "),
		flags, variantName(c), target, listAgents(agents), flags, strings.Join(missing, "', ':"))
	return Finding{
		RuleID:   "KPL003",
		Message:  msg,
		Location: p.Site.Location,
		Related:  related,
		Kernels:  sortedSet(p.Kernels),
		Agents:   agents,
		Group:    g.Name,
		Subject:  subject(g.Name, p.Name, target),
	}, true
}

// strippedFeatures lists the feature settings of want ("xnack+") that no
// tag of the project names: the project built without them.
func strippedFeatures(want targetid.ID, have map[string][]*model.Archive) []string {
	var missing []string
	for _, f := range want.Features {
		found := false
		for tag := range have {
			id, err := targetid.Parse(tag)
			if err != nil {
				continue
			}
			if on, set := id.Setting(f.Name); set && on == f.Enabled {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, f.String())
		}
	}
	return missing
}

func variantName(c *Context) string {
	if c.TargetSource != "" {
		return c.TargetSource
	}
	if c.Variant == "" {
		return "the build"
	}
	return "the " + c.Variant + " variant"
}

// agentsOf lists the simulated agents that stand for target.
func agentsOf(c *Context, target string) []string {
	var out []string
	for _, a := range c.Agents {
		for _, t := range a.Targets {
			if t == target {
				out = append(out, a.ISA)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

func sortedSet(m map[string]bool) []string {
	out := sortedKeys(m)
	SortKernels(out)
	return out
}
