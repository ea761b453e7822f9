// Package lint owns kpack-lint's pipeline, for every command: inputs ->
// model -> verify -> simulate -> rules -> gate -> report. It wires the
// stages, whose work is done by the packages below it (input/*,
// sim/verify, sim, rules, gate, report), and decides what the command
// line only parses: which policy a run reads and trusts (FindPolicy,
// LoadPolicy), its environment (SetEnv), the rules, releases, targets
// and formats it offers (names.go). One Config configures a run; Check,
// Explain, ExplainDB, Merge and PolicyDiff run it. Run turns a loaded
// build and a declared target matrix into the rules' context (the
// agents, sites and machines of package sim, simulated there) and runs
// the rules over the failures. Errors are the kinds of
// internal/util/errs; notes go to Config.Note.
package lint

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/machine"
	"github.com/rocm-tools/kpack-lint/sim/verify"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// Result is a finished check.
type Result struct {
	Findings []finding.Finding
	Context  *rules.Context
	Loads    int // simulated kpack_load_code_object calls (both loaders)
}

// Run is stages 2 to 4 of the pipeline over a loaded build: it verifies
// the code objects (with cfg.Deep: verifyBuild), sets the matrix, the
// machines and the kernel databases up (setUp), simulates them (package
// sim: simulate) and runs the rules over what failed (findings). Errors
// are usage errors (unknown variant, bad loader, targets or agents:
// *errs.OptionError, *policy.VariantError; too many machine outcomes:
// *MachineLimitError); problems of the build are findings.
func Run(b *model.Build, cfg Config) (*Result, error) {
	deep := verifyBuild(b, &cfg)
	c, all, err := setUp(b, &cfg, deep)
	if err != nil {
		return nil, err
	}
	loads, err := simulate(b, &cfg, c, all)
	if err != nil {
		return nil, err
	}
	return &Result{Findings: findings(c, cfg.Shard), Context: c, Loads: loads}, nil
}

// verifyBuild is --deep's verification of the shard's archives (nil
// without --deep). It comes first: --deep also walks the zstd frame
// chains, as kpack_open does (check alone reads only the TOCs), and an
// archive whose chain fails does not open; everything after must see
// that.
func verifyBuild(b *model.Build, cfg *Config) *verify.Result {
	if !cfg.Deep {
		return nil
	}
	sh := cfg.Shard
	dopt := cfg.DeepOptions
	dopt.Keep = func(a *model.Archive) bool { return sh.Has(a.Group(), a.Path) }
	dres := verify.Verify(b, dopt)
	for _, p := range slices.Sorted(maps.Keys(dres.Unopened)) {
		b.Unopen(p, dres.Unopened[p])
	}
	b.SetFetch(dres.Fetch)
	return dres
}

// setUp builds the rules' context of a run before its simulation: the
// kernel databases scanned and looked up, the matrix and the machines
// (newContext), the shard's sites (all: the build's, every shard alike),
// the --deep results and the inventories KPL012 compares.
func setUp(b *model.Build, cfg *Config, dres *verify.Result) (*rules.Context, []*sim.Site, error) {
	sh := cfg.Shard
	keep := func(g string) bool { return sh.Has(g, "") }
	// The inventory (KPL012) reads only the archives: it is taken while
	// the rest is set up, on the core the steps below leave idle.
	inventory := make(chan []finding.InventoryItem, 1)
	go func() { inventory <- b.Inventory(keep) }()
	db := kerneldb.Scan(b.Tree, kerneldb.Options{Env: cfg.DBEnv, CUs: cfg.Policy.CUs(), Deep: cfg.Deep, HIP: cfg.HIP})
	c, err := newContext(b, *cfg, db.Processors(), dres)
	if err != nil {
		<-inventory
		return nil, nil, err
	}
	all := sim.Sites(b, cfg.Env)
	for _, s := range all {
		if sh.Has(s.Group, s.Path) {
			c.Sites = append(c.Sites, s)
		}
	}
	c.NothingSimulated = len(c.Agents) == 0 && c.Machines == nil && (len(all) > 0 || sim.HasEmbedded(b))
	db.Simulate(agentISAs(c.Agents))
	c.Databases = db
	if c.Machines != nil {
		c.Machines.Databases = sim.LookupDatabases(db, c.Machines)
	}
	if dres != nil {
		c.Deep = dres
		c.InitServed(b)
		c.EmbeddedDeep = verify.VerifyEmbedded(b, cfg.DeepOptions, func(bin *model.Binary) bool { return sh.Has("", bin.Path) }, cfg.early)
	}
	c.Inventory = <-inventory
	if base := cfg.Gate.Baseline; base != nil {
		c.BaselineInventory = []finding.InventoryItem{}
		for _, it := range base.Inventory {
			if keep(it.Group) {
				c.BaselineInventory = append(c.BaselineInventory, it)
			}
		}
	}
	c.MaxKernelLoss = cfg.Gate.MaxKernelLoss / 100
	c.Workers, c.RuleTimes = cfg.Workers, cfg.RuleTimes
	return c, all, nil
}

// simulate runs the simulation of c's matrix and machines (sim.Simulate,
// sim.SimulateEmbedded, sim.JudgeEmbedded) and returns the number of
// simulated loads; all are the build's sites (setUp).
func simulate(b *model.Build, cfg *Config, c *rules.Context, all []*sim.Site) (int, error) {
	sh := cfg.Shard
	loads := sim.Simulate(b, &c.Result, c.Deep, cfg.Workers)
	c.Embedded = sim.SimulateEmbedded(b, c.HIP, c.Agents)
	if c.Machines != nil {
		sim.JudgeEmbedded(b, &c.Result, cfg.Workers, func(bin *model.Binary) bool { return sh.Has(bin.Group, bin.Path) }, all)
		if c.Machines.Exceeded() {
			return 0, errs.AsUsage(&MachineLimitError{Machines: len(c.Machines.Plan.Machines()), Limit: sim.MaxMachineOutcomes})
		}
	}
	return loads, nil
}

// findings runs the rules over c and keeps the shard's findings.
func findings(c *rules.Context, sh finding.Shard) []finding.Finding {
	var fs []finding.Finding
	for _, f := range rules.Run(c) {
		if sh.HasFinding(f) {
			fs = append(fs, f)
		}
	}
	if joined := rules.JoinUnsupported(c, fs); len(joined) != len(fs) {
		fs = joined
		finding.Sort(fs)
	}
	return fs
}

func agentISAs(agents []*sim.Agent) []string {
	out := make([]string, len(agents))
	for i, a := range agents {
		out[i] = a.ISA
	}
	return out
}

// newContext sets up the matrix and the machines (whose fixes read the
// --deep verification deep, nil without); dbArches (the processors the
// kernel databases ship files for) join the archives' targets when
// neither the policy nor --target gives any.
func newContext(b *model.Build, cfg Config, dbArches []string, deep *verify.Result) (*rules.Context, error) {
	loader := cfg.Policy.LoaderOrDefault()
	if cfg.Loader != "" {
		l, err := finding.ParseLoader(string(cfg.Loader))
		if err != nil {
			return nil, err
		}
		loader = l
	}
	v, vname, err := cfg.Policy.Variant(cfg.Variant)
	if err != nil {
		return nil, err
	}
	rel, err := sim.MatrixRelease(cfg.HIP)
	if err != nil {
		return nil, err
	}
	ms, err := sim.ResolveMachines(cfg.machineConfig())
	if err != nil {
		return nil, err
	}
	c := &rules.Context{Build: b, Policy: cfg.Policy, Variant: vname, Loader: loader, Result: sim.Result{HIP: rel},
		Inputs: cfg.Inputs, InputNames: InputNames(cfg.Inputs)}
	for _, t := range cfg.Targets {
		if _, _, err := targetid.ExpandTarget(t); err != nil {
			return nil, &errs.OptionError{Option: "target", Value: t, Err: err}
		}
	}
	if len(ms) > 0 && len(cfg.Targets) == 0 && v == nil {
		c.TargetSource = "none: machines replace the archives' gfx_arches"
	} else {
		c.Targets = targetsFor(b, v, cfg.Targets, dbArches)
		c.Families = familiesOf(v, cfg.Targets)
		c.TargetSource = targetSource(cfg.Policy, vname, cfg.Targets, len(c.Targets) > 0 && len(dbArches) > 0) + familyWords(c.Families)
		if len(c.Targets) == 0 && len(cfg.Targets) == 0 && v == nil {
			if t := sim.EmbeddedTargets(b); len(t) > 0 {
				c.Targets, c.TargetSource = t, sim.EmbeddedSource
			}
		}
	}
	agents, bad, err := sim.NewAgents(c.Targets, v, cfg.Agents, rel)
	if err != nil {
		return nil, err
	}
	c.BadTargets = bad
	if len(cfg.Targets) > 0 && len(c.BadTargets) > 0 {
		t := c.BadTargets[0]
		return nil, &errs.OptionError{Option: "target", Value: t.Target, Err: errors.New(t.Reason)}
	}
	c.Agents = agents
	for _, f := range sim.ForeignAgents(c.Agents, c.Targets, len(cfg.Agents) > 0) {
		cfg.tell(ForeignAgentNote(f))
	}
	fromMatrix := false
	if len(ms) == 0 && len(cfg.MachineEnv) > 0 {
		if ms, err = sim.MatrixMachines(cfg.MachineEnv, c.Agents, c.HIP, c.Loader); err != nil {
			return nil, err
		}
		fromMatrix = true
	}
	if len(ms) > 0 {
		plan, err := machine.NewPlan(ms)
		if err != nil {
			return nil, errs.AsUsage(err)
		}
		c.Machines = sim.NewMachines(b, plan, fromMatrix, deep)
	}
	return c, nil
}

// targetsFor returns --target when given, else the variant's transformed
// targets, else every target the build's archives declare and every
// processor the kernel databases ship files for. TheRock families
// (gfx94X-dcgpu) stand for their processors.
func targetsFor(b *model.Build, v *policy.Variant, override, dbArches []string) []string {
	switch {
	case len(override) > 0:
		out, _ := targetid.ExpandTargets(override)
		return out
	case v != nil:
		return dedupe(v.Apply(v.Targets))
	}
	all := append([]string(nil), dbArches...)
	for _, a := range b.Archives {
		if a.Info == nil {
			continue
		}
		for _, t := range a.Info.Arches {
			if _, err := targetid.Parse(t); err == nil {
				all = append(all, t) // invalid ones are the archive's KPL010
			}
		}
	}
	out := dedupe(all)
	sort.Strings(out)
	return out
}

// familiesOf are the TheRock families --target (else the variant's
// targets) named, in order.
func familiesOf(v *policy.Variant, override []string) []targetid.TargetFamily {
	given := override
	if len(given) == 0 && v != nil {
		given = v.Targets
	}
	_, fams := targetid.ExpandTargets(given)
	return fams
}

// familyWords names the families a run's targets were given as, for the
// target source: ", TheRock family gfx94X-dcgpu (gfx942)"; "" for none.
func familyWords(fams []targetid.TargetFamily) string {
	if len(fams) == 0 {
		return ""
	}
	words := make([]string, len(fams))
	for i, f := range fams {
		words[i] = f.String()
	}
	if len(fams) == 1 {
		return ", TheRock family " + words[0]
	}
	return ", TheRock families " + strings.Join(words, ", ")
}

// targetSource says where the targets came from, for messages: the policy
// file is named (by Policy.Path, as reports name it: the CLI reduces an
// absolute path to its base name) only when one was read; withDB when
// kernel-database arches joined them.
func targetSource(p *policy.Policy, variant string, override []string, withDB bool) string {
	switch {
	case len(override) > 0:
		return "--target"
	case variant != "" && p != nil && p.Path != "":
		return fmt.Sprintf("the %s variant of %s", variant, p.Path)
	case variant != "":
		return "the " + variant + " variant"
	case withDB:
		return "the archives' gfx_arches and the kernel databases' arches without a policy"
	}
	return "the archives' gfx_arches without a policy"
}

func dedupe(list []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
