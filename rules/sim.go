package rules

import "github.com/rocm-tools/kpack-lint/sim"

// The simulation's types, which package sim owns, by the names the
// checks use.
type (
	Agent            = sim.Agent
	BadTarget        = sim.BadTarget
	Site             = sim.Site
	Outcome          = sim.Outcome
	EmbeddedOutcome  = sim.EmbeddedOutcome
	Machines         = sim.Machines
	MachineOutcome   = sim.MachineOutcome
	MachineCause     = sim.MachineCause
	MachineDatabases = sim.MachineDatabases
)

// The simulation's bounds.
const (
	MaxSiteKernels     = sim.MaxSiteKernels
	MaxSiteKeyBytes    = sim.MaxSiteKeyBytes
	MaxTotalKeyBytes   = sim.MaxTotalKeyBytes
	MaxMachineOutcomes = sim.MaxMachineOutcomes
)

// The machines' kernel-database index.
var (
	NewMachineDatabases = sim.NewMachineDatabases
	ReleaseISAs         = sim.ReleaseISAs
	DeviceISAs          = sim.DeviceISAs
)

// Where findings point and how they name embedded wrappers.
var (
	ArchiveLocation = sim.ArchiveLocation
	BinaryLocation  = sim.BinaryLocation
	EmbeddedName    = sim.EmbeddedName
)
