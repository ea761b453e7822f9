package lint

import (
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
)

// machineDatabases runs the kernel-database lookups of the machines'
// devices: every judged library site for every ISA a visible device of a
// machine reports (rules.DeviceISAs), through kerneldb's per-agent lookup
// (Result.Simulate) on a copy of the scan, so the target matrix's lookups
// (db.Lookups, KPL013 per agent) stay as they are. This is the one place
// the machines call kerneldb. nil without machines or libraries.
func machineDatabases(db *kerneldb.Result, ms *rules.Machines) *rules.MachineDatabases {
	if ms == nil || db == nil || len(db.Sites) == 0 {
		return nil
	}
	mdb := *db
	mdb.Lookups = nil
	mdb.Simulate(ms.DeviceISAs())
	return rules.NewMachineDatabases(&mdb)
}
