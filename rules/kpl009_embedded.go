package rules

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/verify"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// causeLimit is an embedded entry a limit of this run left unverified.
const causeLimit = "limit"

// embeddedGroup aggregates the wrappers and agents of one (binary, cause).
type embeddedGroup struct {
	bin      *model.Binary
	cause    coCause
	entry    string // the entry ID of the first object, for messages
	limit    string // the limit that stopped the check (causeLimit)
	wrappers map[int]bool
	agents   map[string]bool
	details  []string
}

// checkEmbeddedObjects is KPL009 for embedded device code (with --deep):
// a HIP entry of an offload bundle (HIPF wrappers of an untransformed
// binary) whose bytes are not an AMDGPU HSA code object, whose ELF target
// names another processor than the entry ID (a generic object is fine
// when its family covers the ID's processor), contradicts a feature the
// ID sets, or is incompatible with an agent HIP picks the entry for
// (hip.SelectEntry, the pick KPL001 simulates): comgr picks entries by
// their ID, and ROCr then rejects the code object (hipErrorInvalidImage),
// as for an archive's (checkCodeObjects). Entries a limit left unverified
// are errors too. One finding per binary and cause.
func checkEmbeddedObjects(c *Context) []finding.Finding {
	if c.EmbeddedDeep == nil {
		return nil
	}
	groups := map[string]*embeddedGroup{}
	var order []string
	for _, bin := range c.Build.Binaries {
		if bin.Info == nil || !bin.Info.Embedded() {
			continue
		}
		picks := embeddedPicks(c, bin)
		for _, bd := range bin.Info.Bundles {
			for _, o := range c.EmbeddedDeep.Objects(bin, bd) {
				v := judgeEmbedded(o, picks[bd.Offset][o.Entry])
				if v.cause.kind == "" {
					continue
				}
				id := bin.Path + "\x00" + v.cause.kind + "\x00" + v.cause.arch + "\x00" + v.cause.target
				g := groups[id]
				if g == nil {
					g = &embeddedGroup{bin: bin, cause: v.cause, entry: o.ID, limit: o.Limit, wrappers: map[int]bool{}, agents: map[string]bool{}}
					groups[id] = g
					order = append(order, id)
				}
				g.details = append(g.details, fmt.Sprintf("%s entry %d %s%s", sim.EmbeddedName(bin, bd), o.Entry, o.ID, v.detail))
				g.wrappers[bd.Wrapper] = true
				for _, a := range v.bad {
					g.agents[a] = true
				}
			}
		}
	}
	var out []finding.Finding
	for _, id := range order {
		out = append(out, embeddedObjectFinding(groups[id]))
	}
	return out
}

// embeddedPicks returns, per bundle offset and entry index, the agents
// HIP picks that entry for: the matrix release's SelectEntry over the
// bundle's IDs for each agent, and each machine's release for each device
// its process of the binary's kind sees (by the ISA it reports).
func embeddedPicks(c *Context, bin *model.Binary) map[int64]map[int][]string {
	out := map[int64]map[int][]string{}
	rel := c.release()
	devices := machinePickers(c, bin.Info.Format == hostbin.FormatPE)
	for _, bd := range bin.Info.Bundles {
		if bd.Err != "" || out[bd.Offset] != nil {
			continue
		}
		m := map[int][]string{}
		for _, a := range c.Agents {
			isa, err := targetid.Parse(a.ISA)
			if err != nil {
				continue
			}
			if i, ok := rel.SelectEntry(bd.Entries, isa); ok {
				m[i] = append(m[i], a.ISA)
			}
		}
		for _, d := range devices {
			if i, ok := d.rel.SelectEntry(bd.Entries, d.isa); ok && !slices.Contains(m[i], d.isa.String()) {
				m[i] = append(m[i], d.isa.String())
			}
		}
		out[bd.Offset] = m
	}
	return out
}

// picker is one distinct (release, device ISA) of the machines.
type picker struct {
	rel hip.Release
	isa targetid.ID
}

// machinePickers lists the distinct releases and ISAs the machines'
// processes of one kind (windows) pick bundle entries with.
func machinePickers(c *Context, windows bool) []picker {
	if c.Machines == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []picker
	for mi, m := range c.Machines.Plan.Machines() {
		rel := m.Release()
		for _, d := range c.Machines.Plan.View(mi, windows).Devices {
			k := rel.Name + "\x00" + d.ISA.String()
			if !seen[k] {
				seen[k] = true
				out = append(out, picker{rel, d.ISA})
			}
		}
	}
	return out
}

// judgeEmbedded judges one decoded entry served to agents, as
// judgeObject judges an archive's object under its TOC arch.
func judgeEmbedded(o verify.EmbeddedObject, served []string) verdict {
	if o.Limit != "" {
		return verdict{coCause{kind: causeLimit}, nil, ": not verified: " + o.Limit}
	}
	arch := ""
	if id, ok := hip.EntryTarget(o.ID); ok {
		arch = id.String()
	}
	v := judgeObject(arch, verify.Object{Code: kpack.Success, Target: o.Target, Err: o.Err}, served)
	if v.cause.kind == causeNotAMDGPU {
		v.cause.arch = "" // every unreadable entry of a binary is one cause
	}
	return v
}

func embeddedObjectFinding(g *embeddedGroup) finding.Finding {
	var wrapped []int
	for w := range g.wrappers {
		wrapped = append(wrapped, w)
	}
	slices.Sort(wrapped)
	kernels := make([]string, len(wrapped))
	for i, w := range wrapped {
		kernels[i] = g.bin.Path + finding.EmbeddedMark + strconv.Itoa(w)
	}
	agents := sortedKeys(g.agents)
	f := finding.Finding{
		Message:  embeddedCauseMessage(g, finding.ShortKernels(kernels), agents),
		Location: WrapperLocation(g.bin),
		Kernels:  kernels,
		Agents:   agents,
		Trace:    g.details,
		Subject:  subject(g.bin.Path, "embedded-code", g.cause.kind, g.cause.arch, g.cause.target),
	}
	if g.cause.kind != causeLimit {
		f.HIPError = hipInvalidImage
	}
	return f
}

// embeddedFix is the fix of a bundle whose entries hold the wrong code.
const embeddedFix = " Fix: rebuild the binary so that each offload-bundle entry holds the code object of the target its ID names " +
	"(clang-offload-bundler --list and llvm-readelf -h on the unbundled entries show both; a bundling, objcopy or strip step mixed them up)."

func embeddedCauseMessage(g *embeddedGroup, wrappers string, agents []string) string {
	what := fmt.Sprintf("%s (embedded device code of %s, not kpack)", wrappers, g.bin.Path)
	served := ""
	if len(agents) > 0 {
		served = fmt.Sprintf(" HIP picks such entries by their ID for %s and rejects the code object there with %s.", listAgents(agents), hipInvalidImage)
	}
	switch g.cause.kind {
	case causeLimit:
		return fmt.Sprintf("%s: offload-bundle entries were not verified: %s. Fix: check that the binary is what the build made "+
			"(real device code stays far below the limit); the entries past the limit are not judged.", what, g.limit)
	case causeNotAMDGPU:
		return fmt.Sprintf("%s: offload-bundle entries hold no AMDGPU HSA code object (ELF, e_machine 224, EI_OSABI 64): %s.%s%s",
			what, listProblems(g.details), served, embeddedFix)
	case causeProcessor:
		return fmt.Sprintf("%s: the offload-bundle entry %s holds a code object whose ELF header says %s, another processor.%s%s",
			what, g.entry, g.cause.target, served, embeddedFix)
	case causeFeature:
		return fmt.Sprintf("%s: the offload-bundle entry %s holds a code object whose ELF header says %s, contradicting a feature of the entry ID.%s%s",
			what, g.entry, g.cause.target, served, embeddedFix)
	}
	return fmt.Sprintf("%s: the offload-bundle entry %s holds a code object built for %s, which does not fit every agent HIP picks the entry for.%s%s",
		what, g.entry, g.cause.target, served, embeddedFix)
}
