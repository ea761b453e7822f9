package rules

import (
	mathbits "math/bits"
	"sort"
	"sync/atomic"
	"time"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/internal/util/par"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/verify"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// Context is everything the checks read: the build, the declared matrix,
// and the simulated loads that failed.
type Context struct {
	Build   *model.Build
	Policy  *policy.Policy // nil when none was given
	Variant string         // variant name, "" when none
	Targets []string       // the variant's targets after its transforms (or --target)
	// TargetSource says where Targets came from, for messages: "the asan
	// variant of policies.yaml", "--target", or "the archives' gfx_arches, no
	// policy read".
	TargetSource string
	// Families are the TheRock target families the targets were given as
	// (--target gfx94X-dcgpu, policy targets: [gfx110X-all]), in the order
	// given; Targets holds their processors. Nil when none was.
	Families []targetid.TargetFamily
	// BadTargets are targets that stand for no agent: not valid target
	// IDs, or IDs no device can report a compatible ISA for.
	BadTargets []BadTarget
	// NothingSimulated is set when the build has loads to simulate but
	// no agent to simulate them on (KPL010 makes it an error).
	NothingSimulated bool
	Agents           []*Agent
	Loader           finding.Loader
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
	// Inputs are the inputs as given (the paths a message tells the user
	// to pass); InputNames how findings name them (lint.InputName: a base
	// name, never a machine path), in the same order.
	Inputs     []string
	InputNames []string

	// Deep holds byte-level verification (check --deep); nil otherwise.
	Deep *verify.Result
	// EmbeddedDeep holds the decoded code objects of the embedded offload
	// bundles (check --deep, verify.VerifyEmbedded); nil otherwise.
	EmbeddedDeep *verify.EmbeddedResult

	// Databases holds the simulated kernel-database lookups of rocBLAS,
	// hipBLASLt and MIOpen (KPL013); nil when they were not run.
	Databases *kerneldb.Result

	// Workers is how many goroutines Run runs checks on; 0 means
	// runtime.GOMAXPROCS(0).
	Workers int
	// RuleTimes, when not nil, receives the time Run spends per rule ID
	// (benchmarks).
	RuleTimes map[string]time.Duration

	keyIdx       map[string]*keyIndex  // per group name, built on first use
	projects     map[string][]*project // per group name, built on first use
	sitesByGroup map[string][]*Site    // built on first use
	// tails holds the findings the machine checks did not word (Run
	// sets it; nil: every finding is worded).
	tails *tails
	// dbs holds the machines' kernel-database outcomes (Run sets it;
	// nil: judged on every call).
	dbs *dbCache

	// Served records, with --deep (InitServed), which agents a simulated
	// load (either loader) selected each stored code object for: per
	// archive, a bit set of c.Agents indexes per TOC entry
	// (kpack.Entry.Index). Read it with ServedTo.
	Served      map[*model.Archive][]uint64
	servedWords int

	// Inventory is what this run's archives hold per group and target
	// (only the shard's groups with --shard). BaselineInventory is the
	// baseline report's, nil without --baseline; KPL012 compares the two
	// and reports a group x target that is gone or lost more than
	// MaxKernelLoss (a fraction, 0.1 = 10%) of its kernel keys.
	Inventory         []finding.InventoryItem
	BaselineInventory []finding.InventoryItem
	MaxKernelLoss     float64
}

// InitServed makes room to record the agents each stored code object is
// served to (Serve), for every archive that opens.
func (c *Context) InitServed() {
	c.servedWords = max(1, (len(c.Agents)+63)/64)
	c.Served = map[*model.Archive][]uint64{}
	for _, a := range c.Build.Archives {
		if a.Info != nil {
			c.Served[a] = make([]uint64, a.Info.Entries*c.servedWords)
		}
	}
}

// Serve records that entry index of archive a was served to agent
// c.Agents[agent]. Safe for concurrent use.
func (c *Context) Serve(a *model.Archive, index uint32, agent int) {
	bits := c.Served[a]
	if bits == nil {
		return
	}
	atomic.OrUint64(&bits[int(index)*c.servedWords+agent/64], 1<<(agent%64))
}

// servedBits is the bit set of agents entry index of archive a was served
// to (nil without InitServed).
func (c *Context) servedBits(a *model.Archive, index uint32) []uint64 {
	bits := c.Served[a]
	if bits == nil {
		return nil
	}
	return bits[int(index)*c.servedWords : (int(index)+1)*c.servedWords]
}

// ServedTo lists, sorted, the agent ISAs entry index of archive a was
// served to.
func (c *Context) ServedTo(a *model.Archive, index uint32) []string {
	bits := c.Served[a]
	if bits == nil {
		return nil
	}
	var out []string
	for w, word := range bits[int(index)*c.servedWords : (int(index)+1)*c.servedWords] {
		for ; word != 0; word &= word - 1 {
			out = append(out, c.Agents[w*64+mathbits.TrailingZeros64(word)].ISA)
		}
	}
	sort.Strings(out)
	return out
}

// prepare builds, for every kpack group, the indexes several checks
// share (key index, projects and their tags), on c.Workers goroutines, so
// the checks can then run at once and only read them.
func (c *Context) prepare() {
	c.groupSites("")
	groups := c.Build.Groups
	idxs := make([]*keyIndex, len(groups))
	projs := make([][]*project, len(groups))
	par.Each[any](len(groups), c.Workers, 1, nil, func(_ any, i int) {
		idxs[i] = newKeyIndex(groups[i])
		projs[i] = splitProjects(c, groups[i].Name)
		if onlyBinaries(c.groupSites(groups[i].Name)) {
			idxs[i].markReferences(projs[i]) // KPL008's referenced entries, with the masks
		} else {
			idxs[i].allMasks(projs[i])
		}
		for _, p := range projs[i] {
			tagsFor(idxs[i], p)
		}
	})
	c.keyIdx = map[string]*keyIndex{}
	c.projects = map[string][]*project{}
	c.tails = &tails{byHead: map[tailKey]*tail{}}
	c.dbs = &dbCache{}
	for i, g := range groups {
		c.keyIdx[g.Name], c.projects[g.Name] = idxs[i], projs[i]
	}
}

// onlyBinaries reports whether sites is not empty and all of host binaries.
func onlyBinaries(sites []*Site) bool {
	for _, s := range sites {
		if s.Binary == nil {
			return false
		}
	}
	return len(sites) > 0
}

// keyIndex returns the group's kernel-key index, building it once.
func (c *Context) keyIndex(g *model.Group) *keyIndex {
	if idx, ok := c.keyIdx[g.Name]; ok {
		return idx
	}
	if c.keyIdx == nil {
		c.keyIdx = map[string]*keyIndex{}
	}
	idx := newKeyIndex(g)
	c.keyIdx[g.Name] = idx
	return idx
}

// result returns the outcome's result under the policy's loader.
func (c *Context) result(o *Outcome) *resolver.Result {
	if c.Loader == finding.Legacy {
		return o.Legacy
	}
	return o.Fallthrough
}

// other returns the outcome's result under the loader the policy does not
// judge by.
func (c *Context) other(o *Outcome) *resolver.Result {
	if c.Loader == finding.Legacy {
		return o.Fallthrough
	}
	return o.Legacy
}
