package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

var grownAgents = []string{"gfx90a:sramecc+:xnack+", "gfx90a:sramecc+:xnack-", "gfx90a:sramecc-:xnack+", "gfx90a:sramecc-:xnack-"}

// grownRun is a run against a baseline with one finding that grew from
// gfx942 to gfx90a and one unchanged.
func grownRun() Run {
	r := testRun("")
	r.Checked = &Checked{Inputs: []string{"pr"}, Loader: "fallthrough", Targets: []string{"gfx90a", "gfx942"}, Baseline: "base.json"}
	grown := finding.Finding{RuleID: "KPL003", Message: "no archive of group g opens for bin/x#0", Location: finding.Location{Path: "bin/x"},
		Kernels: []string{"bin/x#0"}, Agents: append(append([]string(nil), grownAgents...), "gfx942:sramecc+:xnack-"), Group: "g", Subject: "g\x00bin/x",
		Baseline: finding.BaselineNew, Grown: &finding.Growth{Agents: grownAgents, Targets: []string{"gfx90a"}}, Coverage: strings.Repeat("c", 64)}
	same := finding.Finding{RuleID: "KPL001", Message: "toc entry never served", Location: finding.Location{Path: ".kpack/g_gfx942.kpack"},
		Kernels: []string{"bin/x#1"}, Subject: "g\x00toc", Baseline: finding.BaselineUnchanged}
	r.Findings = []finding.Finding{same, grown}
	finding.Sort(r.Findings)
	return r
}

const grownWords = "now also on gfx90a (4 agents: gfx90a:sramecc+:xnack+, gfx90a:sramecc+:xnack-, gfx90a:sramecc-:xnack+, gfx90a:sramecc-:xnack-)"

func writeAs(t *testing.T, format string, r Run) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, format, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Text, markdown, HTML and the annotations say what grew; the summary
// counts the grown finding as new.
func TestGrownWords(t *testing.T) {
	r := grownRun()
	r.NewOnly = true
	text := writeAs(t, "text", r)
	if !strings.Contains(text, "1 finding new since the baseline:\nbin/x: error KPL003 ") ||
		!strings.Contains(text, "\n  baseline: new, grown since the baseline: "+grownWords+"\n") ||
		!strings.Contains(text, "2 findings: 1 error, 1 warning, 0 notes (1 new (1 grown), 1 unchanged, 0 fixed since the baseline)") {
		t.Errorf("text:\n%s", text)
	}
	md := writeAs(t, "markdown", r)
	if !strings.Contains(md, "`bin/x` (new, grown since the baseline: now also on gfx90a \\(4 agents: gfx90a:sramecc+:xnack+,") {
		t.Errorf("markdown:\n%s", md)
	}
	html := writeAs(t, "html", r)
	if !strings.Contains(html, "<dt>grown since the baseline</dt><dd class=\"mono\">"+strings.ReplaceAll(grownWords, "+", "&#43;")+"</dd>") {
		t.Errorf("html: no grown detail")
	}
	gh := writeAs(t, "github", r)
	if !strings.Contains(gh, "::error file=bin/x,title=KPL003 archive-not-found::no archive of group g opens for bin/x#0%0AGrown since the baseline: "+grownWords) {
		t.Errorf("github:\n%s", gh)
	}
}

// JSON and SARIF carry the coverage key and what grew, and read back to
// the same bytes; SARIF gives code scanning the coverage key as the key
// it builds alerts from.
func TestGrownRoundTrip(t *testing.T) {
	r := grownRun()
	for _, format := range []string{"json", "sarif"} {
		out := writeAs(t, format, r)
		back, _, err := Read([]byte(out))
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		var g *finding.Growth
		for _, f := range back.Findings {
			if f.RuleID == "KPL003" {
				g = f.Grown
				if f.Coverage != strings.Repeat("c", 64) {
					t.Errorf("%s: coverage %q", format, f.Coverage)
				}
			}
		}
		if g == nil || !reflect.DeepEqual(g.Agents, grownAgents) || !reflect.DeepEqual(g.Targets, []string{"gfx90a"}) {
			t.Errorf("%s: grown %+v", format, g)
		}
		back.Rules = testRules()
		if again := writeAs(t, format, back); again != out {
			t.Errorf("%s read back writes other bytes", format)
		}
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID              string            `json:"ruleId"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
				Properties          map[string]any    `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(writeAs(t, "sarif", r)), &log); err != nil {
		t.Fatal(err)
	}
	for _, res := range log.Runs[0].Results {
		pf := res.PartialFingerprints
		f := r.Findings[0]
		if f.RuleID != res.RuleID {
			f = r.Findings[1]
		}
		want := map[string]string{FingerprintKey: finding.Fingerprint(f), CoverageKey: finding.Coverage(f), AlertKey: finding.Coverage(f)}
		if !reflect.DeepEqual(pf, want) {
			t.Errorf("%s: partialFingerprints %v, want %v", res.RuleID, pf, want)
		}
		if _, ok := res.Properties["grown"]; ok != (res.RuleID == "KPL003") {
			t.Errorf("%s: grown property %v", res.RuleID, res.Properties["grown"])
		}
	}
	j := writeAs(t, "json", r)
	if !strings.Contains(j, `"gate": {
      "new": 1,
      "grown": 1,
      "unchanged": 1,`) || !strings.Contains(j, `"coverage": "`+strings.Repeat("c", 64)+`"`) {
		t.Errorf("json:\n%s", j)
	}
}

// A grown finding whose every string is hostile writes no raw control in
// any format, and nor do the formats written from its JSON and SARIF.
func TestGrownNoRawControl(t *testing.T) {
	r := hostileRun()
	r.Findings[0].Baseline = finding.BaselineNew
	for _, format := range Formats() {
		out := writeAs(t, format, r)
		if i := rawControl([]byte(out)); i >= 0 {
			t.Errorf("%s: raw control at byte %d", format, i)
		}
		if format == "text" && !strings.Contains(out, "grown since the baseline: now also on") {
			t.Errorf("text does not word the growth:\n%s", out)
		}
	}
}
