package rules

import (
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
)

// checkRequirements is KPL013's note on device wheels whose METADATA
// requires wheels that are not among the inputs (kerneldb.Requirements):
// the files those install (AOTriton images, kernel databases, kpack
// archives) were not checked, and an install without them fails the way
// pytorch/pytorch#194498 did (the per-arch torch wheel without the family
// wheel holding aotriton.images/amd-gfx11xx).
func checkRequirements(c *Context) []finding.Finding {
	if c.Databases == nil {
		return nil
	}
	var out []finding.Finding
	for _, r := range c.Databases.Requirements {
		out = append(out, requirementFinding(r))
	}
	return out
}

func requirementFinding(r kerneldb.Requirement) finding.Finding {
	total := max(r.MissingTotal, len(r.Missing))
	shown := min(len(r.Missing), finding.MaxListed)
	names := strings.Join(r.Missing[:shown], ", ")
	subj := strings.Join(r.Missing, ",")
	if more := total - shown; more > 0 {
		names += fmt.Sprintf(" ... and %d more", more)
	}
	if total > len(r.Missing) {
		subj += fmt.Sprintf(",+%d", total-len(r.Missing))
	}
	return finding.Finding{
		Level: finding.LevelNote,
		Message: fmt.Sprintf("The device wheel %s (%s) requires %s, which%s not among the inputs: the files %s (AOTriton images, "+
			"kernel databases, kpack archives) were not checked, and an install without %s lacks them. "+
			"Fix: check the wheels together (pass each as an input, overlaid as pip installs them), or accept the finding with a waiver.",
			r.Wheel, r.Metadata, names, isAre(total), theyInstall(total), themIt(total)),
		Location: finding.Location{Input: r.Input, Path: r.Metadata},
		Subject:  subject("wheel-requires", r.Wheel, subj),
		Library:  r.Wheel,
	}
}

func theyInstall(n int) string {
	if n == 1 {
		return "it installs"
	}
	return "they install"
}

func themIt(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
