package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/report"
)

func kerneldbCase(name string, parts ...string) string {
	return filepath.Join(append([]string{testdata, "kerneldb", name}, parts...)...)
}

// TestKernelDBGolden pins the three formats for TheRock#5179 (go test
// ./internal/cli -update rewrites them).
func TestKernelDBGolden(t *testing.T) {
	args := []string{"--policy", kerneldbCase("therock-5179", "policies.yaml"), kerneldbCase("therock-5179", "tree")}
	for _, format := range []string{"sarif", "text", "json"} {
		code, out, stderr := run(t, append([]string{"check", "--format", format}, args...)...)
		if code != ExitFindings {
			t.Fatalf("exit %d, want 1: %s", code, stderr)
		}
		golden(t, filepath.Join(testdata, "golden", "therock-5179."+format), out)
	}
	code, out, _ := run(t, "explain-db", "--agent", "gfx90a:sramecc+:xnack-", "lib/librocblas.so.5", kerneldbCase("rocm-systems-7645", "tree"))
	if code != ExitFindings {
		t.Fatalf("explain-db exit %d, want 1", code)
	}
	golden(t, filepath.Join(testdata, "golden", "explain-db-7645.text"), out)
}

func TestExplainDB(t *testing.T) {
	code, out, stderr := run(t, "explain-db", "--format", "json", "--agent", "gfx1100", "hipblaslt",
		kerneldbCase("therock-5478", "base"), kerneldbCase("therock-5478", "gfx1100"))
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var ex report.DBExplanation
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatal(err)
	}
	if len(ex.Sites) != 1 || len(ex.Sites[0].Lookups) != 1 || len(ex.Sites[0].Lookups[0].Misses) != 2 ||
		ex.Sites[0].Lookups[0].Misses[0].Kind != "index" || ex.Sites[0].Lookups[0].Misses[0].Effect != "fails later" {
		t.Errorf("explanation %+v", ex)
	}
	if s := ex.Sites[0]; s.Release != "ROCm 7.0 and later" || s.ReleaseFrom != "its read-only data (the 7.x index and mapping names)" {
		t.Errorf("release %q from %q", s.Release, s.ReleaseFrom)
	}
	code, out, _ = run(t, "explain-db", "--deep", "--agent", "gfx942:sramecc+:xnack-", "--agent", "gfx90a:sramecc+:xnack+", "rocblas", kerneldbCase("rocblas-per-arch", "tree"))
	if code != ExitOK || strings.Count(out, "OK\n") != 2 || !strings.Contains(out, "lib/rocblas/library/gfx90a-xnack+: found (per-arch folder)") {
		t.Errorf("clean build: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "explain-db", "--cu", "104", "--agent", "gfx90a:sramecc+:xnack-", "miopen", kerneldbCase("miopen-1651", "tree"))
	if code != ExitOK || !strings.Contains(out, "slows down: no kernel database for gfx90a with 104 CUs") {
		t.Errorf("MIOpen slow-downs exit 0: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explain-db", "--agent", "gfx942:sramecc+:xnack-", "libfoo.so", kerneldbCase("therock-5179", "tree")}, "is not a rocBLAS, hipBLASLt, MIOpen or AOTriton library"},
		{[]string{"explain-db", "--agent", "gfx942:sramecc+:xnack-", "--env", "ROCM_KPACK_PATH=x", "rocblas", kerneldbCase("therock-5179", "tree")}, "--env"},
		{[]string{"explain-db", "--agent", "gfx942:sramecc+:xnack-", "--cu", "0", "miopen", kerneldbCase("miopen-1651", "tree")}, "--cu 0"},
		{[]string{"explain-db", "--agent", "gfx942:sramecc+:xnack-", "rocblas"}, "want LIBRARY INPUT"},
		{[]string{"explain-db", "--agent", "gfx9999", "rocblas", kerneldbCase("therock-5179", "tree")}, "--agent"},
	} {
		code, _, stderr := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestCheckNotesDatabasesWithoutTargets(t *testing.T) {
	code, out, stderr := run(t, "check", "--no-policy", kerneldbCase("therock-5179", "tree"))
	if code != ExitOK || !strings.HasSuffix(out, "\n\nno findings\n") || !strings.Contains(stderr, "no targets to simulate") {
		t.Errorf("exit %d, out %q, stderr %q", code, out, stderr)
	}
	_, _, stderr = run(t, "check", "--no-policy", "--agent", "gfx90a:sramecc+:xnack-", kerneldbCase("miopen-1651", "tree"))
	if !strings.Contains(stderr, "were not checked for gfx90a: give cu_counts in the policy") {
		t.Errorf("stderr %q", stderr)
	}
}

// TestExplainDBAgents (problem 9): explain-db takes only ISAs a device
// reports, as check --agent does: a generic target, gfx90c:xnack+ (gfx90c
// devices report the bare ISA) and gfx942 without its features are usage
// errors naming what devices report; a repeated agent is simulated once.
func TestExplainDBAgents(t *testing.T) {
	tree := kerneldbCase("rocblas-per-arch", "tree")
	for agent, want := range map[string]string{
		"gfx9-4-generic": "a generic target is not a device ISA",
		"gfx90c:xnack+":  "not an ISA a device reports (a gfx90c device reports gfx90c)",
		"gfx942":         "not an ISA a device reports (a gfx942 device reports gfx942:sramecc+:xnack+, gfx942:sramecc+:xnack-,",
	} {
		code, _, stderr := run(t, "explain-db", "--agent", agent, "rocblas", tree)
		if code != ExitUsage || !strings.Contains(stderr, want) || strings.Contains(stderr, "--target") {
			t.Errorf("--agent %s: exit %d, stderr %q", agent, code, stderr)
		}
	}
	_, out, _ := run(t, "explain-db", "--agent", "gfx942:sramecc+:xnack-", "--agent", "gfx942:xnack-:sramecc+", "rocblas", tree)
	if n := strings.Count(out, "rocBLAS: agent "); n != 1 {
		t.Errorf("repeated agent simulated %d times", n)
	}
}

// TestExplainDBRepeatedCUs (problem 10): --cu 104 --cu 104 checks the
// 104-CU names once.
func TestExplainDBRepeatedCUs(t *testing.T) {
	_, out, _ := run(t, "explain-db", "--cu", "104", "--cu", "104", "--agent", "gfx90a:sramecc+:xnack-", "miopen", kerneldbCase("miopen-1651", "tree"))
	if n := strings.Count(out, "share/miopen/db/gfx90a68.kdb: missing"); n != 1 {
		t.Errorf("gfx90a68.kdb probed %d times:\n%s", n, out)
	}
}

// TestMIOpenDeviceCUFlag (problem 15): MIOPEN_DEVICE_CU is read from --env
// and the policy's env:, and must be a number.
func TestMIOpenDeviceCUFlag(t *testing.T) {
	tree := kerneldbCase("miopen-1651", "tree")
	code, out, _ := run(t, "explain-db", "--env", "MIOPEN_DEVICE_CU=110", "--agent", "gfx90a:sramecc+:xnack-", "miopen", tree)
	if code != ExitOK || !strings.Contains(out, "MIOpen:   MIOPEN_DEVICE_CU: found (110 CUs for every device)") || !strings.Contains(out, "MIOpen:   OK") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	for _, args := range [][]string{
		{"explain-db", "--env", "MIOPEN_DEVICE_CU=lots", "--agent", "gfx90a:sramecc+:xnack-", "miopen", tree},
		{"check", "--no-policy", "--env", "MIOPEN_DEVICE_CU=-3", "--agent", "gfx90a:sramecc+:xnack-", tree},
	} {
		if code, _, stderr := run(t, args...); code != ExitUsage || !strings.Contains(stderr, "MIOPEN_DEVICE_CU") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	code, _, stderr := run(t, "check", "--no-policy", "--env", "MIOPEN_DEVICE_CU=104", "--agent", "gfx90a:sramecc+:xnack-", tree)
	if code != ExitOK || strings.Contains(stderr, "were not checked") {
		t.Errorf("check with MIOPEN_DEVICE_CU: exit %d, stderr %q", code, stderr)
	}
}
