package lint

import (
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/gate"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/report"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/verify"
)

// Check is `kpack-lint check`: it reads the inputs (stage 1), verifies
// and simulates the build and runs the rules (Run: stages 2 to 4), gates
// the findings (stage 5) and writes the reports (stage 6). It returns
// ErrFindings when findings at or above cfg.Gate.FailOn count, and, after
// the reports are written, a *MemoryError when --deep could not verify
// some code objects. Errors before the reports are usage and input
// errors (errs); a run that passes its budget of decompressed bytes
// (cfg.MaxDecompressed) ends with the input error of its
// *inflate.LimitError, no report written.
func Check(cfg Config) error {
	tree, b, err := loadBuild(&cfg)
	if err != nil {
		return err
	}
	defer tree.Close()
	res, err := Run(b, cfg)
	if err != nil {
		return errs.AsUsage(err)
	}
	if err := budgetSpent(tree); err != nil {
		return err
	}
	tellDatabases(&cfg, res)
	run := reportRun(&cfg, res, tree)
	if ms := res.Context.Machines; ms != nil {
		ms.Outcomes = nil // in the report now (up to rules.MaxMachineOutcomes of them): freed before it is written
	}
	if err := write(&cfg, run); err != nil {
		return err
	}
	if err := skipped(res, cfg.DeepOptions.MaxMemory); err != nil {
		return err
	}
	if finding.Failing(run.Findings, run.Rules, failOn(cfg.Gate), run.FailOnBaseline) > 0 {
		return ErrFindings
	}
	return nil
}

// loadBuild is stage 1 of check: the file tree and the model of the
// build, held against the policy (CheckPolicy). --deep walks the zstd
// frame chains while it verifies (Run), and verifies the embedded
// bundles of binaries read in place while it reads them (cfg.early).
func loadBuild(cfg *Config) (*vfs.Tree, *model.Build, error) {
	tree, err := openTree(cfg, vfs.Options{Want: wanted(cfg.Deep), Progress: cfg.Progress})
	if err != nil {
		return nil, nil, err
	}
	if err := wholeInputProblem(tree); err != nil {
		tree.Close()
		return nil, nil, err
	}
	var mopt model.Options
	if cfg.Deep {
		sh := cfg.Shard
		cfg.early = verify.NewEarly(cfg.DeepOptions, tree.Budget(), func(path string) bool { return sh.Has("", path) })
		mopt.Bundles = cfg.early.Hook
	}
	b := model.LoadOptions(tree, mopt)
	if err := budgetSpent(tree); err != nil {
		tree.Close()
		return nil, nil, err
	}
	if len(b.Archives) == 0 && len(b.Binaries) == 0 && len(b.Unreadable) == 0 && len(tree.Problems) == 0 && !kerneldb.HasLibraries(tree) {
		tree.Close()
		return nil, nil, errs.Usagef("%s: no .kpack archive, no HIP host binary (kpack'd or with embedded device code) and no rocBLAS, hipBLASLt, MIOpen or AOTriton library found: nothing to check (is the path right?)",
			strings.Join(cfg.Inputs, ", "))
	}
	if err := CheckPolicy(b, cfg.Policy); err != nil {
		tree.Close()
		return nil, nil, errs.AsUsage(&PolicyMismatchError{Err: err, Hint: rules.SubdirectoryHint(cfg.Inputs, b.Binaries)})
	}
	return tree, b, nil
}

// failOn is the gate's fail-on level, error when unset.
func failOn(g Gate) finding.Level {
	if g.FailOn == "" {
		return finding.LevelError
	}
	return g.FailOn
}

// tellDatabases notes which MIOpen processors were checked at DbId level
// only (the policy gives no cu_counts for them), and libraries with
// kernel databases when no target says which GPUs to simulate.
func tellDatabases(cfg *Config, res *Result) {
	if procs := kerneldb.WithoutCUs(res.Context.Databases); len(procs) > 0 {
		cfg.tell(CUsNote{Processors: procs})
	}
	db := res.Context.Databases
	if db != nil && len(db.Sites) > 0 && len(res.Context.Agents) == 0 && res.Context.Machines == nil {
		cfg.tell(NoTargetsNote{Library: db.Sites[0].Path})
	}
}

// reportRun gates the findings (stage 5: the baseline's states, then the
// waivers) and assembles what every format writes: the findings in
// report order and what was checked.
func reportRun(cfg *Config, res *Result, tree *vfs.Tree) report.Run {
	ctx := res.Context
	g := cfg.Gate
	fs := res.Findings
	if g.Baseline != nil {
		fs = gate.Compare(fs, g.Baseline.Findings, cfg.Shard.HasFinding, len(cfg.Inputs))
	}
	var notes []report.Notification
	if len(g.Waivers) > 0 {
		notes = gate.Waive(fs, g.Waivers, g.Today, cfg.Shard.Count > 1)
		notes = append(notes, gate.Expiring(g.Waivers, g.Today, g.WarnExpiring)...)
		notes = append(notes, broadWaivers(g)...)
		gate.SortNotifications(notes)
	}
	notes = append(notes, streamedNotifications(tree)...)
	if n := inferredTargets(cfg, ctx); n != nil {
		notes = append(notes, *n)
		gate.SortNotifications(notes)
	}
	k := checked(cfg, ctx)
	if g.Baseline != nil {
		for _, n := range []*report.Notification{gate.BaselineMismatch(g.Baseline.Checked, k, k.Baseline), gate.CoverageUnknown(fs, k.Baseline)} {
			if n != nil {
				cfg.tell(BaselineNote{Baseline: g.BaselineFile, Message: n.Message})
				notes = append(notes, *n)
			}
		}
		gate.SortNotifications(notes)
	}
	finding.Sort(fs)
	r := cfg.Report
	return report.Run{
		ToolName: "kpack-lint", ToolVersion: r.ToolVersion, InformationURI: r.InformationURI,
		Rules: rules.All(), Inputs: InputLabels(cfg.Inputs), Findings: fs,
		FileSize: func(input int, p string) (int64, bool) {
			e := tree.Entry(p)
			if e == nil || e.Input != input {
				return 0, false
			}
			return e.Size, true
		},
		Checked:        k,
		Inventory:      ctx.Inventory,
		Matrix:         ctx.Matrix(),
		Machines:       sim.MachineVerdicts(ctx.Machines, ctx.Build),
		Notifications:  notes,
		FailOnBaseline: g.FailOnBaseline,
		FailOn:         failOn(g),
		PathPrefix:     r.PathPrefix,
		Rerun:          r.Rerun,
		Color:          r.Color,
		NewOnly:        r.NewOnly,
		MaxPerRule:     r.MaxPerRule,
	}
}

// InferredTargetsKind is the kind of the warning a run whose target
// matrix came from the build itself gets.
const InferredTargetsKind = "inferred-targets"

// inferredTargets is a warning when no policy variant, --target or
// --agent chose the target matrix and it came from the build itself (the
// archives' gfx_arches, the kernel databases' arches or the embedded
// offload bundles): a pull request that deletes every archive of a target
// then drops that target from the check without a finding. nil otherwise.
func inferredTargets(cfg *Config, ctx *rules.Context) *report.Notification {
	src := ctx.TargetSource
	if len(cfg.Targets) > 0 || len(cfg.Agents) > 0 || len(ctx.Targets) == 0 ||
		!(strings.HasPrefix(src, "the archives' gfx_arches") || src == sim.EmbeddedSource) {
		return nil
	}
	source := ""
	if labels := InputLabels(cfg.Inputs); len(labels) > 0 {
		source = labels[0] // what the targets were read from
	}
	return &report.Notification{Level: finding.LevelWarning, Kind: InferredTargetsKind, Source: source,
		Message: "the targets checked came from the build itself (" + src + "), so a change that deletes every archive of a target " +
			"drops that target from the check without a finding; declare the targets in the policy (variants: {release: {targets: [...]}} " +
			"in policies.yaml) or pass --target for each"}
}

// broadWaivers is a warning (kind "broad-waiver") for each waiver that
// matches (nearly) everything or expires more than g.MaxWaiverDays ahead
// (policy.BroadWaivers), at its file:line.
func broadWaivers(g Gate) []report.Notification {
	var out []report.Notification
	for _, b := range policy.BroadWaivers(g.Waivers, g.Today, g.MaxWaiverDays) {
		out = append(out, report.Notification{Level: finding.LevelWarning, Kind: "broad-waiver", Source: b.Waiver.Source, Message: b.Message()})
	}
	return out
}

// checked states what the run checked, without machine paths.
func checked(cfg *Config, ctx *rules.Context) *report.Checked {
	k := &report.Checked{
		Inputs:  InputLabels(cfg.Inputs),
		Variant: ctx.Variant, Loader: string(ctx.Loader), Targets: nonNil(ctx.Targets),
		TargetSource: ctx.TargetSource, Agents: []string{}, Shard: cfg.Shard.String(),
		PathPrefix: cfg.Report.PathPrefix,
	}
	if p := cfg.Policy; p != nil {
		k.Policy = &p.Path
	}
	k.PolicySource = cfg.PolicySource
	if rr := cfg.Report.Rerun; rr.Inputs != nil {
		k.Rerun = &rr
	}
	for _, ag := range ctx.Agents {
		k.Agents = append(k.Agents, ag.ISA)
	}
	for _, f := range ctx.Families {
		k.Families = append(k.Families, report.TargetFamily{Name: f.Name, Processors: f.Processors})
	}
	if g := cfg.Gate; g.Baseline != nil {
		k.Baseline = g.BaselineName
		k.MaxKernelLoss = &g.MaxKernelLoss
	}
	k.Env = cfg.EnvList
	k.Deep = cfg.Deep
	k.HIP = ctx.HIP.Name
	k.Machines = sim.MachineInfos(ctx.Machines)
	if g := cfg.Gate; len(g.Waivers) > 0 {
		k.Waivers = fmt.Sprintf("%s (%d)", g.WaiverFiles, len(g.Waivers))
	}
	return k
}

// skipped is a *MemoryError (after the report is written) when --deep
// could not verify some code objects within the memory budget: a limit of
// this run is never a pass. It names the first object.
func skipped(res *Result, budget int64) error {
	d := res.Context.Deep
	if d == nil {
		return nil
	}
	e := &MemoryError{Budget: budget}
	d.Each(func(k verify.Key, _ *model.Archive, _ uint32, o verify.Object) {
		if o.Skipped {
			if e.Objects == 0 || verify.CompareKeys(k, e.Key) < 0 {
				e.Key, e.Err = k, o.Err
			}
			e.Objects++
		}
	})
	if e.Objects == 0 {
		return nil
	}
	return errs.AsUsage(e)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
