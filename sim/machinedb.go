package sim

import (
	"maps"
	"slices"

	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
)

// LookupDatabases runs the kernel-database lookups of the machines'
// devices: every judged library site for every ISA a visible device of a
// machine reports (ReleaseISAs), under that machine's HIP release,
// through kerneldb's per-agent lookup (Result.LookupAgent, which leaves
// the target matrix's lookups, db.Lookups, as they are). This is the one
// place the machines call kerneldb. nil without machines or libraries.
func LookupDatabases(db *kerneldb.Result, ms *Machines) *MachineDatabases {
	if ms == nil || db == nil || len(db.Sites) == 0 {
		return nil
	}
	d := NewMachineDatabases(db)
	byRelease := ReleaseISAs(ms.Plan)
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
