package gate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/report"
)

func shard(k report.Checked, fs ...finding.Finding) report.Run {
	k.Shard = "1/1"
	return report.Run{Checked: &k, Findings: fs, Rules: []finding.Rule{{ID: "KPL005"}}}
}

// A shard holding what check --shard does not write for what it says it
// checked is refused, naming the finding (or notification) and the field.
func TestCheckShardRefusesForgeries(t *testing.T) {
	f := newFinding("KPL005", "a", "a.kpack", "")
	with := func(mod func(*finding.Finding)) finding.Finding { g := f; mod(&g); return g }
	loss := 10.0
	for _, tc := range []struct {
		name string
		r    report.Run
		want string
	}{
		{"absent without a baseline", shard(report.Checked{}, with(func(g *finding.Finding) { g.Baseline = finding.BaselineAbsent })),
			`finding 0 (KPL005 a.kpack): baselineState "absent", but the shard was checked without a baseline (checked.baseline is empty)`},
		{"unchanged without a baseline", shard(report.Checked{}, f, with(func(g *finding.Finding) { g.Baseline = finding.BaselineUnchanged })),
			`finding 1 (KPL005 a.kpack): baselineState "unchanged", but the shard was checked without a baseline`},
		{"no state with a baseline", shard(report.Checked{Baseline: "base.json", MaxKernelLoss: &loss}, f),
			`finding 0 (KPL005 a.kpack): no baselineState, but the shard was checked against baseline base.json`},
		{"waived without waivers", shard(report.Checked{}, with(func(g *finding.Finding) { g.Suppression = &finding.Suppression{Source: "w.yaml:1"} })),
			`finding 0 (KPL005 a.kpack): suppression (waiver w.yaml:1), but the shard was checked without waivers`},
		{"unknown rule", shard(report.Checked{}, newFinding("KPL999", "a", "a.kpack", "")), `finding 0 (KPL999 a.kpack): ruleId "KPL999": no such rule`},
		{"kernel loss without a baseline", shard(report.Checked{MaxKernelLoss: &loss}), "checked.maxKernelLoss is set, but checked.baseline is empty"},
	} {
		if err := CheckShard(tc.r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	mismatch := shard(report.Checked{})
	mismatch.Notifications = []report.Notification{{Level: finding.LevelWarning, Kind: "baseline-mismatch", Source: "b.json", Message: "m"}}
	if err := CheckShard(mismatch); err == nil || !strings.Contains(err.Error(), "notification 0 (baseline-mismatch b.json): kind baseline-mismatch, but the shard was checked without a baseline") {
		t.Errorf("baseline-mismatch without a baseline: %v", err)
	}
	ok := shard(report.Checked{Baseline: "base.json", MaxKernelLoss: &loss, Waivers: "w.yaml (1)"},
		with(func(g *finding.Finding) {
			g.Baseline = finding.BaselineNew
			g.Suppression = &finding.Suppression{Source: "w.yaml:1"}
		}),
		with(func(g *finding.Finding) { g.Baseline = finding.BaselineAbsent }))
	if err := CheckShard(ok); err != nil {
		t.Errorf("a shard as check --shard --baseline --waivers writes it: %v", err)
	}
}

// Rebase drops the shards' states and absent findings and, with a
// baseline, computes them as check does.
func TestRebase(t *testing.T) {
	kept, fresh, gone := newFinding("KPL005", "kept", "a.kpack", ""), newFinding("KPL005", "fresh", "b.kpack", ""), newFinding("KPL005", "gone", "c.kpack", "")
	forged := func(f finding.Finding, state string) finding.Finding { f.Baseline = state; return f }
	loss := 10.0
	merged := shard(report.Checked{Baseline: "base.json", MaxKernelLoss: &loss},
		forged(kept, finding.BaselineUnchanged), forged(fresh, finding.BaselineUnchanged), forged(gone, finding.BaselineAbsent))
	merged.Inputs = []string{"dist"}
	merged.Notifications = []report.Notification{{Level: finding.LevelWarning, Kind: "baseline-mismatch", Source: "base.json", Message: "from a shard"}}

	none, n := Rebase(merged, nil, "")
	if n != nil || len(none.Findings) != 2 || none.Findings[0].Baseline != "" || none.Findings[1].Baseline != "" ||
		none.Checked.Baseline != "" || none.Checked.MaxKernelLoss != nil || len(none.Notifications) != 0 {
		t.Errorf("without a baseline: %+v, checked %+v, notes %+v", none.Findings, none.Checked, none.Notifications)
	}
	if merged.Checked.Baseline != "base.json" || merged.Findings[0].Baseline != finding.BaselineUnchanged {
		t.Errorf("Rebase changed its argument")
	}

	base := report.Run{Findings: []finding.Finding{kept, gone, newFinding("KPL005", "fixed", "d.kpack", "")}}
	got, _ := Rebase(merged, &base, "nightly.sarif")
	states := map[string]string{}
	for _, f := range got.Findings {
		states[f.Location.Path] = f.Baseline
	}
	want := map[string]string{"a.kpack": "unchanged", "b.kpack": "new", "c.kpack": "absent", "d.kpack": "absent"} // c: a shard's absent finding is no finding of the run
	if len(states) != len(want) || got.Checked.Baseline != "nightly.sarif" || got.Checked.MaxKernelLoss == nil {
		t.Fatalf("with a baseline: %v, checked %+v", states, got.Checked)
	}
	for p, s := range want {
		if states[p] != s {
			t.Errorf("%s: %q, want %q", p, states[p], s)
		}
	}
}

// A shard of a huge N whose finding another shard owns is refused at
// once, naming the owner (computed, not searched for).
func TestCheckShardNamesOwnerOfHugeN(t *testing.T) {
	f := finding.Finding{RuleID: "KPL005", Level: finding.LevelError, Location: finding.Location{Path: "x.kpack"}}
	owner := finding.OwnerOf("", "x.kpack", 2000000000)
	other := owner.Index%owner.Count + 1
	r := report.Run{Checked: &report.Checked{Shard: fmt.Sprintf("%d/2000000000", other)}, Findings: []finding.Finding{f}}
	err := CheckShard(r)
	if err == nil || !strings.Contains(err.Error(), "its file x.kpack belongs to shard "+owner.String()+", not to this shard") {
		t.Errorf("CheckShard = %v", err)
	}
}
