package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
)

type explainJSON struct {
	Result        string `json:"result"`
	Code          int    `json:"code"`
	Archive       string `json:"archive"`
	MatchedTarget string `json:"matched_target"`
	Trace         []struct {
		Target, Archive, Result string
	} `json:"trace"`
}

func explain(t *testing.T, args ...string) (int, explainJSON) {
	t.Helper()
	code, out, stderr := run(t, append([]string{"explain", "--format", "json"}, args...)...)
	var ex explainJSON
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatalf("exit %d, stderr %q: %v", code, stderr, err)
	}
	return code, ex
}

// TestExplainMatchesRuntime replays the rocm-kpack runtime's own test cases
// on the archives its Python writer made (testdata/upstream).
func TestExplainMatchesRuntime(t *testing.T) {
	up := filepath.Join(testdata, "upstream")
	pair := filepath.Join(scenario("peer-fallthrough-pair"), "tree")
	seed := filepath.Join(scenario("seed-fft-asan"), "tree")
	generic := filepath.Join(scenario("generic-only"), "tree")
	tests := []struct {
		name       string
		args       []string
		want       string
		wantExit   int
		wantTarget string
	}{
		{"noop gfx900", []string{"--agent", "gfx900", "--search", "test_noop.kpack", "lib/libtest.so#0", up}, "KPACK_SUCCESS", 0, "gfx900"},
		{"noop missing co_index", []string{"--agent", "gfx900", "--search", "test_noop.kpack", "lib/libtest.so#999", up}, "KPACK_ERROR_KERNEL_NOT_FOUND", 1, ""},
		{"triple prefix", []string{"--agent", "amdgcn-amd-amdhsa--gfx900", "--search", "test_noop.kpack", "lib/libtest.so#0", up}, "KPACK_SUCCESS", 0, "gfx900"},
		{"zstd wrong arch", []string{"--agent", "gfx900", "--search", "test_zstd.kpack", "lib/libtest.so#0", up}, "KPACK_ERROR_ARCH_NOT_FOUND", 1, ""},
		{"zstd decompresses", []string{"--agent", "gfx1101", "--search", "test_zstd.kpack", "lib/libhip.so#0", up}, "KPACK_SUCCESS", 0, "gfx1101"},
		{"no archive", []string{"--agent", "gfx900", "--search", "does_not_exist.kpack", "lib/libtest.so#0", up}, "KPACK_ERROR_ARCHIVE_NOT_FOUND", 1, ""},
		{"pair fallthrough", []string{"--agent", "gfx90a:xnack-", "--search", "test_fallthrough_xnack.kpack", "--search", "test_fallthrough_generic.kpack", "lib/libtest.so#0", pair}, "KPACK_SUCCESS", 0, "gfx90a"},
		{"pair legacy", []string{"--agent", "gfx90a:xnack-", "--loader", "legacy", "--search", "test_fallthrough_xnack.kpack", "--search", "test_fallthrough_generic.kpack", "lib/libtest.so#0", pair}, "KPACK_ERROR_KERNEL_NOT_FOUND", 1, ""},
		{"seed hipfft xnack- fallthrough", []string{"--agent", "gfx950:sramecc+:xnack-", "bin/hipfft-test#0", seed}, "KPACK_ERROR_KERNEL_NOT_FOUND", 1, ""},
		{"seed hipfft xnack- legacy", []string{"--agent", "gfx950:sramecc+:xnack-", "--loader", "legacy", "bin/hipfft-test#0", seed}, "KPACK_ERROR_KERNEL_NOT_FOUND", 1, ""},
		{"seed rocfft asan fallthrough", []string{"--agent", "gfx950:sramecc+:xnack+", "bin/rocfft-test#2", seed}, "KPACK_SUCCESS", 0, "gfx950"},
		// TheRock PR 7372: HIP appends the generic target to the arch_list.
		{"generic only", []string{"--agent", "gfx1030", "lib/librocrand.so.1#1", generic}, "KPACK_SUCCESS", 0, "gfx10-3-generic"},
		{"generic only, no generic", []string{"--agent", "gfx1030", "--no-generic", "lib/librocrand.so.1#1", generic}, "KPACK_ERROR_ARCHIVE_NOT_FOUND", 1, ""},
		{"disabled", []string{"--agent", "gfx1030", "--env", "ROCM_KPACK_DISABLE=1", "lib/librocrand.so.1#1", generic}, "KPACK_ERROR_NOT_IMPLEMENTED", 1, ""},
		{"only the first @GFXARCH@", []string{"--agent", "gfx1100", "lib/libx.so#0", filepath.Join(scenario("double-gfxarch"), "tree")}, "KPACK_ERROR_ARCHIVE_NOT_FOUND", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, ex := explain(t, tt.args...)
			if ex.Result != tt.want || code != tt.wantExit || ex.MatchedTarget != tt.wantTarget {
				t.Fatalf("got %s (exit %d, target %q), want %s (exit %d, target %q)", ex.Result, code, ex.MatchedTarget, tt.want, tt.wantExit, tt.wantTarget)
			}
		})
	}
}

func TestExplainTrace(t *testing.T) {
	seed := filepath.Join(scenario("seed-fft-asan"), "tree")
	_, ex := explain(t, "--agent", "gfx950:sramecc+:xnack+", "bin/rocfft-test#0", seed)
	if len(ex.Trace) != 2 {
		t.Fatalf("trace has %d steps, want 2: %+v", len(ex.Trace), ex.Trace)
	}
	if ex.Trace[0].Archive != ".kpack/fft_test_gfx950:xnack+.kpack" || ex.Trace[0].Target != "gfx950:xnack+" || ex.Trace[0].Result != "KPACK_ERROR_KERNEL_NOT_FOUND" {
		t.Errorf("step 1 = %+v", ex.Trace[0])
	}
	if ex.Trace[1].Archive != ".kpack/fft_test_gfx950.kpack" || ex.Trace[1].Result != "KPACK_SUCCESS" {
		t.Errorf("step 2 = %+v", ex.Trace[1])
	}
}

func TestExplainUsage(t *testing.T) {
	for _, args := range [][]string{
		{"explain", "lib/libtest.so#0"},                            // no --agent
		{"explain", "--agent", "gfx900", "lib/libtest.so"},         // no co_index
		{"explain", "--agent", "gfx9999", "lib/libtest.so#0"},      // bad agent
		{"explain", "--agent", "gfx900", "nobody#0", testdata},     // no binary with that name
		{"explain", "--agent", "gfx900", "--format", "xml", "a#0"}, // bad format
	} {
		if code, _, stderr := run(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, stderr)
		}
	}
}

// TestExplainChecksCodeObject: explain decodes the served code object and
// says what HIP would make of it; the exit code stays kpack's verdict.
func TestExplainChecksCodeObject(t *testing.T) {
	example := filepath.Join(testdata, "example")
	code, out, _ := run(t, "explain", "--format", "json", "--agent", "gfx1151", "lib/librocblas.so.5#0", example)
	var ex struct {
		Result     string `json:"result"`
		CodeObject string `json:"code_object_target"`
		HIP        string `json:"hip"`
	}
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatal(err)
	}
	if code != ExitOK || ex.Result != "KPACK_SUCCESS" || ex.CodeObject != "gfx1100" || ex.HIP != "hipErrorInvalidImage" {
		t.Errorf("exit %d, %+v", code, ex)
	}
	_, out, _ = run(t, "explain", "--agent", "gfx1100", "lib/librocblas.so.5#0", example)
	if !strings.Contains(out, "hip: code object target gfx1100, agent gfx1100: hipSuccess") {
		t.Errorf("text output: %s", out)
	}
}

// TestExplainAbort: a string ordinal aborts the legacy runtime (named
// PROCESS_ABORT, code -1) and makes the fixed runtime skip the archive.
func TestExplainAbort(t *testing.T) {
	dir := t.TempDir()
	const app = "bin/app"
	kpacktest.WriteFile(t, dir, ".kpack/g_gfx1100.kpack", kpacktest.Spec{Group: "g", Scheme: kpack.SchemeZstd,
		Kernels: []kpacktest.Kernel{{Key: app + "#0", Arch: "gfx1100", Data: []byte("x")}},
		Mutate: func(m map[string]any) {
			m["toc"].(map[string]any)[app+"#0"].(map[string]any)["gfx1100"].(map[string]any)["ordinal"] = "0"
		}})
	bin := hostbintest.ELF(hostbintest.RefBytes(app, "../.kpack/g_@GFXARCH@.kpack"), hostbintest.HIPK(1))
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, app), bin, 0o644); err != nil {
		t.Fatal(err)
	}
	code, ex := explain(t, "--agent", "gfx1100", "--loader", "legacy", app+"#0", dir)
	if code != ExitFindings || ex.Result != "PROCESS_ABORT" || ex.Code != -1 || ex.Archive != ".kpack/g_gfx1100.kpack" {
		t.Errorf("legacy: exit %d, %+v", code, ex)
	}
	code, ex = explain(t, "--agent", "gfx1100", app+"#0", dir)
	if code != ExitFindings || ex.Result != "KPACK_ERROR_ARCHIVE_NOT_FOUND" {
		t.Errorf("fall-through: exit %d, %+v", code, ex)
	}
	_, out, _ := run(t, "explain", "--agent", "gfx1100", "--loader", "legacy", app+"#0", dir)
	for _, want := range []string{"TOC does not convert", "kpack: the process aborts (std::bad_cast opening .kpack/g_gfx1100.kpack"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}
