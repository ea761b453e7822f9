package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/report"
)

// TestMain lets the test binary stand in for kpack-lint (for the shell
// completion scripts) when KPACK_LINT_TEST_MAIN is set.
func TestMain(m *testing.M) {
	switch os.Getenv("KPACK_LINT_TEST_MAIN") {
	case "1":
		os.Exit(Run(context.Background(), append([]string{"kpack-lint"}, os.Args[1:]...), os.Stdout, os.Stderr))
	case "interrupt": // Main's signal handling, in a process that waits for one
		handleInterrupts(os.Stderr, os.Exit)
		os.Stdout.WriteString("ready\n")
		select {}
	}
	os.Exit(m.Run())
}

// Newcomer report 15: __complete offers flags after - and --, the values
// of enumerated flags, rule IDs, shells and policy variants.
func TestCompleteCandidates(t *testing.T) {
	app := newApp(nil, nil)
	cases := []struct {
		words []string
		want  []string // each must be offered
		not   []string // none may be
	}{
		{[]string{""}, []string{"check", "explain", "explain-db", "rules", "merge", "completion", "version", "help"}, []string{"__complete"}},
		{[]string{"check", "--"}, []string{"--policy", "--format", "--env", "--fail-on", "--help", "-o"}, []string{filesMark}},
		{[]string{"check", "-"}, []string{"--deep", "-o", "-q", "--quiet"}, nil},
		{[]string{"check", "--format", ""}, []string{"text", "json", "sarif", "github", "markdown"}, []string{filesMark}},
		{[]string{"check", "--format=s"}, []string{"--format=sarif"}, nil},
		{[]string{"explain", "--format", ""}, []string{"text", "json"}, []string{"sarif"}},
		{[]string{"check", "--loader", ""}, []string{"fallthrough", "legacy"}, nil},
		{[]string{"check", "--fail-on", ""}, []string{"error", "warning", "note", "none"}, nil},
		{[]string{"check", "--agent", "gfx942"}, []string{"gfx942:sramecc+:xnack-", "gfx90c"}, []string{"gfx942", "gfx9-4-generic"}},
		{[]string{"check", "--target", "gfx9"}, []string{"gfx942", "gfx9-4-generic", "gfx950:sramecc-:xnack+", "gfx94X-dcgpu"}, nil},
		{[]string{"check", "--env", ""}, []string{"ROCM_KPACK_DISABLE=", "MIOPEN_DEVICE_CU="}, nil},
		{[]string{"check", "--policy", "../../policies.yaml", "--variant", ""}, []string{"asan", "release"}, nil},
		{[]string{"check", "--policy", ""}, []string{filesMark}, nil},
		{[]string{"check", "--format", "json", "-o", "r.json", ""}, []string{filesMark}, nil},
		{[]string{"rules", ""}, []string{"KPL001", "KPL013", "stripped-feature-flags"}, []string{"help", "h"}},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish"}, []string{"help"}},
		{[]string{"explain-db", "--agent", "gfx90a:sramecc+:xnack-", ""}, []string{"rocblas", "hipblaslt", "miopen", "aotriton", filesMark}, nil},
	}
	for _, c := range cases {
		got := complete(app, c.words)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: %q not offered (got %d candidates: %.200q)", c.words, w, len(got), got)
			}
		}
		for _, w := range c.not {
			if slices.Contains(got, w) {
				t.Errorf("%q: %q offered", c.words, w)
			}
		}
	}
}

// The bash script end to end: COMP_LINE as bash sets it, COMPREPLY as
// bash shows it (after the last : or =, where bash splits words).
func TestBashCompletionScript(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	_, script, _ := run(t, "completion", "bash")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "fft_test_gfx950:xnack+.kpack"), "")
	var kpl01 []string // the rules KPL010 to KPL019 there are
	for _, r := range lint.Rules() {
		if strings.HasPrefix(r.ID, "KPL01") {
			kpl01 = append(kpl01, r.ID)
		}
	}
	for _, c := range []struct{ line, want string }{
		{"kpack-lint check --fo", "--format"},
		{"kpack-lint check --format ", strings.Join(report.Formats(), " ")},
		{"kpack-lint check --loader l", "legacy"},
		{"kpack-lint check --agent gfx942:sramecc+:", "xnack+ xnack-"},
		{"kpack-lint check --env ROCM_KPACK_DI", "ROCM_KPACK_DISABLE="},
		{"kpack-lint rules KPL01", strings.Join(kpl01, " ")},
		{"kpack-lint completion ", "bash fish zsh"},
		{"kpack-lint check fft_test_gfx950:x", "xnack+.kpack"},
	} {
		prog := script + `
kpack-lint() { KPACK_LINT_TEST_MAIN=1 "$SELF" "$@"; }
COMP_LINE="$LINE"; COMP_POINT=${#COMP_LINE}
_kpack_lint
echo "${COMPREPLY[*]}"
`
		cmd := exec.Command(bash, "-c", prog)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SELF="+self, "LINE="+c.line)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != c.want {
			t.Errorf("%q: got %q (%v), want %q", c.line, out, err, c.want)
		}
	}
}
