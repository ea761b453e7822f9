package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/lint"
)

// kpack-lint targets lists TheRock's families with their processors
// (cmake/therock_amdgpu_targets.cmake at therock-7.14: gfx94X-dcgpu is
// gfx942 alone, line 93; gfx120X-all gfx1200 and gfx1201, lines 248 and
// 253) and LLVM's processors, as text and JSON.
func TestTargetsCommand(t *testing.T) {
	code, out, stderr := run(t, "targets")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, re := range []string{
		`(?m)^TheRock target families \(ROCm/TheRock cmake/therock_amdgpu_targets\.cmake at therock-7\.14, 418cd5f63abb\)`,
		`(?m)^  gfx94X-dcgpu +gfx942$`,
		`(?m)^  gfx120X-all +gfx1200 gfx1201$`,
		`(?m)^  dcgpu-all +gfx908 gfx90a gfx942 gfx950 gfx1250$`,
		`(?m)^  gfx942 +sramecc xnack +MI300A/MI300X CDNA +gfx9-4-generic$`,
		`(?m)^  gfx1013 +xnack +- +gfx10-1-generic$`,
		`(?m)^  gfx11-generic +- +- +covers gfx1100 gfx1101 gfx1102 gfx1103 gfx1150 gfx1151 gfx1152 gfx1153$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("targets output lacks %s:\n%s", re, out)
		}
	}
	if strings.Contains(out, " \n") {
		t.Error("trailing spaces")
	}
	code, out, _ = run(t, "targets", "--format", "json", "gfx110X-all", "gfx950")
	var l lint.TargetListing
	if err := json.Unmarshal([]byte(out), &l); err != nil || code != ExitOK {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if l.TheRock.Ref != "therock-7.14" || len(l.Families) != 1 || l.Families[0].Name != "gfx110X-all" ||
		!slices.Equal(l.Families[0].Processors, []string{"gfx1100", "gfx1101", "gfx1102", "gfx1103"}) {
		t.Errorf("families %+v", l)
	}
	if len(l.Processors) != 1 || l.Processors[0].Product != "MI350X/MI355X CDNA" || l.Processors[0].Generic != "gfx9-4-generic" ||
		!slices.Equal(l.Processors[0].Families, []string{"dcgpu-all", "gfx950-all", "gfx950-dcgpu"}) || len(l.Processors[0].DeviceISAs) != 4 {
		t.Errorf("gfx950 %+v", l.Processors)
	}
	code, _, stderr = run(t, "targets", "gfx94x-dcgpu")
	if code != ExitUsage || !strings.Contains(stderr, `targets: "gfx94x-dcgpu" is neither a TheRock target family nor a processor (did you mean gfx94X-dcgpu?)`) {
		t.Errorf("unknown: exit %d: %s", code, stderr)
	}
}

// check --target gfx94X-dcgpu expands the family: checked.targets holds
// gfx942, checked.families the family as given, in JSON and SARIF, and
// the text header names both.
func TestCheckTargetFamily(t *testing.T) {
	dir := t.TempDir()
	js, sarif := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.sarif")
	code, out, stderr := run(t, "check", "--no-policy", "--target", "gfx94X-dcgpu", "--fail-on", "none", "-o", "text=-", "-o", "json="+js, "-o", "sarif="+sarif, filepath.Join(testdata, "example"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "  targets (--target, TheRock family gfx94X-dcgpu (gfx942)): gfx942\n") {
		t.Errorf("text header:\n%s", out)
	}
	type checked struct {
		Targets      []string `json:"targets"`
		TargetSource string   `json:"targetSource"`
		Families     []struct {
			Name       string   `json:"name"`
			Processors []string `json:"processors"`
		} `json:"families"`
		Agents []string `json:"agents"`
	}
	var j struct {
		Checked checked `json:"checked"`
	}
	var s struct {
		Runs []struct {
			Invocations []struct {
				Properties checked `json:"properties"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	readJSON(t, js, &j)
	readJSON(t, sarif, &s)
	for name, k := range map[string]checked{"json": j.Checked, "sarif": s.Runs[0].Invocations[0].Properties} {
		if !slices.Equal(k.Targets, []string{"gfx942"}) || k.TargetSource != "--target, TheRock family gfx94X-dcgpu (gfx942)" ||
			len(k.Families) != 1 || k.Families[0].Name != "gfx94X-dcgpu" || !slices.Equal(k.Families[0].Processors, []string{"gfx942"}) ||
			len(k.Agents) != 4 {
			t.Errorf("%s checked %+v", name, k)
		}
	}
	// Without a family the field is left out.
	_, out, _ = run(t, "check", "--no-policy", "--target", "gfx942", "--fail-on", "none", "--format", "json", filepath.Join(testdata, "example"))
	if strings.Contains(out, `"families"`) {
		t.Error("families without a family")
	}
}

func readJSON(t *testing.T, p string, v any) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// A family where one device is meant, or misspelt, is a usage error that
// says what to write.
func TestFamilyUsageErrors(t *testing.T) {
	ex := filepath.Join(testdata, "example")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "gfx94x-dcgpu"}, `--target: invalid target ID "gfx94x-dcgpu": unknown processor "gfx94x-dcgpu" (did you mean gfx94X-dcgpu?)`},
		{[]string{"--target", "gfx120X-dgpu"}, `(did you mean gfx120X-all?)`},
		{[]string{"--target", "gfx94X-dcgpu:xnack+"}, `gfx94X-dcgpu is a TheRock target family (gfx942), which takes no triple or feature settings: name its processors with the settings (e.g. gfx942:xnack+)`},
		{[]string{"--agent", "gfx94X-dcgpu"}, `--agent: invalid target ID "gfx94X-dcgpu": gfx94X-dcgpu is a TheRock target family (a set of processors: gfx942), ` +
			`not one processor's target ID: write gfx942 here, with its feature settings; an agent is one device, so --target gfx94X-dcgpu simulates every device ISA of its processors`},
		{[]string{"--machine", "gfx1100,gfx120X-all"}, `gfx120X-all is a TheRock target family (a set of processors: gfx1200, gfx1201), not one processor's target ID`},
	} {
		code, _, stderr := run(t, append(append([]string{"check", "--no-policy"}, tc.args...), ex)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d: %s\nwant %s", tc.args, code, stderr, tc.want)
		}
	}
}

// A policy's targets: and agents: keys take families: targets:
// [gfx110X-all] checks gfx1100 to gfx1103, a family key's agents go to
// their own processor, and an agent of another processor is an error.
func TestPolicyFamilies(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "policies.yaml")
	write := func(s string) {
		if err := os.WriteFile(pol, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("version: 1\nvariants:\n  release:\n    targets: [gfx110X-all, gfx94X-dcgpu]\n    agents:\n      gfx94X-dcgpu: [gfx942:sramecc+:xnack-]\n")
	code, out, stderr := run(t, "check", "--policy", pol, "--fail-on", "none", "--format", "json", filepath.Join(testdata, "example"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var j struct {
		Checked struct {
			Targets, Agents []string
			TargetSource    string
		} `json:"checked"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if k := j.Checked; !slices.Equal(k.Targets, []string{"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx942"}) ||
		!slices.Equal(k.Agents, []string{"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx942:sramecc+:xnack-"}) ||
		k.TargetSource != "the release variant of policies.yaml, TheRock families gfx110X-all (gfx1100, gfx1101, gfx1102, gfx1103), gfx94X-dcgpu (gfx942)" {
		t.Errorf("checked %+v", k)
	}
	write("version: 1\nvariants:\n  release:\n    targets: [gfx110X-all]\n    agents:\n      gfx110X-all: [gfx1200]\n      gfx94X-dcgpu: [gfx942:sramecc+:xnack-]\n")
	code, _, stderr = run(t, "check", "--policy", pol, filepath.Join(testdata, "example"))
	for _, w := range []string{"variants.release.agents.gfx110X-all[0]: agent gfx1200 is not a device of TheRock family gfx110X-all (gfx1100, gfx1101, gfx1102, gfx1103)",
		"variants.release.agents.gfx94X-dcgpu: gfx94X-dcgpu is not one of the variant's targets"} {
		if code != ExitUsage || !strings.Contains(stderr, w) {
			t.Errorf("exit %d, want %q: %s", code, w, stderr)
		}
	}
	write("version: 1\nvariants:\n  release:\n    targets: [gfx110x-all]\n")
	if code, _, stderr = run(t, "check", "--policy", pol, filepath.Join(testdata, "example")); code != ExitUsage || !strings.Contains(stderr, "(did you mean gfx110X-all?)") {
		t.Errorf("misspelt family: exit %d: %s", code, stderr)
	}
}

// The TheRock#5347 wheel set checked for gfx94X-dcgpu: the missing code
// and its cause, the rocm wheel's device-all extra.
func TestTheRock5347(t *testing.T) {
	wheels, _ := filepath.Glob(filepath.Join(testdata, "therock-5347", "*.whl"))
	if len(wheels) != 3 {
		t.Fatalf("wheels %v", wheels)
	}
	code, out, stderr := run(t, append([]string{"check", "--no-policy", "--target", "gfx94X-dcgpu", "--format", "json"}, wheels...)...)
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var j struct {
		Findings []struct {
			RuleID, Message string
			Missing         []string `json:"missing"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	var rules []string
	cause := false
	for _, f := range j.Findings {
		rules = append(rules, f.RuleID)
		cause = cause || f.RuleID == "KPL013" && strings.HasPrefix(f.Message, "The rocm wheel's extra device-all") && slices.Equal(f.Missing, []string{"rocm-sdk-device-gfx942"})
	}
	if !cause || !slices.Contains(rules, "KPL006") {
		t.Errorf("findings %v: %s", rules, out)
	}
}
