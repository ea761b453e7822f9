// Package sim is the simulation of a build on its target matrix and its
// machines: which agents a matrix stands for, where kernels are loaded
// from (sites), every kernel loaded on every agent with both loaders
// (outcomes), the embedded device code HIP picks per agent, and every
// module judged on every simulated machine (machine outcomes, the
// machines' kernel-database lookups). It returns what it found for the
// rules to read; it reads no rule and words no finding. Its models of
// the runtime are the packages below it: sim/hip (HIP's releases),
// sim/machine (one process over several devices), sim/kerneldb (the
// libraries' kernel databases) and sim/verify (the code objects, byte
// for byte); the kpack loader itself is package resolver.
package sim

import (
	mathbits "math/bits"
	"sort"
	"sync/atomic"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim/hip"
)

// Agent is one simulated device: a fully specified agent ISA, the policy
// targets it stands for, and the arch_list HIP passes for it (the ISA, then
// any generic fallbacks).
type Agent struct {
	ISA      string   // e.g. "gfx950:sramecc+:xnack+"
	Targets  []string // policy targets it expands, e.g. ["gfx950:xnack+"]
	ArchList []string
}

// BadTarget is a declared target that is not simulated, and why.
type BadTarget struct {
	Target string
	Reason string // "it is not a valid target ID (...)", "gfx90c devices report the bare ISA ..."
	Hint   string // a target to use instead, "" when there is none
}

// Site is one place kernels are loaded from: a host binary (its kernel keys
// are kernel_name#co_index per HIPK wrapper), or, for a kpack group with no
// host binary, the folder of its archives (the kernels are the TOC keys).
type Site struct {
	Binary   *model.Binary // nil for an archive-only group
	Group    string
	Path     string   // the binary's path, or the archives' folder
	Kernels  []string // kernel keys, sorted by name then co_index
	Request  resolver.Request
	Location finding.Location
	// Dropped counts kernels of the binary past MaxSiteKernels (or past
	// MaxSiteKeyBytes and MaxTotalKeyBytes of keys) that were not
	// simulated.
	Dropped int
}

// MaxSiteKernels bounds the distinct co_indexes simulated per host binary
// (one HIPK wrapper per translation unit; real libraries have thousands).
// It keeps memory bounded on a hostile fat-binary section; the rest are
// reported by KPL007.
const MaxSiteKernels = 1 << 16

// Bounds on the bytes of kernel keys ("<kernel_name>#<co_index>") the
// simulation builds for host binaries: per binary and for the whole run.
// A reference may name a 64 KiB kernel_name and a binary may hold 65,536
// co_indexes, 4 GiB of keys; a real library holds a few MB. A binary
// whose keys pass a bound has its first co_indexes simulated, and the
// rest are reported by KPL007 like those past MaxSiteKernels.
const (
	MaxSiteKeyBytes  = 16 << 20
	MaxTotalKeyBytes = 64 << 20
)

// Outcome is one kernel on one agent that at least one loader fails to load.
type Outcome struct {
	Site        *Site
	Key         string
	Agent       *Agent
	Plan        *resolver.Plan
	Legacy      *resolver.Result // shared between outcomes with the same trace
	Fallthrough *resolver.Result
}

// EmbeddedOutcome is one binary with embedded device code (HIPF
// wrappers, no kpack) on one agent: the embedded wrappers (indexes into
// Binary.Info.Bundles) whose offload bundle holds no code object the agent
// can run, and those whose bundle does not read at all.
type EmbeddedOutcome struct {
	Binary  *model.Binary
	Agent   *Agent
	Missing []int
	Broken  []int
}

// Result is what the simulation made of a build: the agents of the
// target matrix and the sites, the loads that fail on them, the embedded
// device code HIP finds nothing for, and the simulated machines and
// their outcomes. The rules read it (rules.Context embeds it).
type Result struct {
	// BadTargets are targets that stand for no agent: not valid target
	// IDs, or IDs no device can report a compatible ISA for.
	BadTargets []BadTarget
	// NothingSimulated is set when the build has loads to simulate but
	// no agent to simulate them on (KPL010 makes it an error).
	NothingSimulated bool
	Agents           []*Agent
	// HIP is the HIP release each agent of the matrix is judged by, the
	// only device of its process (--hip; the zero Release is the newest).
	HIP hip.Release
	// Machines holds the simulated machines; nil without any.
	Machines *Machines
	Sites    []*Site
	Outcomes []Outcome // in site, agent, kernel order
	// Embedded lists, per binary with embedded device code and agent, the
	// embedded wrappers HIP finds no code object for.
	Embedded []EmbeddedOutcome
	// Served records, with --deep (InitServed), which agents a simulated
	// load (either loader) selected each stored code object for: per
	// archive, a bit set of Agents indexes per TOC entry
	// (kpack.Entry.Index). Read it with ServedTo.
	Served      map[*model.Archive][]uint64
	servedWords int
}

// InitServed makes room to record the agents each stored code object is
// served to (Serve), for every archive of b that opens.
func (r *Result) InitServed(b *model.Build) {
	r.servedWords = max(1, (len(r.Agents)+63)/64)
	r.Served = map[*model.Archive][]uint64{}
	for _, a := range b.Archives {
		if a.Info != nil {
			r.Served[a] = make([]uint64, a.Info.Entries*r.servedWords)
		}
	}
}

// Serve records that entry index of archive a was served to agent
// r.Agents[agent]. Safe for concurrent use.
func (r *Result) Serve(a *model.Archive, index uint32, agent int) {
	bits := r.Served[a]
	if bits == nil {
		return
	}
	atomic.OrUint64(&bits[int(index)*r.servedWords+agent/64], 1<<(agent%64))
}

// ServedBits is the bit set of agents entry index of archive a was served
// to (nil without InitServed).
func (r *Result) ServedBits(a *model.Archive, index uint32) []uint64 {
	bits := r.Served[a]
	if bits == nil {
		return nil
	}
	return bits[int(index)*r.servedWords : (int(index)+1)*r.servedWords]
}

// ServedTo lists, sorted, the agent ISAs entry index of archive a was
// served to.
func (r *Result) ServedTo(a *model.Archive, index uint32) []string {
	bits := r.Served[a]
	if bits == nil {
		return nil
	}
	var out []string
	for w, word := range bits[int(index)*r.servedWords : (int(index)+1)*r.servedWords] {
		for ; word != 0; word &= word - 1 {
			out = append(out, r.Agents[w*64+mathbits.TrailingZeros64(word)].ISA)
		}
	}
	sort.Strings(out)
	return out
}
