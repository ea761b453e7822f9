package targetid

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// TheRock's target families. TheRock (ROCm/TheRock) and its users name
// the processors a build is for by family: THEROCK_AMDGPU_FAMILIES=
// gfx94X-dcgpu, the gfx110X-all wheels, rocm[device-gfx1151]. Each
// therock_add_amdgpu_target(gfx_target "product" FAMILY f1 f2 ...) call of
// TheRock's cmake/therock_amdgpu_targets.cmake adds the processor to each
// family it names (lines 41-44 of the file at therock-7.14 append
// gfx_target to THEROCK_AMDGPU_TARGET_FAMILY_<family>), and
// therock_validate_amdgpu_targets (lines 291-302) expands a family to
// those processors. So families are sets of processors, not target IDs
// with features: gfx94X-dcgpu is gfx942 alone (line 93), gfx950 is in
// gfx950-dcgpu (line 96), dcgpu-all is gfx908, gfx90a, gfx942, gfx950 and
// gfx1250.
//
// The table (therock_gen.go, theRockTargets) is generated from that file
// at TheRockRef (TheRockCommit) by internal/testutil/cmd/therockfamilies;
// its doc comment says how to update it. Every processor TheRock declares
// also forms a family of its own name (line 13 of the file); those are
// left out here: a processor name is already a target ID.

// theRockTarget is one therock_add_amdgpu_target call: the processor, its
// product name, the families it joins and the line the call starts on.
type theRockTarget struct {
	Processor, Product string
	Families           []string
	Line               int
}

// TargetFamily is one TheRock target family: its name ("gfx94X-dcgpu")
// and its processors in the order TheRock declares them ("gfx942"), with
// the line of cmake/therock_amdgpu_targets.cmake (at TheRockRef) that
// declares each.
type TargetFamily struct {
	Name       string
	Processors []string
	Lines      []int
}

// String is "gfx94X-dcgpu (gfx942)": the family and its processors, as
// reports name a family a run was given.
func (f TargetFamily) String() string {
	return f.Name + " (" + strings.Join(f.Processors, ", ") + ")"
}

// theRockFamilies are the families of theRockTargets sorted by name, made
// once.
var theRockFamilies = sync.OnceValue(func() []TargetFamily {
	byName := map[string]*TargetFamily{}
	for _, t := range theRockTargets {
		for _, name := range t.Families {
			f := byName[name]
			if f == nil {
				f = &TargetFamily{Name: name}
				byName[name] = f
			}
			if !slices.Contains(f.Processors, t.Processor) {
				f.Processors = append(f.Processors, t.Processor)
				f.Lines = append(f.Lines, t.Line)
			}
		}
	}
	out := make([]TargetFamily, 0, len(byName))
	for _, f := range byName {
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b TargetFamily) int { return strings.Compare(a.Name, b.Name) })
	return out
})

// Families returns TheRock's target families sorted by name (byte order:
// "dcgpu-all", "dgpu-all", "gfx101X-all", ...). The slices are copies.
func Families() []TargetFamily {
	out := slices.Clone(theRockFamilies())
	for i := range out {
		out[i].Processors = slices.Clone(out[i].Processors)
		out[i].Lines = slices.Clone(out[i].Lines)
	}
	return out
}

// LookupFamily returns TheRock's family called name ("gfx110X-all"); ok
// is false for any other string. Names are case-sensitive, as TheRock's
// cmake compares them (IN_LIST).
func LookupFamily(name string) (TargetFamily, bool) {
	fams := theRockFamilies()
	i, ok := slices.BinarySearchFunc(fams, name, func(f TargetFamily, n string) int { return strings.Compare(f.Name, n) })
	if !ok {
		return TargetFamily{}, false
	}
	f := fams[i]
	f.Processors, f.Lines = slices.Clone(f.Processors), slices.Clone(f.Lines)
	return f, true
}

// TheRockProduct returns the product name TheRock gives processor proc
// ("gfx942": "MI300A/MI300X CDNA"); ok is false for processors TheRock
// does not build for (gfx1013, generic targets).
func TheRockProduct(proc string) (string, bool) {
	for _, t := range theRockTargets {
		if t.Processor == proc {
			return t.Product, true
		}
	}
	return "", false
}

// ExpandTarget reads a target as a build names it: a TheRock family
// ("gfx94X-dcgpu") stands for its processors (ids, in TheRock's order;
// fam is the family), anything else is one target ID (Parse; fam is
// nil). A family takes no feature settings (TheRock builds its
// processors without them): "gfx94X-dcgpu:xnack+" is a *Error that says
// so. Errors are Parse's otherwise.
func ExpandTarget(s string) (ids []ID, fam *TargetFamily, err error) {
	name, feats, _ := strings.Cut(strings.TrimPrefix(s, TriplePrefix), ":")
	if f, ok := LookupFamily(name); ok {
		if feats != "" || strings.HasPrefix(s, TriplePrefix) {
			return nil, nil, &Error{Input: s, Msg: fmt.Sprintf("%s is a TheRock target family (%s), which takes no triple or feature settings: "+
				"name its processors with the settings (e.g. %s:%s)", f.Name, strings.Join(f.Processors, ", "), f.Processors[0], feats)}
		}
		for _, p := range f.Processors {
			ids = append(ids, ID{Processor: p})
		}
		return ids, &f, nil
	}
	id, err := Parse(s)
	if err != nil {
		return nil, nil, err
	}
	return []ID{id}, nil, nil
}

// ExpandTargets expands each TheRock family of targets into its
// processors (ExpandTarget) and keeps every other string as given, in
// order, without duplicates; used lists the families met, in the order
// given, each once. Strings that are no valid target ID are kept for the
// caller to report.
func ExpandTargets(targets []string) (out []string, used []TargetFamily) {
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, t := range targets {
		f, ok := LookupFamily(t)
		if !ok {
			add(t)
			continue
		}
		if !slices.ContainsFunc(used, func(u TargetFamily) bool { return u.Name == f.Name }) {
			used = append(used, f)
		}
		for _, p := range f.Processors {
			add(p)
		}
	}
	return out, used
}

// familyMsg is Parse's message for a TheRock family where a target ID is
// wanted: a family is several processors, so it names no one device
// (an agent, a machine's device, an arch_list entry, a TOC arch).
func familyMsg(f TargetFamily) string {
	if len(f.Processors) == 1 {
		return fmt.Sprintf("%s is a TheRock target family (a set of processors: %s), not one processor's target ID: write %s here, with its feature settings",
			f.Name, f.Processors[0], f.Processors[0])
	}
	return fmt.Sprintf("%s is a TheRock target family (a set of processors: %s), not one processor's target ID: write one of them here, with its feature settings",
		f.Name, strings.Join(f.Processors, ", "))
}
