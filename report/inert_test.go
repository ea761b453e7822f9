package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/rocm-tools/kpack-lint/finding"
)

// commandLine returns the first line of out a GitHub runner would take
// as a workflow command ("::" after leading white space, or "##[" anywhere)
// that own does not accept ("" for none).
func commandLine(out string, own func(line string) bool) string {
	for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		trimmed := strings.TrimLeftFunc(line, unicode.IsSpace)
		if (strings.HasPrefix(trimmed, "::") || strings.Contains(line, "##[")) && (own == nil || !own(line)) {
			return line
		}
	}
	return ""
}

// ownAnnotation accepts the lines of --format github: the product's own
// annotations, whose every property and message is escaped.
func ownAnnotation(line string) bool {
	for _, cmd := range []string{"::error file=", "::warning file=", "::notice file=", "::notice title=", "::warning title=", "::error title="} {
		if strings.HasPrefix(line, cmd) {
			return true
		}
	}
	return false
}

// commandRun is a run whose names are workflow commands: a finding's path
// and related file, its kernel and trace, a notification's source, an
// input, the machine, the waiver.
func commandRun() Run {
	cmd := "::error file=.github/workflows/ci.yml,line=1,title=Security::rotate the secrets"
	f := finding.Finding{RuleID: "KPL001", Level: finding.LevelError, Message: cmd + " ##[stop-commands]tok",
		Location: finding.Location{Path: cmd + ".kpack"}, Related: []finding.Location{{Path: "  ::group::x.kpack"}},
		Kernels: []string{"::add-mask::k#0"}, Agents: []string{"gfx942"}, Trace: []string{"::warning::trace", "\u2003::notice::em space"},
		Group: "::endgroup::", Loader: "legacy", KpackError: "::error::e", Baseline: finding.BaselineNew,
		Suppression: &finding.Suppression{Source: "::error::w.yaml:1", Expires: "2000-01-01", Expired: true, Justification: "::j"}}
	return Run{ToolName: "kpack-lint", ToolVersion: "0.1.0", Rules: testRules(), Inputs: []string{"::set-output name=x::dist"},
		Findings: []finding.Finding{f}, Rerun: Rerun{Inputs: []string{"::x"}},
		Checked: &Checked{Inputs: []string{"::set-output name=x::dist"}, Loader: "legacy", Targets: []string{"gfx942"}, Agents: []string{"gfx942"},
			Baseline: "::b.json", Waivers: "::w.yaml (1)", Env: []string{"::K=V"},
			Machines: []finding.MachineInfo{{Name: "::m", HIP: "newest", Devices: []finding.MachineDevice{{ISA: "gfx942"}}, Env: []string{"::E=1"}}}},
		Machines:      []finding.MachineVerdict{{Machine: "::m", Binaries: 2, Clean: 1, Outcomes: map[string]int{"no-code": 1}}},
		Notifications: []Notification{{Level: finding.LevelWarning, Kind: "expired-waiver", Source: "::notice file=a::w.yaml:3", Message: "::group::m"}},
	}
}

// No format but --format github prints a line a runner takes as a
// command, whatever the names; github's are its own annotations. The
// same holds for every format written again from the JSON and SARIF
// reports read back (merge, baseline).
func TestNoWorkflowCommandInAnyFormat(t *testing.T) {
	write := func(r Run, what string) map[string]string {
		out := map[string]string{}
		for _, format := range Formats() {
			var b bytes.Buffer
			if err := Write(&b, format, r); err != nil {
				t.Fatalf("%s %s: %v", what, format, err)
			}
			var own func(string) bool
			if format == "github" {
				own = ownAnnotation
			}
			if l := commandLine(b.String(), own); l != "" {
				t.Errorf("%s %s: a workflow command: %q", what, format, l)
			}
			out[format] = b.String()
		}
		return out
	}
	out := write(commandRun(), "written")
	if !strings.Contains(out["text"], "\n:\\x3aerror file=.github/workflows/ci.yml,line=1,title=Security::rotate the secrets.kpack: error KPL001") {
		t.Errorf("the text report's finding line:\n%s", out["text"])
	}
	if !strings.Contains(out["json"], `##\u005bstop-commands]tok`) {
		t.Errorf("JSON keeps ##[ as ##\\u005b:\n%s", out["json"])
	}
	for _, format := range []string{"json", "sarif"} {
		back, _, err := Read([]byte(out[format]))
		if err != nil {
			t.Fatalf("read %s: %v", format, err)
		}
		if got := back.Findings[0].Message; got != commandRun().Findings[0].Message {
			t.Errorf("%s read back the message as %q", format, got)
		}
		back.Rules = testRules()
		write(back, "read back from "+format)
	}
}

// explain and explain-db write their text through escape.Lines too.
func TestExplainTextIsInert(t *testing.T) {
	var b bytes.Buffer
	if err := WriteDBExplanation(&b, "text", DBExplanation{Sites: []DBSite{{Library: "::error::lib", Path: "##[x]", Skipped: "::y"}}}); err != nil {
		t.Fatal(err)
	}
	ex := Explanation{Kernel: "::k#0", ArchList: []string{"gfx942"}, Loader: "legacy", SearchPaths: []string{"::p"},
		States: map[string]string{"::p": "::missing"}, Result: "KPACK_ERROR_ARCHIVE_NOT_FOUND", Note: "##[group]n"}
	if err := WriteExplanations(&b, "text", []Explanation{ex}); err != nil {
		t.Fatal(err)
	}
	if err := WriteExplanations(&b, "json", []Explanation{ex}); err != nil {
		t.Fatal(err)
	}
	if l := commandLine(b.String(), nil); l != "" || !strings.Contains(b.String(), `:\x3aerror::lib: library`) {
		t.Errorf("explain text %q:\n%s", l, b.String())
	}
}

// The policy-machine-env-alias case: 4,096 machines with two 4 KiB
// environment values, each with a KPL010 finding. The summary GitHub
// would refuse at 34 MB stays under MaxSummaryBytes, keeps the verdict
// first and says what it left out.
func TestSummaryCapped(t *testing.T) {
	big := strings.Repeat("A", 4096)
	r := Run{ToolName: "kpack-lint", Rules: testRules(), Inputs: []string{"dist"}, Checked: &Checked{Inputs: []string{"dist"}, Loader: "fallthrough"}}
	for i := range 4096 {
		name := fmt.Sprintf("m%d", i)
		env := []string{"HSA_OVERRIDE_GFX_VERSION=" + big, "ROCM_KPACK_PATH=" + big}
		r.Checked.Machines = append(r.Checked.Machines, finding.MachineInfo{Name: name, HIP: "newest", Loader: "fallthrough",
			Devices: []finding.MachineDevice{{ISA: "gfx942"}}, Env: env})
		r.Machines = append(r.Machines, finding.MachineVerdict{Machine: name, Binaries: 1})
		r.Findings = append(r.Findings, finding.Finding{RuleID: "KPL002", Level: finding.LevelError, Location: finding.Location{Path: "policies.yaml"},
			Message: "machine " + name + " env " + strings.Join(env, " ")})
		r.Notifications = append(r.Notifications, Notification{Level: finding.LevelNote, Kind: "unused-waiver", Source: "w.yaml:" + fmt.Sprint(i), Message: big})
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if len(s) >= MaxSummaryBytes/4 || !strings.HasPrefix(s, "## ❌ kpack-lint: 4096 errors fail the gate; 4096 findings: 4096 errors") {
		t.Fatalf("summary of %d bytes, starting %q", len(s), s[:min(len(s), 80)])
	}
	for _, want := range []string{"... and 4046 more machines: the text, JSON, SARIF and HTML reports have them all.",
		"- ... and 4046 more notifications", "... and 4086 more: see the code scanning alerts or the SARIF/JSON report."} {
		if !strings.Contains(s, want) {
			t.Errorf("the summary does not say %q", want)
		}
	}
	if !strings.Contains(s, "`HSA_OVERRIDE_GFX_VERSION="+strings.Repeat("A", maxMarkdownField-len("HSA_OVERRIDE_GFX_VERSION="))+"`…") {
		t.Errorf("a machine's environment is not cut at %d bytes", maxMarkdownField)
	}
	// Whatever slips past the caps is cut at MaxSummaryBytes, at a line.
	long := "## verdict\n" + strings.Repeat(strings.Repeat("x", 99)+"\n", 20000)
	if c := capSummary(long); len(c) > MaxSummaryBytes || !strings.HasPrefix(c, "## verdict\n") || !strings.Contains(c, "the summary is cut here, at ") {
		t.Errorf("capSummary: %d bytes, ends %q", len(c), c[len(c)-200:])
	}
}
