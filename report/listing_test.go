package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// scaleRun is a run of n KPL001 findings (the first fresh ones new, the
// rest unchanged since a baseline when baseline is set) and one KPL003.
func scaleRun(n, fresh int, baseline bool) Run {
	r := testRun("")
	r.Checked = &Checked{Inputs: []string{"dist"}, Loader: "fallthrough", Targets: []string{"gfx942"}, Agents: []string{"gfx942:sramecc+:xnack-"}}
	if baseline {
		r.Checked.Baseline = "nightly.sarif"
	}
	for i := 0; i < n; i++ {
		f := finding.Finding{RuleID: "KPL001", Message: fmt.Sprintf("kernel %03d fails", i), Location: finding.Location{Path: fmt.Sprintf("lib/l%03d.so", i)},
			Kernels: []string{fmt.Sprintf("lib/l%03d.so#0", i)}, Agents: []string{"gfx942:sramecc+:xnack-"}, Subject: fmt.Sprint(i)}
		if baseline {
			f.Baseline = finding.BaselineUnchanged
			if i < fresh {
				f.Baseline = finding.BaselineNew
			}
		}
		r.Findings = append(r.Findings, f)
	}
	k := finding.Finding{RuleID: "KPL003", Message: "no archive", Location: finding.Location{Path: "bin/x"}, Subject: "x"}
	if baseline {
		k.Baseline = finding.BaselineNew
	}
	r.Findings = append(r.Findings, k)
	finding.Sort(r.Findings)
	return r
}

func textOf(t *testing.T, r Run) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The text report caps each rule and says how many it hides and how to
// see them; 0 shows all; the summary counts every finding.
func TestTextCapsPerRule(t *testing.T) {
	r := scaleRun(65, 0, false)
	r.MaxPerRule = DefaultMaxPerRule
	out := textOf(t, r)
	if n := strings.Count(out, ": warning KPL001 unreachable-kernel: "); n != 10 {
		t.Errorf("%d KPL001 blocks, want 10", n)
	}
	hidden := "... 55 more KPL001 findings not shown (at most 10 per rule: --max-per-rule 0 shows every one; the JSON and SARIF reports list them all)\n"
	if !strings.Contains(out, hidden) || !strings.Contains(out, ": error KPL003 archive-not-found: ") {
		t.Errorf("no hidden line or KPL003 block:\n%s", out)
	}
	if !strings.Contains(out, "66 findings: 1 error, 65 warnings, 0 notes\n") {
		t.Errorf("summary:\n%s", out)
	}
	if lines := strings.Count(out, "\n"); lines > 120 {
		t.Errorf("%d lines for 66 findings", lines)
	}
	r.MaxPerRule = 0
	if n := strings.Count(textOf(t, r), ": warning KPL001 "); n != 65 {
		t.Errorf("--max-per-rule 0: %d blocks, want 65", n)
	}
	// One hidden finding is singular.
	r = scaleRun(11, 0, false)
	r.MaxPerRule = DefaultMaxPerRule
	if out := textOf(t, r); !strings.Contains(out, "... 1 more KPL001 finding not shown (at most 10 per rule: ") {
		t.Errorf("one hidden:\n%s", out)
	}
}

// With a baseline, new findings come first and unchanged ones after a
// line counting them; NewOnly keeps only that line.
func TestTextNewFirst(t *testing.T) {
	r := scaleRun(5, 2, true)
	out := textOf(t, r)
	iNew, iUnchanged, iOld := strings.Index(out, "kernel 001 fails"), strings.Index(out, "3 findings unchanged since the baseline (--new-only hides them):\n"), strings.Index(out, "kernel 002 fails")
	iKPL003 := strings.Index(out, "error KPL003")
	if !strings.HasPrefix(out[strings.Index(out, "\n\n")+2:], "3 findings new since the baseline:\n") || iNew < 0 || iKPL003 < iNew || iUnchanged < iKPL003 || iOld < iUnchanged {
		t.Errorf("order: new %d, KPL003 %d, unchanged line %d, unchanged %d\n%s", iNew, iKPL003, iUnchanged, iOld, out)
	}
	r.NewOnly = true
	out = textOf(t, r)
	if strings.Contains(out, "kernel 002 fails") || !strings.Contains(out, "3 findings unchanged since the baseline not shown (--new-only); the JSON and SARIF reports list them\n") ||
		!strings.Contains(out, "(3 new, 3 unchanged, 0 fixed since the baseline)") {
		t.Errorf("--new-only:\n%s", out)
	}
	// JSON and SARIF keep every finding.
	for _, format := range []string{"json", "sarif"} {
		var b bytes.Buffer
		if err := Write(&b, format, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "kernel 004 fails") {
			t.Errorf("%s dropped an unchanged finding", format)
		}
	}
}

// The job summary lists new findings, counts unchanged ones, names paths
// with the prefix the annotations use and cuts long messages at a word.
func TestMarkdownTopFindings(t *testing.T) {
	r := scaleRun(5, 2, true)
	r.PathPrefix = "build/dist"
	r.Findings[0].Message = strings.Repeat("wordy ", 200) + "end"
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "kernel 002 fails") || !strings.Contains(out, "3 findings unchanged since the baseline are not listed (the SARIF and JSON reports have them).") {
		t.Errorf("unchanged findings:\n%s", out)
	}
	if !strings.Contains(out, "`build/dist/lib/l001.so`") {
		t.Errorf("no prefixed path:\n%s", out)
	}
	if !strings.Contains(out, "wordy wordy ...\n") || strings.Contains(out, "word...") {
		t.Errorf("message not cut at a word:\n%s", out)
	}
}

func TestCutWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"one two three", 9, "one two ..."},
		{"one two, three", 10, "one two ..."},
		{"ééééé", 5, "éé ..."}, // no space: cut between runes
	} {
		if got := cutWords(c.in, c.max); got != c.want {
			t.Errorf("cutWords(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestCutKeepingFix(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short. Fix: do it", 40, "short. Fix: do it"},
		{"one two three four five six. Fix: do it", 26, "one two three ... Fix: do it"},
		{"one two three. Fix: a fix far too long for the cut", 20, "one two three. Fix ..."}, // the fix does not fit: cut as cutWords
		{"no fix sentence at all here", 12, "no fix ..."},
	} {
		if got := cutKeepingFix(c.in, c.max); got != c.want {
			t.Errorf("cutKeepingFix(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
