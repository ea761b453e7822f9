package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// workflowCommand returns the first line of out a GitHub runner takes
// as a workflow command ("::" after leading white space, or "##[") that
// is not one of --format github's own annotations (when github is set).
func workflowCommand(out string, github bool) string {
	for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if github && (strings.HasPrefix(line, "::error file=") || strings.HasPrefix(line, "::notice title=")) {
			continue
		}
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[") {
			return line
		}
	}
	return ""
}

// The text-report-workflow-commands case end to end: archives named like
// workflow commands (the pull request picks file names) give no command
// line in check's text report, its Markdown summary, the merge of its
// shards or explain, on stdout or stderr; --format github writes only its
// own annotations.
func TestFileNamesAreNoWorkflowCommands(t *testing.T) {
	dir := t.TempDir()
	dist := filepath.Join(dir, "dist")
	names := []string{
		"::error file=.github/workflows/ci.yml,line=1,title=Security::rotate the secrets.kpack",
		"\u2003::notice file=README.md,line=1,title=kpack-lint passed::stale.kpack",
		"x##[stop-commands]tok.kpack",
	}
	for _, n := range names {
		p := filepath.Join(dist, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("not a kpack archive"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s1, s2 := filepath.Join(dir, "s1.json"), filepath.Join(dir, "s2.sarif")
	for _, tc := range []struct {
		name   string
		args   []string
		want   int
		github bool
	}{
		{"text", []string{"check", "--no-policy", "--target", "gfx942", dist}, ExitFindings, false},
		{"markdown", []string{"check", "--no-policy", "--target", "gfx942", "--format", "markdown", dist}, ExitFindings, false},
		{"github", []string{"check", "--no-policy", "--target", "gfx942", "--format", "github", dist}, ExitFindings, true},
		{"shard 1", []string{"check", "--no-policy", "--target", "gfx942", "--shard", "1/2", "-o", s1, dist}, ExitFindings, false},
		{"shard 2", []string{"check", "--no-policy", "--target", "gfx942", "--shard", "2/2", "-o", s2, dist}, ExitFindings, false},
		{"merge text", []string{"merge", "--no-policy", "--target", "gfx942", "--format", "text", s1, s2}, ExitFindings, false},
		{"merge markdown", []string{"merge", "--no-policy", "--target", "gfx942", "--format", "markdown", s1, s2}, ExitFindings, false},
		{"merge github", []string{"merge", "--no-policy", "--target", "gfx942", "--format", "github", s1, s2}, ExitFindings, true},
		{"explain", []string{"explain", "--no-policy", "--agent", "gfx942", "--search", names[0], "::group::bin/x#0", dist}, ExitFindings, false},
		{"an error", []string{"check", "--no-policy", "--target", "gfx942", filepath.Join(dist, "::error::missing")}, ExitUsage, false},
	} {
		code, stdout, stderr := run(t, tc.args...)
		if code != tc.want {
			t.Errorf("%s: exit %d, want %d (%s)", tc.name, code, tc.want, stderr)
		}
		if l := workflowCommand(stdout, tc.github); l != "" {
			t.Errorf("%s: stdout line %q is a workflow command", tc.name, l)
		}
		if l := workflowCommand(stderr, false); l != "" {
			t.Errorf("%s: stderr line %q is a workflow command", tc.name, l)
		}
		if tc.name == "text" && !strings.Contains(stdout, "\n:\\x3aerror file=.github/workflows/ci.yml,line=1,title=Security::rotate the secrets.kpack[0+19]: error KPL005") {
			t.Errorf("text: the finding line is not written as expected:\n%s", stdout)
		}
	}
}
