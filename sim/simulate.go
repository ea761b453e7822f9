package sim

import (
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/internal/util/par"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim/verify"
)

// Simulate loads every kernel of every site of r on every agent with both
// loaders, appends the loads that fail under either to r.Outcomes (in
// site, agent, kernel order) and, when r.Served is set (--deep), records
// which agents each stored code object is served to; with r.Machines, it
// judges every kernel key on every machine too (judge.go), deep telling
// which served code objects are no ELF files. It returns the number of
// simulated loads (kernels x agents x 2 loaders).
//
// Sites that look for archives the same way (one folder, the same search
// paths: the binaries of a folder) share one resolver plan per agent.
// Within a site every (archive, target) pair is fetched once per kernel,
// whatever the number of agents. A failing load's results depend only on
// its plan and the fetch codes of the plan's candidates, so they are built
// once per distinct plan and codes, and shared.
//
// Sites are simulated on workers goroutines (0 means runtime.GOMAXPROCS);
// the outcomes do not depend on it.
func Simulate(b *model.Build, r *Result, deep *verify.Result, workers int) int {
	c := &run{Result: r, Build: b, Deep: deep}
	units := planUnits(c, workers)
	per := make([][]Outcome, len(c.Sites))
	mper := make([][]MachineOutcome, len(c.Sites))
	loads := make([]int, len(c.Sites))
	par.Each(len(c.Sites), workers, 16, func() *simulator {
		sm := &simulator{c: c, failed: map[*resolver.Plan]map[string]*results{}}
		sm.judging = newJudging(sm)
		return sm
	}, func(sm *simulator, i int) {
		per[i], loads[i] = sm.site(c.Sites[i], units[i])
		if sm.judging != nil {
			if outs := sm.judging.agg.siteOutcomes(c.Sites[i]); c.Machines.Reserve(len(outs)) {
				mper[i] = outs
			}
		}
	})
	if ms := c.Machines; ms != nil {
		n := 0
		for i := range mper {
			n += len(mper[i])
		}
		ms.Outcomes = slices.Grow(ms.Outcomes, n)
		for i := range mper {
			ms.Outcomes = append(ms.Outcomes, mper[i]...)
		}
		unitOf := map[*Site]*unit{}
		for i, s := range c.Sites {
			unitOf[s] = units[i]
		}
		if pr, ok := ms.Oracle.(*probes); ok {
			pr.seed(c, units)
		}
		joinIDs(ms.Outcomes, func(o *MachineOutcome) joinWhere { return joinWhere{u: unitOf[o.Site], group: o.Site.Group} })
	}
	n := 0
	for i := range per {
		n += len(per[i])
	}
	c.Outcomes = slices.Grow(c.Outcomes, n)
	total := 0
	for i := range per {
		c.Outcomes = append(c.Outcomes, per[i]...)
		total += loads[i]
	}
	return total
}

// run is what one simulation reads and fills: the build, its --deep
// verification (nil without) and the result.
type run struct {
	*Result
	Build *model.Build
	Deep  *verify.Result
}

// planUnits builds the unit of every distinct request of c's sites and
// returns each site's.
func planUnits(c *run, workers int) []*unit {
	index := map[string]int{}
	var reqs []resolver.Request
	of := make([]int, len(c.Sites))
	for i, s := range c.Sites {
		k := requestKey(s.Request)
		j, ok := index[k]
		if !ok {
			j = len(reqs)
			index[k] = j
			reqs = append(reqs, s.Request)
		}
		of[i] = j
	}
	built := make([]*unit, len(reqs))
	par.Each[any](len(reqs), workers, 1, nil, func(_ any, i int) { built[i] = newUnit(c, reqs[i]) })
	units := make([]*unit, len(c.Sites))
	for i, j := range of {
		units[i] = built[j]
	}
	return units
}

// simulator is one worker's state: failing results it built and
// per-kernel scratch.
type simulator struct {
	c      *run
	failed map[*resolver.Plan]map[string]*results
	// judging is the machines' state, nil without machines (judge.go).
	judging *judging

	// scratch, per kernel: fetch codes per pair (known when set), the
	// kernel's entries per archive of the unit (looked up when set),
	// outcomes per agent, the agents each pair serves, a codes signature
	codes    []kpack.Code
	known    []bool
	entries  [][]kpack.ArchEntry
	looked   []bool
	outcomes [][]Outcome
	serving  [][]int
	sig      []byte
}

// results are the two loaders' results of a failing load.
type results struct{ legacy, fall *resolver.Result }

// unit is what the sites sharing one request have in common: a plan per
// agent and per arch_list of the machines, and the distinct (archive,
// target) pairs their candidates name.
type unit struct {
	plans []*resolver.Plan // per agent, in c.Agents order
	cand  [][]int          // per agent: the pair of each plan candidate
	// mplans and mcand are the same per machine.ArchList.Index of the
	// machines' plan (machineLists).
	mplans []*resolver.Plan
	mcand  [][]int
	pairs  []pair
	// archives are the distinct archives the pairs name: the pairs of
	// one archive (its targets on the agents) share one look-up of a
	// kernel key in its TOC (simulator.code).
	archives []*model.Archive
}

type pair struct {
	archive, target string
	a               *model.Archive // the archive at that real path
	ai              int            // a's index in the unit's archives, -1 for none
}

// archiveIndex numbers a among the unit's archives (-1 for nil).
func (u *unit) archiveIndex(a *model.Archive) int {
	if a == nil {
		return -1
	}
	if i := slices.Index(u.archives, a); i >= 0 {
		return i
	}
	u.archives = append(u.archives, a)
	return len(u.archives) - 1
}

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

func newUnit(c *run, req resolver.Request) *unit {
	u := &unit{}
	ids := map[pair]int{}
	for _, a := range c.Agents {
		req.ArchList = a.ArchList
		plan, cand := newPlanPairs(c, u, req, ids)
		u.plans = append(u.plans, plan)
		u.cand = append(u.cand, cand)
	}
	machineLists(c, u, req, ids)
	return u
}

// site simulates every kernel of s on every agent and returns the failing
// loads in agent, kernel order and the number of loads.
func (sm *simulator) site(s *Site, u *unit) ([]Outcome, int) {
	agents := sm.c.Agents
	sm.reset(len(u.pairs), len(u.archives), len(agents))
	judge := sm.judging != nil && s.Binary != nil && !sm.c.Machines.Exceeded()
	if sm.judging != nil {
		sm.judging.agg.reset()
	}
	for ki, key := range s.Kernels {
		clear(sm.known)
		clear(sm.looked)
		for ai, a := range agents {
			plan, cand := u.plans[ai], u.cand[ai]
			code := func(i int) kpack.Code { return sm.code(u, cand[i], key) }
			legacy, fall := plan.Serves(code)
			if sm.c.Served != nil {
				sm.serve(cand, ai, legacy, fall)
			}
			if legacy < 0 || fall < 0 {
				r := sm.fail(plan, cand, key, u)
				sm.outcomes[ai] = append(sm.outcomes[ai], Outcome{Site: s, Key: key, Agent: a, Plan: plan,
					Legacy: r.legacy, Fallthrough: r.fall})
			}
		}
		if sm.c.Served != nil {
			sm.record(u, key)
		}
		if judge {
			sm.judgeKey(s, u, ki)
		}
	}
	n := 0
	for ai := range agents {
		n += len(sm.outcomes[ai])
	}
	if n == 0 {
		return nil, 2 * len(s.Kernels) * len(agents)
	}
	out := make([]Outcome, 0, n)
	for ai := range agents {
		out = append(out, sm.outcomes[ai]...)
	}
	return out, 2 * len(s.Kernels) * len(agents)
}

// reset sizes the scratch for a unit of n pairs over archives archives
// and the agents.
func (sm *simulator) reset(n, archives, agents int) {
	if cap(sm.codes) < n {
		sm.codes, sm.known = make([]kpack.Code, n), make([]bool, n)
	}
	sm.codes, sm.known = sm.codes[:n], sm.known[:n]
	if cap(sm.entries) < archives {
		sm.entries, sm.looked = make([][]kpack.ArchEntry, archives), make([]bool, archives)
	}
	sm.entries, sm.looked = sm.entries[:archives], sm.looked[:archives]
	if len(sm.outcomes) < agents {
		sm.outcomes = make([][]Outcome, agents)
	}
	for i := range sm.outcomes {
		sm.outcomes[i] = sm.outcomes[i][:0]
	}
	if sm.c.Served != nil {
		if cap(sm.serving) < n {
			sm.serving = make([][]int, n)
		}
		sm.serving = sm.serving[:n]
		for i := range sm.serving {
			sm.serving[i] = sm.serving[i][:0]
		}
	}
}

// code fetches pair id for key once per kernel. Judged from the TOC
// alone (model.Build.TOCOnly), the key is looked up once per archive and
// each of the archive's pairs finds its target among the entries.
func (sm *simulator) code(u *unit, id int, key string) kpack.Code {
	if !sm.known[id] {
		p := u.pairs[id]
		if p.ai >= 0 && p.a.Info != nil && sm.c.Build.TOCOnly() {
			if !sm.looked[p.ai] {
				sm.entries[p.ai], sm.looked[p.ai] = p.a.Info.Kernels[key], true
			}
			e, ok := kpack.EntryFor(sm.entries[p.ai], p.target)
			sm.codes[id] = model.EntryCode(p.a.Info, e, ok)
		} else {
			sm.codes[id] = sm.c.Build.FetchFrom(p.a, key, p.target)
		}
		sm.known[id] = true
	}
	return sm.codes[id]
}

// fail returns the results of a load that fails under a loader, built
// once per plan and fetch codes of its candidates.
func (sm *simulator) fail(plan *resolver.Plan, cand []int, key string, u *unit) *results {
	sm.sig = sm.sig[:0]
	for _, i := range plan.Firsts() { // a repeated candidate has its pair's code
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
	legacy := plan.Load(sm.c.Build, key, finding.Legacy)
	fall := plan.Load(sm.c.Build, key, finding.Fallthrough)
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
		list := sm.serving[cand[i]]
		if len(list) == 0 || list[len(list)-1] != ai {
			sm.serving[cand[i]] = append(list, ai)
		}
	}
}

// record files the agents each pair served for key (--deep).
func (sm *simulator) record(u *unit, key string) {
	for id, agents := range sm.serving {
		if len(agents) == 0 {
			continue
		}
		p := u.pairs[id]
		if e, ok := p.a.Info.Lookup(key, p.target); ok {
			for _, ai := range agents {
				sm.c.Serve(p.a, e.Index, ai)
			}
		}
		sm.serving[id] = agents[:0]
	}
}
