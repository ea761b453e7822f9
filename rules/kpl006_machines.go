package rules

import (
	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// checkMachineMissing is KPL006 for the machines: devices for which no
// kpack archive opens (ARCHIVE_NOT_FOUND, error 13).
func checkMachineMissing(c *Context) []finding.Finding {
	return machineFindings(c, func(o *sim.MachineOutcome) bool {
		return o.Outcome.Kind == machine.NoCode && o.Site != nil && o.Outcome.Code == kpack.ArchiveNotFound
	})
}
