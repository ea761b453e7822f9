package rules

import (
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
)

// legacyLoaderShadowing is KPL002: a more specific archive shadows the one
// holding the kernel on the legacy loader. Its findings take their ID from
// it (Run); explain --loader legacy shows the load the legacy loader fails.
var legacyLoaderShadowing = Rule{
	Rule: finding.Rule{
		ID: "KPL002", Name: "legacy-loader-shadowing", Level: finding.LevelWarning, Explain: finding.ExplainLoad,
		Title: "A more specific archive shadows the one holding the kernel on the legacy loader",
		Text: "The fall-through loader (rocm-systems #9953 and later) finds the kernel, but the legacy first-match loader " +
			"(rocm-kpack up to the fix, ROCm <= 7.14 wheels) stops at the first archive whose gfx_arches matches " +
			"(e.g. an xnack+ overlay) and returns KERNEL_NOT_FOUND (ROCM-31644, TheRock#7081).",
		Help: "Put every kernel of the kpack group into each feature-tagged archive, or drop the partial overlay, " +
			"or require a runtime with the fall-through loader.",
	},
	Checks: []Check{checkShadowing},
}

// checkShadowing is KPL002: the fall-through loader finds the kernel, the
// legacy loader does not (ROCM-31644, TheRock#7081). With the legacy loader
// as the policy's, such loads are KPL001 errors instead.
func checkShadowing(c *Context) []finding.Finding {
	if c.Loader == finding.Legacy {
		return nil
	}
	cs := newClusters()
	for i := range c.Outcomes {
		o := &c.Outcomes[i]
		if !o.Fallthrough.OK() || o.Legacy.OK() || len(o.Legacy.Trace) == 0 {
			continue
		}
		cs.add(causeKey{site: o.Site, a: o.Legacy, b: o.Fallthrough}, func() string {
			first := o.Legacy.Trace[0]
			return strings.Join([]string{o.Site.Path, first.Archive, first.Target, o.Fallthrough.Archive, o.Fallthrough.Target}, "\x00")
		}, o)
	}
	var out []finding.Finding
	for _, p := range cs.parts() {
		out = append(out, shadowingFinding(c, p))
	}
	return out
}

func shadowingFinding(c *Context, p part) finding.Finding {
	o := p.first
	first := o.Legacy.Trace[0]
	seen := c.alone(false, first.Code)
	msg := fmt.Sprintf("%s on %s: the legacy loader stops at %s (target %s), which lacks them, and returns %s, so with a legacy runtime %s; "+
		"the fall-through loader loads them from %s (target %s). Kpack group %s splits these kernels across archives for different targets. "+
		"Fix: put every kernel of the group into %s too, drop the partial overlay, or require a rocm-kpack runtime with the fall-through loader.",
		siteKernels(o.Site, p.kernels), listAgents(p.agents), first.Archive, first.Target, first.Code.Short(), seen.Seen.Text(),
		o.Fallthrough.Archive, o.Fallthrough.Target, o.Site.Group, first.Archive)
	return finding.Finding{
		Message:    msg,
		Location:   o.Site.Location,
		Related:    traceLocations(c, o.Fallthrough.Trace),
		Kernels:    p.kernels,
		Agents:     p.agents,
		Group:      o.Site.Group,
		Loader:     string(finding.Legacy),
		KpackError: first.Code.String(),
		HIPError:   seen.Seen.Error(),
		HIPEffect:  seen.Seen.Text(),
		Machine:    c.onMatrix(seen),
		Trace:      TraceLines(*o.Fallthrough),
		Subject: subject(o.Site.Group, o.Site.Path, maskProcessors(first.Archive), maskProcessors(first.Target),
			maskProcessors(o.Fallthrough.Archive), maskProcessors(o.Fallthrough.Target)),
	}
}
