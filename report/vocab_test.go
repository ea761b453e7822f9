package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// A report whose field with a vocabulary holds another value (a baseline
// or shard edited by hand) is refused by Read, naming the finding or
// notification and the field, in JSON and SARIF; the writers refuse to
// write one.
func TestReadRefusesValuesCheckDoesNotWrite(t *testing.T) {
	good := Run{ToolName: "kpack-lint", ToolVersion: "0.1.0", Rules: testRules(), Inputs: []string{"dist"},
		Findings:      []finding.Finding{{RuleID: "KPL001", Level: finding.LevelError, Message: "m", Location: finding.Location{Path: "x.kpack"}, Baseline: "new"}},
		Notifications: []Notification{{Level: finding.LevelNote, Kind: "unused-waiver", Source: "w.yaml:1", Message: "n"}}}
	for _, format := range []string{"json", "sarif"} {
		var b bytes.Buffer
		if err := Write(&b, format, good); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Read(b.Bytes()); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		for _, tc := range []struct{ from, to, want string }{
			{`"baselineState": "new"`, `"baselineState": "new) ![](https://evil.example/p.png)"`, ` 0 (KPL001 x.kpack): baselineState "new) ![](https://evil.example/p.png)": want new, unchanged or absent`},
			{`"baselineState": "new"`, `"baselineState": "updated"`, `baselineState "updated": want new, unchanged or absent`},
			{`"level": "error"`, `"level": "none"`, `level "none": want error, warning or note`},
			{`"level": "note"`, `"level": "<img src=x>"`, `level "<img src=x>": want warning or note`},
			{`"kind": "unused-waiver"`, `"kind": "bogus"`, `kind "bogus": want unused-waiver, expired-waiver, expiring-waiver, broad-waiver, baseline-mismatch, baseline-coverage-unknown, input-streamed or inferred-targets`},
		} {
			i := strings.LastIndex(b.String(), tc.from) // the result's or notification's, after the rules' levels
			if i < 0 {
				t.Fatalf("%s: no %s in\n%s", format, tc.from, b.String())
			}
			edited := b.String()[:i] + tc.to + b.String()[i+len(tc.from):]
			if _, _, err := Read([]byte(edited)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s with %s: err %v, want %q", format, tc.to, err, tc.want)
			}
		}
	}
	bad := good
	bad.Findings = []finding.Finding{good.Findings[0]}
	bad.Findings[0].Baseline = "bogus"
	for _, format := range Formats() {
		if err := Write(&bytes.Buffer{}, format, bad); err == nil || !strings.Contains(err.Error(), `baseline state "bogus"`) {
			t.Errorf("%s wrote baseline state bogus: %v", format, err)
		}
	}
}

// SARIF message text escapes what would be markup where a consumer
// renders it (SARIF 2.1.0 §3.11.6: '[' ']' '\'; raw HTML, autolinks) and
// reads back to the message.
func TestSARIFTextRoundTrip(t *testing.T) {
	for in, want := range map[string]string{
		"[x](javascript:alert(1)) ![](https://e.example/p.png)": `\[x\](javascript:alert(1)) !\[\](https\://e.example/p.png)`,
		`<img src=x> &amp; www.e.example C:\dir`:                `\<img src=x\> \&amp; www\.e.example C:\\dir`,
		`plain: (INVALID_FORMAT)`:                               `plain: (INVALID_FORMAT)`,
		`a.b Www.E.example`:                                     `a.b Www\.E.example`,
	} {
		if got := sarifText(in); got != want {
			t.Errorf("sarifText(%q) = %q, want %q", in, got, want)
		}
		if back := sarifUntext(sarifText(in)); back != in {
			t.Errorf("sarifUntext(sarifText(%q)) = %q", in, back)
		}
	}
}
