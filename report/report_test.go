package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// The SARIF goldens are checked outside `go test` (the validator needs npm):
//
//	/work/shared/tools/sarif-validate report/testdata/*/want.sarif
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testRules stands in for the registry: report only reads rule metadata.
func testRules() []finding.Rule {
	return []finding.Rule{
		{
			ID: "KPL001", Name: "unreachable-kernel", Title: "Kernel can never be loaded.",
			Text:    "A TOC entry names an arch missing from gfx_arches, so the loader never serves it.",
			Help:    "Add the arch to `gfx_arches` or drop the entry.",
			HelpURI: "https://github.com/rocm-tools/kpack-lint/blob/main/docs/rules/KPL001.md",
			Level:   finding.LevelWarning, Explain: finding.ExplainLoad,
		},
		{
			ID: "KPL002", Name: "legacy-kernel-not-found", Title: "Legacy loader gives KERNEL_NOT_FOUND.",
			Text:    "The first archive declaring a compatible target lacks the kernel, and the legacy loader does not fall through.",
			Help:    "Put every kernel of a group in the archive for each target ID, or ship the fall-through loader.",
			HelpURI: "https://github.com/rocm-tools/kpack-lint/blob/main/docs/rules/KPL002.md",
			Level:   finding.LevelError, Explain: finding.ExplainLoad,
		},
		{
			ID: "KPL003", Name: "archive-not-found", Title: "No archive found for an agent.",
			Text:    "No search path of the host binary opens an archive for the agent ISA.",
			Help:    "Ship the missing archive or fix kpack_search_paths.",
			HelpURI: "https://github.com/rocm-tools/kpack-lint/blob/main/docs/rules/KPL003.md",
			Level:   finding.LevelError,
		},
	}
}

func testRun(name string) Run {
	r := Run{
		ToolName:       "kpack-lint",
		ToolVersion:    "0.1.0",
		InformationURI: "https://github.com/rocm-tools/kpack-lint",
		Rules:          testRules(),
		Inputs:         []string{"/home/builder/secret/dist"},
	}
	switch name {
	case "seed":
		r.Findings = seedFindings()
	case "multi":
		r.Inputs = append(r.Inputs, `C:\Users\builder\wheel.whl`)
		r.Findings = multiFindings()
		r.FileSize = func(input int, path string) (int64, bool) {
			return 1234, input == 1 && path == "torch/lib/librocblas.so.5"
		}
	}
	return r
}

func seedFindings() []finding.Finding {
	return []finding.Finding{
		{
			RuleID:  "KPL002",
			Level:   finding.LevelError,
			Message: "legacy loader picks .kpack/fft_test_gfx950:xnack+.kpack for gfx950:sramecc+:xnack+ and misses 3 kernels of bin/rocfft-test",
			Location: finding.Location{Path: ".kpack/fft_test_gfx950:xnack+.kpack",
				Region: &finding.Region{Offset: 4096, Length: 512}},
			Related:    []finding.Location{{Path: ".kpack/fft_test_gfx950.kpack"}, {Path: "bin/rocfft-test", Region: &finding.Region{Offset: 0, Length: 64}}},
			Kernels:    []string{"bin/rocfft-test#0", "bin/rocfft-test#1", "bin/rocfft-test#2"},
			Agents:     []string{"gfx950:sramecc+:xnack+"},
			Group:      "fft_test",
			Loader:     "legacy",
			KpackError: "KPACK_ERROR_KERNEL_NOT_FOUND",
			Trace: []string{
				"candidate gfx950:xnack+ -> .kpack/fft_test_gfx950:xnack+.kpack",
				"fetch bin/rocfft-test#0 -> KERNEL_NOT_FOUND (5)",
			},
			Subject: "fft_test",
		},
		{
			RuleID:   "KPL001",
			Level:    finding.LevelWarning,
			Message:  "TOC holds gfx90a:xnack+ entries but gfx_arches lists only gfx90a:xnack- (<3 kernels> & more)",
			Location: finding.Location{Path: "torch_gfx90a:xnack-.kpack"},
			Kernels:  []string{"lib/libtorch_hip.so#0", "lib/libtorch_hip.so#1", "lib/libtorch_hip.so#3", "lib/libc10_hip.so#12"},
			Agents:   []string{"gfx90a:sramecc+:xnack+"},
			Group:    "torch",
			Subject:  "torch/gfx90a:xnack+",
		},
		{
			RuleID:   "KPL003",
			Level:    finding.LevelNone, // turned off by the policy: not written
			Message:  "no archive for gfx1151",
			Location: finding.Location{Path: "lib/librocsparse.so.1"},
			Subject:  "sparse_lib/gfx1151",
		},
		{
			RuleID:   "KPL003",
			Level:    finding.LevelNote,
			Message:  "no archive for gfx1151 in search path ../.kpack",
			Location: finding.Location{Path: "lib/librocsparse.so.1", Region: &finding.Region{Offset: 0, Length: 48}},
			Agents:   []string{"gfx1151"},
			Group:    "sparse_lib",
			Loader:   "fallthrough",
			Subject:  "sparse_lib/gfx1151/notes",
		},
	}
}

func multiFindings() []finding.Finding {
	return []finding.Finding{
		{
			RuleID:   "KPL003",
			Message:  "copy of librocblas.so.5 resolves ../.kpack from its own folder",
			Location: finding.Location{Input: 1, Path: "torch/lib/librocblas.so.5"},
			Related:  []finding.Location{{Input: 0, Path: "lib/librocblas.so.5"}},
			Agents:   []string{"gfx942:sramecc+:xnack-"},
			Group:    "blas_lib",
			Subject:  "blas_lib/torch/lib/librocblas.so.5",
		},
		{
			RuleID:   "KPL001",
			Level:    finding.LevelWarning,
			Message:  "toc entry for gfx950:xnack+ never served",
			Location: finding.Location{Input: 0, Path: ".kpack/blas_lib_gfx950.kpack", Region: &finding.Region{Offset: 64, Length: 100}},
			Kernels:  []string{"lib/librocblas.so#2"},
			Subject:  "blas_lib/gfx950:xnack+",
		},
	}
}

var goldenCases = []string{"seed", "multi", "empty"}

func TestGolden(t *testing.T) {
	for _, name := range goldenCases {
		for _, format := range Formats() {
			t.Run(name+"/"+format, func(t *testing.T) {
				var buf bytes.Buffer
				if err := Write(&buf, format, testRun(name)); err != nil {
					t.Fatal(err)
				}
				checkGolden(t, filepath.Join("testdata", name, "want."+ext(format)), buf.Bytes())
			})
		}
	}
}

func ext(format string) string {
	if format == "text" {
		return "txt"
	}
	return format
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from output:\n%s", path, got)
	}
}

func TestDeterministicAndNoMachinePaths(t *testing.T) {
	for _, name := range goldenCases {
		for _, format := range Formats() {
			var a, b bytes.Buffer
			if err := Write(&a, format, testRun(name)); err != nil {
				t.Fatal(err)
			}
			if err := Write(&b, format, testRun(name)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("%s/%s: two writes differ", name, format)
			}
			out := a.String()
			for _, bad := range []string{"builder", "Users", "secret"} { // base names (wheel.whl) may appear
				if strings.Contains(out, bad) {
					t.Errorf("%s/%s: output contains machine path %q", name, format, bad)
				}
			}
			if !strings.HasSuffix(out, "\n") {
				t.Errorf("%s/%s: no newline at end", name, format)
			}
		}
	}
}

func TestSARIFShape(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, testRun("seed")); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleIndex           *int              `json:"ruleIndex"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
			Tool struct {
				Driver struct {
					Rules []json.RawMessage `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != 3 {
		t.Errorf("driver has %d rules, want 3", len(run.Tool.Driver.Rules))
	}
	if len(run.Results) != 3 {
		t.Fatalf("got %d results, want 3 (the \"none\" finding is dropped)", len(run.Results))
	}
	wantIndex := []int{1, 0, 2}
	for i, res := range run.Results {
		if res.RuleIndex == nil || *res.RuleIndex != wantIndex[i] {
			t.Errorf("result %d: ruleIndex %v, want %d", i, res.RuleIndex, wantIndex[i])
		}
		if res.PartialFingerprints[FingerprintKey] == "" {
			t.Errorf("result %d: no %s fingerprint", i, FingerprintKey)
		}
	}
}

func TestEscapePath(t *testing.T) {
	tests := map[string]string{
		"torch_gfx90a:xnack-.kpack":           "torch_gfx90a%3Axnack-.kpack",
		".kpack/fft_test_gfx950:xnack+.kpack": ".kpack/fft_test_gfx950%3Axnack%2B.kpack",
		"lib/a b%.so":                         "lib/a%20b%25.so",
		"lib/ü~.so":                           "lib/%C3%BC~.so",
	}
	for in, want := range tests {
		if got := EscapePath(in); got != want {
			t.Errorf("EscapePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBaseID(t *testing.T) {
	if got := BaseID(0, 1); got != "SRCROOT" {
		t.Errorf("BaseID(0, 1) = %q", got)
	}
	if got := BaseID(0, 0); got != "SRCROOT" {
		t.Errorf("BaseID(0, 0) = %q", got)
	}
	if got := BaseID(1, 3); got != "INPUT2" {
		t.Errorf("BaseID(1, 3) = %q", got)
	}
}

func TestWriteErrors(t *testing.T) {
	tests := map[string]func(*Run){
		"unknown rule":   func(r *Run) { r.Findings[0].RuleID = "KPL999" },
		"unknown level":  func(r *Run) { r.Findings[0].Level = "fatal" },
		"absolute path":  func(r *Run) { r.Findings[0].Location.Path = "/opt/rocm/lib/x.so" },
		"related path":   func(r *Run) { r.Findings[0].Related[0].Path = "/tmp/x.kpack" },
		"input range":    func(r *Run) { r.Findings[0].Location.Input = 1 },
		"negative input": func(r *Run) { r.Findings[0].Location.Input = -2 },
		"region":         func(r *Run) { r.Findings[0].Location.Region = &finding.Region{Offset: -1} },
		"duplicate rule": func(r *Run) { r.Rules = append(r.Rules, r.Rules[0]) },
	}
	for name, mutate := range tests {
		for _, format := range Formats() {
			r := testRun("seed")
			mutate(&r)
			var buf bytes.Buffer
			if err := Write(&buf, format, r); err == nil {
				t.Errorf("%s/%s: no error", name, format)
			}
			if buf.Len() != 0 {
				t.Errorf("%s/%s: wrote %d bytes despite the error", name, format, buf.Len())
			}
		}
	}
}

func TestUnknownFormat(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, "xml", testRun("seed")); err == nil || buf.Len() != 0 {
		t.Errorf("Write(xml) = %v, wrote %d bytes", err, buf.Len())
	}
}

func TestSummaryLine(t *testing.T) {
	tests := []struct {
		c    counts
		want string
	}{
		{counts{}, "no findings"},
		{counts{Error: 2, Warning: 1}, "3 findings: 2 errors, 1 warning, 0 notes"},
		{counts{Note: 1}, "1 finding: 0 errors, 0 warnings, 1 note"},
	}
	for _, tt := range tests {
		if got := totalsLine(tt.c, Run{}, nil); got != tt.want {
			t.Errorf("totalsLine(%+v) = %q, want %q", tt.c, got, tt.want)
		}
	}
}

// TestPolicyLocation: findings about the policy file use the POLICYROOT
// base ID, described in words only.
func TestPolicyLocation(t *testing.T) {
	r := Run{ToolName: "kpack-lint", ToolVersion: "0", Rules: []finding.Rule{{ID: "KPL010", Name: "invalid-target", Level: finding.LevelWarning}},
		Inputs:   []string{"a"},
		Findings: []finding.Finding{{RuleID: "KPL010", Message: "bad target", Location: finding.Location{Input: finding.PolicyInput, Path: "policies.yaml"}}}}
	var sb, tb strings.Builder
	if err := WriteSARIF(&sb, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), `"uriBaseId": "POLICYROOT"`) {
		t.Errorf("SARIF lacks POLICYROOT:\n%s", sb.String())
	}
	if err := WriteText(&tb, r); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tb.String(), "policies.yaml (policy): warning KPL010") {
		t.Errorf("text = %q", tb.String())
	}
}

func TestTextEscapesControlCharacters(t *testing.T) {
	r := Run{ToolName: "kpack-lint", Rules: []finding.Rule{{ID: "KPL001", Name: "unreachable-kernel", Level: finding.LevelError, Explain: finding.ExplainLoad}},
		Inputs: []string{"a"},
		Findings: []finding.Finding{{RuleID: "KPL001", Message: "kernel \x1b[31mred\x1b[0m#0 fails\nnext",
			Kernels: []string{"\x1b[31mred\x1b[0m#0", "nul\x00#1"}, Location: finding.Location{Path: "lib/x\x07.so"}}}}
	var b strings.Builder
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x00\x07") || strings.Count(out, "\n") != 7 || !strings.HasSuffix(out, "\n"+EscapeNote+"\n") {
		t.Errorf("control characters reached the text output: %q", out)
	}
	if !strings.Contains(out, `\x1b[31mred\x1b[0m#0`) || !strings.Contains(out, `lib/x\x07.so`) {
		t.Errorf("escapes missing: %q", out)
	}
}

// A location path with a ".." part (a forged shard's
// ../../.github/workflows/ci.yml, which --path-prefix build/dist would
// resolve to a workflow file of the repository) is refused by every
// writer; a name that only holds dots is a name.
func TestLocationLeavingItsInput(t *testing.T) {
	rules := []finding.Rule{{ID: "KPL001", Name: "unreachable-kernel", Level: finding.LevelError}}
	for path, ok := range map[string]bool{"../../.github/workflows/ci.yml": false, "a/../../b": false, "..": false, "a/..b/c..": true, "...": true} {
		r := Run{ToolName: "kpack-lint", Rules: rules, Inputs: []string{"dist"}, PathPrefix: "build/dist",
			Findings: []finding.Finding{{RuleID: "KPL001", Message: "m", Location: finding.Location{Path: path}}}}
		err := Write(io.Discard, "sarif", r)
		if ok != (err == nil) || (!ok && !strings.Contains(err.Error(), "leaves its input")) {
			t.Errorf("%s: err %v, want ok %v", path, err, ok)
		}
	}
}
