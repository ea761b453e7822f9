// Package lint owns kpack-lint's pipeline, for every command: inputs ->
// model -> verify -> simulate -> rules -> gate -> report. One Config
// configures a run; Check, Explain, ExplainDB and Merge run it. Run turns
// a loaded build and a declared target matrix into agents and load sites,
// verifies the code objects with --deep, simulates every kernel x agent
// with both loaders and runs the rules over the failures. Errors are the
// kinds of internal/util/errs; notes go to Config.Note.
package lint

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/hip"
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

// Run verifies (with cfg.Deep) and simulates the build under cfg and runs
// the rules: stages 2 to 4. Errors are usage errors (unknown variant, bad
// loader, targets or agents: *errs.OptionError, *policy.VariantError);
// problems of the build are findings.
func Run(b *model.Build, cfg Config) (*Result, error) {
	sh := cfg.Shard
	var dres *verify.Result
	if cfg.Deep {
		// First: --deep also walks the zstd frame chains, as kpack_open
		// does (check alone reads only the TOCs), and an archive whose
		// chain fails does not open; everything below must see that.
		dopt := cfg.DeepOptions
		dopt.Keep = func(a *model.Archive) bool { return sh.Has(a.Group(), a.Path) }
		dres = verify.Verify(b, dopt)
		for _, p := range slices.Sorted(maps.Keys(dres.Unopened)) {
			b.Unopen(p, dres.Unopened[p])
		}
		b.SetFetch(dres.Fetch)
	}
	db := kerneldb.Scan(b.Tree, kerneldb.Options{Env: cfg.DBEnv, CUs: cfg.Policy.CUs(), Deep: cfg.Deep, HIP: cfg.HIP})
	c, err := newContext(b, cfg, db.Processors())
	if err != nil {
		return nil, err
	}
	all := sites(b, cfg.Env)
	for _, s := range all {
		if sh.Has(s.Group, s.Path) {
			c.Sites = append(c.Sites, s)
		}
	}
	c.NothingSimulated = len(c.Agents) == 0 && c.Machines == nil && (len(all) > 0 || hasEmbedded(b))
	db.Simulate(agentISAs(c.Agents))
	c.Databases = db
	if c.Machines != nil {
		c.Machines.Databases = machineDatabases(db, c.Machines)
	}
	if dres != nil {
		c.Deep = dres
		c.InitServed(b)
		c.EmbeddedDeep = verify.VerifyEmbedded(b, cfg.DeepOptions, func(bin *model.Binary) bool { return sh.Has("", bin.Path) })
	}
	keep := func(g string) bool { return sh.Has(g, "") }
	c.Inventory = b.Inventory(keep)
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
	loads := Simulate(b, &c.Result, c.Deep, cfg.Workers)
	c.Embedded = simulateEmbedded(b, c.HIP, c.Agents)
	if c.Machines != nil {
		judgeEmbedded(b, &c.Result, cfg.Workers, func(bin *model.Binary) bool { return sh.Has(bin.Group, bin.Path) }, all)
		if c.Machines.Exceeded() {
			return nil, errs.AsUsage(&MachineLimitError{Machines: len(c.Machines.Plan.Machines()), Limit: sim.MaxMachineOutcomes})
		}
	}
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
	return &Result{Findings: fs, Context: c, Loads: loads}, nil
}

func agentISAs(agents []*sim.Agent) []string {
	out := make([]string, len(agents))
	for i, a := range agents {
		out[i] = a.ISA
	}
	return out
}

// newContext sets up the matrix; dbArches (the processors the kernel
// databases ship files for) join the archives' targets when neither the
// policy nor --target gives any.
func newContext(b *model.Build, cfg Config, dbArches []string) (*rules.Context, error) {
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
	rel, err := matrixRelease(cfg.HIP)
	if err != nil {
		return nil, err
	}
	ms, err := resolveMachines(cfg.machineConfig())
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
			if t := embeddedTargets(b); len(t) > 0 {
				c.Targets, c.TargetSource = t, embeddedSource
			}
		}
	}
	agents, bad, err := agentsFor(c.Targets, v, cfg.Agents, rel)
	if err != nil {
		return nil, err
	}
	c.BadTargets = bad
	if len(cfg.Targets) > 0 && len(c.BadTargets) > 0 {
		t := c.BadTargets[0]
		return nil, &errs.OptionError{Option: "target", Value: t.Target, Err: errors.New(t.Reason)}
	}
	c.Agents = agents
	for _, f := range foreignAgents(c.Agents, c.Targets, len(cfg.Agents) > 0) {
		cfg.tell(ForeignAgentNote(f))
	}
	fromMatrix := false
	if len(ms) == 0 && len(cfg.MachineEnv) > 0 {
		if ms, err = matrixMachines(cfg.MachineEnv, c.Agents, c.HIP, c.Loader); err != nil {
			return nil, err
		}
		fromMatrix = true
	}
	if len(ms) > 0 {
		plan, err := machine.NewPlan(ms)
		if err != nil {
			return nil, errs.AsUsage(err)
		}
		pr := &probes{build: b, deep: func() *verify.Result { return c.Deep }}
		c.Machines = &sim.Machines{Plan: plan, FromMatrix: fromMatrix, ModuleOf: moduleOf(pr), Oracle: pr}
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

// agentsFor expands targets into agent ISAs (targetid.AgentISAs, or the
// variant's explicit agents), or takes the agents given (DeviceISA), and
// lists the targets that stand for no agent. Each agent's arch_list is
// what rel's HIP passes for it (archList).
func agentsFor(targets []string, v *policy.Variant, override []string, rel hip.Release) ([]*sim.Agent, []sim.BadTarget, error) {
	var bads []sim.BadTarget
	byISA := map[string]*sim.Agent{}
	var order []string
	add := func(isa targetid.ID, target string) {
		a := byISA[isa.String()]
		if a == nil {
			a = &sim.Agent{ISA: isa.String(), ArchList: archList(v, isa, rel)}
			byISA[a.ISA] = a
			order = append(order, a.ISA)
		}
		if target != "" && !slices.Contains(a.Targets, target) {
			a.Targets = append(a.Targets, target)
		}
	}
	if len(override) > 0 {
		for _, s := range override {
			id, err := DeviceISA(s)
			if err != nil {
				return nil, nil, err
			}
			add(id, matchingTarget(targets, id))
		}
	} else {
		for _, t := range targets {
			isas, bad := expandTarget(v, t)
			if bad != nil {
				bads = append(bads, *bad)
				continue
			}
			for _, isa := range isas {
				add(isa, t)
			}
		}
	}
	out := make([]*sim.Agent, 0, len(order))
	for _, isa := range order {
		out = append(out, byISA[isa])
	}
	return out, bads, nil
}

// expandTarget returns the agent ISAs target stands for, or why it stands
// for none.
func expandTarget(v *policy.Variant, t string) ([]targetid.ID, *sim.BadTarget) {
	id, err := targetid.Parse(t)
	if err != nil {
		return nil, &sim.BadTarget{Target: t, Reason: fmt.Sprintf("it is not a valid target ID (%v)", err)}
	}
	if agents := v.AgentsFor(t); len(agents) > 0 {
		var out []targetid.ID
		for _, a := range agents {
			isa, _ := targetid.Parse(a) // policy.Parse checked them
			out = append(out, isa)
		}
		return out, nil
	}
	if isas := targetid.AgentISAs(id); len(isas) > 0 {
		return isas, nil
	}
	reason := "no device reports an ISA compatible with it"
	if src, bare := targetid.ReportsBareISA(id.Processor); bare {
		reason = fmt.Sprintf("%s devices report the bare ISA %s (%s), which accepts only code objects built without feature settings",
			id.Processor, id.Processor, src)
	}
	return nil, &sim.BadTarget{Target: t, Reason: reason, Hint: id.Processor}
}

// matchingTarget names the first policy target an explicit agent satisfies.
func matchingTarget(targets []string, agent targetid.ID) string {
	for _, t := range targets {
		if id, err := targetid.Parse(t); err == nil && targetid.CompatibleOrGeneric(id, agent) {
			return t
		}
	}
	return ""
}

// archList is what rel's HIP passes for the agent (hip.Release.ArchList:
// the ISA, then its generic target in the release's TargetGenericMap),
// unless the variant's arch_list replaces the entries after the ISA for
// its processor.
func archList(v *policy.Variant, isa targetid.ID, rel hip.Release) []string {
	if v != nil {
		if entries, ok := v.ArchList[isa.Processor]; ok {
			return append([]string{isa.String()}, entries...)
		}
	}
	return rel.ArchList(isa)
}

// sites lists every place kernels load from: each kpack'd host binary with
// a valid reference, and the archive folders of groups no binary uses.
func sites(b *model.Build, env resolver.Env) []*sim.Site {
	var out []*sim.Site
	used := map[string]bool{}
	keyBytes := sim.MaxTotalKeyBytes // left for the binaries' kernel keys
	for _, bin := range b.Binaries {
		if s := binarySite(bin, env, &keyBytes); s != nil {
			out = append(out, s)
			used[s.Group] = true
		}
	}
	for _, g := range b.Groups {
		if !used[g.Name] && len(g.Binaries) == 0 {
			out = append(out, archiveSites(b, g, env)...)
		}
	}
	return out
}

// binarySite is bin's site; its kernel keys take at most
// sim.MaxSiteKeyBytes of *keyBytes, the bytes left for the run's keys.
func binarySite(bin *model.Binary, env resolver.Env, keyBytes *int) *sim.Site {
	info := bin.Info
	if info == nil || info.Ref == nil {
		return nil
	}
	cos := info.COIndexes()
	if len(cos) == 0 {
		return nil
	}
	var paths []string
	for _, p := range info.Ref.SearchPaths {
		paths = append(paths, hostbin.NormalizeSearchPath(p, info.Format))
	}
	cos, dropped := firstDistinct(cos, sim.MaxSiteKernels)
	keyLen := len(info.Ref.KernelName) + len("#4294967295") // the most a key takes
	if room := min(*keyBytes, sim.MaxSiteKeyBytes); keyLen*len(cos) > room {
		slices.Sort(cos)
		keep := room / keyLen
		cos, dropped = cos[:keep], dropped+len(cos)-keep
	}
	*keyBytes -= keyLen * len(cos)
	slices.Sort(cos) // one kernel name: SortKernels order is co_index order
	kernels := make([]string, len(cos))
	for i, co := range cos {
		kernels[i] = info.Ref.KernelName + "#" + strconv.FormatUint(uint64(co), 10)
	}
	return &sim.Site{
		Binary: bin, Group: bin.Group, Path: bin.Path, Kernels: kernels, Dropped: dropped,
		Request: resolver.Request{SearchPaths: paths, BinaryDir: bin.Dir(), Env: env,
			Windows: info.Format == hostbin.FormatPE},
		Location: sim.BinaryLocation(bin),
	}
}

// firstDistinct returns the first max distinct values of cos, in any
// order, and how many distinct values came after them.
func firstDistinct(cos []uint32, max int) ([]uint32, int) {
	if len(cos) <= max {
		out := slices.Clone(cos)
		slices.Sort(out)
		return slices.Compact(out), 0
	}
	var out []uint32
	seen := map[uint32]bool{}
	dropped := 0
	for _, co := range cos {
		switch {
		case seen[co]:
		case len(out) == max:
			dropped++
		default:
			out = append(out, co)
		}
		seen[co] = true
	}
	return out, dropped
}

// archiveSites gives one site per folder of an archive-only group: its
// kernels are the TOC keys and its search path is
// "<group>_@GFXARCH@.kpack" in that folder, then any archive of the folder
// not named after that pattern.
func archiveSites(b *model.Build, g *model.Group, env resolver.Env) []*sim.Site {
	byDir := map[string][]*model.Archive{}
	var dirs []string
	for _, a := range g.Archives {
		d := path.Dir(a.Path)
		if byDir[d] == nil {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], a)
	}
	sort.Strings(dirs)
	var out []*sim.Site
	for _, d := range dirs {
		out = append(out, archiveSite(b, g.Name, d, byDir[d], env))
	}
	return out
}

func archiveSite(b *model.Build, group, dir string, archives []*model.Archive, env resolver.Env) *sim.Site {
	paths := []string{group + "_" + kpack.GfxArch + ".kpack"}
	keys := map[string]bool{}
	walked := map[kpack.TOCID]bool{} // hard links and copies share one parsed TOC
	for _, a := range archives {
		if a.NameGroup != group {
			paths = append(paths, path.Base(a.Path))
		}
		if a.Info == nil || walked[a.Info.TOCID()] {
			continue
		}
		walked[a.Info.TOCID()] = true
		for k := range a.Info.Kernels {
			if name, _, _ := finding.SplitKey(k); b.Untransformed(name) == nil {
				keys[k] = true // an untransformed binary's keys are never loaded (KPL011)
			}
		}
	}
	kernels := make([]string, 0, len(keys))
	for k := range keys {
		kernels = append(kernels, k)
	}
	finding.SortKernels(kernels)
	return &sim.Site{
		Group: group, Path: dir, Kernels: kernels,
		Request:  resolver.Request{SearchPaths: paths, BinaryDir: dir, Env: env},
		Location: sim.ArchiveLocation(archives[0]),
	}
}

// hasEmbedded reports whether the build has binaries with embedded device
// code to simulate.
func hasEmbedded(b *model.Build) bool {
	for _, bin := range b.Binaries {
		if bin.Info != nil && bin.Info.Embedded() {
			return true
		}
	}
	return false
}

// simulateEmbedded picks, for every binary with embedded device code and
// every agent, the offload-bundle entry rel's HIP would load for each
// embedded wrapper (hip.Release.SelectEntry), and records the wrappers
// that get none, and the wrappers whose bundle does not read (HIP fails
// the module load on every device). Each distinct bundle is judged once
// per agent.
func simulateEmbedded(b *model.Build, rel hip.Release, agents []*sim.Agent) []sim.EmbeddedOutcome {
	var out []sim.EmbeddedOutcome
	for _, bin := range b.Binaries {
		if bin.Info == nil || !bin.Info.Embedded() {
			continue
		}
		shared, broken := bundleGroups(bin.Info.Bundles)
		for _, a := range agents {
			isa, err := targetid.Parse(a.ISA)
			if err != nil {
				continue
			}
			var missing []int
			for _, g := range shared {
				if _, ok := rel.SelectEntry(bin.Info.Bundles[g[0]].Entries, isa); !ok {
					missing = append(missing, g...)
				}
			}
			slices.Sort(missing)
			if len(missing) > 0 || len(broken) > 0 {
				out = append(out, sim.EmbeddedOutcome{Binary: bin, Agent: a, Missing: missing, Broken: broken})
			}
		}
	}
	return out
}

// bundleGroups splits bundle indexes into groups sharing one readable
// bundle (by file offset; -1, no bundle section, is one group) and the
// indexes of bundles that do not read.
func bundleGroups(bundles []hostbin.Bundle) (shared [][]int, broken []int) {
	byOffset := map[int64]int{}
	for i, bd := range bundles {
		if bd.Err != "" {
			broken = append(broken, i)
			continue
		}
		g, ok := byOffset[bd.Offset]
		if !ok {
			g = len(shared)
			byOffset[bd.Offset] = g
			shared = append(shared, nil)
		}
		shared[g] = append(shared[g], i)
	}
	return shared, broken
}
