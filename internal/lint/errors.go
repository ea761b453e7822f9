package lint

import (
	"errors"
	"fmt"

	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/verify"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// ErrFindings ends a run whose report is written and whose result fails
// it: findings at or above the fail-on level (check, merge), a load that
// fails (explain), a library that fails on an agent (explain-db). The
// command line exits 1 on it.
var ErrFindings = errors.New("the run found what fails it")

// ErrGenericAgent is the cause of an agent option whose value is a generic
// target: no device reports one (its members' ISAs do).
var ErrGenericAgent = sim.ErrGenericAgent

// NotDeviceError is the cause of an agent option whose value is an ISA no
// device reports (sim.NotDeviceError).
type NotDeviceError = sim.NotDeviceError

// DeviceISA reads an agent a device reports (sim.DeviceISA): a target ID
// in canonical feature order, or an *errs.OptionError for option "agent".
func DeviceISA(s string) (targetid.ID, error) { return sim.DeviceISA(s) }

// PolicyMismatchError is a policy that does not describe the build given
// (CheckPolicy: a group or owner glob that matches nothing); Hint, when
// set, says which folder to pass instead: the input looks like a
// subdirectory of an install tree.
type PolicyMismatchError struct {
	Err  error
	Hint string
}

func (e *PolicyMismatchError) Error() string {
	if e.Hint == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + "; " + e.Hint
}

func (e *PolicyMismatchError) Unwrap() error { return e.Err }

// MemoryError is a run whose byte-level verification could not verify
// Objects code objects within the memory budget (Budget bytes): a limit
// of the run is never a pass. Key and Err name the first of them and why.
type MemoryError struct {
	Objects int
	Budget  int64
	Key     verify.Key
	Err     string
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("%d code objects need more than the memory budget of %d MiB to decompress and were not verified (first: %s in %s, target %s: %s)",
		e.Objects, e.Budget>>20, e.Key.Kernel, e.Key.Archive, e.Key.Arch, e.Err)
}

// MachineLimitError is a run whose Machines simulated machines found
// more than Limit (rules.MaxMachineOutcomes) groups of devices that do
// not load some of a binary's code: judging stopped there, and a limit
// of the run is never a pass.
type MachineLimitError struct {
	Machines int
	Limit    int
}

func (e *MachineLimitError) Error() string {
	return fmt.Sprintf("the %d simulated machines found more than %d groups of devices that do not load some of a binary's code, "+
		"the most one run keeps (docs/limits.md): check fewer machines, or the build in parts", e.Machines, e.Limit)
}

// ErrNoDevices is explain with neither agents nor a policy: nothing says
// which devices to load on.
var ErrNoDevices = errors.New("explain: no agents given and no policy to take them from")

// KernelNotFoundError is explain's kernel key that no host binary's
// kernel name and no archive's TOC holds; Near is a kernel name of the
// build it likely means ("" when none is close).
type KernelNotFoundError struct {
	Name, Key, Near string
	CO              uint64
}

func (e *KernelNotFoundError) Error() string {
	msg := fmt.Sprintf("explain: no host binary in the input has kernel_name %q and no archive holds %s", e.Name, e.Key)
	if e.Near != "" {
		msg += fmt.Sprintf("; did you mean %s#%d?", e.Near, e.CO)
	}
	return msg
}
