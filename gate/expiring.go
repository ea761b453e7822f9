package gate

import (
	"fmt"
	"time"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/report"
)

// Expiring returns a warning notification (kind "expiring-waiver") for
// every waiver in force on today (YYYY-MM-DD) that expires within days
// days (check --warn-expiring): its findings count again the day after
// its expires date, so the warning comes while there is time to fix them
// or renew it. Waivers without a date, already expired or further off
// give none; days <= 0 gives none. Sorted by source.
func Expiring(ws []finding.Waiver, today string, days int) []report.Notification {
	now, err := time.Parse(finding.DateLayout, today)
	if days <= 0 || err != nil {
		return nil
	}
	var out []report.Notification
	for _, w := range ws {
		end, err := time.Parse(finding.DateLayout, w.Expires)
		if err != nil || w.Expired(today) {
			continue
		}
		left := int(end.Sub(now).Hours() / 24)
		if left > days {
			continue
		}
		when := fmt.Sprintf("in %d days", left)
		switch left {
		case 0:
			when = "today"
		case 1:
			when = "tomorrow"
		}
		out = append(out, report.Notification{Level: finding.LevelWarning, Kind: "expiring-waiver", Source: w.Source,
			Message: fmt.Sprintf("waiver %s expires on %s, %s (--warn-expiring %d): the findings it waives count again the day after; fix them or renew it",
				describe(w), w.Expires, when, days)})
	}
	SortNotifications(out)
	return out
}
