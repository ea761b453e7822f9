package cli

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The example build's one defect (rocFFT strips xnack+ in group fft_test)
// is one finding per rule, each on every processor of the asan variant,
// with SARIF related locations for the other processors' archives.
func TestExampleIsOneFindingPerRule(t *testing.T) {
	ex := filepath.Join(testdata, "example")
	_, js, _ := run(t, "check", "--policy", "../../policies.yaml", "--variant", "asan", "--format", "json", ex)
	var rep struct {
		Findings []struct {
			RuleID  string   `json:"ruleId"`
			Targets []string `json:"targets"`
			Agents  []string `json:"agents"`
			Related []struct {
				Path string `json:"path"`
			} `json:"related"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range rep.Findings {
		ids = append(ids, f.RuleID)
		if want := []string{"gfx90a:xnack+", "gfx942:xnack+", "gfx950:xnack+"}; !reflect.DeepEqual(f.Targets, want) {
			t.Errorf("%s: targets %v, want %v", f.RuleID, f.Targets, want)
		}
		var related []string
		for _, r := range f.Related {
			related = append(related, r.Path)
		}
		for _, proc := range []string{"gfx90a", "gfx942", "gfx950"} {
			if !strings.Contains(strings.Join(related, " "), "fft_test_"+proc+".kpack") {
				t.Errorf("%s: related %v lacks the %s archive", f.RuleID, related, proc)
			}
		}
	}
	if want := []string{"KPL002", "KPL003", "KPL004"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("findings %v, want %v", ids, want)
	}
	_, sarif, _ := run(t, "check", "--policy", "../../policies.yaml", "--variant", "asan", "--format", "sarif", ex)
	var log struct {
		Runs []struct {
			Results []struct {
				RelatedLocations []any          `json:"relatedLocations"`
				Properties       map[string]any `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(sarif), &log); err != nil {
		t.Fatal(err)
	}
	for i, r := range log.Runs[0].Results {
		if n := len(r.RelatedLocations); n < 3 {
			t.Errorf("result %d: %d related locations", i, n)
		}
		if ts, _ := r.Properties["targets"].([]any); len(ts) != 3 {
			t.Errorf("result %d: properties.targets %v", i, r.Properties["targets"])
		}
	}
}

// An old report (fingerprints of one finding per processor) still reads as
// a baseline: the merged findings are new once, the old ones fixed.
func TestOldBaselineStillReads(t *testing.T) {
	ex := filepath.Join(testdata, "example")
	old := filepath.Join(testdata, "baselines", "example-asan-9-findings.json")
	code, out, stderr := run(t, "check", "--policy", "../../policies.yaml", "--variant", "asan", "--baseline", old, ex)
	if code != ExitFindings || !strings.Contains(out, "3 findings: 2 errors, 1 warning, 0 notes (3 new, 0 unchanged, 9 fixed since the baseline)") {
		t.Errorf("exit %d\n%s%s", code, out, stderr)
	}
}

// --new-only and --max-per-rule are checked like every flag; with a
// baseline --new-only leaves only the new findings' blocks (new and
// grown).
func TestNewOnlyAndMaxPerRuleFlags(t *testing.T) {
	ex := filepath.Join(testdata, "example")
	pol := []string{"check", "--policy", "../../policies.yaml"}
	if code, _, stderr := run(t, append(pol, "--new-only", ex)...); code != ExitUsage || !strings.Contains(stderr, "--new-only needs --baseline FILE") {
		t.Errorf("--new-only without a baseline: exit %d %q", code, stderr)
	}
	if code, _, stderr := run(t, append(pol, "--max-per-rule", "-1", ex)...); code != ExitUsage || !strings.Contains(stderr, "--max-per-rule -1: want a count") {
		t.Errorf("--max-per-rule -1: exit %d %q", code, stderr)
	}
	base := filepath.Join(t.TempDir(), "release.sarif")
	run(t, append(pol, "--variant", "release", "-q", "-o", base, ex)...)
	_, out, _ := run(t, append(pol, "--variant", "asan", "--baseline", base, "--new-only", ex)...)
	// KPL004 names no agent: its targets are what it covers, and the asan
	// variant's gfx942:xnack+ is not the release variant's gfx942.
	if !strings.Contains(out, "2 findings new since the baseline:\nbin/rocfft-test[64+89]: error KPL003 ") ||
		!strings.Contains(out, "baseline: new, grown since the baseline: now also for targets gfx90a:xnack+, gfx942:xnack+, gfx950:xnack+") ||
		!strings.Contains(out, "\n1 finding unchanged since the baseline not shown (--new-only)") || strings.Contains(out, "KPL002 legacy-loader-shadowing: bin/") {
		t.Errorf("--new-only:\n%s", out)
	}
}
