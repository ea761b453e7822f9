package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/rules"
)

// TestReadmeRuleTable keeps the README's rule table in step with the
// registry that SARIF and `kpack-lint rules` read.
func TestReadmeRuleTable(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	for _, r := range rules.All() {
		row := "| " + r.ID + " | " + r.Name + " | " + string(r.Level) + " |"
		anchor := `<a id="` + strings.ToLower(r.ID) + `"></a>`
		if !strings.Contains(readme, anchor+row[2:]) && !strings.Contains(readme, "| "+anchor+r.ID+" | "+r.Name+" | "+string(r.Level)+" |") {
			t.Errorf("README lacks the row %q (with anchor %s)", row, anchor)
		}
	}
}

func TestRulesCommandListsRegistry(t *testing.T) {
	code, out, _ := run(t, "rules")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, r := range rules.All() {
		if !strings.Contains(out, r.ID+"  "+r.Name) {
			t.Errorf("rules output lacks %s %s", r.ID, r.Name)
		}
	}
}
