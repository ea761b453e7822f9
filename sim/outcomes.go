package sim

import (
	"sync"
	"sync/atomic"

	"github.com/rocm-tools/kpack-lint/input/model"
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
	// Oracle is the state behind ModuleOf (NewMachines: the simulation
	// keeps the loads its fixes probe there).
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
// reports (DeviceISAs of the plan), computed once.
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
