package report

import (
	"strings"
	"testing"
)

// Azure Pipelines' ##vso[ logging commands (found anywhere in a line, any
// case) are kept out of JSON/SARIF text and ready-to-run commands as
// "##[" is: the same string or shell word, with its [ written otherwise.
func TestAzureCommandsInert(t *testing.T) {
	in := []byte(`{"path": "##vso[task.setvariable variable=PATH]x", "m": "##VSO[task.complete] ##[group]"}`)
	got := string(inertJSON(in))
	if want := `{"path": "##vso\u005btask.setvariable variable=PATH]x", "m": "##VSO\u005btask.complete] ##\u005bgroup]"}`; got != want {
		t.Errorf("inertJSON = %s, want %s", got, want)
	}
	if q := shellQuote("##vso[task.complete]x"); q != `'##vso''[task.complete]x'` || strings.Contains(q, "##vso[") {
		t.Errorf("shellQuote = %s", q)
	}
	s := inertText("a ##vso[task.complete]\n")
	if strings.Contains(s, "##vso[") || !strings.HasSuffix(s, EscapeNote+"\n") {
		t.Errorf("inertText = %q", s)
	}
}
