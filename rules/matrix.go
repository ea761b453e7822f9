package rules

import (
	"cmp"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim"
)

// Matrix summarises the simulated loads per kpack group and policy target,
// sorted by group then target.
func (c *Context) Matrix() []finding.Cell {
	cells := map[[2]string]*finding.Cell{}
	agents := map[*finding.Cell]map[string]bool{}
	// byGroup holds, per group, each agent's cells (one per target it
	// stands for), so sites and outcomes of a group find theirs at once.
	byGroup := map[string][][]*finding.Cell{}
	groupOf := func(s *sim.Site) string {
		if s.Group == "" {
			return s.Path
		}
		return s.Group
	}
	agentCells := func(g string, a *sim.Agent) []*finding.Cell {
		targets := a.Targets
		if len(targets) == 0 {
			targets = []string{a.ISA}
		}
		var out []*finding.Cell
		for _, t := range targets {
			k := [2]string{g, t}
			cell := cells[k]
			if cell == nil {
				cell = &finding.Cell{Group: g, Target: t}
				cells[k] = cell
				agents[cell] = map[string]bool{}
			}
			agents[cell][a.ISA] = true
			out = append(out, cell)
		}
		return out
	}
	cellsFor := func(s *sim.Site) [][]*finding.Cell {
		g := groupOf(s)
		if cs, ok := byGroup[g]; ok {
			return cs
		}
		cs := make([][]*finding.Cell, len(c.Agents))
		for ai, a := range c.Agents {
			cs[ai] = agentCells(g, a)
		}
		byGroup[g] = cs
		return cs
	}
	agentIndex := make(map[*sim.Agent]int, len(c.Agents))
	for ai, a := range c.Agents {
		agentIndex[a] = ai
	}
	for _, s := range c.Sites {
		for _, agentCells := range cellsFor(s) {
			for _, cell := range agentCells {
				cell.Loads += len(s.Kernels)
			}
		}
	}
	var last *sim.Site
	var siteCells [][]*finding.Cell
	for i := range c.Outcomes {
		o := &c.Outcomes[i]
		if o.Site != last {
			last, siteCells = o.Site, cellsFor(o.Site)
		}
		failed, other := !c.result(o).OK(), !c.other(o).OK()
		var cs []*finding.Cell
		if ai, ok := agentIndex[o.Agent]; ok {
			cs = siteCells[ai]
		} else {
			cs = agentCells(groupOf(o.Site), o.Agent) // not one of c.Agents
		}
		for _, cell := range cs {
			if failed {
				cell.Failed++
			} else if other {
				cell.OtherFailed++
			}
		}
	}
	out := make([]finding.Cell, 0, len(cells))
	for _, cell := range cells {
		cell.Agents = len(agents[cell])
		out = append(out, *cell)
	}
	slices.SortFunc(out, func(x, y finding.Cell) int {
		return cmp.Or(strings.Compare(x.Group, y.Group), strings.Compare(x.Target, y.Target))
	})
	return out
}
