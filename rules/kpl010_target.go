package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
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
			"(the loader reads only gfx_arches).",
		Help: "Use LLVM target IDs (processor[:sramecc(+|-)][:xnack(+|-)]) and name archives <group>_<target-id>.kpack after their gfx_arches.",
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
			Level: finding.LevelError,
			Message: fmt.Sprintf("Nothing was simulated: no target from %s stands for a device, so no kernel was loaded on any agent "+
				"and this run says nothing about the build's loads. Fix: pass --target (e.g. --target gfx942) or a policy whose variant lists targets.",
				c.TargetSource),
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
		return BinaryLocation(c.Build.Binaries[0])
	}
	return finding.Location{}
}

// badTargetFinding reports a declared target that stands for no agent,
// located in the policy file when one was read.
func badTargetFinding(c *Context, t BadTarget) finding.Finding {
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
		f.Location, f.Group = ArchiveLocation(a), a.Group()
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
	var issues []string
	for _, arch := range archStrings(a.Info) {
		if _, err := targetid.Parse(arch); err != nil {
			issues = append(issues, err.Error())
		}
	}
	for _, p := range a.Info.Problems {
		if p.Kind == kpack.ProblemTarget {
			issues = append(issues, p.String())
		}
	}
	if msg := nameTagIssue(a); msg != "" {
		issues = append(issues, msg)
	}
	if len(issues) == 0 {
		return finding.Finding{}, false
	}
	return finding.Finding{
		Message: fmt.Sprintf("%s: %s. LLVM rejects such target IDs, so no code object is built for them, and the loader compares "+
			"gfx_arches strings exactly, so an archive declaring one serves only an arch_list entry spelled the same way. "+
			"Fix: use LLVM target IDs and name the archive <group>_<target-id>.kpack after its gfx_arches.", a.Path, listProblems(issues)),
		Location: ArchiveLocation(a),
		Group:    a.Group(),
		Trace:    issues,
		Subject:  subject(a.Group(), a.Path, "target"),
	}, true
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

// nameTagIssue checks "<group>_<target-id>.kpack": the tag must be a valid
// target ID listed in gfx_arches. Names of other shapes (family archives
// such as rocm-gfx110X.kpack) are not checked.
func nameTagIssue(a *model.Archive) string {
	if a.NameGroup == "" || a.NameGroup != a.Info.GroupName || !strings.HasPrefix(a.NameTag, "gfx") {
		return ""
	}
	if _, err := targetid.Parse(a.NameTag); err != nil {
		if strings.HasSuffix(a.NameTag, "X") {
			return "" // a family tag (gfx110X), informational
		}
		return fmt.Sprintf("file-name tag %q is not a valid target ID (%v)", a.NameTag, err)
	}
	for _, arch := range a.Info.Arches {
		if arch == a.NameTag {
			return ""
		}
	}
	return fmt.Sprintf("file-name tag %q is not in gfx_arches [%s]", a.NameTag, strings.Join(a.Info.Arches, ", "))
}
