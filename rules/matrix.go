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
	agents := map[[2]string]map[string]bool{}
	get := func(s *Site, t string) *Cell {
		g := s.Group
		if g == "" {
			g = s.Path
		}
		k := [2]string{g, t}
		if cells[k] == nil {
			cells[k] = &Cell{Group: g, Target: t}
			agents[k] = map[string]bool{}
		}
		return cells[k]
	}
	each := func(s *Site, a *Agent, fn func(*Cell)) {
		targets := a.Targets
		if len(targets) == 0 {
			targets = []string{a.ISA}
		}
		for _, t := range targets {
			cell := get(s, t)
			agents[[2]string{cell.Group, t}][a.ISA] = true
			fn(cell)
		}
	}
	for _, s := range c.Sites {
		for _, a := range c.Agents {
			each(s, a, func(cell *Cell) { cell.Loads += len(s.Kernels) })
		}
	}
	for i := range c.Outcomes {
		o := &c.Outcomes[i]
		failed, other := !c.result(o).OK(), !c.other(o).OK()
		each(o.Site, o.Agent, func(cell *Cell) {
			if failed {
				cell.Failed++
			} else if other {
				cell.OtherFailed++
			}
		})
	}
	out := make([]Cell, 0, len(cells))
	for k, cell := range cells {
		cell.Agents = len(agents[k])
		out = append(out, *cell)
	}
	slices.SortFunc(out, func(x, y Cell) int {
		return cmp.Or(strings.Compare(x.Group, y.Group), strings.Compare(x.Target, y.Target))
	})
	return out
}
