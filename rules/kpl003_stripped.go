package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// strippedFeatureFlags is KPL003: a project's kernels lack a feature flag
// the variant's targets require. Its findings take their ID from it (Run);
// explain shows nothing of it: the kernels load, they lack a feature
// setting.
var strippedFeatureFlags = Rule{
	Rule: finding.Rule{
		ID: "KPL003", Name: "stripped-feature-flags", Level: finding.LevelError,
		Title: "A project's kernels lack a feature flag the variant's targets require",
		Text: "The build variant asks for a target with a feature setting (e.g. gfx950:xnack+ in ASAN builds, " +
			"TheRock cmake/therock_sanitizers.cmake) but this project's kernels for that processor are only in archives " +
			"whose tag lacks it: its CMake strips feature flags from GPU_TARGETS (rocFFT: list(TRANSFORM GPU_TARGETS REPLACE \":[^;]+\" \"\")).",
		Help: "Build the project for the full target ID (keep ':xnack+' in GPU_TARGETS), or package its kernels in their own kpack group.",
	},
	Checks: []Check{checkStripped},
}

// checkStripped is KPL003: a variant target names a feature setting
// (gfx950:xnack+ in ASAN builds) but kernels for that processor sit only in
// archives whose tag lacks it. When a whole project's kernels do, the
// project strips GPU_TARGETS feature flags (rocFFT, ROCM-31644); when only
// some kernels of a project do, the translation units behind them were
// built without the flags (the hipBLASLt extops TU, rocm-libraries PR
// 8397), and the finding names those kernels.
func checkStripped(c *Context) []finding.Finding {
	var targets []featureTarget
	for _, t := range c.Targets {
		want, err := targetid.Parse(t)
		if agents := agentsOf(c, t); err == nil && len(want.Features) > 0 && len(agents) > 0 {
			targets = append(targets, featureTarget{t, want, agents}) // else nothing simulated: no finding
		}
	}
	if len(targets) == 0 {
		return nil
	}
	var out []finding.Finding
	for _, g := range c.Build.Groups {
		idx := c.keyIndex(g)
		for _, p := range groupProjects(c, g.Name) {
			tags := tagsFor(idx, p)
			for _, t := range targets {
				if f, ok := strippedFinding(c, g, idx, p, tags, t); ok {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// featureTarget is a target with feature settings and the agents it stands for.
type featureTarget struct {
	name   string
	want   targetid.ID
	agents []string
}

func strippedFinding(c *Context, g *model.Group, idx *keyIndex, p *project, tags *tagSet, t featureTarget) (finding.Finding, bool) {
	have := tags.byProc[t.want.Processor]
	if len(have) == 0 {
		return finding.Finding{}, false // nothing stored (KPL001/KPL006 say so)
	}
	tagList := sortedTags(have)
	if missing := strippedFeatures(t.want, tagList); len(missing) > 0 {
		return projectStripped(c, g, p, have, t.name, t.want, missing, t.agents), true
	}
	if !lacksSettingAny(t.want, tagList) {
		return finding.Finding{}, false // every place the project stores the processor's kernels sets the features
	}
	stripped, under := strippedKernels(idx, p, t.want)
	if len(stripped) == 0 {
		return finding.Finding{}, false
	}
	return kernelsStripped(c, g, p, stripped, under, t.name, t.want, t.agents), true
}

// lacksSettingAny reports whether one of tags fails to set one of want's
// feature settings; only then can a single kernel lack them.
func lacksSettingAny(want targetid.ID, tags []string) bool {
	for _, tag := range tags {
		id, err := targetid.Parse(tag)
		if err != nil || lacksSetting(want, []targetid.ID{id}) {
			return true
		}
	}
	return false
}

// projectStripped reports a project none of whose kernels for the
// processor carries the feature setting.
func projectStripped(c *Context, g *model.Group, p *project, have map[string][]*model.Archive, target string, want targetid.ID, missing, agents []string) finding.Finding {
	tagList := sortedTags(have)
	archives, related := tagArchives(have, tagList)
	flags := strings.Join(missing, ", ")
	cause := "the project built its device code with the feature flags stripped"
	fix := fmt.Sprintf("keep the feature flags in the project's GPU_TARGETS (do not strip ':%s'), or give the project its own kpack group",
		strings.Join(missing, "', ':"))
	if opposite(tagList, missing) {
		cause = "the project built its device code for the other feature setting only"
		fix = fmt.Sprintf("add %s:%s to the project's GPU_TARGETS (build for each setting the devices run with), or drop %s from the targets",
			want.Processor, strings.Join(missing, ":"), target)
	}
	msg := fmt.Sprintf("%s in kpack group %s has kernels for %s only under %s (%s), none tagged %s, but %s targets %s: "+
		"%s, so agents %s get no code object built for %s. Fix: %s.",
		p.label(), g.Name, want.Processor, strings.Join(tagList, ", "), strings.Join(archives, ", "),
		flags, variantName(c), target, cause, listAgents(agents), flags, fix)
	return finding.Finding{
		Message:  msg,
		Location: p.Site.Location,
		Related:  related,
		Kernels:  slices.Clone(p.Kernels),
		Agents:   agents,
		Group:    g.Name,
		Subject:  subject(g.Name, p.Name, maskProcessors(target)),
	}
}

// kernelsStripped reports the kernels of a project that, unlike the rest
// of the project, are stored for the processor only without the feature
// setting.
func kernelsStripped(c *Context, g *model.Group, p *project, kernels []string, under map[string][]*model.Archive, target string, want targetid.ID, agents []string) finding.Finding {
	tagList := sortedTags(under)
	archives, related := tagArchives(under, tagList)
	missing := strippedFeatures(want, tagList)
	flags := strings.Join(missing, ", ")
	msg := fmt.Sprintf("%s in kpack group %s: %s (%d of its %d kernels for %s)%s stored only under %s (%s), none tagged %s, "+
		"while its other kernels are; %s targets %s, so agents %s get no code object built for %s for these kernels: "+
		"the translation units behind them were built with the feature flags stripped (as the hipBLASLt extops TU in rocm-libraries PR 8397). "+
		"Fix: keep ':%s' in the GPU_TARGETS of those translation units.",
		p.label(), g.Name, finding.ShortKernels(kernels), len(kernels), storedFor(c, g, p, want.Processor), want.Processor,
		isAre(len(kernels)), strings.Join(tagList, ", "), strings.Join(archives, ", "), flags, variantName(c), target, listAgents(agents), flags,
		strings.Join(missing, "', ':"))
	return finding.Finding{
		Message:  msg,
		Location: p.Site.Location,
		Related:  related,
		Kernels:  kernels,
		Agents:   agents,
		Group:    g.Name,
		Subject:  subject(g.Name, p.Name, maskProcessors(target), finding.CompactKernels(kernels)),
	}
}

// strippedKernels returns the project's kernels whose entries for want's
// processor all lack one of want's feature settings, sorted, and the tags
// and archives those kernels are stored under.
func strippedKernels(idx *keyIndex, p *project, want targetid.ID) ([]string, map[string][]*model.Archive) {
	var out []string
	proc := idx.procMask(want.Processor)
	lacks := map[string]bool{} // by the places of a kernel for the processor
	under := make([]uint64, idx.words)
	m := make([]uint64, idx.words)
	masks := idx.kernelMasks(p)
	for i, key := range p.Kernels {
		if !and(m, masks[i*idx.words:(i+1)*idx.words], proc) {
			continue // not stored for the processor
		}
		k := maskKey(m)
		l, ok := lacks[k]
		if !ok {
			l = lacksSetting(want, idx.ids(m))
			lacks[k] = l
		}
		if l {
			out = append(out, key)
			or(under, m)
		}
	}
	finding.SortKernels(out)
	return out, idx.tags(under).byProc[want.Processor]
}

// isAre is " is" for one item and " are" for several.
func isAre(n int) string {
	if n == 1 {
		return " is"
	}
	return " are"
}

// storedFor counts the project's kernels stored for processor proc.
func storedFor(c *Context, g *model.Group, p *project, proc string) int {
	idx := c.keyIndex(g)
	mask := idx.procMask(proc)
	m := make([]uint64, idx.words)
	masks := idx.kernelMasks(p)
	n := 0
	for i := range p.Kernels {
		if and(m, masks[i*idx.words:(i+1)*idx.words], mask) {
			n++
		}
	}
	return n
}

// tagArchives lists the archives under tags, in tag order, with their
// locations.
func tagArchives(m map[string][]*model.Archive, tags []string) ([]string, []finding.Location) {
	var archives []string
	var related []finding.Location
	for _, t := range tags {
		for _, a := range m[t] {
			archives = append(archives, a.Path)
			related = append(related, sim.ArchiveLocation(a))
		}
	}
	return archives, related
}

// opposite reports whether every missing feature setting ("xnack-") is
// named by some tag with the other value ("gfx942:xnack+"): the code was
// built for the other setting, not with the flag stripped.
func opposite(tags, missing []string) bool {
	for _, m := range missing {
		name := m[:len(m)-1]
		found := false
		for _, tag := range tags {
			if id, err := targetid.Parse(tag); err == nil {
				if _, set := id.Setting(name); set {
					found = true
				}
			}
		}
		if !found {
			return false
		}
	}
	return len(missing) > 0
}

// strippedFeatures lists the feature settings of want ("xnack+") that none
// of tags names: the code was built without them.
func strippedFeatures(want targetid.ID, tags []string) []string {
	var ids []targetid.ID
	for _, tag := range tags {
		if id, err := targetid.Parse(tag); err == nil {
			ids = append(ids, id)
		}
	}
	var missing []string
	for _, f := range want.Features {
		if !hasSetting(ids, f) {
			missing = append(missing, f.String())
		}
	}
	return missing
}

// lacksSetting reports whether some feature setting of want is named by
// none of ids (strippedFeatures is not empty).
func lacksSetting(want targetid.ID, ids []targetid.ID) bool {
	for _, f := range want.Features {
		if !hasSetting(ids, f) {
			return true
		}
	}
	return false
}

// hasSetting reports whether one of ids sets feature f as f does.
func hasSetting(ids []targetid.ID, f targetid.Feature) bool {
	for _, id := range ids {
		if on, set := id.Setting(f.Name); set && on == f.Enabled {
			return true
		}
	}
	return false
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
	finding.SortKernels(out)
	return out
}
