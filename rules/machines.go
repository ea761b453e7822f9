package rules

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// Machines is what the simulated machines (policy machines:, --machine)
// made of the build: the plan (machines, views, arch_lists) and the
// devices that did not load their own code, per binary.
type Machines struct {
	Plan *machine.Plan
	// FromMatrix marks machines made from the target matrix's agents,
	// one device each, because the environment names machine variables
	// (HSA_OVERRIDE_GFX_VERSION, HIP_VISIBLE_DEVICES...) and no machine
	// was given: they then report the matrix's loads in place of the
	// matrix rules (KPL001, KPL006).
	FromMatrix bool
	// Outcomes are the devices that did not load their own code from some
	// modules of a binary, aggregated per machine, binary, device group
	// and outcome, in binary order.
	Outcomes []MachineOutcome
	// Judged counts the binaries judged (this shard's), ELF (Linux
	// processes) and PE (Windows processes); a machine judges those of the
	// process kinds that see a device. Kinds counts the build's, every
	// shard alike.
	Judged [2]int
	Kinds  [2]int
	// ModuleOf returns the module of a binary an outcome was first seen
	// on (MachineOutcome.First), for its fixes (Fixes).
	ModuleOf func(o *MachineOutcome) machine.Module
	// Oracle is the state behind ModuleOf, the pipeline's own
	// (internal/lint keeps the loads its fixes probe there).
	Oracle any
	// Databases are the kernel-database lookups of the machines'
	// devices (KPL013, KPL014); nil when the build ships no library
	// with one.
	Databases *MachineDatabases

	kept atomic.Int64 // outcomes reserved (Reserve)

	isasOnce sync.Once
	isas     []string
}

// DeviceISAs lists, sorted, every ISA a visible device of the machines
// reports (rules.DeviceISAs of the plan), computed once.
func (m *Machines) DeviceISAs() []string {
	m.isasOnce.Do(func() { m.isas = DeviceISAs(m.Plan) })
	return m.isas
}

// MaxMachineOutcomes bounds the outcomes (MachineOutcome: a group of a
// machine's devices that does not load some of one binary's code) a run
// keeps: each holds about 100 bytes of heap until the report is
// assembled, so the bound keeps a run within its soft memory limit
// (README "Limits"). It is 4,096 machines x 128 failing binaries with two
// device groups each; 4,096 machines x 100 binaries of therock-5543's
// iGPU case keep 737,000, the issue 17 fleet of 64 machines over the
// therock build at a tenth of its size 12,000. Past it the run stops
// judging machines (Reserve) and check exits 2 naming the limit.
const MaxMachineOutcomes = 1 << 20

// Reserve makes room for n more outcomes, and reports whether the run
// still keeps at most MaxMachineOutcomes. Safe for concurrent use.
func (m *Machines) Reserve(n int) bool {
	return m.kept.Add(int64(n)) <= MaxMachineOutcomes
}

// Exceeded reports whether the run found more outcomes than
// MaxMachineOutcomes (the outcomes are then incomplete).
func (m *Machines) Exceeded() bool { return m.kept.Load() > MaxMachineOutcomes }

// MachineOutcome is one outcome of some devices of one machine from some
// modules of one binary: the kernel keys of its HIPK wrappers (Site set)
// or the names of its embedded wrappers (EmbeddedName, Site nil). The
// outcome itself (MachineCause) is shared by every binary that has it.
// At most one per binary, machine, device group and outcome: a few
// dozen bytes each, as a build has up to MaxMachines (4,096) of them per
// failing binary and device group.
type MachineOutcome struct {
	*MachineCause
	Binary  *model.Binary
	Site    *Site
	Kernels []string
	// Join identifies the binaries the findings join this outcome with
	// (kpack'd binaries of one group that look for archives alike, the
	// folder's; an embedded binary alone): outcomes of one machine,
	// devices and outcome with one Join are one finding.
	Join int
	// First is the module the outcome was first seen on: the index of
	// its kernel key in Site.Kernels, or of the embedded wrapper in
	// Binary.Info.Bundles (Machines.ModuleOf).
	First int
}

// MachineCause is an outcome of some devices of one machine, shared by
// the binaries that have it.
type MachineCause struct {
	Machine int // index into Plan.Machines()
	Windows bool
	// Devices are the HIP indexes sharing the outcome, all of one ISA, in
	// order.
	Devices []int
	Outcome machine.Outcome
	// Failed: the module load fails for every device.
	Failed bool
}

// Fixes returns the ways out users reported for o's devices
// (machine.Plan.Fixes of the module it was first seen on); none without
// ModuleOf.
func (m *Machines) Fixes(o *MachineOutcome) []machine.Fix {
	if m.ModuleOf == nil {
		return nil
	}
	return m.Plan.Fixes(m.ModuleOf(o), o.Machine, o.Windows, o.Devices, o.Outcome)
}

// View returns what the outcome's process sees.
func (m *Machines) View(o *MachineOutcome) *machine.View { return m.Plan.View(o.Machine, o.Windows) }

// Machine returns the outcome's machine.
func (m *Machines) Machine(o *MachineOutcome) machine.Machine { return m.Plan.Machines()[o.Machine] }

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
