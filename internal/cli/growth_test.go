package cli

// A finding that fails loads its baseline's finding did not is new for
// what grew, whatever its cause fingerprint: the baseline-coarse-
// fingerprint recipe of ../shared/fixtures/hostile (built here in code)
// and the example without one archive.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
	"github.com/rocm-tools/kpack-lint/report"
)

// coarseTrees writes the recipe's two builds: nightly (bin/x finds its
// gfx90a archive; gfx942 has none) and pr (bin/x's search path points
// nowhere: it loads on no target).
func coarseTrees(t *testing.T) (nightly, pr string) {
	archive := kpacktest.Build(kpacktest.Spec{Group: "g", Kernels: []kpacktest.Kernel{{Key: "bin/x#0", Arch: "gfx90a", Data: []byte("co gfx90a")}}})
	nightly = testtree.Write(t, map[string][]byte{
		"bin/x": hostBinary("bin/x", "../.kpack/g_@GFXARCH@.kpack"), ".kpack/g_gfx90a.kpack": archive})
	pr = testtree.Write(t, map[string][]byte{
		"bin/x": hostBinary("bin/x", "../nowhere/g_@GFXARCH@.kpack"), ".kpack/g_gfx90a.kpack": archive})
	return nightly, pr
}

// alertResult is what a SARIF result tells code scanning: rule,
// baseline state, partialFingerprints and the grown property.
type alertResult struct {
	RuleID              string            `json:"ruleId"`
	BaselineState       string            `json:"baselineState"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties"`
}

// alertResults reads the results of a SARIF report.
func alertResults(t *testing.T, path string) []alertResult {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []alertResult `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	return log.Runs[0].Results
}

const gfx90aGrown = "now also on gfx90a (4 agents: gfx90a:sramecc+:xnack+, gfx90a:sramecc+:xnack-, gfx90a:sramecc-:xnack+, gfx90a:sramecc-:xnack-)"

// The nightly fails bin/x on gfx942, the pull request on every target:
// with --baseline and with --new-only the finding is new, names what
// grew and fails the gate; its SARIF result keeps the cause fingerprint
// and gets another coverage key (the key code scanning builds alerts
// from). Against its own report the pull request is unchanged.
func TestGrowthFailsTheGate(t *testing.T) {
	nightly, pr := coarseTrees(t)
	dir := t.TempDir()
	args := []string{"check", "--no-policy", "--target", "gfx90a", "--target", "gfx942", "--color", "never"}
	nightlySARIF := filepath.Join(dir, "base.sarif")
	if code, _, stderr := run(t, append(args, "-q", "-o", "sarif="+nightlySARIF, "-o", "json="+filepath.Join(dir, "base.json"), nightly)...); code != ExitFindings {
		t.Fatalf("nightly: exit %d %s", code, stderr)
	}
	was := alertResults(t, nightlySARIF)
	for _, format := range []string{"json", "sarif"} {
		base := filepath.Join(dir, "base."+format)
		for _, extra := range [][]string{nil, {"--new-only"}} {
			prSARIF := filepath.Join(dir, "pr-"+format+".sarif")
			a := append(append(append([]string(nil), args...), "--baseline", base, "-o", "sarif="+prSARIF, "-o", "text=-"), extra...)
			code, out, stderr := run(t, append(a, pr)...)
			if code != ExitFindings || !strings.Contains(out, "1 finding new since the baseline:\nbin/x[") ||
				!strings.Contains(out, "  baseline: new, grown since the baseline: "+gfx90aGrown+"\n") ||
				!strings.Contains(out, "(1 new (1 grown), 0 unchanged, 0 fixed since the baseline)") {
				t.Errorf("%s baseline %v: exit %d, stderr %q\n%s", format, extra, code, stderr, out)
			}
			now := alertResults(t, prSARIF)
			if len(now) != 1 || now[0].BaselineState != "new" || now[0].Properties["grown"] == nil {
				t.Fatalf("pr SARIF results %+v", now)
			}
			if now[0].PartialFingerprints[report.FingerprintKey] != was[0].PartialFingerprints[report.FingerprintKey] ||
				now[0].PartialFingerprints[report.AlertKey] == was[0].PartialFingerprints[report.AlertKey] ||
				now[0].PartialFingerprints[report.CoverageKey] == was[0].PartialFingerprints[report.CoverageKey] {
				t.Errorf("fingerprints: nightly %v, pr %v", was[0].PartialFingerprints, now[0].PartialFingerprints)
			}
		}
	}
	// The pull request against its own report, and the nightly against
	// the pull request's (it shrank): unchanged, exit 0, the same alert.
	prBase := filepath.Join(dir, "pr-base.sarif")
	run(t, append(args, "-q", "-o", "sarif="+prBase, pr)...)
	shrunk := filepath.Join(dir, "shrunk.sarif")
	code, out, _ := run(t, append(args, "--baseline", prBase, "-o", "sarif="+shrunk, "-o", "text=-", nightly)...)
	if code != ExitOK || !strings.Contains(out, "(0 new, 1 unchanged, 0 fixed since the baseline)") {
		t.Errorf("shrunk: exit %d\n%s", code, out)
	}
	if a, b := alertResults(t, prBase)[0].PartialFingerprints, alertResults(t, shrunk)[0].PartialFingerprints; a[report.AlertKey] != b[report.AlertKey] {
		t.Errorf("shrunk finding changed its alert key: %v -> %v", a, b)
	}
	if code, out, _ := run(t, append(args, "--baseline", prBase, pr)...); code != ExitOK || !strings.Contains(out, "(0 new, 1 unchanged, 0 fixed since the baseline)") {
		t.Errorf("same: exit %d\n%s", code, out)
	}
}

// The example's own report is the baseline; the build loses
// sparse_lib_gfx942.kpack: KPL006 of librocsparse widens from gfx1151 to
// gfx942, with its fingerprint, and is new for gfx942's agents (KPL012
// says the archive is gone).
func TestGrowthOfExampleWithoutAnArchive(t *testing.T) {
	ex := filepath.Join(t.TempDir(), "example")
	copyTree(t, filepath.Join(testdata, "example"), ex)
	pol := []string{"check", "--policy", "../../policies.yaml", "--color", "never"}
	base := filepath.Join(t.TempDir(), "base.json")
	run(t, append(pol, "-q", "-o", "json="+base, "-o", "sarif="+base+".sarif", ex)...)
	if err := os.Remove(filepath.Join(ex, "lib", ".kpack", "sparse_lib_gfx942.kpack")); err != nil {
		t.Fatal(err)
	}
	prSARIF := filepath.Join(t.TempDir(), "pr.sarif")
	code, out, stderr := run(t, append(pol, "--baseline", base, "--new-only", "-o", "sarif="+prSARIF, "-o", "text=-", ex)...)
	grown := "lib/librocsparse.so.1[64+90]: error KPL006 missing-archive: "
	i := strings.Index(out, grown)
	if code != ExitFindings || i < 0 || !strings.Contains(out[i:], "  baseline: new, grown since the baseline: now also on gfx942 (2 agents: gfx942:sramecc+:xnack-, gfx942:sramecc-:xnack-)\n") ||
		!strings.Contains(out, "(2 new (1 grown), 2 unchanged, 0 fixed since the baseline)") {
		t.Errorf("exit %d, stderr %q\n%s", code, stderr, out)
	}
	mergeEqualsOneRun(t, append(pol, "--baseline", base, ex))
	fp := map[string]map[string]string{}
	for _, r := range alertResults(t, base+".sarif") {
		fp[r.RuleID] = r.PartialFingerprints
	}
	for _, r := range alertResults(t, prSARIF) {
		if r.RuleID != "KPL006" {
			continue
		}
		was := fp["KPL006"]
		if r.PartialFingerprints[report.FingerprintKey] != was[report.FingerprintKey] || r.PartialFingerprints[report.AlertKey] == was[report.AlertKey] {
			t.Errorf("KPL006 fingerprints %v, baseline's %v", r.PartialFingerprints, was)
		}
	}
}

// The golden SARIF of the example (written before coverage keys) still
// reads as a baseline: findings that list their agents compare as they
// are; a baseline finding that lists none, in a report without coverage
// keys, makes the finding new with a warning on stderr and in the
// report.
func TestGrowthAgainstOldBaselines(t *testing.T) {
	ex := filepath.Join(testdata, "example")
	pol := []string{"check", "--policy", "../../policies.yaml", "--color", "never"}
	golden := filepath.Join(testdata, "golden", "example-release.sarif")
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), report.CoverageKey) {
		// The golden is rewritten with every -update: make an old one.
		var doc map[string]any
		json.Unmarshal(data, &doc)
		for _, r := range doc["runs"].([]any)[0].(map[string]any)["results"].([]any) {
			pf := r.(map[string]any)["partialFingerprints"].(map[string]any)
			delete(pf, report.CoverageKey)
			delete(pf, report.AlertKey)
		}
		data, _ = json.Marshal(doc)
	}
	old := filepath.Join(t.TempDir(), "old.sarif")
	os.WriteFile(old, data, 0o644)
	code, out, stderr := run(t, append(pol, "--baseline", old, ex)...)
	if code != ExitOK || !strings.Contains(out, "(0 new, 3 unchanged, 0 fixed since the baseline)") || stderr != "" {
		t.Errorf("old baseline: exit %d, stderr %q\n%s", code, stderr, out)
	}
	// The same report without the agents of librocsparse's KPL006.
	var doc map[string]any
	json.Unmarshal(data, &doc)
	for _, r := range doc["runs"].([]any)[0].(map[string]any)["results"].([]any) {
		if r.(map[string]any)["ruleId"] == "KPL006" {
			delete(r.(map[string]any)["properties"].(map[string]any), "agents")
		}
	}
	data, _ = json.Marshal(doc)
	os.WriteFile(old, data, 0o644)
	js := filepath.Join(t.TempDir(), "r.json")
	code, out, stderr = run(t, append(pol, "--baseline", old, "-o", "json="+js, "-o", "text=-", ex)...)
	warn := "1 finding matches a baseline finding that records no agents (the baseline was written by an older kpack-lint, without coverage keys)"
	if code != ExitFindings || !strings.Contains(stderr, "kpack-lint: warning: --baseline "+old+": "+warn) ||
		!strings.Contains(out, "old.sarif: warning "+warn) ||
		!strings.Contains(out, "the baseline's finding records no agents (a report of an older kpack-lint), so all of them count as grown") {
		t.Errorf("unrecorded agents: exit %d, stderr %q\n%s", code, stderr, out)
	}
	rep, _ := os.ReadFile(js)
	if !strings.Contains(string(rep), `"kind": "baseline-coverage-unknown"`) || !strings.Contains(string(rep), `"unrecorded": [`) {
		t.Errorf("JSON report:\n%s", rep)
	}
	mergeEqualsOneRun(t, append(pol, "--baseline", old, ex))
}

// mergeEqualsOneRun checks that the merge of the two shards of check
// args writes, from JSON and from SARIF shards, the text, JSON and SARIF
// of the unsharded run: merge --baseline with the baseline of args
// computes what grew, the coverage keys and the warning about an older
// baseline as check does (a shard's states are not taken).
func mergeEqualsOneRun(t *testing.T, args []string) {
	t.Helper()
	dir := t.TempDir()
	mergeArgs := mergeFlags(args)
	if i := slices.Index(args, "--baseline"); i >= 0 {
		mergeArgs = append(mergeArgs, args[i:i+2]...)
	}
	formats := []string{"text", "json", "sarif"}
	var whole []string
	for _, f := range formats {
		whole = append(whole, "-o", f+"="+filepath.Join(dir, "whole."+f))
	}
	run(t, append(append([]string{args[0], "-q"}, whole...), args[1:]...)...)
	for _, in := range []string{"json", "sarif"} {
		var shards []string
		for _, s := range []string{"1/2", "2/2"} {
			p := filepath.Join(dir, "s"+s[:1]+"."+in)
			run(t, append([]string{args[0], "-q", "--shard", s, "-o", in + "=" + p}, args[1:]...)...)
			shards = append(shards, p)
		}
		for _, out := range formats {
			got := filepath.Join(dir, "merged-"+in+"."+out)
			if code, _, stderr := run(t, append(append([]string{"merge", "-q", "-o", out + "=" + got}, mergeArgs...), shards...)...); code == ExitUsage {
				t.Fatalf("merge: %s", stderr)
			}
			a, _ := os.ReadFile(got)
			b, _ := os.ReadFile(filepath.Join(dir, "whole."+out))
			if string(a) != string(b) || !strings.Contains(string(b), "grown") {
				t.Errorf("%s shards merged to %s differ from the unsharded run:\n%s\nwant:\n%s", in, out, a, b)
			}
		}
	}
}

// A policy that raises KPL002 from warning to error makes the baseline's
// warning a new error: it gates with --baseline and --new-only, says
// what grew, and gets an alert key of its own; merge of the shards under
// that policy gates the same.
func TestLevelRoseIsNew(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(testdata, "example")
	targets := []string{"--target", "gfx942", "--target", "gfx90a", "--color", "never"}
	base := filepath.Join(dir, "base.sarif")
	run(t, append(append([]string{"check", "--no-policy", "-q", "-o", base}, targets...), ex)...)
	up := writeFile(t, filepath.Join(dir, "up.yaml"), "rules:\n  KPL002: {level: error}\n")
	args := append(append([]string{"check", "--policy", up}, targets...), "--baseline", base)
	for _, extra := range [][]string{nil, {"--new-only"}} {
		now := filepath.Join(dir, "now.sarif")
		code, out, stderr := run(t, append(append(append([]string{}, args...), extra...), "-o", "sarif="+now, "-o", "text=-", ex)...)
		if code != ExitFindings || !strings.Contains(out, "error KPL002 legacy-loader-shadowing: ") ||
			!strings.Contains(out, "  baseline: new, grown since the baseline: now an error (was a warning)\n") || !strings.Contains(out, "1 new (1 grown)") {
			t.Errorf("%v: exit %d, stderr %q\n%s", extra, code, stderr, out)
		}
		was, is := map[string]string{}, map[string]string{}
		for _, r := range alertResults(t, base) {
			was[r.RuleID] = r.PartialFingerprints[report.AlertKey]
		}
		for _, r := range alertResults(t, now) {
			is[r.RuleID] = r.PartialFingerprints[report.AlertKey]
		}
		if was["KPL002"] == "" || was["KPL002"] == is["KPL002"] || was["KPL004"] != is["KPL004"] {
			t.Errorf("alert keys %v -> %v: want a new one for KPL002 only", was, is)
		}
	}
	mergeEqualsOneRun(t, append(append([]string{"check", "--policy", up}, targets...), "--baseline", base, ex))
}
