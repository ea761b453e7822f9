package rules

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// checkExtras is KPL013's error on a wheel extra that should install the
// device code of every target, or of a TheRock family, and leaves out
// the device wheel of a target the run checks (kerneldb.WheelExtras):
// TheRock's rocm[device-all] requires rocm-sdk-device-<target> for every
// target the distribution has (rocm setup.py, _dist_info.py
// build_per_target_extras), so one it lacks installs no kpack archives
// and no kernel databases for that target: TheRock#5347, where
// rocm[device-all] on Linux installed no rocm-sdk-device-gfx942 or
// -gfx950 (no code, no Tensile files on MI300 and MI355). An extra is
// meant for every target when its name ends in -all and names no
// family (device-all), for a family's processors when it ends in a
// TheRock family (device-gfx110X-all); the device wheels are its
// requirements whose names end in a processor or family
// (rocm-sdk-device-gfx1100), grouped by what comes before it. One
// finding per wheel, extra and group names the missing wheels and the
// targets left without code; past MaxFindingsPerFile findings about
// one METADATA the rest are not worded (a hostile one may name 4,096
// extras).
func checkExtras(c *Context) []finding.Finding {
	if c.Databases == nil || len(c.Databases.Extras) == 0 {
		return nil
	}
	procs := matrixProcessors(c.Targets)
	if len(procs) == 0 {
		return nil
	}
	var out []finding.Finding
	for _, w := range c.Databases.Extras {
		var fs []finding.Finding
		for _, e := range w.Extras {
			if fs = append(fs, extraGaps(c, w, e, procs)...); len(fs) > MaxFindingsPerFile {
				break // capPerFile merges what is past the cap; a real METADATA has one or two
			}
		}
		out = append(out, fs...)
	}
	return out
}

// extraGap is what one extra leaves out for one group of device wheels
// (Prefix, "rocm-sdk-device-"): the processors without a wheel, the
// names those wheels would have, and the wheels of the group it does
// require.
type extraGap struct {
	wheel    kerneldb.WheelExtras
	extra    kerneldb.Extra
	kind     string                 // the extra's name before its scope: "device"
	family   *targetid.TargetFamily // the family the extra is for; nil: every target
	prefix   string
	procs    []string
	missing  []string
	required []string
}

// extraGaps are the groups of device wheels extra e leaves a processor of
// procs (the run's, in order) without.
func extraGaps(c *Context, w kerneldb.WheelExtras, e kerneldb.Extra, procs []string) []finding.Finding {
	kind, fam, ok := extraScope(e.Name)
	if !ok {
		return nil
	}
	if fam != nil {
		procs = slices.DeleteFunc(slices.Clone(procs), func(p string) bool { return !slices.Contains(fam.Processors, p) })
	}
	groups := map[string][]string{} // prefix -> target suffixes required
	var order []string
	for _, r := range e.Requires {
		prefix, suffix, ok := deviceWheel(r)
		if !ok {
			continue
		}
		if groups[prefix] == nil {
			order = append(order, prefix)
		}
		groups[prefix] = append(groups[prefix], suffix)
	}
	var out []finding.Finding
	for _, prefix := range order {
		g := extraGap{wheel: w, extra: e, kind: kind, family: fam, prefix: prefix}
		for _, p := range procs {
			if !slices.ContainsFunc(groups[prefix], func(s string) bool { return wheelCovers(s, p) }) {
				g.procs = append(g.procs, p)
				g.missing = append(g.missing, prefix+p)
			}
		}
		if len(g.procs) == 0 {
			continue
		}
		for _, s := range groups[prefix] {
			g.required = append(g.required, prefix+s)
		}
		out = append(out, g.finding(c))
	}
	return out
}

// extraScope reads an extra's name (PEP 685 normalised): one ending in a
// TheRock family ("device-gfx110x-all") is for that family, else one
// ending in "-all" for every target; kind is what comes before.
func extraScope(name string) (kind string, fam *targetid.TargetFamily, ok bool) {
	for _, lower := range familyNames() {
		if k, found := strings.CutSuffix(name, "-"+lower); found && k != "" {
			f := lowerFamilies()[lower]
			return k, &f, true
		}
	}
	if k, found := strings.CutSuffix(name, "-all"); found && k != "" {
		return k, nil, true
	}
	return "", nil, false
}

// deviceWheel splits a required distribution's name (PEP 503
// normalised) into what comes before its target and the target, a
// processor ("rocm-sdk-device-" and "gfx942") or a TheRock family
// (lowercase: "gfx94x-dcgpu"); ok is false for a name that ends in
// neither.
func deviceWheel(dist string) (prefix, target string, ok bool) {
	n := kerneldb.Normalize(dist)
	for _, lower := range familyNames() {
		if p, found := strings.CutSuffix(n, "-"+lower); found && p != "" {
			return p + "-", lower, true
		}
	}
	i := strings.LastIndex(n, "-gfx")
	if i <= 0 {
		return "", "", false
	}
	if _, known := targetid.LookupProcessor(n[i+1:]); !known {
		return "", "", false
	}
	return n[:i+1], n[i+1:], true
}

// wheelCovers reports whether a device wheel for target s (a processor,
// or a TheRock family in lowercase) holds code for processor p: the same
// processor, a family of p, the generic target covering p, or for a
// generic p one of its members.
func wheelCovers(s, p string) bool {
	if s == p || targetid.GenericCovers(s, p) || targetid.GenericCovers(p, s) {
		return true
	}
	f, ok := lowerFamilies()[s]
	return ok && slices.Contains(f.Processors, p)
}

// lowerFamilies are TheRock's families by lowercase name (how PEP 503
// and 685 write them in distribution and extra names), made once.
var lowerFamilies = sync.OnceValue(func() map[string]targetid.TargetFamily {
	out := map[string]targetid.TargetFamily{}
	for _, f := range targetid.Families() {
		out[strings.ToLower(f.Name)] = f
	}
	return out
})

// familyNames are the keys of lowerFamilies, longest first, so that a
// name ending in "-gfx110x-all" is read as that family, not as "-all".
var familyNames = sync.OnceValue(func() []string {
	out := slices.Collect(maps.Keys(lowerFamilies()))
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return out
})

// matrixProcessors are the processors of the run's targets, in order,
// each once (a generic target is its own processor).
func matrixProcessors(targets []string) []string {
	var out []string
	for _, t := range targets {
		if id, err := targetid.Parse(t); err == nil && !slices.Contains(out, id.Processor) {
			out = append(out, id.Processor)
		}
	}
	return out
}

func (g extraGap) finding(c *Context) finding.Finding {
	w, e := g.wheel, g.extra
	scope := "every target"
	if g.family != nil {
		scope = "TheRock family " + g.family.String()
	}
	msg := fmt.Sprintf("The %s wheel's extra %s (%s), meant for %s, requires no %s: pip install \"%s[%s]\" installs no device code "+
		"(kpack archives, kernel databases) for %s, which the run targets (%s), so kernels and library lookups there find nothing.",
		w.Wheel, e.Name, w.Metadata, scope, orList(finding.CapList(g.missing, finding.MaxListed, ", ")), w.Wheel, e.Name,
		andList(g.procs), c.TargetSource)
	msg += g.perTargetWords() + g.presentWords(c) + fmt.Sprintf(" It requires %s.", finding.CapList(g.required, finding.MaxListed, ", "))
	msg += fmt.Sprintf(" Fix: require every target's device wheel under %s (TheRock writes the extras from the target list of the platforms it publishes; "+
		"TheRock#5347), or install the device wheels by name (pip install %s).", e.Name, strings.Join(g.missing[:min(len(g.missing), finding.MaxListed)], " "))
	return finding.Finding{
		Level:        finding.LevelError,
		Message:      msg,
		Location:     finding.Location{Input: w.Input, Path: w.Metadata},
		Subject:      subject("wheel-extra", w.Wheel, e.Name, g.prefix),
		Library:      w.Wheel,
		Targets:      targetsOfProcessors(c.Targets, g.procs),
		Missing:      g.missing[:min(len(g.missing), finding.MaxListed)],
		MissingTotal: len(g.missing),
	}
}

// perTargetWords says which per-target extras (device-gfx942) the wheel
// lacks too: pip then warns that it does not provide the extra.
func (g extraGap) perTargetWords() string {
	var lack []string
	for _, p := range g.procs {
		if _, ok := g.wheel.Extra(g.kind + "-" + p); !ok {
			lack = append(lack, g.kind+"-"+p)
		}
	}
	if len(lack) == 0 {
		return ""
	}
	return fmt.Sprintf(" It provides no extra %s either (pip warns that %s does not provide the extra and installs none).",
		orList(finding.CapList(lack, finding.MaxListed, ", ")), g.wheel.Wheel)
}

// presentWords says whether the missing wheels are among the inputs:
// then this run checked their code, which an install by the extra lacks.
func (g extraGap) presentWords(c *Context) string {
	var in []string
	for _, m := range g.missing {
		if _, ok := slices.BinarySearch(c.Databases.Distributions, m); ok {
			in = append(in, m)
		}
	}
	switch len(in) {
	case 0:
		if len(g.missing) == 1 {
			return " It is not among the inputs either."
		}
		return " None of them is among the inputs either."
	case len(g.missing):
		return " The inputs hold them, so this run checked their code; an install by the extra lacks it."
	}
	return fmt.Sprintf(" The inputs hold %s, so this run checked its code; an install by the extra lacks it.", finding.CapList(in, finding.MaxListed, ", "))
}

// targetsOfProcessors are the run's targets whose processor is one of
// procs, in the run's order.
func targetsOfProcessors(targets, procs []string) []string {
	var out []string
	for _, t := range targets {
		if id, err := targetid.Parse(t); err == nil && slices.Contains(procs, id.Processor) {
			out = append(out, t)
		}
	}
	return out
}

// orList joins "a, b" as "a or b" (the list is comma-separated).
func orList(s string) string {
	if i := strings.LastIndex(s, ", "); i >= 0 && !strings.Contains(s[i:], "more") {
		return s[:i] + " or " + s[i+2:]
	}
	return s
}

// andList joins names as "a, b and c".
func andList(names []string) string {
	s := finding.CapList(names, finding.MaxListed, ", ")
	if i := strings.LastIndex(s, ", "); i >= 0 && !strings.Contains(s[i:], "more") {
		return s[:i] + " and " + s[i+2:]
	}
	return s
}
