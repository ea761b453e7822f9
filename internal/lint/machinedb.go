package lint

import (
	"maps"
	"slices"

	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
)

// machineDatabases runs the kernel-database lookups of the machines'
// devices: every judged library site for every ISA a visible device of a
// machine reports (sim.ReleaseISAs), under that machine's HIP release,
// through kerneldb's per-agent lookup (Result.LookupAgent, which leaves
// the target matrix's lookups, db.Lookups, as they are). This is the one
// place the machines call kerneldb. nil without machines or libraries.
func machineDatabases(db *kerneldb.Result, ms *sim.Machines) *sim.MachineDatabases {
	if ms == nil || db == nil || len(db.Sites) == 0 {
		return nil
	}
	d := sim.NewMachineDatabases(db)
	byRelease := sim.ReleaseISAs(ms.Plan)
	for _, rel := range slices.Sorted(maps.Keys(byRelease)) {
		for _, isa := range byRelease[rel] {
			ls, err := db.LookupAgent(isa, rel, db.Env())
			if err != nil {
				continue // the plan's ISAs are valid target IDs
			}
			for _, l := range ls {
				d.Add(rel, l)
			}
		}
	}
	return d
}
