package lint

import (
	"fmt"
	"maps"
	"slices"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/policy"
)

// CheckPolicy holds the policy against the build, so a typo cannot make the
// gate pass while checking nothing: every groups.<g> must name a kpack
// group of the build, and every owner glob must match a host binary path
// or a kernel name of that group. Errors are *policy.Error values naming
// the key, its line and the closest valid value.
func CheckPolicy(b *model.Build, p *policy.Policy) error {
	if p == nil {
		return nil
	}
	var names []string
	for _, g := range b.Groups {
		names = append(names, g.Name)
	}
	for _, gname := range slices.Sorted(maps.Keys(p.Groups)) {
		g := b.GroupByName(gname)
		if g == nil {
			return p.Errorf("groups."+gname, "no kpack group %s in the inputs (they have %s)%s",
				gname, listOrNone(names), policy.DidYouMean(gname, names))
		}
		if p.Groups[gname] == nil {
			continue
		}
		if err := checkOwners(p, g); err != nil {
			return err
		}
	}
	return nil
}

func checkOwners(p *policy.Policy, g *model.Group) error {
	cands := ownerCandidates(g)
	owners := p.Groups[g.Name].Owners
	for _, proj := range slices.Sorted(maps.Keys(owners)) {
		for i, glob := range owners[proj] {
			if slices.ContainsFunc(cands, func(c string) bool { return finding.MatchGlob(glob, c) }) {
				continue
			}
			return p.Errorf(fmt.Sprintf("groups.%s.owners.%s[%d]", g.Name, proj, i),
				"%q matches no host binary or kernel name of kpack group %s%s", glob, g.Name, policy.DidYouMean(glob, cands))
		}
	}
	return nil
}

// ownerCandidates lists what owner globs match (rules.groupProjects): the
// group's host binary paths and the kernel names of its archives' keys.
func ownerCandidates(g *model.Group) []string {
	var out []string
	for _, bin := range g.Binaries {
		out = append(out, bin.Path)
	}
	for _, a := range g.Archives {
		if a.Info == nil {
			continue
		}
		for _, k := range a.Info.KernelKeys() {
			name, _, _ := finding.SplitKey(k)
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func listOrNone(names []string) string {
	switch {
	case len(names) == 0:
		return "none"
	}
	return finding.CapList(names, finding.MaxListed, ", ")
}
