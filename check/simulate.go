package check

import (
	"strings"

	"github.com/rocm-tools/kpack-lint/deep"
	"github.com/rocm-tools/kpack-lint/kpack"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/rules"
)

// Simulate loads every kernel of every site of c on every agent with both
// loaders, appends the loads that fail under either to c.Outcomes (in
// site, agent, kernel order) and, when c.Served is set (--deep), records
// which agents each stored code object is served to. It returns the number
// of simulated loads (kernels x agents x 2 loaders).
//
// Sites that look for archives the same way (one folder, the same search
// paths: the binaries of a folder) share one resolver plan per agent.
// Within a site every (archive, target) pair is fetched once per kernel,
// whatever the number of agents. A failing load's results depend only on
// its plan and the fetch codes of the plan's candidates, so they are built
// once per distinct plan and codes, and shared.
func Simulate(c *rules.Context) int {
	sim := &simulator{c: c, units: map[string]*unit{}, failed: map[*resolver.Plan]map[string]*results{}}
	loads := 0
	for _, s := range c.Sites {
		loads += sim.site(s)
	}
	return loads
}

// simulator holds what sites share: plans, and failing results.
type simulator struct {
	c      *rules.Context
	units  map[string]*unit
	failed map[*resolver.Plan]map[string]*results

	// scratch, per kernel: fetch codes per pair (known when set), outcomes
	// per agent, the agents each pair serves, a codes signature
	codes    []kpack.Code
	known    []bool
	outcomes [][]rules.Outcome
	served   [][]int
	sig      []byte
}

// results are the two loaders' results of a failing load.
type results struct{ legacy, fall *resolver.Result }

// unit is what the sites sharing one request have in common: a plan per
// agent, and the distinct (archive, target) pairs their candidates name.
type unit struct {
	plans []*resolver.Plan // per agent, in c.Agents order
	cand  [][]int          // per agent: the pair of each plan candidate
	pairs []pair
}

type pair struct{ archive, target string }

// requestKey identifies the sites that plan alike. The environment is the
// same for every site of a check.
func requestKey(r resolver.Request) string {
	var b strings.Builder
	b.WriteString(r.BinaryDir)
	for _, p := range r.SearchPaths {
		b.WriteByte(0)
		b.WriteString(p)
	}
	if r.Windows {
		b.WriteString("\x00windows")
	}
	return b.String()
}

func (sm *simulator) unit(req resolver.Request) *unit {
	key := requestKey(req)
	if u := sm.units[key]; u != nil {
		return u
	}
	u := &unit{}
	ids := map[pair]int{}
	for _, a := range sm.c.Agents {
		req.ArchList = a.ArchList
		plan := resolver.NewPlan(sm.c.Build, req)
		cand := make([]int, len(plan.Candidates))
		for i, pc := range plan.Candidates {
			p := pair{pc.Archive, pc.Target}
			id, ok := ids[p]
			if !ok {
				id = len(u.pairs)
				ids[p] = id
				u.pairs = append(u.pairs, p)
			}
			cand[i] = id
		}
		u.plans = append(u.plans, plan)
		u.cand = append(u.cand, cand)
	}
	sm.units[key] = u
	return u
}

// site simulates every kernel of s on every agent.
func (sm *simulator) site(s *rules.Site) int {
	u := sm.unit(s.Request)
	agents := sm.c.Agents
	sm.reset(len(u.pairs), len(agents))
	for _, key := range s.Kernels {
		clear(sm.known)
		for ai, a := range agents {
			plan, cand := u.plans[ai], u.cand[ai]
			code := func(i int) kpack.Code { return sm.code(u, cand[i], key) }
			legacy, fall := plan.Serves(code)
			if sm.c.Served != nil {
				sm.serve(cand, ai, legacy, fall)
			}
			if legacy < 0 || fall < 0 {
				r := sm.fail(plan, cand, key, u)
				sm.outcomes[ai] = append(sm.outcomes[ai], rules.Outcome{Site: s, Key: key, Agent: a, Plan: plan,
					Legacy: r.legacy, Fallthrough: r.fall})
			}
		}
		if sm.c.Served != nil {
			sm.record(u, key)
		}
	}
	for ai := range agents {
		sm.c.Outcomes = append(sm.c.Outcomes, sm.outcomes[ai]...)
	}
	return 2 * len(s.Kernels) * len(agents)
}

// reset sizes the scratch for a unit of n pairs and the agents.
func (sm *simulator) reset(n, agents int) {
	if cap(sm.codes) < n {
		sm.codes, sm.known = make([]kpack.Code, n), make([]bool, n)
	}
	sm.codes, sm.known = sm.codes[:n], sm.known[:n]
	if len(sm.outcomes) < agents {
		sm.outcomes = make([][]rules.Outcome, agents)
	}
	for i := range sm.outcomes {
		sm.outcomes[i] = sm.outcomes[i][:0]
	}
	if sm.c.Served != nil {
		if cap(sm.served) < n {
			sm.served = make([][]int, n)
		}
		sm.served = sm.served[:n]
		for i := range sm.served {
			sm.served[i] = sm.served[i][:0]
		}
	}
}

// code fetches pair id for key once per kernel.
func (sm *simulator) code(u *unit, id int, key string) kpack.Code {
	if !sm.known[id] {
		p := u.pairs[id]
		sm.codes[id] = sm.c.Build.Fetch(p.archive, key, p.target)
		sm.known[id] = true
	}
	return sm.codes[id]
}

// fail returns the results of a load that fails under a loader, built
// once per plan and fetch codes of its candidates.
func (sm *simulator) fail(plan *resolver.Plan, cand []int, key string, u *unit) *results {
	sm.sig = sm.sig[:0]
	for i := range cand {
		sm.sig = append(sm.sig, byte(sm.code(u, cand[i], key)+2))
	}
	byCodes := sm.failed[plan]
	if byCodes == nil {
		byCodes = map[string]*results{}
		sm.failed[plan] = byCodes
	}
	if r, ok := byCodes[string(sm.sig)]; ok {
		return r
	}
	legacy := plan.Load(sm.c.Build, key, resolver.Legacy)
	fall := plan.Load(sm.c.Build, key, resolver.Fallthrough)
	r := &results{&legacy, &fall}
	byCodes[string(sm.sig)] = r
	return r
}

// serve notes that the candidates serving the two loaders (indexes, -1
// for none) serve agent ai.
func (sm *simulator) serve(cand []int, ai, legacy, fall int) {
	for _, i := range [2]int{legacy, fall} {
		if i < 0 {
			continue
		}
		list := sm.served[cand[i]]
		if len(list) == 0 || list[len(list)-1] != ai {
			sm.served[cand[i]] = append(list, ai)
		}
	}
}

// record files the agents each pair served for key (--deep).
func (sm *simulator) record(u *unit, key string) {
	for id, agents := range sm.served {
		for _, ai := range agents {
			sm.c.Serve(deep.Key{Archive: u.pairs[id].archive, Kernel: key, Arch: u.pairs[id].target}, sm.c.Agents[ai].ISA)
		}
		sm.served[id] = agents[:0]
	}
}
