package rules

import (
	"fmt"
	"slices"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// release is the matrix's HIP release, the newest when unset.
func (c *Context) release() hip.Release {
	if c.HIP.Name == "" {
		return hip.Newest()
	}
	return c.HIP
}

// alone is what the only device of a process gets on the matrix's
// release from a kpack module whose load fails with code, or (fat) from
// a fat binary without code for it: each agent of the target matrix is
// its own one-device machine.
func (c *Context) alone(fat bool, code kpack.Code) machine.Outcome {
	return machine.Alone(c.release(), false, fat, code)
}

// onMatrix is the OnMachine of a target-matrix finding: the release and
// what the only device of a process gets (alone).
func (c *Context) onMatrix(o machine.Outcome) *finding.OnMachine {
	return &finding.OnMachine{HIP: c.release().Name, Outcome: o.Kind.String(),
		Registration: o.Seen.Registration, Launch: o.Seen.Launch, Then: o.Seen.Then}
}

// seenOnMatrix says in words what the only device of a process gets:
// "with HIP newest, the module load fails with ...".
func (c *Context) seenOnMatrix(o machine.Outcome) string {
	return "with HIP " + c.release().Name + " (the agent alone in its process), " + o.Seen.Text()
}

// matrixAsMachines reports whether the matrix's agents are judged as
// machines (Machines.FromMatrix), which then report its loads.
func (c *Context) matrixAsMachines() bool { return c.Machines != nil && c.Machines.FromMatrix }

// checkUnsupported is KPL001 for a target matrix whose HIP release cannot
// load kpack'd binaries at all (before PR 2622, or built without
// ROCM_KPACK_ENABLED): one finding per kpack'd host binary, on every
// agent.
func checkUnsupported(c *Context) []finding.Finding {
	o := c.alone(false, kpack.Success)
	if o.Kind != machine.Unsupported || c.matrixAsMachines() || len(c.Agents) == 0 {
		return nil
	}
	agents := make([]string, 0, len(c.Agents))
	for _, a := range c.Agents {
		agents = append(agents, a.ISA)
	}
	slices.Sort(agents)
	rel := c.release()
	var out []finding.Finding
	for _, s := range c.Sites {
		if s.Binary == nil {
			continue
		}
		msg := fmt.Sprintf("%s (kpack'd: HIPK wrappers) cannot be loaded on %s with HIP %s: it predates kpack (rocm-systems PR 2622) and does not know the HIPK wrapper magic, so %s. "+
			"Fix: use a HIP release that loads kpack'd binaries (--hip newest), or ship the binary with embedded device code.",
			finding.ShortKernels(s.Kernels), listAgents(agents), rel.Name, o.Seen.Text())
		out = append(out, finding.Finding{
			Message: msg, Location: s.Location, Kernels: s.Kernels, Agents: agents, Group: s.Group,
			HIPError: o.Seen.Error(), HIPEffect: o.Seen.Text(), Machine: c.onMatrix(o),
			Subject: subject(s.Group, s.Path, "unsupported", rel.Name),
		})
	}
	return out
}
