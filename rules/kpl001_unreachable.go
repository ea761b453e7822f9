package rules

import (
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim"
)

// unreachableKernel is KPL001: a kernel cannot be loaded on an agent the
// build targets. Its findings take their ID from it (Run); explain shows the
// failing load.
var unreachableKernel = Rule{
	Rule: finding.Rule{
		ID: "KPL001", Name: "unreachable-kernel", Level: finding.LevelError, Explain: finding.ExplainLoad,
		Title: "A kernel cannot be loaded on an agent the build targets",
		Text: "The simulated kpack_load_code_object of the policy's loader fails for this kernel key on this agent ISA " +
			"(KERNEL_NOT_FOUND, ARCH_NOT_FOUND, DECOMPRESSION_FAILED, ...). On hardware the HIP runtime reports " +
			"hipErrorInvalidImage or 'kpack_load_code_object failed with error: N'. A binary with embedded device code (not " +
			"kpack-transformed) whose offload bundle has no code object for the agent fails to load there too (hipErrorNoBinaryForGpu).",
		Help: "Ship an archive whose gfx_arches lists a target compatible with the agent and whose TOC holds the kernel key, " +
			"or drop the agent from the policy's targets; for embedded device code (KEY <binary>[embedded]#N), build the binary for " +
			"the agent's target (--offload-arch) or ship it kpack-transformed with archives for it. `kpack-lint explain --agent ISA KEY DIR` " +
			"shows the loader's trace (for embedded code, the offload-bundle entry HIP picks).",
		EmbeddedHelp: "Build the binary for the agent's target (--offload-arch, or a generic target that covers it), ship it " +
			"kpack-transformed with archives for that target, or drop the agent from the policy's targets. " +
			"`kpack-lint explain --agent ISA KEY DIR` shows the offload-bundle entry HIP picks for each agent.",
	},
	Checks: []Check{checkUnreachable, checkEmbedded, checkUnsupported, checkMachineLack},
}

// checkUnreachable is KPL001: the policy's loader fails with anything but
// ARCHIVE_NOT_FOUND (that is KPL006). Kernels and agents whose loads fail
// with the same trace on the same site are one finding.
func checkUnreachable(c *Context) []finding.Finding {
	if c.matrixAsMachines() {
		return nil
	}
	cs := newClusters()
	for i := range c.Outcomes {
		o := &c.Outcomes[i]
		r := c.result(o)
		if r.OK() || r.Code == kpack.ArchiveNotFound {
			continue
		}
		cs.add(causeKey{site: o.Site, a: r}, func() string { return o.Site.Path + "\x00" + traceSignature(*r) }, o)
	}
	var out []finding.Finding
	for _, p := range cs.parts() {
		out = append(out, unreachableFinding(c, p))
	}
	return out
}

func unreachableFinding(c *Context, p part) finding.Finding {
	o := p.first
	r := c.result(o)
	seen := c.alone(false, r.Code)
	msg := fmt.Sprintf("%s cannot be loaded on %s: %s.", siteKernels(o.Site, p.kernels), listAgents(p.agents), loaderVerdict(c, o, *r))
	if c.Loader == finding.Legacy && o.Fallthrough.OK() {
		msg += fmt.Sprintf(" The fall-through loader would load them from %s (%s).", o.Fallthrough.Archive, o.Fallthrough.Target)
	}
	if r.Code != kpack.Abort {
		msg += " " + upperFirst(c.seenOnMatrix(seen)) + "."
	}
	msg += " " + fixFor(r.Code, o)
	return finding.Finding{
		Message:    msg,
		Location:   o.Site.Location,
		Related:    traceLocations(c, r.Trace),
		Kernels:    p.kernels,
		Agents:     p.agents,
		Group:      o.Site.Group,
		Loader:     string(c.Loader),
		KpackError: r.Code.String(),
		HIPError:   seen.Seen.Error(),
		HIPEffect:  seen.Seen.Text(),
		Machine:    c.onMatrix(seen),
		Trace:      TraceLines(*r),
		Subject:    subject(o.Site.Group, o.Site.Path, r.Code.String(), maskProcessors(traceSignature(*r))),
	}
}

// loaderVerdict says what the policy's loader does: "the fallthrough
// loader returns KERNEL_NOT_FOUND (tried ...)", or how the process aborts.
func loaderVerdict(c *Context, o *sim.Outcome, r resolver.Result) string {
	if r.Code != kpack.Abort {
		return fmt.Sprintf("the %s loader returns %s (%s)", c.Loader, r.Code.Short(), explainFailure(o, r))
	}
	if len(r.Trace) == 0 {
		why := "a TOC value the runtime's conversion cannot take"
		if a := c.Build.ArchiveAt(r.Archive); a != nil && a.Err != nil {
			why = a.Err.Error()
		}
		return fmt.Sprintf("the %s loader opens %s, whose TOC it cannot convert (%s): the process aborts (std::bad_cast), "+
			"while the fall-through loader skips that archive", c.Loader, r.Archive, why)
	}
	last := r.Trace[len(r.Trace)-1]
	return fmt.Sprintf("the %s loader fetches them from %s as %s, whose size no host can allocate: the process aborts (std::bad_alloc)",
		c.Loader, last.Archive, last.Target)
}

// upperFirst capitalises the first letter of s.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// explainFailure says in words why the last candidate failed.
func explainFailure(o *sim.Outcome, r resolver.Result) string {
	if o.Plan.Disabled {
		return "ROCM_KPACK_DISABLE turns kpack loading off"
	}
	if len(r.Trace) == 0 {
		return fmt.Sprintf("archives open (%s) but none declares a target compatible with the agent in gfx_arches", strings.Join(o.Plan.Opened, ", "))
	}
	var tried []string
	for _, s := range r.Trace {
		tried = append(tried, fmt.Sprintf("%s as %s: %s", s.Archive, s.Target, s.Code.Short()))
	}
	return "tried " + finding.CapList(tried, finding.MaxListed, "; ")
}

func fixFor(code kpack.Code, o *sim.Outcome) string {
	if o.Site.Request.Overridden() {
		return "Fix: ROCM_KPACK_PATH replaces the binary's own search paths; point it at the archives holding these kernels, or unset it."
	}
	switch code {
	case kpack.KernelNotFound:
		return fmt.Sprintf("Fix: add the kernels to a %s archive for a target compatible with the agent, or remove the agent from the policy's targets.", o.Site.Group)
	case kpack.ArchNotFound:
		return "Fix: ship an archive whose gfx_arches lists a target compatible with the agent (see `kpack-lint explain`)."
	case kpack.DecompressionFailed, kpack.IOError, kpack.InvalidFormat, kpack.Abort:
		return "Fix: rebuild the archive; it is damaged (see KPL005)."
	case kpack.NotImplemented:
		return "Fix: unset ROCM_KPACK_DISABLE (it turns kpack loading off)."
	}
	return "Fix: run `kpack-lint explain` on one kernel to see the loader's trace."
}

// traceSignature identifies a trace's shape: the archives, targets and
// codes it went through.
func traceSignature(r resolver.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", r.Code)
	for _, s := range r.Trace {
		fmt.Fprintf(&b, "|%s|%s|%d", s.Archive, s.Target, s.Code)
	}
	fmt.Fprintf(&b, "|+%d", r.Omitted)
	return b.String()
}

// TraceLines renders a load's trace, one line per tried candidate, as
// ROCM_KPACK_DEBUG=1 would show it.
func TraceLines(r resolver.Result) []string {
	out := make([]string, 0, len(r.Trace)+1)
	for i, s := range r.Trace {
		if r.Omitted > 0 && i == len(r.Trace)-1 {
			out = append(out, fmt.Sprintf("... %d more candidates tried, not listed (resolver.MaxTraceSteps)", r.Omitted))
		}
		out = append(out, fmt.Sprintf("arch %s: target %s in %s: %s", s.Arch, s.Target, s.Archive, s.Code.String()))
	}
	return out
}

func traceLocations(c *Context, steps []resolver.Step) []finding.Location {
	var out []finding.Location
	seen := map[string]bool{}
	for _, s := range steps {
		if seen[s.Archive] {
			continue
		}
		seen[s.Archive] = true
		if a := c.Build.ArchiveAt(s.Archive); a != nil {
			out = append(out, sim.ArchiveLocation(a))
		}
	}
	return out
}

func subject(parts ...string) string { return strings.Join(parts, "|") }
