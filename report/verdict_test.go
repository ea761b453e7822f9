package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// gateRun is a run with a baseline: one new error, an unchanged error
// and an unchanged warning (the newcomer's "1 new error, 2 unchanged").
func gateRun() Run {
	r := testRun("seed")
	r.Checked = &Checked{Inputs: []string{"dist"}, Loader: "fallthrough", Baseline: "nightly.sarif"}
	var fs []finding.Finding
	for i, f := range seedFindings()[:2] { // KPL002 error, KPL001 warning
		f.Baseline = finding.BaselineUnchanged
		if i == 0 {
			newer := f
			newer.Subject, newer.Message, newer.Baseline = "newer", "a new one", finding.BaselineNew
			fs = append(fs, newer)
		}
		fs = append(fs, f)
	}
	r.Findings = fs
	finding.Sort(r.Findings)
	return r
}

// Newcomer counts 1: every summary leads with what fails the gate, then
// the totals.
func TestSummaryLeadsWithFailing(t *testing.T) {
	const totals = "3 findings: 2 errors, 1 warning, 0 notes (1 new, 2 unchanged, 0 fixed since the baseline)"
	for _, tc := range []struct {
		name string
		edit func(*Run)
		want string
	}{
		{"baseline", func(*Run) {}, "1 new error fails the gate; " + totals},
		{"fail-on-baseline", func(r *Run) { r.FailOnBaseline = true }, "2 errors fail the gate; " + totals},
		{"fail-on warning", func(r *Run) { r.FailOn, r.FailOnBaseline = finding.LevelWarning, true }, "2 errors and 1 warning fail the gate; " + totals},
		{"fail-on none", func(r *Run) { r.FailOn = finding.LevelNone }, "nothing fails the gate (--fail-on none); " + totals},
		{"nothing new", func(r *Run) {
			for i := range r.Findings {
				r.Findings[i].Baseline = finding.BaselineUnchanged
			}
		}, "nothing new fails the gate; 3 findings: 2 errors, 1 warning, 0 notes (0 new, 3 unchanged, 0 fixed since the baseline)"},
	} {
		r := gateRun()
		tc.edit(&r)
		var text, md, gh bytes.Buffer
		for _, w := range []struct {
			b *bytes.Buffer
			f func(*bytes.Buffer, Run) error
		}{{&text, func(b *bytes.Buffer, r Run) error { return WriteText(b, r) }},
			{&md, func(b *bytes.Buffer, r Run) error { return WriteMarkdown(b, r) }},
			{&gh, func(b *bytes.Buffer, r Run) error { return WriteGitHub(b, r) }}} {
			if err := w.f(w.b, r); err != nil {
				t.Fatal(err)
			}
		}
		if !strings.HasSuffix(text.String(), "\n"+tc.want+"\n") || !strings.HasSuffix(gh.String(), "\nkpack-lint: "+tc.want+"\n") {
			t.Errorf("%s: text ends %q, github %q; want %q", tc.name, lastLine(text.String()), lastLine(gh.String()), tc.want)
		}
		if first, _, _ := strings.Cut(md.String(), "\n"); !strings.HasSuffix(first, " kpack-lint: "+mdEscape(tc.want)) {
			t.Errorf("%s: markdown heading %q", tc.name, first)
		}
	}
	// The heading's icon is the gate's: ❌ only when something fails.
	r := gateRun()
	for i := range r.Findings {
		r.Findings[i].Baseline = finding.BaselineUnchanged
	}
	var md bytes.Buffer
	WriteMarkdown(&md, r)
	if !strings.HasPrefix(md.String(), "## ⚠️ kpack-lint: nothing new fails the gate; ") {
		t.Errorf("nothing new: heading %q", lastLine(md.String()[:120]))
	}
}

// Newcomer counts 2: the JSON summary gives what gates (per level) and
// what fails (at --fail-on) beside the totals.
func TestJSONSummaryGating(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, gateRun()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Summary struct {
			Error, Warning int
			Gating         struct{ Error, Warning, Note int }
			Failing        int
			FailOn         string
			Gate           struct{ New, Unchanged, Failing int }
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	s := got.Summary
	if s.Error != 2 || s.Warning != 1 || s.Gating.Error != 1 || s.Gating.Warning != 0 || s.Failing != 1 || s.FailOn != "error" || s.Gate.New != 1 || s.Gate.Unchanged != 2 {
		t.Errorf("summary %+v", s)
	}
}

// Newcomer counts 3: the HTML page opens with the gate's verdict, a
// table per target with the failing targets first, the matrix's failing
// columns first and the findings that fail first.
func TestHTMLFailingFirst(t *testing.T) {
	r := htmlRun() // gfx950:xnack+ carries the errors; gfx1100 none
	r.Checked.Targets = []string{"gfx1100", "gfx950:xnack+"}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	var rows, heads, articles []htmlNode
	h1 := ""
	for _, n := range parseHTML(t, b.String()) {
		switch {
		case n.attrs["data-target-row"] != "":
			rows = append(rows, n)
		case n.name == "th" && n.attrs["colspan"] != "":
			heads = append(heads, n)
		case n.name == "article":
			articles = append(articles, n)
		case n.name == "span" && strings.HasPrefix(n.attrs["class"], "badge") && h1 == "":
			h1 = n.text
		}
	}
	if h1 != "fails" {
		t.Errorf("badge %q, want fails", h1)
	}
	if len(rows) != 2 || rows[0].attrs["data-target-row"] != "gfx950:xnack+" || rows[0].attrs["data-errors"] != "2" || rows[1].attrs["data-target-row"] != "gfx1100" {
		t.Errorf("targets table %+v", rows)
	}
	if len(heads) != 2 || heads[0].attrs["data-target"] != "gfx950:xnack+" {
		t.Errorf("matrix columns %+v", heads)
	}
	if len(articles) == 0 || articles[0].attrs["data-level"] != "error" || articles[0].attrs["data-state"] != "new" {
		t.Errorf("first finding %+v", articles[0])
	}
}

func lastLine(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}
