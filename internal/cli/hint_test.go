package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
)

// printedCommands returns the ready-to-run commands a text report prints after
// "  explain: " (or "  rule: "), in order.
func printedCommands(out, label string) []string {
	var cmds []string
	for _, line := range strings.Split(out, "\n") {
		if c, ok := strings.CutPrefix(line, "  "+label+": "); ok {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// runPrinted runs a printed `kpack-lint ...` command in-process. The
// commands of these tests need no shell quoting.
func runPrinted(t *testing.T, cmd string) (int, string, string) {
	t.Helper()
	args := strings.Fields(cmd)
	if args[0] != "kpack-lint" || strings.ContainsAny(cmd, `'"`) {
		t.Fatalf("not a plain kpack-lint command: %q", cmd)
	}
	return run(t, args[1:]...)
}

// Newcomer report 1a: an absolute --policy elsewhere is printed so that
// the command runs from the same working directory, and running it shows
// the failure the finding reports.
func TestExplainCommandsUseThePolicyAsGiven(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../policies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pol := writeFile(t, filepath.Join(dir, "readme.yaml"), string(data))
	code, out, stderr := run(t, "check", "--policy", pol, "--variant", "asan", filepath.Join(testdata, "example"))
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cmds := printedCommands(out, "explain")
	if len(cmds) != 1 {
		t.Fatalf("%d explain commands, want 1 (the KPL002 warning, one root cause on three processors):\n%s", len(cmds), out)
	}
	want := "kpack-lint explain --policy " + fsutil.RelToWD(pol) + " --variant asan --agent gfx90a:sramecc+:xnack+ --agent gfx942:sramecc+:xnack+ --agent gfx950:sramecc+:xnack+ " +
		"--loader legacy bin/rocfft-test#0-2 ../../testdata/example"
	if cmds[0] != want {
		t.Errorf("explain command\n got %s\nwant %s", cmds[0], want)
	}
	for _, c := range cmds {
		if code, out, stderr := runPrinted(t, c); code != ExitFindings || !strings.Contains(out, "KPACK_ERROR_KERNEL_NOT_FOUND (error 5)") {
			t.Errorf("%s: exit %d, want 1 (the legacy load fails)\n%s%s", c, code, out, stderr)
		}
	}
	// The report bodies name the policy by its base name (absolute) and the input as given (relative).
	if !strings.Contains(out, "checked ../../testdata/example with policy readme.yaml, variant asan") {
		t.Errorf("header:\n%s", out)
	}
}

// Newcomer report 1b: --env reaches the printed command, the text header
// and JSON "checked"; the printed command fails as the check did.
func TestExplainCommandsKeepEnv(t *testing.T) {
	ex := filepath.Join(testdata, "example")
	args := []string{"check", "--no-policy", "--target", "gfx942", "--env", "ROCM_KPACK_DISABLE=1"}
	code, out, _ := run(t, append(args, ex)...)
	if code != ExitFindings || !strings.Contains(out, "error KPL001") || !strings.Contains(out, "\n  env: ROCM_KPACK_DISABLE=1\n") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	cmds := printedCommands(out, "explain")
	if len(cmds) == 0 {
		t.Fatalf("no explain command:\n%s", out)
	}
	for _, c := range cmds {
		if !strings.HasPrefix(c, "kpack-lint explain --no-policy --env ROCM_KPACK_DISABLE=1 --agent gfx942:") {
			t.Errorf("command %q", c)
		}
		if code, out, _ := runPrinted(t, c); code != ExitFindings || !strings.Contains(out, "kpack disabled via ROCM_KPACK_DISABLE") {
			t.Errorf("%s: exit %d\n%s", c, code, out)
		}
	}
	_, js, _ := run(t, append(args, "--format", "json", ex)...)
	var rep struct {
		Checked struct {
			Env  []string `json:"env"`
			Deep bool     `json:"deep"`
		} `json:"checked"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Checked.Env, " ") != "ROCM_KPACK_DISABLE=1" || rep.Checked.Deep {
		t.Errorf("checked = %+v", rep.Checked)
	}
}

// Newcomer report 1c: no printed explain command shows success for an
// error. KPL003 and KPL004 (whose cause is not one failing load) print
// `kpack-lint rules ID`; every explain command printed for the example
// and the seed scenario fails, except KPL009's, which shows the code
// object HIP rejects.
func TestPrintedExplainCommandsShowTheProblem(t *testing.T) {
	ex := filepath.Join(testdata, "example")
	seed := scenario("seed-fft-asan")
	runs := [][]string{
		{"check", "--policy", "../../policies.yaml", "--variant", "asan", ex},
		{"check", "--policy", "../../policies.yaml", "--variant", "release", "--deep", ex},
		{"check", "--policy", filepath.Join(seed, "policies.yaml"), "--variant", "asan", filepath.Join(seed, "tree")},
	}
	seen := 0
	for _, args := range runs {
		_, out, _ := run(t, args...)
		for _, id := range []string{"KPL003", "KPL004"} {
			n := strings.Count(out, "error "+id+" ") + strings.Count(out, "note "+id+" ")
			if got := strings.Count(out, "\n  rule: kpack-lint rules "+id+"\n"); got != n {
				t.Errorf("%v: %d %s findings, %d rules commands", args, n, id, got)
			}
		}
		for _, c := range printedCommands(out, "explain") {
			seen++
			code, eout, _ := runPrinted(t, c)
			if strings.Contains(c, "lib/librocblas.so.5#0-3") { // KPL009 under --deep
				if !strings.Contains(eout, "hip: code object target gfx1100, agent gfx1151: hipErrorInvalidImage") {
					t.Errorf("%s:\n%s", c, eout)
				}
				continue
			}
			if code != ExitFindings {
				t.Errorf("%s: exit %d, want 1\n%s", c, code, eout)
			}
		}
	}
	if seen < 5 {
		t.Errorf("only %d explain commands checked", seen)
	}
}
