package sim

import (
	"maps"
	"slices"

	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// MachineDatabases holds the machines' kernel-database lookups: one per
// judged library site, HIP release and ISA some device of a machine of
// that release reports (kerneldb.Result.LookupAgent under the machine's
// release: a ROCm release ships the rocBLAS and hipBLASLt of the same
// release, so a machine of HIP 6.1 and one of newest look up one library
// in their own ways).
type MachineDatabases struct {
	Result *kerneldb.Result
	byKey  map[dbLookupKey]*kerneldb.Lookup
}

// dbLookupKey names one lookup: the site (its library, input and path:
// a release's lookups are made on sites scanned under that release),
// the HIP release and the agent ISA.
type dbLookupKey struct {
	library kerneldb.Library
	input   int
	path    string
	release string
	agent   string
}

func siteKey(s *kerneldb.Site, release, agent string) dbLookupKey {
	return dbLookupKey{s.Library, s.Input, s.Path, release, agent}
}

// NewMachineDatabases returns an empty index of r's sites' lookups on
// the machines; Add fills it.
func NewMachineDatabases(r *kerneldb.Result) *MachineDatabases {
	return &MachineDatabases{Result: r, byKey: map[dbLookupKey]*kerneldb.Lookup{}}
}

// Add records lookup l, made under HIP release release (a sim/hip row
// name, as machine.Machine.Release().Name).
func (d *MachineDatabases) Add(release string, l *kerneldb.Lookup) {
	d.byKey[siteKey(l.Site, release, l.Agent)] = l
}

// Lookup returns site s's lookup for agent ISA isa under HIP release
// release, nil when none was made.
func (d *MachineDatabases) Lookup(s *kerneldb.Site, release, isa string) *kerneldb.Lookup {
	if d == nil {
		return nil
	}
	return d.byKey[siteKey(s, release, isa)]
}

// ReleaseISAs lists, per HIP release of the plan's machines (its row
// name), every ISA a visible device of a machine of that release
// reports, in Linux and Windows processes, sorted: the lookups the
// machines need.
func ReleaseISAs(p *machine.Plan) map[string][]string {
	seen := map[string]map[string]bool{}
	for mi, m := range p.Machines() {
		rel := m.Release().Name
		if seen[rel] == nil {
			seen[rel] = map[string]bool{}
		}
		for _, w := range []bool{false, true} {
			for _, d := range p.View(mi, w).Devices {
				seen[rel][d.ISA.String()] = true
			}
		}
	}
	out := make(map[string][]string, len(seen))
	for rel, isas := range seen {
		out[rel] = slices.Sorted(maps.Keys(isas))
	}
	return out
}

// DeviceISAs lists, sorted, every ISA a visible device of the plan's
// machines reports, in Linux and Windows processes: the agents the
// machines' kernel-database lookups are made for.
func DeviceISAs(p *machine.Plan) []string {
	seen := map[string]bool{}
	for mi := range p.Machines() {
		for _, w := range []bool{false, true} {
			for _, d := range p.View(mi, w).Devices {
				seen[d.ISA.String()] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for isa := range seen {
		out = append(out, isa)
	}
	slices.Sort(out)
	return out
}
