package finding

import "testing"

func TestFailing(t *testing.T) {
	rules := []Rule{{ID: "KPL001", Level: LevelError}, {ID: "KPL008", Level: LevelNote}, {ID: "KPL010"}}
	fs := []Finding{
		{RuleID: "KPL001"},                           // error by default
		{RuleID: "KPL001", Level: LevelWarning},      // the policy lowered it
		{RuleID: "KPL008"},                           // note
		{RuleID: "KPL010"},                           // no default level: warning
		{RuleID: "KPL001", Level: LevelNone},         // turned off
		{RuleID: "KPL001", Baseline: BaselineAbsent}, // fixed since the baseline
		{RuleID: "KPL001", Baseline: BaselineUnchanged},
		{RuleID: "KPL001", Suppression: &Suppression{Source: "w:1"}},
		{RuleID: "KPL001", Suppression: &Suppression{Source: "w:2", Expired: true}},
		{RuleID: "KPL999"}, // no such rule
	}
	for _, tt := range []struct {
		failOn         Level
		failOnBaseline bool
		want           int
	}{
		{LevelError, false, 2},   // the default one and the expired waiver's
		{LevelError, true, 3},    // and the unchanged one
		{LevelWarning, false, 4}, // and the lowered one and KPL010
		{LevelNote, false, 5},
		{LevelNone, true, 0},
	} {
		if got := Failing(fs, rules, tt.failOn, tt.failOnBaseline); got != tt.want {
			t.Errorf("Failing(%s, failOnBaseline %v) = %d, want %d", tt.failOn, tt.failOnBaseline, got, tt.want)
		}
	}
}

func TestRuleLevels(t *testing.T) {
	r := Rule{ID: "KPL002", Level: LevelWarning}
	if r.LevelOf(Finding{}) != LevelWarning || r.LevelOf(Finding{Level: LevelError}) != LevelError {
		t.Errorf("LevelOf: %s %s", r.LevelOf(Finding{}), r.LevelOf(Finding{Level: LevelError}))
	}
	if (Rule{}).DefaultLevel() != LevelWarning {
		t.Errorf("a rule without a level defaults to %s, want SARIF's warning", (Rule{}).DefaultLevel())
	}
}

func TestExplains(t *testing.T) {
	load, served, none := Rule{Explain: ExplainLoad}, Rule{Explain: ExplainServed}, Rule{}
	kernel := Finding{Kernels: []string{"bin/x#0"}}
	agents := Finding{Kernels: []string{"bin/x#0"}, Agents: []string{"gfx942:sramecc+:xnack-"}}
	embedded := Finding{Kernels: []string{"bin/x" + EmbeddedMark + "0"}, Agents: []string{"gfx942:sramecc+:xnack-"}}
	for _, tt := range []struct {
		r    Rule
		f    Finding
		want bool
	}{
		{load, kernel, true}, {load, Finding{}, false}, {load, embedded, true}, {none, embedded, false},
		{load, Finding{Kernels: embedded.Kernels}, false}, // an embedded key is explained on its agents
		{served, kernel, false}, {served, agents, true}, {none, agents, false},
	} {
		if got := tt.r.Explains(tt.f); got != tt.want {
			t.Errorf("Explain %d, kernels %q agents %q: %v, want %v", tt.r.Explain, tt.f.Kernels, tt.f.Agents, got, tt.want)
		}
	}
}

func TestParseShard(t *testing.T) {
	if s, err := ParseShard("2/4"); err != nil || s != (Shard{Index: 2, Count: 4}) || s.String() != "2/4" {
		t.Errorf("ParseShard(2/4) = %+v, %v", s, err)
	}
	for _, bad := range []string{"0/2", "3/2", "x", "1/", "/1"} {
		if _, err := ParseShard(bad); err == nil || err.Error() != `shard "`+bad+`": want I/N with 1 <= I <= N, e.g. 2/4` {
			t.Errorf("ParseShard(%q) = %v", bad, err)
		}
	}
	if (Shard{}).String() != "" || !(Shard{}).Has("any", "") {
		t.Error("the zero shard is not the whole run")
	}
}
