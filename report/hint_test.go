package report

import (
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// A finding about a copy (or a moved library) explains that binary:
// --binary names it when its kernel keys name another file; a binary
// under an install prefix the keys leave out needs none.
func TestHintNamesTheBinary(t *testing.T) {
	r := Run{Rules: testRules(), Checked: &Checked{}, Rerun: Rerun{Inputs: []string{"dist"}}}
	for path, want := range map[string]string{
		"lib64/libx.so":        "kpack-lint explain --no-policy --agent gfx1100 --binary lib64/libx.so lib/libx.so#0-2 dist",
		"lib/libx.so":          "kpack-lint explain --no-policy --agent gfx1100 lib/libx.so#0-2 dist",
		"opt/rocm/lib/libx.so": "kpack-lint explain --no-policy --agent gfx1100 lib/libx.so#0-2 dist",
	} {
		f := finding.Finding{RuleID: "KPL001", Location: finding.Location{Path: path}, Agents: []string{"gfx1100"}, Loader: "fallthrough",
			Kernels: []string{"lib/libx.so#0", "lib/libx.so#1", "lib/libx.so#2"}}
		if got := Hint(r, f); got != want {
			t.Errorf("%s:\n got %s\nwant %s", path, got, want)
		}
	}
}

// A finding on a machine explains that machine: --hip and --loader only
// when check set them for every machine (Rerun), both when the report
// does not say how check ran; KPL014 (which explain without --machine
// does not show) too. A matrix finding names a release other than the
// newest, and a root cause joined across processors one agent of each.
func TestHintMachinesAndReleases(t *testing.T) {
	rules := append(testRules(), finding.Rule{ID: "KPL014", Name: "cross-device-failure"})
	pol := "ci/policies.yaml"
	onApu := finding.Finding{RuleID: "KPL014", Location: finding.Location{Path: "lib/libx.so"}, Agents: []string{"gfx1100"}, Loader: "legacy",
		Kernels: []string{"lib/libx.so#0", "lib/libx.so#1"}, Machine: &finding.OnMachine{Machine: "apu", HIP: "7.12", Devices: []int{1}}}
	matrix := finding.Finding{RuleID: "KPL001", Location: finding.Location{Path: "lib/libx.so"}, Loader: "fallthrough",
		Agents:  []string{"gfx90a:sramecc+:xnack+", "gfx90a:sramecc-:xnack+", "gfx942:sramecc+:xnack+", "gfx950:sramecc+:xnack+"},
		Kernels: []string{"lib/libx.so#0"}, Machine: &finding.OnMachine{HIP: "6.2"}}
	for _, tc := range []struct {
		name  string
		rerun Rerun
		k     Checked
		f     finding.Finding
		want  string
	}{
		{"policy machine", Rerun{Inputs: []string{"dist"}, Policy: pol}, Checked{Variant: "asan"}, onApu,
			"kpack-lint explain --policy ci/policies.yaml --machine apu lib/libx.so#0-1 dist"},
		{"--hip and --loader", Rerun{Inputs: []string{"dist"}, Policy: pol, HIP: "7.12", Loader: "legacy"}, Checked{}, onApu,
			"kpack-lint explain --policy ci/policies.yaml --machine apu --hip 7.12 --loader legacy lib/libx.so#0-1 dist"},
		{"old report", Rerun{}, Checked{Policy: &pol, Env: []string{"HIP_VISIBLE_DEVICES=1"}}, onApu,
			"kpack-lint explain --policy ci/policies.yaml --env HIP_VISIBLE_DEVICES=1 --machine apu --hip 7.12 --loader legacy lib/libx.so#0-1 INPUT"},
		{"matrix", Rerun{Inputs: []string{"dist"}}, Checked{HIP: "6.2"}, matrix,
			"kpack-lint explain --no-policy --agent gfx90a:sramecc+:xnack+ --agent gfx942:sramecc+:xnack+ --agent gfx950:sramecc+:xnack+ --hip 6.2 lib/libx.so#0 dist"},
	} {
		r := Run{Rules: rules, Checked: &tc.k, Rerun: tc.rerun}
		if got := Hint(r, tc.f); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
	// Without a kernel key there is nothing to explain.
	noKey := onApu
	noKey.Kernels = nil
	if got := Hint(Run{Rules: rules, Checked: &Checked{}}, noKey); got != "kpack-lint rules KPL014" {
		t.Errorf("no kernel key: %s", got)
	}
}
