package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
)

// Every summary leads with what fails the gate, then the totals: a run
// with a baseline whose one new error fails says "1 new error fails the
// gate; 3 findings: 2 errors, 1 warning, 0 notes (1 new, 2 unchanged, 0
// fixed since the baseline)", not its total first.

// verdict is what of a run's open findings counts for the exit code:
// gating (finding.Gating: new since the baseline, every open finding
// without one, unchanged ones too with FailOnBaseline) per level, and of
// those the ones at or above the gate's level (failing; none for
// --fail-on none).
type verdict struct {
	failOn  finding.Level
	gating  counts
	failing counts
}

// gateVerdict counts the gating and failing entries of r.
func gateVerdict(r Run, entries []entry) verdict {
	v := verdict{failOn: r.failOn()}
	for _, e := range entries {
		if !e.gating {
			continue
		}
		v.gating.add(e.level)
		if v.failOn != finding.LevelNone && e.level.Rank() >= v.failOn.Rank() {
			v.failing.add(e.level)
		}
	}
	return v
}

// failOn is the level that fails the gate: r.FailOn, error when unset.
func (r Run) failOn() finding.Level {
	if r.FailOn == "" {
		return finding.LevelError
	}
	return r.FailOn
}

// byBaseline reports whether only the findings new since a baseline can
// fail (a baseline without FailOnBaseline).
func byBaseline(r Run) bool {
	return r.Checked != nil && r.Checked.Baseline != "" && !r.FailOnBaseline
}

// failingWords says what fails the gate: "2 errors fail the gate", "1
// new error and 1 new warning fail the gate" (only new ones can, with a
// baseline), "nothing new fails the gate", "nothing fails the gate
// (--fail-on none)".
func failingWords(v verdict, r Run) string {
	newWord := ""
	if byBaseline(r) {
		newWord = "new "
	}
	n := v.failing.total()
	switch {
	case v.failOn == finding.LevelNone:
		return "nothing fails the gate (--fail-on none)"
	case n == 0 && newWord != "":
		return "nothing new fails the gate"
	case n == 0:
		return "nothing fails the gate"
	}
	var parts []string
	for _, x := range []struct {
		n    int
		word string
	}{{v.failing.Error, "error"}, {v.failing.Warning, "warning"}, {v.failing.Note, "note"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s%s", x.n, newWord, pluralWord(x.n, x.word)))
		}
	}
	verb := "fail"
	if n == 1 {
		verb = "fails"
	}
	return strings.Join(parts, " and ") + " " + verb + " the gate"
}

// failingFirst orders entries as the HTML page lists them: those that
// fail the gate first, then by level (errors first), each part in report
// order.
func failingFirst(entries []entry) []entry {
	out := slices.Clone(entries)
	slices.SortStableFunc(out, func(x, y entry) int {
		if x.gating != y.gating {
			if x.gating {
				return -1
			}
			return 1
		}
		return y.level.Rank() - x.level.Rank()
	})
	return out
}

// perTarget counts, per matrix target, the open findings about it (each
// once, whatever groups and agents it names: concernsTarget).
func (m matrixView) perTarget(entries []entry) map[string]counts {
	out := make(map[string]counts, len(m.targets))
	for _, e := range entries {
		if !e.open {
			continue
		}
		procs := archiveProcessors(e.f)
		for _, t := range m.targets {
			if concernsTarget(e.f, procs, t) {
				c := out[t]
				c.add(e.level)
				out[t] = c
			}
		}
	}
	return out
}

// worstFirst orders targets by the worst open finding about each (per):
// errors, then warnings, notes, none; the run's order within each.
func worstFirst(targets []string, per map[string]counts) []string {
	out := slices.Clone(targets)
	slices.SortStableFunc(out, func(a, b string) int { return per[b].worst().Rank() - per[a].worst().Rank() })
	return out
}

// htmlTargetRow is one row of the HTML page's targets table.
type htmlTargetRow struct {
	Target, Level, Loads            string
	Agents, Errors, Warnings, Notes int
	Groups, FailingGroups           int
}

// htmlTargets is the HTML page's first view of the matrix: one row per
// target, worst first, with the open findings about it, how many kpack
// groups have an error on it and its loads (nil without a matrix).
func htmlTargets(r Run, entries []entry) []htmlTargetRow {
	if len(r.Matrix) == 0 {
		return nil
	}
	m := newMatrixView(r)
	per := m.perTarget(entries)
	cells := m.targetCounts(entries)
	var out []htmlTargetRow
	for _, t := range worstFirst(m.targets, per) {
		c := per[t]
		row := htmlTargetRow{Target: t, Level: levelClass(c), Agents: len(m.agents[t]), Errors: c.Error, Warnings: c.Warning, Notes: c.Note}
		loads, failed := 0, 0
		for _, g := range m.groups {
			cell, ok := m.cells[[2]string{g, t}]
			if !ok {
				continue
			}
			row.Groups++
			loads, failed = loads+cell.Loads, failed+cell.Failed
			if cells[[2]string{g, t}].Error > 0 {
				row.FailingGroups++
			}
		}
		row.Loads = fmt.Sprintf("%d/%d", loads-failed, loads)
		out = append(out, row)
	}
	return out
}

// unplacedWords says how many open errors and warnings are about no row
// of the matrix (a cause that spans kpack groups, a machine, the policy),
// so a matrix that looks green is not read as a pass: "2 open findings
// are about no single kpack group and are not drawn in the matrix: KPL001
// (1 error), KPL010 (1 error)". "" when every one has its row.
func unplacedWords(r Run, entries []entry) string {
	if len(r.Matrix) == 0 {
		return ""
	}
	m := newMatrixView(r)
	var rules []ruleCount
	n := 0
	for _, e := range entries {
		if !e.open || e.level.Rank() < finding.LevelWarning.Rank() || m.rowOf(e.f) != "" {
			continue
		}
		n++
		if len(rules) == 0 || rules[len(rules)-1].id != e.f.RuleID {
			rules = append(rules, ruleCount{id: e.f.RuleID})
		}
		rules[len(rules)-1].c.add(e.level)
	}
	if n == 0 {
		return ""
	}
	parts := make([]string, len(rules))
	for i, rc := range rules {
		parts[i] = fmt.Sprintf("%s (%s)", rc.id, rc.c.words())
	}
	return fmt.Sprintf("%s about no single kpack group %s not drawn in the matrix: %s; see the findings.",
		plural(n, "open finding"), isAreWord(n), strings.Join(parts, ", "))
}
