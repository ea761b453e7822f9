package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/verify"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// codeObjectMismatch is KPL009: a code object does not fit the agent it is
// served to. Its findings take their ID from it (Run); explain shows the
// load that serves the code object to an agent the finding names.
var codeObjectMismatch = Rule{
	Rule: finding.Rule{
		ID: "KPL009", Name: "code-object-mismatch", Level: finding.LevelError, Explain: finding.ExplainServed,
		Title: "A code object does not fit the agent it is served to",
		Text: "The kernel's bytes are not an AMDGPU code object for the TOC key's target (or, for embedded device code, for the " +
			"offload-bundle entry ID's target), or are incompatible with an agent the loader (or HIP's bundle-entry pick) hands them " +
			"to (LLVM isCompatibleTargetID): the HIP runtime rejects them with hipErrorInvalidImage. On simulated machines, a device that " +
			"reports an ISA of another GFX generation under HSA_OVERRIDE_GFX_VERSION (releases before rocm-systems PR 5686) is served code " +
			"built for that generation.",
		Help: "Store each code object under the target ID it was built for (TheRock PR 5668); bundle each embedded code object " +
			"under the entry ID of its target.",
	},
	Checks: []Check{checkCodeObjects, checkEmbeddedObjects, checkMachineGenerations},
}

// coCause is one reason a stored code object does not fit: its kind and
// the TOC arch / object target pair it concerns ("" when not applicable).
type coCause struct {
	kind   string // causeNotAMDGPU, causeProcessor, causeFeature, causeAgent
	arch   string // TOC arch
	target string // decoded object target
}

const (
	causeNotAMDGPU  = "not-amdgpu"
	causeProcessor  = "processor"
	causeFeature    = "feature"
	causeIncompat   = "agent"
	hipInvalidImage = "hipErrorInvalidImage"
)

// coGroup aggregates the kernels and agents of one (archive, cause).
type coGroup struct {
	archive string
	cause   coCause
	kernels map[string]bool
	agents  map[string]bool
	details []string
}

// checkCodeObjects is KPL009 (with --deep only): a fetched code object that
// is not an AMDGPU HSA code object, whose ELF target names another
// processor than its TOC arch (a generic object is fine when its family
// covers the processor), that contradicts a feature the TOC arch sets, or
// that is incompatible (LLVM isCompatibleTargetID, ROCr Isa::IsCompatible)
// with an agent a simulated load served it to, which HIP rejects with
// hipErrorInvalidImage (TheRock PR 5668). One finding per (archive, cause).
func checkCodeObjects(c *Context) []finding.Finding {
	if c.Deep == nil {
		return nil
	}
	groups := map[string]*coGroup{}
	var order []string
	verdicts := map[string]verdict{} // objects of one target, arch and agent set judge alike
	var vkey []byte
	type misfit struct {
		k verify.Key
		v verdict
	}
	var misfits []misfit
	c.Deep.Each(func(k verify.Key, a *model.Archive, index uint32, o verify.Object) {
		if o.Code != kpack.Success {
			return // fetch failures are KPL001/KPL005
		}
		vkey = append(append(append(append(vkey[:0], o.Target...), 0), k.Arch...), 0)
		vkey = append(appendMask(vkey, c.ServedBits(a, index)), o.Err...)
		v, ok := verdicts[string(vkey)]
		if !ok {
			v = judgeObject(k.Arch, o, c.ServedTo(a, index))
			verdicts[string(vkey)] = v
		}
		if v.cause.kind != "" {
			misfits = append(misfits, misfit{k, v})
		}
	})
	slices.SortFunc(misfits, func(x, y misfit) int { return verify.CompareKeys(x.k, y.k) })
	for _, m := range misfits {
		k, cause, agents := m.k, m.v.cause, m.v.bad
		detail := fmt.Sprintf("%s under %s", k.Kernel, k.Arch) + m.v.detail
		id := k.Archive + "\x00" + cause.kind + "\x00" + cause.arch + "\x00" + cause.target
		g := groups[id]
		if g == nil {
			g = &coGroup{archive: k.Archive, cause: cause, kernels: map[string]bool{}, agents: map[string]bool{}}
			groups[id] = g
			order = append(order, id)
		}
		g.kernels[k.Kernel] = true
		for _, a := range agents {
			g.agents[a] = true
		}
		g.details = append(g.details, detail)
	}
	var out []finding.Finding
	for _, id := range order {
		out = append(out, codeObjectFinding(c, groups[id]))
	}
	return out
}

// verdict is judgeObject's answer: the first cause that applies, the
// incompatible agents, and the end of the trace line (after "<kernel>
// under <arch>").
type verdict struct {
	cause  coCause
	bad    []string
	detail string
}

// judgeObject judges object o stored under TOC arch arch and served to
// served.
func judgeObject(arch string, o verify.Object, served []string) verdict {
	if o.Err != "" {
		return verdict{coCause{kind: causeNotAMDGPU}, slices.Clone(served), ": " + o.Err}
	}
	obj, err := targetid.Parse(o.Target)
	if err != nil {
		return verdict{}
	}
	bad := incompatibleAgents(obj, served)
	if id, err := targetid.Parse(arch); err == nil {
		if !sameProcessor(obj, id) {
			return verdict{coCause{causeProcessor, arch, o.Target}, bad, ": code object is for " + o.Target}
		}
		if f, ok := contradiction(obj, id); ok {
			return verdict{coCause{causeFeature, arch, o.Target}, bad, fmt.Sprintf(": code object says %s", f)}
		}
	}
	if len(bad) > 0 {
		return verdict{coCause{causeIncompat, arch, o.Target}, bad,
			fmt.Sprintf(": code object %s served to %s", o.Target, strings.Join(bad, ", "))}
	}
	return verdict{}
}

// sameProcessor: the object's processor is the arch's, or a generic
// processor whose family covers it.
func sameProcessor(obj, arch targetid.ID) bool {
	return obj.Processor == arch.Processor || targetid.GenericCovers(obj.Processor, arch.Processor)
}

// contradiction returns a feature the object sets to the opposite of the
// arch's setting.
func contradiction(obj, arch targetid.ID) (targetid.Feature, bool) {
	for _, f := range obj.Features {
		if enabled, set := arch.Setting(f.Name); set && enabled != f.Enabled {
			return f, true
		}
	}
	return targetid.Feature{}, false
}

// incompatibleAgents returns the sorted agent ISAs obj cannot run on.
func incompatibleAgents(obj targetid.ID, served []string) []string {
	var out []string
	for _, agent := range served {
		id, err := targetid.Parse(agent)
		if err != nil || !targetid.CompatibleOrGeneric(obj, id) {
			out = append(out, agent)
		}
	}
	sort.Strings(out)
	return out
}

func codeObjectFinding(c *Context, g *coGroup) finding.Finding {
	a := c.Build.ArchiveAt(g.archive)
	kernels := sortedKeys(g.kernels)
	finding.SortKernels(kernels)
	agents := sortedKeys(g.agents)
	msg := causeMessage(g, finding.ShortKernels(kernels))
	if len(agents) > 0 {
		msg += fmt.Sprintf(" The loader serves them to %s, where HIP rejects them with %s.", listAgents(agents), hipInvalidImage)
	}
	msg += " Fix: store each code object under the target ID it was built for, and build it for the target IDs the agents report (TheRock PR 5668)."
	f := finding.Finding{
		Message: msg,
		Kernels: kernels,
		Agents:  agents,
		Trace:   g.details,
		Subject: subject(g.archive, g.cause.kind, g.cause.arch, g.cause.target),
	}
	if a != nil {
		f.Location, f.Group = sim.ArchiveLocation(a), a.Group()
	}
	return f
}

func causeMessage(g *coGroup, kernels string) string {
	switch g.cause.kind {
	case causeNotAMDGPU:
		return fmt.Sprintf("%s in %s are not AMDGPU HSA code objects (ELF, e_machine 224, EI_OSABI 64): %s.",
			kernels, g.archive, listProblems(g.details))
	case causeProcessor:
		return fmt.Sprintf("%s in %s are stored under %s but their ELF headers say %s, another processor.",
			kernels, g.archive, g.cause.arch, g.cause.target)
	case causeFeature:
		return fmt.Sprintf("%s in %s are stored under %s but their ELF headers say %s, contradicting a feature of the TOC arch.",
			kernels, g.archive, g.cause.arch, g.cause.target)
	}
	return fmt.Sprintf("%s in %s are stored under %s and built for %s, which does not fit every agent the loader serves them to.",
		kernels, g.archive, g.cause.arch, g.cause.target)
}
