package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// checkJSON runs check with args and -o json=FILE and returns the exit
// code, the report read back and stdout.
func checkJSON(t *testing.T, args ...string) (int, jsonRun, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "r.json")
	code, out, stderr := run(t, append(append([]string{"check"}, args...), "-o", "json="+p, "-o", "text=-")...)
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var r jsonRun
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return code, r, out
}

type jsonRun struct {
	Findings []struct {
		RuleID, Level, Message, Outcome, Machine string
		Agents, Kernels                          []string
		Related                                  []struct{ Path string }
	}
	Summary struct {
		Error, Warning int
		Gating         struct{ Error, Warning int }
		Failing        int
	}
}

func (r jsonRun) rule(id string) (n int, msg string, agents []string, related int) {
	for _, f := range r.Findings {
		if f.RuleID == id {
			n++
			msg, agents, related = f.Message, f.Agents, len(f.Related)
		}
	}
	return n, msg, agents, related
}

// Newcomer counts 4: with a baseline that has two of the example's three
// findings, the one new error is what the text trailer and the JSON
// summary lead with; the totals follow.
func TestTrailerLeadsWithNewError(t *testing.T) {
	dir := t.TempDir()
	pol := writeFile(t, filepath.Join(dir, "no-kpl003.yaml"), strings.Replace(readFile(t, "../../policies.yaml"), "rules:\n", "rules:\n  KPL003: {level: \"off\"}\n", 1))
	base := filepath.Join(dir, "base.json")
	if code, _, stderr := run(t, "check", "--policy", pol, "--variant", "asan", "--fail-on", "none", "-q", "-o", base, exampleDir); code != ExitOK {
		t.Fatalf("baseline: exit %d: %s", code, stderr)
	}
	code, r, out := checkJSON(t, "--policy", "../../policies.yaml", "--variant", "asan", "--baseline", base, exampleDir)
	const want = "\n1 new error fails the gate; 3 findings: 2 errors, 1 warning, 0 notes (1 new, 2 unchanged, 0 fixed since the baseline)\n"
	if code != ExitFindings || !strings.HasSuffix(out, want) {
		t.Errorf("exit %d, trailer %q; want %q", code, out[strings.LastIndexByte(strings.TrimSuffix(out, "\n"), '\n'):], want)
	}
	if s := r.Summary; s.Error != 2 || s.Warning != 1 || s.Gating.Error != 1 || s.Failing != 1 {
		t.Errorf("summary %+v: want 2 errors, 1 warning, gating 1 error, failing 1", s)
	}
}

// Newcomer counts 5: a mistyped HSA_OVERRIDE_GFX_VERSION hides the GPU
// of every agent of the matrix (each a machine) for one reason: one
// KPL010 naming the machines, not one per agent.
func TestBadEnvironmentOnce(t *testing.T) {
	code, r, _ := checkJSON(t, "--policy", "../../policies.yaml", "--env", "HSA_OVERRIDE_GFX_VERSION=11.0", exampleDir)
	n, msg, agents, _ := r.rule("KPL010")
	if code != ExitFindings || n != 1 || len(agents) != 14 {
		t.Fatalf("exit %d, %d KPL010 with %d agents; want 1 with the 14 agents:\n%s", code, n, len(agents), msg)
	}
	for _, w := range []string{
		"On 14 machines, gfx90a:sramecc+:xnack+, gfx90a:sramecc+:xnack-, ",
		" ... and 6 more (HIP newest; HSA_OVERRIDE_GFX_VERSION=11.0), a Linux process has no GPU: HSA_OVERRIDE_GFX_VERSION=11.0 is not MAJOR.MINOR.STEPPING",
		"none of the build's 4 Linux host binaries is loaded there and nothing of the build is checked on these machines.",
		"Fix: on machine gfx90a:sramecc+:xnack+ (the others alike, each with its own devices' values), write it as three decimal numbers",
	} {
		if !strings.Contains(msg, w) {
			t.Errorf("KPL010 lacks %q:\n%s", w, msg)
		}
	}
	// One machine keeps its own finding, worded as before.
	_, r, _ = checkJSON(t, "--no-policy", "--machine", "gfx1100", "--env", "HSA_OVERRIDE_GFX_VERSION=11.0", exampleDir)
	if n, msg, _, _ := r.rule("KPL010"); n != 1 || !strings.HasPrefix(msg, "On machine gfx1100 (HIP newest; HSA_OVERRIDE_GFX_VERSION=11.0) a Linux process has no GPU: ") {
		t.Errorf("one machine: %d KPL010: %s", n, msg)
	}
}

// Newcomer counts 6: --hip 6.2 on the matrix and two machines fails every
// kpack'd binary for one reason, "HIP 6.2 predates kpack": one KPL001
// listing the binaries, agents and machines, not one per binary and
// machine.
func TestReleaseCauseOnce(t *testing.T) {
	code, r, _ := checkJSON(t, "--policy", "../../policies.yaml", "--hip", "6.2", "--machine", "gfx942", "--machine", "gfx1100", exampleDir)
	n, msg, agents, related := r.rule("KPL001")
	want := "4 kpack'd host binaries (bin/hipfft-test, bin/rocfft-test, lib/librocblas.so.5, lib/librocsparse.so.1) cannot be loaded on 14 agents of the target matrix " +
		"(gfx1100, gfx1151, gfx90a:sramecc+:xnack+, gfx90a:sramecc+:xnack-, gfx90a:sramecc-:xnack+, gfx90a:sramecc-:xnack-, gfx942:sramecc+:xnack+, gfx942:sramecc+:xnack- ... and 6 more) " +
		"and on machines gfx942, gfx1100: HIP 6.2 predates kpack (rocm-systems PR 2622) and does not know the HIPK wrapper magic, so HIP does not register the module " +
		"(\"Cannot Register fat binary\", a null module), and a kernel launch aborts the process. " +
		"Fix: use a HIP release that loads kpack'd binaries (--hip newest), or ship the binaries with embedded device code."
	if code != ExitFindings || n != 1 || msg != want || len(agents) != 14 || related != 3 {
		t.Errorf("exit %d, %d KPL001 (%d agents, %d related); want 1 with the 14 agents and 3 related:\n%s\nwant\n%s", code, n, len(agents), related, msg, want)
	}
}

// Newcomer counts 7: the HTML page of the example's release variant puts
// the targets with errors first (gfx1151 before gfx1100, which the
// policy lists first) in its targets table and its matrix.
func TestHTMLTargetsWorstFirst(t *testing.T) {
	_, page, _ := run(t, "check", "--policy", "../../policies.yaml", "--format", "html", exampleDir)
	order := func(re string) []string {
		var out []string
		for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(page, -1) {
			out = append(out, m[1])
		}
		return out
	}
	want := "gfx90a gfx942 gfx950 gfx1151 gfx1100"
	if got := strings.Join(order(`data-target-row="([^"]+)"`), " "); got != want {
		t.Errorf("targets table %q, want %q", got, want)
	}
	if got := strings.Join(order(`<th colspan="\d+" data-target="([^"]+)"`), " "); got != want {
		t.Errorf("matrix columns %q, want %q", got, want)
	}
	if !strings.Contains(page, `<h1><span class="badge error">fails</span> kpack-lint: 2 errors fail the gate; `) {
		t.Errorf("heading: %s", regexp.MustCompile(`<h1>.*</h1>`).FindString(page))
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
