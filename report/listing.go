package report

import (
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
)

// DefaultMaxPerRule is how many findings of one rule the text report
// shows by default (check --max-per-rule); 0 in a Run shows all.
const DefaultMaxPerRule = 10

// listing is the open findings a people's report lists, in the order
// to list them: with a baseline, the findings new since it first, then
// the unchanged ones (hidden with Run.NewOnly, counted either way).
type listing struct {
	fresh     []entry // open findings that are not unchanged since the baseline
	unchanged []entry // open findings unchanged since the baseline
}

// listed splits the open entries; without a baseline every open finding
// is fresh.
func listed(entries []entry) listing {
	var l listing
	for _, e := range entries {
		switch {
		case !e.open:
		case e.f.Baseline == finding.BaselineUnchanged:
			l.unchanged = append(l.unchanged, e)
		default:
			l.fresh = append(l.fresh, e)
		}
	}
	return l
}

// writeTextFindings writes the open findings' blocks: new ones first,
// then a line counting the unchanged ones and, unless r.NewOnly, their
// blocks. At most r.MaxPerRule findings of a rule are shown in each part
// (0: all); a line after a rule's last one says how many were left out
// and how to see them.
func writeTextFindings(b *strings.Builder, r Run, entries []entry, p painter) {
	l := listed(entries)
	if len(l.fresh) > 0 && r.Checked != nil && r.Checked.Baseline != "" {
		fmt.Fprintf(b, "%s new since the baseline:\n", plural(len(l.fresh), "finding"))
	}
	writeCapped(b, r, l.fresh, p)
	if len(l.unchanged) == 0 {
		return
	}
	if r.NewOnly {
		fmt.Fprintf(b, "%s unchanged since the baseline not shown (--new-only); the JSON and SARIF reports list them\n",
			plural(len(l.unchanged), "finding"))
		return
	}
	fmt.Fprintf(b, "%s unchanged since the baseline (--new-only hides them):\n", plural(len(l.unchanged), "finding"))
	writeCapped(b, r, l.unchanged, p)
}

// writeCapped writes entries (sorted by rule), at most r.MaxPerRule per
// rule.
func writeCapped(b *strings.Builder, r Run, entries []entry, p painter) {
	shown, hidden := 0, 0
	for i, e := range entries {
		if i > 0 && entries[i-1].f.RuleID != e.f.RuleID {
			writeHidden(b, r, entries[i-1].f.RuleID, hidden)
			shown, hidden = 0, 0
		}
		if r.MaxPerRule > 0 && shown == r.MaxPerRule {
			hidden++
			continue
		}
		shown++
		writeTextEntry(b, r, e, p)
	}
	if n := len(entries); n > 0 {
		writeHidden(b, r, entries[n-1].f.RuleID, hidden)
	}
}

func writeHidden(b *strings.Builder, r Run, rule string, hidden int) {
	if hidden == 0 {
		return
	}
	fmt.Fprintf(b, "... %d more %s %s not shown (at most %d per rule: --max-per-rule 0 shows every one; the JSON and SARIF reports list them all)\n",
		hidden, rule, pluralWord(hidden, "finding"), r.MaxPerRule)
}
