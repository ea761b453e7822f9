package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/gate"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/report"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// Merge is `kpack-lint merge`: its inputs are the JSON or SARIF reports of
// every shard of one check (stage 1: report.Read, then gate.CheckShard:
// each holds only what check --shard writes for what it checked and
// only findings of its own kpack groups; checkLevels: each finding at a
// level its rule has under merge's policy, cfg.Policy), which gate.Merge
// joins into the report of the whole run. What merge can compute it
// computes itself, from its own policy and flags, never from a shard
// (stage 5): the target matrix the shards say they checked must be the
// one cfg declares (checkMatrix); gate.Rebase gives the baseline states
// against cfg.Gate.Baseline (none: no states); rewaive applies
// cfg.Gate's waivers (the policy's and --waivers), dropping every
// shard's suppression and waiver notification. The reports are written
// as cfg.Report says (stage 6), an output without a format in the first
// report's. The shards together hold at most report.MaxReadFindings
// findings, as one report does. It returns ErrFindings when findings at
// or above cfg.Gate.FailOn count, as check of the whole run would.
func Merge(cfg Config) error {
	var runs []report.Run
	var firstFormat string
	total := 0         // findings of the shards read so far
	all := rules.All() // one copy for every shard
	for i, p := range cfg.Inputs {
		data, err := fsutil.ReadFile(p, report.MaxReadSize)
		if err != nil {
			return errs.AsInput(fmt.Errorf("merge: %s: %v", p, err))
		}
		r, format, err := report.Read(data)
		if err != nil {
			return errs.AsInput(fmt.Errorf("merge: %s: %v", p, err))
		}
		if i == 0 {
			firstFormat = format
		}
		r.Rules = all
		if err := gate.CheckShard(r); err != nil {
			return errs.AsUsage(fmt.Errorf("merge: %s: %v", p, err))
		}
		if err := checkLevels(cfg.Policy, r); err != nil {
			return errs.AsUsage(fmt.Errorf("merge: %s: %v", p, err))
		}
		if total += len(r.Findings); total > report.MaxReadFindings {
			return errs.AsInput(fmt.Errorf("merge: %s: the shards up to it hold %d findings, more than the %d a report may hold (report.MaxReadFindings): "+
				"the merged report could not be read back as a baseline", p, total, report.MaxReadFindings))
		}
		runs = append(runs, r)
	}
	merged, err := gate.Merge(runs, cfg.Inputs...)
	if err != nil {
		return errs.AsUsage(err)
	}
	if err := checkMatrix(&cfg, merged.Checked); err != nil {
		return errs.AsUsage(fmt.Errorf("merge: %v", err))
	}
	merged = rebase(&cfg, merged)
	merged = rewaive(&cfg, merged)
	merged.Rules = all
	merged.FailOnBaseline, merged.FailOn = cfg.Gate.FailOnBaseline, failOn(cfg.Gate)
	merged.Color = cfg.Report.Color
	merged.NewOnly, merged.MaxPerRule = cfg.Report.NewOnly, cfg.Report.MaxPerRule
	outs := make([]Output, len(cfg.Report.Outputs))
	for i, o := range cfg.Report.Outputs {
		if o.Format == "" {
			o.Format = firstFormat
		}
		outs[i] = o
	}
	cfg.Report.Outputs = outs
	if err := write(&cfg, merged); err != nil {
		return err
	}
	if finding.Failing(merged.Findings, merged.Rules, failOn(cfg.Gate), merged.FailOnBaseline) > 0 {
		return ErrFindings
	}
	return nil
}

// checkLevels fails for a finding of r (a shard; absent findings are the
// baseline's and dropped) at a level its rule cannot have under p
// (rules.Levels): a shard cannot turn an error into a note, nor keep a
// finding of a rule the policy turns off.
func checkLevels(p *policy.Policy, r report.Run) error {
	for i, f := range r.Findings {
		if f.Baseline == finding.BaselineAbsent {
			continue
		}
		allowed := rules.Levels(f.RuleID, p.RuleLevel(f.RuleID))
		if slices.Contains(allowed, f.Level) {
			continue
		}
		why := fmt.Sprintf("merge's policy turns %s off: check writes no such finding", f.RuleID)
		if len(allowed) > 0 {
			words := make([]string, len(allowed))
			for j, l := range allowed {
				words[j] = string(l)
			}
			why = fmt.Sprintf("under merge's policy a %s finding is %s", f.RuleID, strings.Join(words, " or "))
		}
		return fmt.Errorf("finding %d (%s %s): level %s, but %s (merge with the policy of the check)", i, f.RuleID, f.Location.Path, f.Level, why)
	}
	return nil
}

// checkMatrix fails when the target matrix the shards say they checked
// (k: variant, loader, targets, agents) is not the one merge's policy
// and flags declare (cfg.Policy's variant cfg.Variant, cfg.Loader,
// cfg.Targets, cfg.Agents), as check computes it (newContext). Targets
// check takes from the build (the archives' gfx_arches, without a
// policy variant or --target) merge cannot see; it then requires only
// that the shards said so.
func checkMatrix(cfg *Config, k *report.Checked) error {
	v, vname, err := cfg.Policy.Variant(cfg.Variant)
	if err != nil {
		return err
	}
	fix := "give merge the policy, --variant, --target, --agent and --loader of the check"
	if k.Variant != vname {
		return fmt.Errorf("the shards checked variant %q, merge's policy gives %q: %s", k.Variant, vname, fix)
	}
	loader := cfg.Policy.LoaderOrDefault()
	if cfg.Loader != "" {
		if loader, err = finding.ParseLoader(string(cfg.Loader)); err != nil {
			return err
		}
	}
	if k.Loader != string(loader) {
		return fmt.Errorf("the shards judged by the %s loader, merge's policy and flags by the %s loader: %s", k.Loader, loader, fix)
	}
	var want []string
	switch {
	case len(cfg.Targets) > 0:
		want, _ = targetid.ExpandTargets(cfg.Targets)
	case v != nil:
		want = dedupe(v.Apply(v.Targets))
	case k.TargetSource == "--target":
		return fmt.Errorf("the shards' targets were given with --target (%s), merge has none: %s", strings.Join(k.Targets, " "), fix)
	default: // the archives' (or machines'): the build says, which merge does not read
		cfg.tell(MergeMatrixNote{TargetSource: k.TargetSource, Targets: k.Targets})
		return nil
	}
	if !slices.Equal(k.Targets, want) {
		return fmt.Errorf("the shards checked targets %s, merge's policy and flags give %s: %s", orNone(k.Targets), orNone(want), fix)
	}
	rel, err := sim.MatrixRelease(k.HIP)
	if err != nil {
		return fmt.Errorf("checked.hip %q: %v", k.HIP, err)
	}
	agents, _, err := sim.NewAgents(want, v, cfg.Agents, rel)
	if err != nil {
		return err
	}
	isas := agentISAs(agents)
	if !slices.Equal(k.Agents, isas) && !(len(k.Agents) == 0 && len(isas) == 0) {
		return fmt.Errorf("the shards simulated agents %s, merge's policy and flags give %s: %s", orNone(k.Agents), orNone(isas), fix)
	}
	return nil
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, " ")
}

// rewaive applies merge's waivers (cfg.Gate: the policy's and --waivers,
// against its --today) to the merged findings as check applies them
// (gate.Waive, gate.Expiring, broadWaivers), after dropping every
// suppression and waiver notification a shard wrote; checked.waivers
// names merge's. A shard's waived state is never kept: it could waive
// its own findings.
func rewaive(cfg *Config, r report.Run) report.Run {
	g := cfg.Gate
	fs := slices.Clone(r.Findings)
	for i := range fs {
		fs[i].Suppression = nil
	}
	r.Findings = fs
	r.Notifications = slices.DeleteFunc(slices.Clone(r.Notifications), func(n report.Notification) bool { return gate.WaiverKind(n.Kind) }) // rewaive computes them
	k := *r.Checked
	r.Checked = &k
	shards := k.Waivers
	k.Waivers = ""
	if len(g.Waivers) > 0 {
		notes := gate.Waive(fs, g.Waivers, g.Today, false)
		notes = append(notes, gate.Expiring(g.Waivers, g.Today, g.WarnExpiring)...)
		r.Notifications = append(append(r.Notifications, notes...), broadWaivers(g)...)
		k.Waivers = fmt.Sprintf("%s (%d)", g.WaiverFiles, len(g.Waivers))
	}
	if shards != k.Waivers {
		cfg.tell(MergeWaiversNote{Shards: shards, Merge: k.Waivers})
	}
	gate.SortNotifications(r.Notifications)
	return r
}

// rebase is gate.Rebase with merge's baseline, telling when it is not the
// shards' (MergeBaselineNote) and the warnings check tells (BaselineNote).
func rebase(cfg *Config, merged report.Run) report.Run {
	g := cfg.Gate
	shards := merged.Checked.Baseline
	if shards != "" && g.Baseline == nil || shards == "" && g.Baseline != nil {
		cfg.tell(MergeBaselineNote{Shards: shards, Merge: g.BaselineName})
	}
	out, warned := gate.Rebase(merged, g.Baseline, g.BaselineName)
	for _, n := range warned {
		cfg.tell(BaselineNote{Baseline: g.BaselineFile, Message: n.Message})
	}
	return out
}
