package report

import (
	"cmp"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// matrixView is the load matrix (Run.Matrix) as the job summary and the
// HTML page draw it: one row per kpack group, one column per target
// (the policy's order), and under each target the agents that stand for
// it. Each cell is coloured by the worst open finding about the group on
// that target or agent (findingCounts), so a cell never looks fine while
// a finding about it is open, nor red without one.
type matrixView struct {
	groups, targets []string
	cells           map[[2]string]finding.Cell // by group, target
	agents          map[string][]string        // target -> agent ISAs of Checked.Agents
	other           string                     // the loader the gate does not judge by, for "legacy loader: 6 fail"
}

func newMatrixView(r Run) matrixView {
	m := matrixView{cells: map[[2]string]finding.Cell{}, agents: map[string][]string{}, other: string(finding.Legacy)}
	for _, cell := range r.Matrix {
		if !slices.Contains(m.groups, cell.Group) {
			m.groups = append(m.groups, cell.Group)
		}
		if !slices.Contains(m.targets, cell.Target) {
			m.targets = append(m.targets, cell.Target)
		}
		m.cells[[2]string{cell.Group, cell.Target}] = cell
	}
	if r.Checked != nil && len(r.Checked.Targets) > 0 {
		m.targets = orderLike(m.targets, r.Checked.Targets)
	}
	if r.Checked != nil && r.Checked.Loader == string(finding.Legacy) {
		m.other = "fall-through"
	}
	var agents []string
	if r.Checked != nil {
		agents = r.Checked.Agents
	}
	for _, t := range m.targets {
		tid, err := targetid.Parse(t)
		for _, a := range agents {
			if aid, aerr := targetid.Parse(a); a == t || (err == nil && aerr == nil && targetid.CompatibleOrGeneric(tid, aid)) {
				m.agents[t] = append(m.agents[t], a)
			}
		}
	}
	return m
}

// rowOf is the matrix row of a finding: its kpack group, else its file
// (a host binary that names no group); "" when it has no row.
func (m matrixView) rowOf(f finding.Finding) string {
	g := cmp.Or(f.Group, f.Location.Path)
	if slices.Contains(m.groups, g) {
		return g
	}
	return ""
}

// targetCounts counts, per kpack group x target, the open findings about
// that group on that target, by level (concernsTarget).
func (m matrixView) targetCounts(entries []entry) map[[2]string]counts {
	out := map[[2]string]counts{}
	for _, e := range entries {
		g := m.rowOf(e.f)
		if !e.open || g == "" {
			continue
		}
		procs := archiveProcessors(e.f)
		for _, t := range m.targets {
			if concernsTarget(e.f, procs, t) {
				c := out[[2]string{g, t}]
				c.add(e.level)
				out[[2]string{g, t}] = c
			}
		}
	}
	return out
}

// agentCounts counts, per kpack group x agent ISA, the open findings
// about that group on that agent, by level (concernsAgent).
func (m matrixView) agentCounts(entries []entry) map[[2]string]counts {
	out := map[[2]string]counts{}
	for _, e := range entries {
		g := m.rowOf(e.f)
		if !e.open || g == "" {
			continue
		}
		procs := archiveProcessors(e.f)
		seen := map[string]bool{}
		for _, t := range m.targets {
			for _, a := range m.agents[t] {
				if !seen[a] && concernsAgent(e.f, procs, a, m.targetsOfAgent(a)) {
					seen[a] = true
					c := out[[2]string{g, a}]
					c.add(e.level)
					out[[2]string{g, a}] = c
				}
			}
		}
	}
	return out
}

// targetsOfAgent lists the matrix targets agent a stands for.
func (m matrixView) targetsOfAgent(a string) []string {
	var out []string
	for _, t := range m.targets {
		if slices.Contains(m.agents[t], a) {
			out = append(out, t)
		}
	}
	return out
}

// worst is the most severe level counted: error, warning, note, or "" for
// none.
func (c counts) worst() finding.Level {
	switch {
	case c.Error > 0:
		return finding.LevelError
	case c.Warning > 0:
		return finding.LevelWarning
	case c.Note > 0:
		return finding.LevelNote
	}
	return ""
}

// words is "2 errors, 1 warning" (the levels counted), "" for none.
func (c counts) words() string {
	var parts []string
	for _, x := range []struct {
		n    int
		word string
	}{{c.Error, "error"}, {c.Warning, "warning"}, {c.Note, "note"}} {
		if x.n > 0 {
			parts = append(parts, plural(x.n, x.word))
		}
	}
	return strings.Join(parts, ", ")
}

// concernsTarget reports whether finding f (with the archive processors
// procs) is about matrix target t: one of its targets (Finding.Targets)
// when it names any; else one of its agents runs code of t
// (targetid.CompatibleOrGeneric, or the agent itself with --agent); else
// its archives are tagged with t's processor (KPL004 names no agent);
// with neither, every target.
func concernsTarget(f finding.Finding, procs []string, t string) bool {
	if len(f.Targets) > 0 {
		return slices.Contains(f.Targets, t)
	}
	return concerns(f, procs, t)
}

// concernsAgent reports whether finding f is about agent ISA a, which
// stands for the matrix targets ts: one of its agents when it names any;
// else one of its targets; else its archives are tagged with a's
// processor or a generic target covering it; with neither, every agent.
func concernsAgent(f finding.Finding, procs []string, a string, ts []string) bool {
	switch {
	case len(f.Agents) > 0:
		return slices.Contains(f.Agents, a)
	case len(f.Targets) > 0:
		return slices.ContainsFunc(ts, func(t string) bool { return slices.Contains(f.Targets, t) })
	case len(procs) == 0:
		return true
	}
	aid, err := targetid.Parse(a)
	if err != nil {
		return false
	}
	for _, p := range procs {
		if p == aid.Processor || targetid.GenericCovers(p, aid.Processor) {
			return true
		}
	}
	return false
}
