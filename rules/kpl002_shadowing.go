package rules

import (
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim/hip"
)

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
	effect := hip.LoadEffect(first.Code)
	msg := fmt.Sprintf("%s on %s: the legacy loader stops at %s (target %s), which lacks them, and returns %s, so with a legacy runtime %s; "+
		"the fall-through loader loads them from %s (target %s). Kpack group %s splits these kernels across archives for different targets. "+
		"Fix: put every kernel of the group into %s too, drop the partial overlay, or require a rocm-kpack runtime with the fall-through loader.",
		finding.ShortKernels(p.kernels), listAgents(p.agents), first.Archive, first.Target, first.Code.Short(), effect.Text,
		o.Fallthrough.Archive, o.Fallthrough.Target, o.Site.Group, first.Archive)
	return finding.Finding{
		RuleID:     "KPL002",
		Message:    msg,
		Location:   o.Site.Location,
		Related:    traceLocations(c, o.Fallthrough.Trace),
		Kernels:    p.kernels,
		Agents:     p.agents,
		Group:      o.Site.Group,
		Loader:     string(finding.Legacy),
		KpackError: first.Code.String(),
		HIPError:   effect.Error,
		HIPEffect:  effect.Text,
		Trace:      TraceLines(*o.Fallthrough),
		Subject:    subject(o.Site.Group, o.Site.Path, first.Archive, first.Target, finding.CompactKernels(p.kernels), strings.Join(p.agents, ",")),
	}
}
