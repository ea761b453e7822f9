package rules

import (
	"cmp"
	"slices"
	"strings"
)

// Cell is one kpack group x policy target of the simulated matrix: how
// many kernel x agent loads were simulated for the target's agents and how
// many fail. The job summary draws these as a table.
type Cell struct {
	Group  string `json:"group"`  // kpack group; a host binary's path when it names no group
	Target string `json:"target"` // policy target the agents stand for (the agent ISA with --agent)
	Agents int    `json:"agents"`
	Loads  int    `json:"loads"`  // kernels x agents
	Failed int    `json:"failed"` // loads the policy's loader fails
	// OtherFailed counts loads only the other loader fails (legacy-only
	// failures are KPL002 under the fall-through loader).
	OtherFailed int `json:"otherFailed"`
}

// Matrix summarises the simulated loads per kpack group and policy target,
// sorted by group then target.
func (c *Context) Matrix() []Cell {
	cells := map[[2]string]*Cell{}
	agents := map[*Cell]map[string]bool{}
	// byGroup holds, per group, each agent's cells (one per target it
	// stands for), so sites and outcomes of a group find theirs at once.
	byGroup := map[string][][]*Cell{}
	groupOf := func(s *Site) string {
		if s.Group == "" {
			return s.Path
		}
		return s.Group
	}
	agentCells := func(g string, a *Agent) []*Cell {
		targets := a.Targets
		if len(targets) == 0 {
			targets = []string{a.ISA}
		}
		var out []*Cell
		for _, t := range targets {
			k := [2]string{g, t}
			cell := cells[k]
			if cell == nil {
				cell = &Cell{Group: g, Target: t}
				cells[k] = cell
				agents[cell] = map[string]bool{}
			}
			agents[cell][a.ISA] = true
			out = append(out, cell)
		}
		return out
	}
	cellsFor := func(s *Site) [][]*Cell {
		g := groupOf(s)
		if cs, ok := byGroup[g]; ok {
			return cs
		}
		cs := make([][]*Cell, len(c.Agents))
		for ai, a := range c.Agents {
			cs[ai] = agentCells(g, a)
		}
		byGroup[g] = cs
		return cs
	}
	agentIndex := make(map[*Agent]int, len(c.Agents))
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
	var last *Site
	var siteCells [][]*Cell
	for i := range c.Outcomes {
		o := &c.Outcomes[i]
		if o.Site != last {
			last, siteCells = o.Site, cellsFor(o.Site)
		}
		failed, other := !c.result(o).OK(), !c.other(o).OK()
		var cs []*Cell
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
	out := make([]Cell, 0, len(cells))
	for _, cell := range cells {
		cell.Agents = len(agents[cell])
		out = append(out, *cell)
	}
	slices.SortFunc(out, func(x, y Cell) int {
		return cmp.Or(strings.Compare(x.Group, y.Group), strings.Compare(x.Target, y.Target))
	})
	return out
}
