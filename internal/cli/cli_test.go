package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

const testdata = "../../testdata"

// run drives the whole CLI in-process and returns exit code, stdout, stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"kpack-lint"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func scenario(name string) string { return filepath.Join(testdata, "scenarios", name) }

func TestExitCodes(t *testing.T) {
	seedPolicy := filepath.Join(scenario("seed-fft-asan"), "policies.yaml")
	seedTree := filepath.Join(scenario("seed-fft-asan"), "tree")
	torch := filepath.Join(scenario("torch-gfx90a-split"), "tree")
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"errors found", []string{"check", "--policy", seedPolicy, "--variant", "asan", seedTree}, ExitFindings},
		{"fail-on none", []string{"check", "--policy", seedPolicy, "--variant", "asan", "--fail-on", "none", seedTree}, ExitOK},
		{"warnings below fail-on error", []string{"check", "--no-policy", "--target", "gfx90a", torch}, ExitOK},
		{"warnings at fail-on warning", []string{"check", "--no-policy", "--target", "gfx90a", "--fail-on", "warning", torch}, ExitFindings},
		{"no input", []string{"check"}, ExitUsage},
		{"missing input", []string{"check", filepath.Join(testdata, "does-not-exist")}, ExitUsage},
		{"bad format", []string{"check", "--format", "xml", torch}, ExitUsage},
		{"bad fail-on", []string{"check", "--fail-on", "fatal", torch}, ExitUsage},
		{"bad loader", []string{"check", "--loader", "newest", torch}, ExitUsage},
		{"unknown variant", []string{"check", "--policy", seedPolicy, "--variant", "tsan", seedTree}, ExitUsage},
		{"missing policy", []string{"check", "--policy", "nope.yaml", torch}, ExitUsage},
		{"bad agent", []string{"check", "--no-policy", "--agent", "gfx1100:xnack+", torch}, ExitUsage},
		{"policy group not in the build", []string{"check", "--target", "gfx90a", torch}, ExitUsage},
		{"unknown flag", []string{"check", "--frobnicate", torch}, ExitUsage},
		{"unknown command", []string{"lint"}, ExitUsage},
		{"rules", []string{"rules"}, ExitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, tt.args...)
			if code != tt.want {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.want, stderr)
			}
			if code == ExitUsage && !strings.HasPrefix(stderr, "kpack-lint:") && !strings.Contains(stderr, "Incorrect Usage") {
				t.Errorf("usage error without a clear message: %q", stderr)
			}
		})
	}
}

func TestUsageErrorMessages(t *testing.T) {
	_, _, stderr := run(t, "check", "--format", "xml", ".")
	if !strings.Contains(stderr, `--format "xml": want text, json, sarif`) {
		t.Errorf("stderr = %q", stderr)
	}
	_, _, stderr = run(t, "check", "--variant", "tsan", "--policy", filepath.Join(scenario("seed-fft-asan"), "policies.yaml"), ".")
	if !strings.Contains(stderr, "--variant tsan: not declared in ../../testdata/scenarios/seed-fft-asan/policies.yaml:2 (have asan; did you mean asan?)") {
		t.Errorf("stderr = %q", stderr)
	}
}

func TestOutputFileOnly(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.sarif")
	code, stdout, _ := run(t, "check", "--no-policy", "--quiet", "--format", "sarif", "--output", out, "--target", "gfx90a", filepath.Join(scenario("torch-gfx90a-split"), "tree"))
	if code != ExitOK || stdout != "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	var doc struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID     string         `json:"ruleId"`
				Properties map[string]any `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != "2.1.0" || len(doc.Runs) != 1 || len(doc.Runs[0].Results) != 2 {
		t.Fatalf("unexpected SARIF: version %q, runs %d", doc.Version, len(doc.Runs))
	}
	for _, r := range doc.Runs[0].Results {
		if r.RuleID != "KPL002" {
			t.Errorf("ruleId %s, want KPL002", r.RuleID)
		}
		if ks, _ := r.Properties["kernels"].([]any); len(ks) != 50 {
			t.Errorf("kernels = %d, want 50 (co_index 10-59)", len(ks))
		}
	}
}

// TestGolden pins the three formats for the seed scenario and the example
// build (go test ./internal/cli -update rewrites them).
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"seed-asan", []string{"--policy", filepath.Join(scenario("seed-fft-asan"), "policies.yaml"), "--variant", "asan", filepath.Join(scenario("seed-fft-asan"), "tree")}},
		{"seed-asan-legacy", []string{"--policy", filepath.Join(scenario("seed-fft-asan"), "policies.yaml"), "--variant", "asan", "--loader", "legacy", filepath.Join(scenario("seed-fft-asan"), "tree")}},
		{"torch-gfx90a", []string{"--no-policy", "--target", "gfx90a", filepath.Join(scenario("torch-gfx90a-split"), "tree")}},
		{"example-asan", []string{"--policy", filepath.Join(testdata, "..", "policies.yaml"), "--variant", "asan", filepath.Join(testdata, "example")}},
		{"example-release", []string{"--policy", filepath.Join(testdata, "..", "policies.yaml"), "--variant", "release", filepath.Join(testdata, "example")}},
		{"example-release-deep", []string{"--deep", "--policy", filepath.Join(testdata, "..", "policies.yaml"), "--variant", "release", filepath.Join(testdata, "example")}},
	}
	for _, c := range cases {
		for _, format := range []string{"sarif", "text", "json"} {
			t.Run(c.name+"."+format, func(t *testing.T) {
				args := append([]string{"check", "--format", format, "--fail-on", "none"}, c.args...)
				code, out, stderr := run(t, args...)
				if code != ExitOK {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				_, again, _ := run(t, args...)
				if again != out {
					t.Fatal("output differs between two identical runs")
				}
				golden(t, filepath.Join(testdata, "golden", c.name+"."+format), out)
			})
		}
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -update)", err)
	}
	if !sameReport(path, string(want), got) {
		t.Errorf("%s differs from the output (run go test ./internal/cli -update and review the diff)", path)
	}
}

// sameReport reports whether got is the golden want, or, for a SARIF
// golden, want with rules added to the registry since it was written: a
// SARIF report lists every rule (tool.driver.rules, the registry's
// order), so a new rule (the next ID, last) adds its entry to every SARIF
// golden; want's rule entries must still be got's first, byte for byte,
// and everything else the same.
func sameReport(path, want, got string) bool {
	if want == got {
		return true
	}
	if !strings.HasSuffix(path, ".sarif") {
		return false
	}
	wr, wrest, ok := cutDriverRules(want)
	gr, grest, ok2 := cutDriverRules(got)
	return ok && ok2 && wrest == grest && len(gr) > len(wr) && strings.HasPrefix(gr, wr) && gr[len(wr)] == ','
}

// cutDriverRules returns the entries of a SARIF report's
// tool.driver.rules array (as written: 10 spaces of indent) and the
// report without them.
func cutDriverRules(sarif string) (rules, rest string, ok bool) {
	const open, end = "\n          \"rules\": [\n", "\n          ]"
	i := strings.Index(sarif, open)
	if i < 0 {
		return "", "", false
	}
	j := strings.Index(sarif[i+len(open):], end)
	if j < 0 {
		return "", "", false
	}
	start := i + len(open)
	return sarif[start : start+j], sarif[:start] + sarif[start+j:], true
}

func TestNoMachinePathsInOutput(t *testing.T) {
	abs, err := filepath.Abs(filepath.Join(scenario("seed-fft-asan"), "tree"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"sarif", "json", "text"} {
		_, out, _ := run(t, "check", "--format", f, "--target", "gfx950:xnack+", abs)
		if strings.Contains(out, abs) || regexp.MustCompile(`"/(tmp|work|home)/`).MatchString(out) {
			t.Errorf("%s output holds a machine path", f)
		}
	}
}

func TestPolicyAndFlagBounds(t *testing.T) {
	torch := filepath.Join(scenario("torch-gfx90a-split"), "tree")
	dir := t.TempDir()
	unknown := filepath.Join(dir, "unknown.yaml")
	os.WriteFile(unknown, []byte("version: 1\nrules: {KPL999: {level: error}}\n"), 0o644)
	empty := filepath.Join(dir, "empty.yaml")
	os.WriteFile(empty, nil, 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--policy", unknown, torch}, "rules.KPL999: no such rule"},
		{[]string{"check", "--policy", empty, torch}, "empty policy"},
		{[]string{"check", "--deep-memory", "99999999999999", torch}, "--deep-memory"},
		{[]string{"check", "--no-policy", torch, "--target", "gfx9999"}, `--target: invalid target ID "gfx9999"`}, // a flag after the input is read
		{[]string{"check", "--no-policy", "--target", "gfx9999", torch}, `--target: invalid target ID "gfx9999"`},
		{[]string{"check", t.TempDir()}, "nothing to check"},
	} {
		code, stdout, stderr := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %d bytes; want exit 2 and one line with %q", tc.args, code, stderr, len(stdout), tc.want)
		}
	}
}

// TestSameReportNewRule: a SARIF golden still matches a report with a rule
// added at the end of tool.driver.rules, and nothing else changed.
func TestSameReportNewRule(t *testing.T) {
	path := filepath.Join(testdata, "golden", "seed-asan.sarif")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := string(data)
	rules, _, ok := cutDriverRules(want)
	if !ok || !strings.HasSuffix(rules, "\n            }") {
		t.Fatalf("no rules in %s", path)
	}
	added := strings.Replace(want, rules, rules+",\n            {\n              \"id\": \"KPL999\"\n            }", 1)
	changed := strings.Replace(added, `"id": "KPL001"`, `"id": "KPL000"`, 1)
	results := strings.Replace(added, `"ruleIndex": 1,`, `"ruleIndex": 2,`, 1)
	for _, c := range []struct {
		name, got string
		want      bool
	}{{"the same", want, true}, {"a rule added", added, true}, {"a rule changed", changed, false}, {"a result changed", results, false}} {
		if got := sameReport(path, want, c.got); got != c.want {
			t.Errorf("%s: sameReport = %v", c.name, got)
		}
	}
	if sameReport("x.json", want, added) {
		t.Error("a JSON golden matched another report")
	}
}
