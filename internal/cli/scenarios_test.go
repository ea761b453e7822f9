package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// scenarioRun is one run of a scenario's expect.json (the format of the
// shared check-scenarios tool): extra check arguments, the findings that
// must appear (rule regexp + texts the result's JSON must contain), rules
// that must not, and texts no error or warning may mention.
type scenarioRun struct {
	Inputs []string `json:"inputs"`
	Args   []string `json:"args"`
	Expect []struct {
		Rule string   `json:"rule"`
		Has  []string `json:"has"`
	} `json:"expect"`
	Absent    []string   `json:"absent"`
	AbsentHas [][]string `json:"absent_has"`
}

// TestScenarios runs every testdata/scenarios/*/expect.json (copies of the
// shared scenario trees, built on public bug reports) through the CLI in
// process, as ../shared/tools/check-scenarios does with the binary.
func TestScenarios(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(testdata, "scenarios", "*", "expect.json"))
	if len(dirs) < 7 {
		t.Fatalf("found %d scenarios", len(dirs))
	}
	for _, exp := range dirs {
		dir := filepath.Dir(exp)
		var spec struct{ Runs []scenarioRun }
		data, err := os.ReadFile(exp)
		if err != nil || json.Unmarshal(data, &spec) != nil {
			t.Fatalf("%s: %v", exp, err)
		}
		for i, r := range spec.Runs {
			t.Run(filepath.Base(dir)+"/"+strings.Join(r.Args, "_"), func(t *testing.T) {
				checkScenarioRun(t, dir, i, r)
			})
		}
	}
}

func checkScenarioRun(t *testing.T, dir string, i int, r scenarioRun) {
	out := filepath.Join(t.TempDir(), "out.sarif")
	args := []string{"check", "--format", "sarif", "--output", out}
	if pol := filepath.Join(dir, "policies.yaml"); fileExists(pol) {
		args = append(args, "--policy", pol)
	} else {
		args = append(args, "--no-policy") // never the caller's or the repository's policies.yaml
	}
	args = append(args, r.Args...)
	inputs := r.Inputs
	if len(inputs) == 0 {
		inputs = []string{"tree"}
	}
	for _, in := range inputs {
		args = append(args, filepath.Join(dir, in))
	}
	if code, _, stderr := run(t, args...); code != ExitOK && code != ExitFindings {
		t.Fatalf("run %d: exit %d: %s", i, code, stderr)
	}
	results := sarifResults(t, out)
	for _, e := range r.Expect {
		if !anyResult(results, e.Rule, e.Has, false) {
			t.Errorf("run %d: no %s result with %q", i, e.Rule, e.Has)
		}
	}
	for _, rule := range r.Absent {
		if anyResult(results, "^"+regexp.QuoteMeta(rule)+"$", nil, false) {
			t.Errorf("run %d: unexpected %s result", i, rule)
		}
	}
	for _, has := range r.AbsentHas {
		if anyResult(results, ".*", has, true) {
			t.Errorf("run %d: an error or warning mentions %q", i, has)
		}
	}
}

type sarifResult struct {
	rule, level, text string
}

func sarifResults(t *testing.T, path string) []sarifResult {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []sarifResult
	for _, run := range doc.Runs {
		for _, raw := range run.Results {
			var r struct {
				RuleID string `json:"ruleId"`
				Level  string `json:"level"`
			}
			_ = json.Unmarshal(raw, &r)
			if r.Level == "" {
				r.Level = "warning"
			}
			out = append(out, sarifResult{rule: r.RuleID, level: r.Level, text: string(raw)})
		}
	}
	return out
}

// anyResult reports whether a result's rule fully matches pattern and its
// JSON holds every text of has (only errors and warnings when serious).
func anyResult(rs []sarifResult, pattern string, has []string, serious bool) bool {
	re := regexp.MustCompile("^(?:" + pattern + ")$")
	for _, r := range rs {
		if !re.MatchString(r.rule) || serious && r.level != "error" && r.level != "warning" {
			continue
		}
		all := true
		for _, h := range has {
			all = all && strings.Contains(r.text, jsonEscape(h))
		}
		if all {
			return true
		}
	}
	return false
}

// jsonEscape writes s as it appears inside a JSON string.
func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
