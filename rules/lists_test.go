package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// TestListCapsAgree: every list a message names stops at finding.MaxListed
// items, the number docs/commands.md states ("... and N more").
func TestListCapsAgree(t *testing.T) {
	items := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("gfx%d", 900+i))
		}
		return out
	}
	for _, tc := range []struct {
		name string
		list func([]string) string
		sep  string
	}{
		{"agents", listAgents, ", "},
		{"problems", listProblems, "; "},
		{"looked for", func(s []string) string { return strings.Join(lookedFor(s), ", ") }, ", "},
	} {
		for _, n := range []int{finding.MaxListed, finding.MaxListed + 5} {
			got := tc.list(items(n))
			shown := strings.Count(got, "gfx")
			if want := min(n, finding.MaxListed); shown != want {
				t.Errorf("%s of %d: names %d items, want %d: %s", tc.name, n, shown, want, got)
			}
			if more := n - finding.MaxListed; more > 0 && !strings.Contains(got, fmt.Sprintf("%d more", more)) {
				t.Errorf("%s of %d: no %q: %s", tc.name, n, fmt.Sprintf("%d more", more), got)
			}
		}
	}
}
