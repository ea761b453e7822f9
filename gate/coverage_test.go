package gate

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/report"
)

var (
	gfx90a = []string{"gfx90a:sramecc+:xnack+", "gfx90a:sramecc+:xnack-", "gfx90a:sramecc-:xnack+", "gfx90a:sramecc-:xnack-"}
	gfx942 = []string{"gfx942:sramecc+:xnack+", "gfx942:sramecc+:xnack-", "gfx942:sramecc-:xnack+", "gfx942:sramecc-:xnack-"}
)

// missing is the recipe's KPL006 for bin/x#0 on agents (its baseline
// written by this version: with a coverage key).
func missing(agents ...string) finding.Finding {
	f := newFinding("KPL006", "g\x00bin/x", "bin/x", "g", "bin/x#0")
	f.Agents = agents
	return f
}

func recorded(f finding.Finding) finding.Finding {
	f.Coverage = finding.Coverage(f)
	return f
}

// The nightly failed bin/x on gfx942; the pull request fails it on
// gfx90a too: new, with what grew and a coverage key of its own. The
// other way round it shrank: unchanged, keeping the baseline's key.
func TestCompareGrownIsNew(t *testing.T) {
	nightly := recorded(missing(gfx942...))
	pr := missing(append(append([]string(nil), gfx90a...), gfx942...)...)
	got := Compare([]finding.Finding{pr}, []finding.Finding{nightly}, nil, 1)
	if len(got) != 1 {
		t.Fatalf("%d findings", len(got))
	}
	f := got[0]
	if f.Baseline != finding.BaselineNew || f.Grown == nil || !reflect.DeepEqual(f.Grown.Agents, gfx90a) {
		t.Fatalf("state %q, grown %+v", f.Baseline, f.Grown)
	}
	if finding.Fingerprint(f) != finding.Fingerprint(nightly) {
		t.Error("the cause fingerprint changed")
	}
	if f.Coverage == nightly.Coverage || f.Coverage != finding.CoverageKey(pr, nightly.Coverage) {
		t.Errorf("coverage %q, baseline's %q", f.Coverage, nightly.Coverage)
	}
	if n := finding.Failing(got, []finding.Rule{{ID: "KPL006", Level: finding.LevelError}}, finding.LevelError, false); n != 1 {
		t.Errorf("%d failing, want 1: a grown finding gates like a new one", n)
	}

	prBase := recorded(pr)
	shrunk := Compare([]finding.Finding{missing(gfx942...)}, []finding.Finding{prBase}, nil, 1)[0]
	if shrunk.Baseline != finding.BaselineUnchanged || shrunk.Grown != nil || shrunk.Coverage != prBase.Coverage {
		t.Errorf("shrunk: state %q, grown %+v, coverage %q (baseline's %q)", shrunk.Baseline, shrunk.Grown, shrunk.Coverage, prBase.Coverage)
	}
	same := Compare([]finding.Finding{pr}, []finding.Finding{prBase}, nil, 1)[0]
	if same.Baseline != finding.BaselineUnchanged || same.Coverage != prBase.Coverage {
		t.Errorf("same: state %q, coverage %q", same.Baseline, same.Coverage)
	}
}

// What a finding read back from a shard says about its growth and key is
// recomputed against the baseline Compare is given.
func TestCompareRecomputesGrowth(t *testing.T) {
	f := missing(gfx942...)
	f.Grown, f.Coverage, f.Baseline = &finding.Growth{Agents: gfx942}, "stale", finding.BaselineNew
	base := recorded(missing(gfx942...))
	got := Compare([]finding.Finding{f}, []finding.Finding{base}, nil, 1)[0]
	if got.Baseline != finding.BaselineUnchanged || got.Grown != nil || got.Coverage != base.Coverage {
		t.Errorf("state %q, grown %+v, coverage %q", got.Baseline, got.Grown, got.Coverage)
	}
}

// A baseline's coverage key that is not one is not carried into the
// report (nor into code scanning's alert key): the key is hashed again.
func TestCompareIgnoresForeignCoverageKeys(t *testing.T) {
	base := missing(gfx942...)
	base.Coverage = "not a key\x1b"
	got := Compare([]finding.Finding{missing(gfx942...)}, []finding.Finding{base}, nil, 1)[0]
	if got.Baseline != finding.BaselineUnchanged || finding.Coverage(got) != finding.CoverageKey(missing(gfx942...), "") {
		t.Errorf("state %q, coverage %q", got.Baseline, finding.Coverage(got))
	}
}

// A grown finding that grows back to what an earlier report covered gets
// a key of its own: the chain differs.
func TestCompareRegrowthIsANewKey(t *testing.T) {
	all := append(append([]string(nil), gfx90a...), gfx942...)
	first := recorded(missing(all...))
	shrunk := Compare([]finding.Finding{missing(gfx942...)}, []finding.Finding{first}, nil, 1)[0]
	again := Compare([]finding.Finding{missing(all...)}, []finding.Finding{shrunk}, nil, 1)[0]
	if again.Baseline != finding.BaselineNew || again.Coverage == first.Coverage {
		t.Errorf("state %q, coverage %q (first %q)", again.Baseline, again.Coverage, first.Coverage)
	}
}

// An older baseline (no coverage keys) whose finding lists no agents:
// the finding counts as new, and CoverageUnknown says why.
func TestCoverageUnknown(t *testing.T) {
	old := missing()
	old.Kernels = nil
	got := Compare([]finding.Finding{missing(gfx942...)}, []finding.Finding{old}, nil, 1)
	if got[0].Baseline != finding.BaselineNew || got[0].Grown == nil || !reflect.DeepEqual(got[0].Grown.Unrecorded, []string{"agents", "kernels"}) {
		t.Fatalf("state %q, grown %+v", got[0].Baseline, got[0].Grown)
	}
	n := CoverageUnknown(got, "nightly.json")
	want := "1 finding matches a baseline finding that records no agents, kernels (the baseline was written by an older kpack-lint, without coverage keys): " +
		"it cannot show that it covers no more than before, so it counts as new; write a new baseline with this kpack-lint (run without --baseline and keep the report)"
	if n == nil || n.Kind != CoverageUnknownKind || n.Level != finding.LevelWarning || n.Source != "nightly.json" || n.Message != want {
		t.Errorf("notification %+v", n)
	}
	// An older baseline that lists the agents compares as it is.
	got = Compare([]finding.Finding{missing(gfx942...)}, []finding.Finding{missing(gfx942...)}, nil, 1)
	if got[0].Baseline != finding.BaselineUnchanged || CoverageUnknown(got, "b") != nil {
		t.Errorf("older baseline with agents: %q", got[0].Baseline)
	}
}

// A waiver by the cause fingerprint keeps waiving a grown finding; one
// by the coverage key waives it only while it covers no more.
func TestWaiveByCoverageKey(t *testing.T) {
	nightly := recorded(missing(gfx942...))
	byKey := finding.Waiver{Fingerprint: nightly.Coverage, Reason: "gfx942 known", Source: "w.yaml:1"}
	byCause := finding.Waiver{Fingerprint: finding.Fingerprint(nightly), Reason: "known", Source: "w.yaml:2"}
	same := Compare([]finding.Finding{missing(gfx942...)}, []finding.Finding{nightly}, nil, 1)
	Waive(same, []finding.Waiver{byKey}, "2026-01-01", false)
	if !same[0].Suppressed() {
		t.Error("the coverage key does not waive the unchanged finding")
	}
	grown := Compare([]finding.Finding{missing(append(append([]string(nil), gfx90a...), gfx942...)...)}, []finding.Finding{nightly}, nil, 1)
	notes := Waive(grown, []finding.Waiver{byKey}, "2026-01-01", false)
	if grown[0].Suppressed() || len(notes) != 1 || notes[0].Kind != "unused-waiver" {
		t.Errorf("the coverage key waives the grown finding: %+v, notes %+v", grown[0].Suppression, notes)
	}
	Waive(grown, []finding.Waiver{byCause}, "2026-01-01", false)
	if !grown[0].Suppressed() {
		t.Error("the cause fingerprint no longer waives the grown finding")
	}
}

// Merge keeps each shard's growth and coverage keys and counts the
// findings of unknown coverage over every shard, in one notification.
func TestMergeKeepsGrowth(t *testing.T) {
	shard := func(i string, f finding.Finding) report.Run {
		old := f
		old.Agents = nil // a report of an older kpack-lint
		fs := Compare([]finding.Finding{f}, []finding.Finding{old}, nil, 1)
		r := report.Run{ToolName: "kpack-lint", Inputs: []string{"b"}, Findings: fs,
			Checked: &report.Checked{Inputs: []string{"b"}, Baseline: "old.json", Shard: i}}
		r.Notifications = []report.Notification{*CoverageUnknown(fs, "old.json")}
		return r
	}
	a := missing(gfx942...)
	b := missing(gfx90a...)
	b.Subject, b.Location.Path, b.Group = "h\x00bin/y", "bin/y", groupOf(finding.Shard{Index: 1, Count: 2})
	out, err := Merge([]report.Run{shard("2/2", a), shard("1/2", b)}) // group g is shard 2/2's
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 2 || out.Findings[0].Grown == nil || out.Findings[1].Grown == nil || out.Findings[0].Coverage == "" {
		t.Fatalf("findings %+v", out.Findings)
	}
	if len(out.Notifications) != 1 || !strings.HasPrefix(out.Notifications[0].Message, "2 findings match baseline findings that record no agents") {
		t.Errorf("notifications %+v", out.Notifications)
	}
}

// A finding the baseline had as a warning that is now an error (a policy
// or rule change) is new, and gates; its coverage key is not the
// baseline's. Back to a warning it is unchanged.
func TestCompareLevelRoseIsNew(t *testing.T) {
	was := recorded(missing(gfx942...))
	was.Level = finding.LevelWarning
	now := missing(gfx942...)
	now.Level = finding.LevelError
	f := Compare([]finding.Finding{now}, []finding.Finding{was}, nil, 1)[0]
	if f.Baseline != finding.BaselineNew || f.Grown == nil || f.Grown.Level != finding.LevelError || f.Coverage == was.Coverage {
		t.Fatalf("level rose: %+v", f)
	}
	if finding.Failing([]finding.Finding{f}, []finding.Rule{{ID: "KPL006"}}, finding.LevelError, false) != 1 {
		t.Errorf("the raised finding does not gate")
	}
	now.Level = finding.LevelWarning
	if f := Compare([]finding.Finding{now}, []finding.Finding{was}, nil, 1)[0]; f.Baseline != finding.BaselineUnchanged || f.Coverage != was.Coverage {
		t.Errorf("same level: %+v", f)
	}
}

// groupOf is a kpack group name shard sh owns.
func groupOf(sh finding.Shard) string {
	for i := 0; ; i++ {
		if g := fmt.Sprintf("g%d", i); sh.Has(g, "") {
			return g
		}
	}
}

// A fingerprint read back under another rule (a forged report) matches
// no baseline finding of that rule: the finding is new.
func TestCompareFingerprintOfAnotherRule(t *testing.T) {
	was := recorded(missing(gfx942...))
	now := newFinding("KPL005", "x", "x.kpack", "", "")
	now.Fingerprint = finding.Fingerprint(was)
	if f := Compare([]finding.Finding{now}, []finding.Finding{was}, nil, 1)[0]; f.Baseline != finding.BaselineNew {
		t.Errorf("KPL005 with KPL006's fingerprint: %s", f.Baseline)
	}
}
