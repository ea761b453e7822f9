package lint_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/rules"
)

// Every finding of the test trees, without a policy, has a level
// rules.Levels allows for its rule: the levels merge accepts from a shard
// are every level check writes.
func TestRuleLevelsCoverFindings(t *testing.T) {
	var trees []string
	for _, dir := range []string{"scenarios", "kerneldb"} {
		ents, _ := os.ReadDir(filepath.Join("..", "..", "testdata", dir))
		for _, e := range ents {
			if e.IsDir() {
				trees = append(trees, filepath.Join("..", "..", "testdata", dir, e.Name()))
			}
		}
	}
	trees = append(trees, filepath.Join("..", "..", "testdata", "example"))
	seen := map[string]bool{}
	for _, tree := range trees {
		for _, cfg := range []lint.Config{{}, {Targets: []string{"gfx942", "gfx90a", "gfx1100", "gfx1151"}}} {
			for _, f := range runCheck(t, cfg, tree) {
				seen[f.RuleID+" "+string(f.Level)] = true
				if !slices.Contains(rules.Levels(f.RuleID, ""), f.Level) {
					t.Errorf("%s: %s %s at level %s, not among %v", tree, f.RuleID, f.Location.Path, f.Level, rules.Levels(f.RuleID, ""))
				}
			}
		}
	}
	if len(seen) < 8 {
		t.Errorf("only %d rule levels seen: %v", len(seen), seen)
	}
	if got := rules.Levels("KPL001", "none"); len(got) != 0 {
		t.Errorf("KPL001 turned off: %v", got)
	}
	if got := rules.Levels("KPL002", "error"); len(got) != 1 || got[0] != "error" {
		t.Errorf("KPL002 set to error: %v", got)
	}
}
