package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// groupCollision is KPL004: a kpack group mixes projects or inputs that
// disagree. Its findings take their ID from it (Run); explain shows nothing
// of it: the cause is the group's projects or inputs, not one load.
var groupCollision = Rule{
	Rule: finding.Rule{
		ID: "KPL004", Name: "group-collision", Level: finding.LevelError,
		Title: "A kpack group mixes projects or inputs that disagree",
		Text: "One kpack group holds kernels of several projects whose kernels for one processor sit in archives with " +
			"different feature tags, so the archives shadow each other; or two inputs ship the same path with different bytes " +
			"(an install conflict, TheRock PR 4807).",
		Help: "Give each project its own kpack group, or build all projects of the group with the same target IDs; " +
			"ship each file from exactly one package.",
	},
	Checks: []Check{checkCollision, checkDuplicates},
}

// checkCollision is KPL004: one kpack group mixes projects whose kernels for
// one processor sit in archives with different feature tags, or two inputs
// ship the same path with different bytes (TheRock PR 4807).
func checkCollision(c *Context) []finding.Finding {
	var out []finding.Finding
	for _, g := range c.Build.Groups {
		out = append(out, groupCollisions(c, g)...)
	}
	return append(out, overlayCollisions(c)...)
}

func groupCollisions(c *Context, g *model.Group) []finding.Finding {
	projects := groupProjects(c, g.Name)
	if len(projects) < 2 {
		return nil
	}
	// Projects stored alike share a tag set: judge each set once.
	idx := c.keyIndex(g)
	bySet := map[*tagSet][]*project{}
	var sets []*tagSet
	for _, p := range projects {
		ts := tagsFor(idx, p)
		if bySet[ts] == nil {
			sets = append(sets, ts)
		}
		bySet[ts] = append(bySet[ts], p)
	}
	// processor -> tag signature -> projects
	bySig := map[string]map[string][]*project{}
	archives := map[string]map[*model.Archive]bool{} // processor -> archives holding its kernels
	for _, ts := range sets {
		for proc, m := range ts.byProc {
			if archives[proc] == nil {
				archives[proc] = map[*model.Archive]bool{}
			}
			for _, list := range m {
				for _, a := range list {
					archives[proc][a] = true
				}
			}
			sig := strings.Join(sortedTags(m), ", ")
			if bySig[proc] == nil {
				bySig[proc] = map[string][]*project{}
			}
			bySig[proc][sig] = append(bySig[proc][sig], bySet[ts]...)
		}
	}
	var out []finding.Finding
	checked := targetProcessors(c)
	for _, proc := range sortedKeys(bySig) {
		if len(bySig[proc]) > 1 && checked[proc] {
			for _, ps := range bySig[proc] {
				slices.SortFunc(ps, func(a, b *project) int { return strings.Compare(a.Name, b.Name) })
			}
			out = append(out, collisionFinding(c, g, proc, bySig[proc], archives[proc]))
		}
	}
	return out
}

func collisionFinding(c *Context, g *model.Group, proc string, bySig map[string][]*project, archives map[*model.Archive]bool) finding.Finding {
	var parts, cause []string
	var kernels []string
	var first *project
	for _, sig := range sortedKeys(bySig) {
		var names []string
		for _, p := range bySig[sig] {
			names = append(names, p.label())
			cause = append(cause, p.Name+"="+maskProcessors(sig))
			kernels = append(kernels, p.Kernels...)
			if first == nil || p.Name < first.Name {
				first = p
			}
		}
		parts = append(parts, fmt.Sprintf("%s under %s", strings.Join(names, ", "), sig))
	}
	finding.SortKernels(kernels)
	var related []finding.Location
	for _, a := range g.Archives {
		if archives[a] {
			related = append(related, sim.ArchiveLocation(a))
		}
	}
	msg := fmt.Sprintf("Kpack group %s mixes projects whose %s kernels carry different feature tags: %s. "+
		"A loader that stops at the first matching archive serves one project's archive to the other's kernels. "+
		"Fix: build every project of the group for the same target IDs, or split the group.",
		g.Name, proc, strings.Join(parts, "; "))
	return finding.Finding{
		Message:  msg,
		Location: first.Site.Location,
		Related:  related,
		Kernels:  kernels,
		Targets:  targetsOfProcessor(c, proc),
		Group:    g.Name,
		// The projects' tag patterns without the processor: one cause
		// for every processor they are stored alike for.
		Subject: subject(g.Name, strings.Join(slices.Sorted(slices.Values(cause)), ";")),
	}
}

func overlayCollisions(c *Context) []finding.Finding {
	var out []finding.Finding
	for _, r := range overlayPairs(c.Build.Tree.Replaced) {
		same, err := vfs.SameContent(r.Old, r.New)
		if err == nil && same {
			continue
		}
		out = append(out, finding.Finding{
			Message:  overlayMessage(c, r, err),
			Location: finding.Location{Input: r.New.Input, Path: r.Path},
			Related:  []finding.Location{{Input: r.Old.Input, Path: r.Path}},
			Subject:  subject("overlay", r.Path, strconv.Itoa(r.Old.Input), strconv.Itoa(r.New.Input)),
		})
	}
	return out
}

// overlayPairs pairs the copies of a path an installer would see: each
// duplicate inside one input with the copy after it, and the first copy
// from every earlier input with the path's final copy (which is what the
// build ends up with, even when the later input holds the path twice).
func overlayPairs(reps []vfs.Replacement) []vfs.Replacement {
	final := map[string]*vfs.Entry{}
	for _, r := range reps {
		final[r.Path] = r.New
	}
	var out []vfs.Replacement
	paired := map[string]bool{}
	for _, r := range reps {
		if r.Old.Input == r.New.Input {
			out = append(out, r)
			continue
		}
		k := r.Path + "\x00" + strconv.Itoa(r.Old.Input)
		if !paired[k] {
			paired[k] = true
			out = append(out, vfs.Replacement{Path: r.Path, Old: r.Old, New: final[r.Path]})
		}
	}
	return out
}

func inputName(c *Context, i int) string {
	if i >= 0 && i < len(c.InputNames) {
		return fmt.Sprintf("%d (%s)", i+1, inputBase(c, i))
	}
	return fmt.Sprint(i + 1)
}

// targetProcessors is the set of processors of the simulated agents and
// of the ISAs the machines' devices report: collisions on other
// processors cannot reach what was checked.
func targetProcessors(c *Context) map[string]bool {
	out := map[string]bool{}
	for _, a := range c.Agents {
		if id, err := targetid.Parse(a.ISA); err == nil {
			out[id.Processor] = true
		}
	}
	if c.Machines != nil {
		for _, isa := range c.Machines.DeviceISAs() {
			if id, err := targetid.Parse(isa); err == nil {
				out[id.Processor] = true
			}
		}
	}
	return out
}

func overlayMessage(c *Context, r vfs.Replacement, err error) string {
	if err != nil {
		return fmt.Sprintf("%s is shipped by input %s and by input %s, and the two could not be compared: %v. The later one wins here, "+
			"but the result depends on install order. Fix: repair or rebuild the package whose copy does not read, and ship each file from exactly one package.",
			r.Path, inputName(c, r.Old.Input), inputName(c, r.New.Input), err)
	}
	if r.Old.IsLink() != r.New.IsLink() {
		return fmt.Sprintf("%s is a %s in input %s and a %s in input %s; the later one wins here, but the result depends on install order. "+
			"Fix: ship each path from exactly one package.", r.Path, kindOf(r.Old), inputName(c, r.Old.Input), kindOf(r.New), inputName(c, r.New.Input))
	}
	if r.Old.Input == r.New.Input {
		return fmt.Sprintf("Input %s holds %s twice with different bytes; which copy an installer keeps depends on the tool "+
			"(the later one is checked here). Fix: store each path once.", inputName(c, r.New.Input), r.Path)
	}
	return fmt.Sprintf("%s is shipped by input %s and, with different bytes, by input %s; the later one wins here, "+
		"but the result depends on install order. Fix: ship each file from exactly one package.",
		r.Path, inputName(c, r.Old.Input), inputName(c, r.New.Input))
}

func kindOf(e *vfs.Entry) string {
	if e.IsLink() {
		return fmt.Sprintf("symlink to %q", e.Link)
	}
	return "regular file"
}
