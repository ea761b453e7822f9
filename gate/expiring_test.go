package gate

import (
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

func TestExpiring(t *testing.T) {
	ws := []finding.Waiver{
		{Rule: "KPL003", Group: "g", Reason: "r", Expires: "2026-01-10", Source: "p.yaml:3"},
		{Group: "h", Reason: "r", Expires: "2026-01-01", Source: "p.yaml:4"}, // last day in force
		{Group: "i", Reason: "r", Expires: "2026-03-01", Source: "p.yaml:5"}, // further off
		{Group: "j", Reason: "r", Expires: "2025-12-31", Source: "p.yaml:6"}, // expired: Waive warns
		{Group: "k", Reason: "r", Source: "p.yaml:7"},                        // no date
	}
	got := Expiring(ws, "2026-01-01", 14)
	if len(got) != 2 {
		t.Fatalf("%d notifications, want 2: %+v", len(got), got)
	}
	want := []string{
		"waiver (KPL003, group g) expires on 2026-01-10, in 9 days (--warn-expiring 14): the findings it waives count again the day after; fix them or renew it",
		"waiver (group h) expires on 2026-01-01, today (--warn-expiring 14): the findings it waives count again the day after; fix them or renew it",
	}
	for i, n := range got {
		if n.Message != want[i] || n.Kind != "expiring-waiver" || n.Level != finding.LevelWarning || n.Source != ws[i].Source {
			t.Errorf("notification %d: %+v", i, n)
		}
	}
	if n := Expiring(ws, "2026-01-01", 0); n != nil {
		t.Errorf("days 0: %+v", n)
	}
}
