package report

import (
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// A job-summary cell is coloured by the findings about it and names them
// before its loads: red only with an error finding, whatever the loads.
func TestCellText(t *testing.T) {
	for _, c := range []struct {
		cell  finding.Cell
		found counts
		want  string
	}{
		{finding.Cell{Loads: 16}, counts{}, "✅ 16/16"},
		{finding.Cell{Loads: 10, OtherFailed: 6}, counts{Error: 2, Warning: 1}, "❌ 2 errors, 1 warning; 10/10 loads (legacy loader: 6 fail)"},
		{finding.Cell{Loads: 3, Failed: 3}, counts{Warning: 1}, "⚠️ 1 warning; 0/3 loads"}, // KPL001 lowered to a warning by the policy
		{finding.Cell{Loads: 4}, counts{Note: 1}, "✅ 1 note; 4/4 loads"},
	} {
		if got := cellText(c.cell, true, "legacy", c.found); got != c.want {
			t.Errorf("cellText(%+v, %+v) = %q, want %q", c.cell, c.found, got, c.want)
		}
	}
	if got := cellText(finding.Cell{}, false, "legacy", counts{}); got != "–" {
		t.Errorf("no cell: %q", got)
	}
}
