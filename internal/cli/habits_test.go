package cli

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocm-tools/kpack-lint/internal/lint"
)

// Newcomer habits 1: -o WORD=PATH with a WORD that names no format is a
// usage error with the format meant, and writes nothing; a file whose
// name holds "=" is written as a path (./md=m.md) or after an explicit
// format (markdown=md=m.md).
func TestOutputFormatWord(t *testing.T) {
	dir := t.TempDir()
	chdir(t, dir)
	for _, tc := range []struct{ spec, want string }{
		{"md=m.md", `kpack-lint: --output md=m.md: "md" is not a format: want text, json, sarif, github, markdown or html (did you mean markdown?) ` +
			`(a file whose name holds "=" is written as a path: ./md=m.md)` + "\n"},
		{"foo=x.sarif", `kpack-lint: --output foo=x.sarif: "foo" is not a format: want text, json, sarif, github, markdown or html ` +
			`(a file whose name holds "=" is written as a path: ./foo=x.sarif)` + "\n"},
		{"jsno=r.json", `kpack-lint: --output jsno=r.json: "jsno" is not a format: want text, json, sarif, github, markdown or html (did you mean json?) ` +
			`(a file whose name holds "=" is written as a path: ./jsno=r.json)` + "\n"},
	} {
		code, out, stderr := run(t, "check", "--no-policy", "--target", "gfx942", "-q", "-o", tc.spec, exampleDir)
		if code != ExitUsage || out != "" || stderr != tc.want {
			t.Errorf("-o %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.spec, code, out, stderr, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused -o wrote %v", entries)
	}
	code, _, stderr := run(t, "check", "--no-policy", "--target", "gfx942", "-q", "-o", "./md=m.md", "-o", "json=a=b.json", exampleDir)
	if code != ExitFindings {
		t.Fatalf("./md=m.md: exit %d: %s", code, stderr)
	}
	md, err1 := os.ReadFile("md=m.md")
	js, err2 := os.ReadFile("a=b.json")
	if err1 != nil || err2 != nil || !strings.HasPrefix(string(md), "## ") || !strings.Contains(string(js), `"findings": [`) {
		t.Errorf("./md=m.md is not markdown (%v) or a=b.json not JSON (%v): %.30q %.30q", err1, err2, md, js)
	}
}

// exampleDir is testdata/example from any working directory of a test.
var exampleDir = func() string {
	p, _ := filepath.Abs(filepath.Join(testdata, "example"))
	return p
}()

// Newcomer habits 2: explain of a co_index the binary has no wrapper for
// (and no archive holds) names the keys there are, in one line, exit 2,
// and loads nothing.
func TestExplainMissingCOIndex(t *testing.T) {
	code, out, stderr := run(t, "explain", "--no-policy", "--agent", "gfx942:sramecc+:xnack-", "bin/rocfft-test#9", exampleDir)
	want := "kpack-lint: explain: bin/rocfft-test has kpack wrappers for bin/rocfft-test#0-2 only and no archive holds bin/rocfft-test#9: explain one of those\n"
	if code != ExitUsage || out != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, stderr, want)
	}
	if code, out, _ := run(t, "explain", "--no-policy", "--agent", "gfx942:sramecc+:xnack-", "bin/rocfft-test#0-2", exampleDir); code == ExitUsage || strings.Count(out, "kpack: load ") != 3 {
		t.Errorf("#0-2: exit %d, want 3 loads:\n%s", code, out)
	}
}

// Newcomer habits 3: every keyword flag says which value was meant.
func TestKeywordFlagsSuggest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--fail-on", "errors", exampleDir}, `--fail-on "errors": want error, warning, note or none (did you mean error?)`},
		{[]string{"check", "--fail-on", "Warning", exampleDir}, `--fail-on "Warning": want error, warning, note or none (did you mean warning?)`},
		{[]string{"merge", "--fail-on", "warn", "x.json"}, `--fail-on "warn": want error, warning, note or none (did you mean warning?)`},
		{[]string{"check", "--format", "jsn", exampleDir}, `--format "jsn": want text, json, sarif, github, markdown or html (did you mean json?)`},
		{[]string{"check", "--format", "md", exampleDir}, `--format "md": want text, json, sarif, github, markdown or html (did you mean markdown?)`},
		{[]string{"check", "--no-policy", "--loader", "legcy", exampleDir}, `--loader "legcy": want fallthrough or legacy (did you mean legacy?)`},
		{[]string{"check", "--color", "alway", exampleDir}, `--color "alway": want auto, always or never (did you mean always?)`},
		{[]string{"explain", "--format", "JSON", "x#0"}, `--format "JSON": want text or json (did you mean json?)`},
		{[]string{"explain", "--loader", "fallthru", "x#0"}, `--loader "fallthru": want fallthrough or legacy (did you mean fallthrough?)`},
		{[]string{"explain-db", "--agent", "gfx942:sramecc+:xnack-", "--format", "jsn", "rocblas", exampleDir}, `--format "jsn": want text or json (did you mean json?)`},
		{[]string{"explain-db", "--agent", "gfx942:sramecc+:xnack-", "rocblass", exampleDir}, `explain-db: "rocblass" is not a rocBLAS, hipBLASLt, MIOpen or AOTriton library in the inputs (give its path, e.g. lib/librocblas.so.5, or rocblas, hipblaslt, miopen, aotriton) (did you mean rocblas?)`},
		{[]string{"policy-diff", "--format", "md", "a.yaml", "b.yaml"}, `--format "md": want text or markdown (did you mean markdown?)`},
		{[]string{"completion", "bsh"}, `completion "bsh": want bash, zsh or fish (did you mean bash?)`},
		{[]string{"check", "--no-policy", "--target", "gfx942", "--hip", "9.9", exampleDir}, `--hip 9.9: not a modelled HIP release (did you mean 10.0?)`},
		{[]string{"check", "--no-policy", "--target", "gfx942", "--hip", "6.9", exampleDir}, `--hip 6.9: not a modelled HIP release (did you mean 7.2?)`},
	} {
		code, _, stderr := run(t, tc.args...)
		if code != ExitUsage || !strings.HasPrefix(stderr, "kpack-lint: "+tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want one line starting %q", tc.args, code, stderr, tc.want)
		}
	}
}

// Newcomer habits 4: an output the run could not write is a usage error
// before the analysis (the folder does not exist, is a file, or the
// output is a folder), and no other report is written.
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "r.json")
	file := filepath.Join(dir, "plain")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ spec, want string }{
		{"/proc/nope/r.sarif", "kpack-lint: --output /proc/nope/r.sarif: the folder /proc/nope does not exist; nothing was checked (give a file in a folder that exists and may be written to)\n"},
		{"sarif=" + dir, "kpack-lint: --output sarif=" + dir + ": " + dir + " is a folder, not a file; nothing was checked (give a file in a folder that exists and may be written to)\n"},
		{filepath.Join(file, "r.md"), "kpack-lint: --output " + filepath.Join(file, "r.md") + ": " + file + " is not a folder; nothing was checked (give a file in a folder that exists and may be written to)\n"},
	} {
		code, out, stderr := run(t, "check", "--no-policy", "--target", "gfx942", "-o", good, "-o", tc.spec, exampleDir)
		if code != ExitUsage || out != "" || stderr != tc.want {
			t.Errorf("-o %s: exit %d, stdout %q, stderr %q; want %q", tc.spec, code, out, stderr, tc.want)
		}
		if _, err := os.Stat(good); err == nil {
			t.Errorf("-o %s: %s was written", tc.spec, good)
		}
	}
	// Input problems are still found first: the outputs are checked
	// where they are read, before any input is opened.
	if code, _, stderr := run(t, "check", "--no-policy", "-o", "/proc/nope/r.sarif", filepath.Join(dir, "missing")); code != ExitUsage || !strings.Contains(stderr, "/proc/nope") {
		t.Errorf("missing input: exit %d: %s", code, stderr)
	}
}

// Newcomer habits 5: SIGINT (Ctrl-C) ends the program with exit 130 and
// one line saying no report was written; SIGTERM with 143.
func TestInterruptSaysNoReport(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		line string
	}{
		{syscall.SIGINT, ExitInterrupted, "kpack-lint: interrupted: no report was written\n"},
		{syscall.SIGTERM, ExitTerminated, "kpack-lint: terminated: no report was written\n"},
	} {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "KPACK_LINT_TEST_MAIN=interrupt")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
			t.Fatalf("the helper process did not start: %q %v", line, err)
		}
		cmd.Process.Signal(tc.sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: the process did not exit", tc.sig)
		}
		if got := cmd.ProcessState.ExitCode(); got != tc.code || stderr.String() != tc.line {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.sig, got, stderr.String(), tc.code, tc.line)
		}
	}
	// A signal while the reports are written waits for the one being
	// written, then names those written.
	guard = &lint.WriteGuard{}
	defer func() { guard = nil }()
	sarif := filepath.Join(t.TempDir(), "a.sarif")
	if code, _, stderr := run(t, "check", "--no-policy", "--target", "gfx942", "-o", sarif, exampleDir); code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var w bytes.Buffer
	if code := interrupted(syscall.SIGINT, guard, &w); code != ExitInterrupted ||
		w.String() != "kpack-lint: interrupted after writing "+sarif+", stdout; no other report was written\n" {
		t.Errorf("after writing: %d %q", code, w.String())
	}
	if code, _, stderr := run(t, "check", "--no-policy", "--target", "gfx942", "-o", sarif+".json", exampleDir); code != ExitUsage ||
		!strings.Contains(stderr, "writing the report: interrupted") {
		t.Errorf("a report after the interrupt: exit %d: %s", code, stderr)
	}
}

// A finding about several kernel names (KPL014 on a machine naming
// bin/hipfft-test and bin/rocfft-test) prints one explain command and says
// it explains the first name only.
func TestExplainLineNamesFirstOfSeveral(t *testing.T) {
	example := filepath.Join(testdata, "example")
	_, out, _ := run(t, "check", "--policy", filepath.Join(testdata, "..", "policies.yaml"), "--variant", "asan",
		"--machine", "gfx942,gfx1151", "--hip", "7.12", example)
	want := "bin/hipfft-test#0-1 " + example + "\n    (this explains bin/hipfft-test#0-1, the first of 2 kernel names; give another name in its place for the rest)\n"
	if !strings.Contains(out, want) {
		t.Errorf("no note after the explain line:\n%s", out)
	}
}
