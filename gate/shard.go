package gate

import (
	"fmt"
	"slices"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/report"
)

// A shard report is written by the CI job that ran the pull request's
// build, so merge takes from it only what check --shard could have
// written for what the shard says it checked (report.Read already
// refuses values outside a field's vocabulary), and computes the
// baseline states itself (Rebase): a state from a shard could switch off
// its part of the gate.

// CheckShard fails for a shard whose findings or notifications hold what
// check --shard does not write for the run its checked block describes
// (checked.shard I/N: only findings, inventory items and load-matrix
// cells of its own kpack groups, finding.Shard.Has; cells only of the
// targets or agents it checked):
// a baseline state without a baseline (or none with one), a waiver
// without waivers, a waived finding that is absent, a baseline-mismatch
// warning without a baseline, a waiver notification without waivers,
// --max-kernel-loss without a baseline, or (when r.Rules is set) a rule
// kpack-lint does not have. The error names the finding (its index, rule
// and path) or notification and the field.
func CheckShard(r report.Run) error {
	k := r.Checked
	if k == nil {
		return fmt.Errorf("not a shard (no checked block: written by check --shard I/N)")
	}
	if k.MaxKernelLoss != nil && k.Baseline == "" {
		return fmt.Errorf("checked.maxKernelLoss is set, but checked.baseline is empty: check sets it only with --baseline")
	}
	sh := finding.Shard{}
	if k.Shard != "" {
		var err error
		if sh, err = finding.ParseShard(k.Shard); err != nil {
			return fmt.Errorf("checked.shard: %v", err)
		}
	}
	for i, f := range r.Findings {
		if err := checkShardFinding(r, f); err != nil {
			return fmt.Errorf("finding %d (%s %s): %v", i, f.RuleID, f.Location.Path, err)
		}
	}
	for i, n := range r.Notifications {
		if err := checkShardNotification(k, n); err != nil {
			return fmt.Errorf("notification %d (%s %s): %v", i, n.Kind, n.Source, err)
		}
	}
	for i, f := range r.Findings {
		if !sh.HasFinding(f) {
			return fmt.Errorf("finding %d (%s %s): %s belongs to shard %s, not to this shard %s: "+
				"check --shard reports only the findings of its own kpack groups", i, f.RuleID, f.Location.Path, ownerWords(f.Group, f.Location.Path), ownerOf(sh.Count, f.Group, f.Location.Path), k.Shard)
		}
	}
	return checkShardMatrix(r, sh)
}

// checkShardMatrix fails for an inventory item or a load-matrix cell of
// a kpack group (or host binary) another shard owns, and for a cell of a
// target the shard did not check (neither among its targets nor its
// agents).
func checkShardMatrix(r report.Run, sh finding.Shard) error {
	k := r.Checked
	for i, it := range r.Inventory {
		if !sh.Has(it.Group, "") {
			return fmt.Errorf("inventory %d (group %s, %s): the group belongs to shard %s, not to this shard %s", i, it.Group, it.Target, ownerOf(sh.Count, it.Group, ""), k.Shard)
		}
	}
	for i, c := range r.Matrix {
		if !sh.Has(c.Group, "") && !sh.Has("", c.Group) {
			return fmt.Errorf("matrix %d (%s, %s): belongs to shard %s, not to this shard %s", i, c.Group, c.Target, ownerOf(sh.Count, c.Group, ""), k.Shard)
		}
		if !slices.Contains(k.Targets, c.Target) && !slices.Contains(k.Agents, c.Target) {
			return fmt.Errorf("matrix %d (%s, %s): target %s is none the shard checked (checked.targets, checked.agents)", i, c.Group, c.Target, c.Target)
		}
	}
	return nil
}

// ownerOf is the shard I/N that owns a group (or, without one, the file
// at path).
func ownerOf(n int, group, path string) string {
	if n <= 1 {
		return "1/1"
	}
	return finding.OwnerOf(group, path, n).String()
}

func ownerWords(group, path string) string {
	if group != "" {
		return "its group " + group
	}
	return "its file " + path
}

func checkShardFinding(r report.Run, f finding.Finding) error {
	k := r.Checked
	switch {
	case len(r.Rules) > 0 && !slices.ContainsFunc(r.Rules, func(rule finding.Rule) bool { return rule.ID == f.RuleID }):
		return fmt.Errorf("ruleId %q: no such rule (kpack-lint rules lists them)", f.RuleID)
	case f.Baseline != "" && k.Baseline == "":
		return fmt.Errorf("baselineState %q, but the shard was checked without a baseline (checked.baseline is empty): "+
			"check --shard writes no baseline state then", f.Baseline)
	case f.Baseline == "" && k.Baseline != "":
		return fmt.Errorf("no baselineState, but the shard was checked against baseline %s: check gives every finding one", k.Baseline)
	case f.Suppression != nil && k.Waivers == "":
		return fmt.Errorf("suppression (waiver %s), but the shard was checked without waivers (checked.waivers is empty)", f.Suppression.Source)
	case f.Suppression != nil && f.Baseline == finding.BaselineAbsent:
		return fmt.Errorf("suppression on a finding whose baselineState is absent: check waives only findings of the run")
	case f.Grown != nil && f.Baseline != finding.BaselineNew:
		return fmt.Errorf("grown (what it covers beyond the baseline's), but baselineState %q: check gives growth only to a new finding", f.Baseline)
	}
	return nil
}

func checkShardNotification(k *report.Checked, n report.Notification) error {
	switch {
	case baselineKind(n.Kind) && k.Baseline == "":
		return fmt.Errorf("kind %s, but the shard was checked without a baseline (checked.baseline is empty)", n.Kind)
	case WaiverKind(n.Kind) && k.Waivers == "":
		return fmt.Errorf("kind %s, but the shard was checked without waivers (checked.waivers is empty)", n.Kind)
	}
	return nil
}

// WaiverKind reports the notification kinds only a run with waivers
// writes (the others, input-streamed and inferred-targets, any run may).
func WaiverKind(kind string) bool {
	switch kind {
	case "unused-waiver", "expired-waiver", "expiring-waiver", "broad-waiver":
		return true
	}
	return false
}

// baselineKind reports the notification kinds only a run with a baseline
// writes.
func baselineKind(kind string) bool {
	return kind == "baseline-mismatch" || kind == CoverageUnknownKind
}

// Rebase gives a merged run (Merge) the baseline states merge computes
// itself, never a shard's: every state, growth and coverage key and every
// absent finding the shards wrote, and their baseline-mismatch and
// baseline-coverage-unknown warnings, are dropped; then, with a baseline
// (base, named name in the report), the findings are compared with it as
// check compares them (Compare, over every input), checked.baseline
// names it, and the warnings check gives are computed again
// (BaselineMismatch, CoverageUnknown; returned too). Without one, checked
// says no baseline and every finding counts as new. The maximum kernel
// loss stays the shards' (KPL012 is theirs: it compares each shard's
// inventory with the baseline's).
func Rebase(r report.Run, base *report.Run, name string) (report.Run, []report.Notification) {
	fs := make([]finding.Finding, 0, len(r.Findings))
	for _, f := range r.Findings {
		if f.Baseline != finding.BaselineAbsent {
			f.Baseline, f.Grown, f.Coverage = "", nil, ""
			fs = append(fs, f)
		}
	}
	r.Notifications = slices.DeleteFunc(slices.Clone(r.Notifications), func(n report.Notification) bool { return baselineKind(n.Kind) })
	k := *r.Checked
	r.Checked = &k
	if base == nil {
		k.Baseline, k.MaxKernelLoss = "", nil
		r.Findings = fs
		return r, nil
	}
	r.Findings = Compare(fs, base.Findings, nil, len(r.Inputs))
	finding.Sort(r.Findings)
	k.Baseline = name
	var warned []report.Notification
	for _, n := range []*report.Notification{BaselineMismatch(base.Checked, &k, name), CoverageUnknown(r.Findings, name)} {
		if n != nil {
			warned = append(warned, *n)
		}
	}
	r.Notifications = append(r.Notifications, warned...)
	SortNotifications(r.Notifications)
	return r, warned
}
