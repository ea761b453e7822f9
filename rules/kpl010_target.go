package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// invalidTarget is KPL010: a target ID is invalid or disagrees with its
// archive. Its findings take their ID from it (Run); explain shows nothing
// of it: a target ID is at fault, not a load.
var invalidTarget = Rule{
	Rule: finding.Rule{
		ID: "KPL010", Name: "invalid-target", Level: finding.LevelWarning,
		Title: "A target ID is invalid or disagrees with its archive",
		Text: "A target ID in the policy, an archive's gfx_arches or TOC, or an archive file name is one LLVM would reject " +
			"(unknown processor, unsupported or repeated feature), or an archive's file-name tag disagrees with its gfx_arches " +
			"(the loader reads only gfx_arches). A run whose targets stand for no device, and a simulated machine whose environment leaves its " +
			"process without a GPU (a malformed HSA_OVERRIDE_GFX_VERSION, a visible-devices list naming no device), are errors: nothing is checked there.",
		Help: "Use LLVM target IDs (processor[:sramecc(+|-)][:xnack(+|-)]) and name archives <group>_<target-id>.kpack after their gfx_arches; " +
			"give a machine an environment under which HIP sees its GPUs.",
	},
	Checks: []Check{checkTargets, checkMachineNoDevice},
}

// checkTargets is KPL010: target IDs LLVM would reject (in the policy, an
// archive's gfx_arches or TOC, or its file name) and archives whose
// file-name tag is not among their gfx_arches.
func checkTargets(c *Context) []finding.Finding {
	var out []finding.Finding
	for _, t := range c.BadTargets {
		out = append(out, badTargetFinding(c, t))
	}
	if c.NothingSimulated {
		out = append(out, finding.Finding{
			Level:    finding.LevelError,
			Message:  nothingSimulatedMessage(c),
			Location: firstLoadSite(c),
			Subject:  subject("target", "none"),
		})
	}
	for _, a := range c.Build.Archives {
		if a.Info == nil {
			continue
		}
		if f, ok := archiveTargetFinding(a); ok {
			out = append(out, f)
		}
	}
	return out
}

// nothingSimulatedMessage says why no kernel was loaded: the targets
// stand for no device, or (targets taken from the archives) the inputs
// hold no archive, where the fix is the build's root, not a target.
func nothingSimulatedMessage(c *Context) string {
	const tail = "so no kernel was loaded on any agent and this run says nothing about the build's loads. "
	if len(c.Build.Archives) == 0 && strings.Contains(c.TargetSource, "gfx_arches") {
		return "Nothing was simulated: the inputs hold no kpack archive and neither a policy nor --target names a target, " + tail +
			"Fix: pass the build's root, whose .kpack folders hold the archives, or --target (e.g. --target gfx942) to check the binaries against it."
	}
	return fmt.Sprintf("Nothing was simulated: no target from %s stands for a device, ", c.TargetSource) + tail +
		"Fix: pass --target (e.g. --target gfx942) or a policy whose variant lists targets."
}

// firstLoadSite locates a finding about the whole run: the policy file
// when one was read, else the first load site (host binary or archive
// folder), else the first host binary.
func firstLoadSite(c *Context) finding.Location {
	switch {
	case c.Policy != nil && c.Policy.Path != "":
		return finding.Location{Input: finding.PolicyInput, Path: c.Policy.Path}
	case len(c.Sites) > 0:
		return c.Sites[0].Location
	case len(c.Build.Binaries) > 0:
		return sim.BinaryLocation(c.Build.Binaries[0])
	}
	return finding.Location{}
}

// badTargetFinding reports a declared target that stands for no agent,
// located in the policy file when one was read.
func badTargetFinding(c *Context, t sim.BadTarget) finding.Finding {
	fix := "use processor[:sramecc(+|-)][:xnack(+|-)] (LLVM target IDs, generic targets such as gfx11-generic included)"
	if t.Hint != "" {
		fix = "target " + t.Hint
	}
	f := finding.Finding{
		Message: fmt.Sprintf("Target %q from %s is not simulated: %s. Fix: %s.",
			t.Target, c.TargetSource, t.Reason, fix),
		Subject: subject("target", t.Target),
	}
	if c.Policy != nil && c.Policy.Path != "" {
		f.Location = finding.Location{Input: finding.PolicyInput, Path: c.Policy.Path}
	} else if a := declaringArchive(c, t.Target); a != nil {
		f.Location, f.Group = sim.ArchiveLocation(a), a.Group()
	}
	return f
}

// declaringArchive returns the first archive whose gfx_arches lists target.
func declaringArchive(c *Context, target string) *model.Archive {
	for _, a := range c.Build.Archives {
		if a.Info != nil && slices.Contains(a.Info.Arches, target) {
			return a
		}
	}
	return nil
}

func archiveTargetFinding(a *model.Archive) (finding.Finding, bool) {
	var invalid []string
	for _, arch := range archStrings(a.Info) {
		if _, err := targetid.Parse(arch); err != nil {
			invalid = append(invalid, err.Error())
		}
	}
	for _, p := range a.Info.Problems {
		if p.Kind == kpack.ProblemTarget {
			invalid = append(invalid, p.String())
		}
	}
	tag := nameTagIssue(a)
	if tag.text != "" && !tag.valid {
		invalid = append(invalid, tag.text)
	}
	issues := slices.Clone(invalid)
	if tag.valid {
		issues = append(issues, tag.text)
	}
	if len(issues) == 0 {
		return finding.Finding{}, false
	}
	var msg string
	switch {
	case len(invalid) == 0:
		msg = fmt.Sprintf("%s: %s. Fix: %s.", a.Path, tagMismatchText(a, tag), tagMismatchFix(a))
	case tag.valid:
		msg = fmt.Sprintf("%s: %s. %s Also, %s. Fix: use LLVM target IDs, and %s.", a.Path, listProblems(invalid), llvmRejects, tagMismatchText(a, tag), tagMismatchFix(a))
	default:
		msg = fmt.Sprintf("%s: %s. %s Fix: use LLVM target IDs and name the archive <group>_<target-id>.kpack after its gfx_arches.", a.Path, listProblems(invalid), llvmRejects)
	}
	return finding.Finding{
		Message:  msg,
		Location: sim.ArchiveLocation(a),
		Group:    a.Group(),
		Trace:    issues,
		Subject:  subject(a.Group(), a.Path, "target"),
	}, true
}

// llvmRejects says what an invalid target ID does.
const llvmRejects = "LLVM rejects such target IDs, so no code object is built for them, and the loader compares " +
	"gfx_arches strings exactly, so an archive declaring one serves only an arch_list entry spelled the same way."

// tagMismatchText says what a valid file-name tag that gfx_arches does not
// list means to the loader: @GFXARCH@ finds the file by its name (the
// tag is one of the compatible targets of the agents it is opened for),
// and then only gfx_arches decides what the archive serves (SPEC 4.3 and
// 4.5: the file name is never compared with gfx_arches).
func tagMismatchText(a *model.Archive, tag tagIssue) string {
	return fmt.Sprintf("the file-name tag %s is a valid target ID but names a different target than gfx_arches [%s]. "+
		"The loader reads only gfx_arches: @GFXARCH@ opens this file for agents with %s among their compatible targets, "+
		"and the archive then serves just the targets gfx_arches lists, spelled exactly: an agent it is opened for that no "+
		"gfx_arches entry fits finds no candidate in it",
		a.NameTag, strings.Join(a.Info.Arches, ", "), a.NameTag)
}

// tagMismatchFix names the archive after its gfx_arches when it declares
// one target.
func tagMismatchFix(a *model.Archive) string {
	if len(a.Info.Arches) == 1 {
		return fmt.Sprintf("name the archive after its gfx_arches (%s_%s.kpack), or make gfx_arches name the target its code objects are built for",
			a.NameGroup, a.Info.Arches[0])
	}
	return "name the archive <group>_<target-id>.kpack after one of its gfx_arches, or make gfx_arches name the targets its code objects are built for"
}

// archStrings lists gfx_arches and TOC arches, de-duplicated and sorted.
func archStrings(info *kpack.Archive) []string {
	set := map[string]bool{}
	for _, a := range info.Arches {
		set[a] = true
	}
	for _, a := range info.EntryArches {
		set[a] = true
	}
	return sortedKeys(set)
}

// tagIssue is what is wrong with an archive's file-name tag: text says it
// ("" when nothing is), valid is set when the tag is a valid target ID
// that gfx_arches does not list.
type tagIssue struct {
	text  string
	valid bool
}

// nameTagIssue checks "<group>_<target-id>.kpack": the tag must be a valid
// target ID listed in gfx_arches. Names of other shapes (family archives
// such as rocm-gfx110X.kpack) are not checked.
func nameTagIssue(a *model.Archive) tagIssue {
	if a.NameGroup == "" || a.NameGroup != a.Info.GroupName || !strings.HasPrefix(a.NameTag, "gfx") {
		return tagIssue{}
	}
	if _, err := targetid.Parse(a.NameTag); err != nil {
		if strings.HasSuffix(a.NameTag, "X") {
			return tagIssue{} // a family tag (gfx110X), informational
		}
		return tagIssue{text: fmt.Sprintf("file-name tag %q is not a valid target ID (%v)", a.NameTag, err)}
	}
	for _, arch := range a.Info.Arches {
		if arch == a.NameTag {
			return tagIssue{}
		}
	}
	return tagIssue{text: fmt.Sprintf("file-name tag %q is not in gfx_arches [%s]", a.NameTag, strings.Join(a.Info.Arches, ", ")), valid: true}
}
