package rules

import (
	"time"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/internal/util/par"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim"
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
	Loader   finding.Loader
	// Result is what the simulation made of the build on the matrix and
	// the machines: the agents, sites, failing loads and machine outcomes.
	sim.Result
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

	keyIdx       map[string]*keyIndex   // per group name, built on first use
	projects     map[string][]*project  // per group name, built on first use
	sitesByGroup map[string][]*sim.Site // built on first use
	// tails holds the findings the machine checks did not word (Run
	// sets it; nil: every finding is worded).
	tails *tails
	// dbs holds the machines' kernel-database outcomes (Run sets it;
	// nil: judged on every call).
	dbs *dbCache

	// Inventory is what this run's archives hold per group and target
	// (only the shard's groups with --shard). BaselineInventory is the
	// baseline report's, nil without --baseline; KPL012 compares the two
	// and reports a group x target that is gone or lost more than
	// MaxKernelLoss (a fraction, 0.1 = 10%) of its kernel keys.
	Inventory         []finding.InventoryItem
	BaselineInventory []finding.InventoryItem
	MaxKernelLoss     float64
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
func onlyBinaries(sites []*sim.Site) bool {
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
func (c *Context) result(o *sim.Outcome) *resolver.Result {
	if c.Loader == finding.Legacy {
		return o.Legacy
	}
	return o.Fallthrough
}

// other returns the outcome's result under the loader the policy does not
// judge by.
func (c *Context) other(o *sim.Outcome) *resolver.Result {
	if c.Loader == finding.Legacy {
		return o.Fallthrough
	}
	return o.Legacy
}
