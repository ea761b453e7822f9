package sim

import (
	"encoding/binary"
	"slices"
	"strings"
	"sync"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/internal/util/par"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/machine"
	"github.com/rocm-tools/kpack-lint/sim/verify"
)

// The machines' simulation: every module (HIPK wrapper: kernel key; HIPF
// wrapper: offload bundle) of every host binary is judged on every machine
// of the plan (machine.Judge, one per worker), as the binary's kind of
// process (PE: Windows) loads it. The kpack loads a machine's release
// asks for (its devices' arch_lists, PR 2622's combined lists) are served
// by the same simulation as the agents': a list equal to an agent's
// arch_list shares its resolver plan, the others are extra plans of the
// unit, and every (archive, target) pair is fetched once per kernel key.

// machineLists adds to u a resolver plan per arch_list of the machines'
// plan (by machine.ArchList.Index), sharing the agents' plans and pairs.
func machineLists(c *run, u *unit, req resolver.Request, ids map[pair]int) {
	if c.Machines == nil {
		return
	}
	byList := map[string]int{}
	for ai, a := range c.Agents {
		byList[strings.Join(a.ArchList, "\x00")] = ai
	}
	for _, l := range c.Machines.Plan.ArchLists() {
		if ai, ok := byList[strings.Join(l.Targets, "\x00")]; ok {
			u.mplans = append(u.mplans, u.plans[ai])
			u.mcand = append(u.mcand, u.cand[ai])
			continue
		}
		req.ArchList = l.Targets
		plan, cand := newPlanPairs(c, u, req, ids)
		u.mplans = append(u.mplans, plan)
		u.mcand = append(u.mcand, cand)
	}
}

// newPlanPairs plans req and numbers its candidates' pairs in u.
func newPlanPairs(c *run, u *unit, req resolver.Request, ids map[pair]int) (*resolver.Plan, []int) {
	plan := resolver.NewPlan(c.Build, req)
	cand := make([]int, len(plan.Candidates))
	for i, pc := range plan.Candidates {
		p := pair{archive: pc.Archive, target: pc.Target}
		id, ok := ids[p]
		if !ok {
			id = len(u.pairs)
			ids[p] = id
			p.a = c.Build.ArchiveAt(pc.Archive)
			p.ai = u.archiveIndex(p.a)
			u.pairs = append(u.pairs, p)
		}
		cand[i] = id
	}
	return plan, cand
}

// judging is one worker's machine state: its Judge, the module being
// judged (the site, its unit and kernel key), the oracle that answers for
// it and the outcomes of the site.
type judging struct {
	judge *machine.Judge
	site  *Site
	u     *unit
	key   string
	kmod  machine.Module
	agg   machineAgg
}

// newJudging returns a worker's machine state, nil without machines.
func newJudging(sm *simulator) *judging {
	if sm.c.Machines == nil {
		return nil
	}
	j := &judging{judge: sm.c.Machines.Plan.NewJudge()}
	j.kmod = machine.Module{Kpack: func(l machine.ArchList) machine.Load { return sm.machineLoad(l) }}
	return j
}

// machineLoad answers the current module's kpack load for list l under
// its loader: the serving candidate's target, or the loader's error.
func (sm *simulator) machineLoad(l machine.ArchList) machine.Load {
	j := sm.judging
	if l.Index < 0 { // a list outside the plan (the fixes' probes ask those)
		return planLoad(sm.c.Build, sm.c.Deep, j.site.Request, j.key, l)
	}
	u, key := j.u, j.key
	plan, cand := u.mplans[l.Index], u.mcand[l.Index]
	legacy, fall := plan.Serves(func(i int) kpack.Code { return sm.code(u, cand[i], key) })
	loader, i := FindingLoader(l.Loader), fall
	if loader == finding.Legacy {
		i = legacy
	}
	if i >= 0 {
		pc := plan.Candidates[i]
		return machine.Load{Code: kpack.Success, Target: pc.Target, NotELF: notELF(sm.c.Deep, pc.Archive, key, pc.Target)}
	}
	r := sm.fail(plan, cand, key, u)
	if loader == finding.Legacy {
		return machine.Load{Code: r.legacy.Code}
	}
	return machine.Load{Code: r.fall.Code}
}

// probes answers the loads of arch_lists outside the machines' plan
// (the overrides machine.Plan.Fixes tries), planned once per request and
// list; the rules ask for fixes after judging, from several goroutines.
type probes struct {
	build *model.Build
	// deep is the run's --deep verification (nil without), known once
	// the fixes are asked for.
	deep   func() *verify.Result
	mu     sync.Mutex
	plans  map[probePlan]*resolver.Plan
	loads  map[probeLoad]machine.Load
	byList map[probeList]machine.Load
}

// probePlan names a probe's resolver plan: the site's request
// (requestKey) and the arch_list, its entries joined by NUL.
type probePlan struct{ request, list string }

// probeLoad names one load of a plan: the kernel key and the loader.
type probeLoad struct {
	plan   probePlan
	key    string
	loader hip.Loader
}

// probeList names a load by the machine plan list it is for
// (machine.ArchList.Origin and Slot), so a repeated question needs no
// joined list.
type probeList struct {
	request string
	origin  uint64
	slot    int
	key     string
}

// module is the kpack module of kernel key key of site s as the fixes
// probe it: every load planned from the site's request (probes.load).
func (p *probes) module(s *Site, key string) machine.Module {
	rk := requestKey(s.Request)
	return machine.Module{Kpack: func(l machine.ArchList) machine.Load { return p.load(s, rk, key, l) }}
}

// seed hands the probes the resolver plans the simulation made for the
// machines' lists (unit.mplans, by the sites' requests), so the fixes'
// loads of those lists (a device alone, another release's per-device
// lists) plan nothing again; at most maxProbeLoads of them.
func (p *probes) seed(c *run, units []*unit) {
	lists := c.Machines.Plan.ArchLists()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.plans == nil {
		p.plans = map[probePlan]*resolver.Plan{}
	}
	joined := make([]string, len(lists))
	for li, l := range lists {
		joined[li] = strings.Join(l.Targets, "\x00")
	}
	done := map[*unit]bool{}
	for i, u := range units {
		if u == nil || done[u] || len(u.mplans) != len(lists) {
			continue
		}
		done[u] = true
		rk := requestKey(c.Sites[i].Request)
		for li := range lists {
			if len(p.plans) >= maxProbeLoads {
				return
			}
			k := probePlan{rk, joined[li]}
			if _, ok := p.plans[k]; !ok {
				p.plans[k] = u.mplans[li]
			}
		}
	}
}

// maxProbeLoads bounds the loads probes keep: the fixes of the findings
// of many machines ask the same (folder, arch_list, kernel key, loader)
// again and again.
const maxProbeLoads = 1 << 16

// load answers the load of key from site s (its request key rk) with
// arch_list l.
func (p *probes) load(s *Site, rk, key string, l machine.ArchList) machine.Load {
	bl := probeList{rk, l.Origin, l.Slot, key}
	if l.Origin != 0 {
		p.mu.Lock()
		r, ok := p.byList[bl]
		p.mu.Unlock()
		if ok {
			return r
		}
	}
	r := p.loadList(s, rk, key, l)
	if l.Origin != 0 {
		p.mu.Lock()
		if p.byList == nil {
			p.byList = make(map[probeList]machine.Load, 1024)
		}
		if len(p.byList) < maxProbeLoads {
			p.byList[bl] = r
		}
		p.mu.Unlock()
	}
	return r
}

// loadList is load by the list's targets.
func (p *probes) loadList(s *Site, rk, key string, l machine.ArchList) machine.Load {
	pk := probePlan{rk, strings.Join(l.Targets, "\x00")}
	lk := probeLoad{plan: pk, key: key, loader: l.Loader}
	p.mu.Lock()
	if r, ok := p.loads[lk]; ok {
		p.mu.Unlock()
		return r
	}
	plan := p.plans[pk]
	if plan == nil {
		req := s.Request
		req.ArchList = l.Targets
		plan = resolver.NewPlan(p.build, req)
		if p.plans == nil {
			p.plans = map[probePlan]*resolver.Plan{}
		}
		p.plans[pk] = plan
	}
	p.mu.Unlock()
	r := plan.Load(p.build, key, FindingLoader(l.Loader))
	var deep *verify.Result
	if p.deep != nil {
		deep = p.deep()
	}
	out := servedLoad(deep, key, r)
	p.mu.Lock()
	if p.loads == nil {
		p.loads = make(map[probeLoad]machine.Load, 1024)
	}
	if len(p.loads) < maxProbeLoads {
		p.loads[lk] = out
	}
	p.mu.Unlock()
	return out
}

// planLoad answers the load of key with arch_list l from req's folder.
func planLoad(b *model.Build, deep *verify.Result, req resolver.Request, key string, l machine.ArchList) machine.Load {
	req.ArchList = l.Targets
	return servedLoad(deep, key, resolver.NewPlan(b, req).Load(b, key, FindingLoader(l.Loader)))
}

// servedLoad is the machine load of resolver result r for key.
func servedLoad(deep *verify.Result, key string, r resolver.Result) machine.Load {
	return machine.Load{Code: r.Code, Target: r.Target, NotELF: r.OK() && notELF(deep, r.Archive, key, r.Target)}
}

// notELF reports whether, with --deep, the code object stored in archive
// for key under TOC arch target is not an ELF file (verify.Object.NotELF),
// which HIP's AddDevProgram rejects.
func notELF(deep *verify.Result, archive, key, target string) bool {
	if deep == nil {
		return false
	}
	o, ok := deep.Object(verify.Key{Archive: archive, Kernel: key, Arch: target})
	return ok && o.Code == kpack.Success && o.NotELF
}

// judgeKey judges kernel key ki of site s (a host binary's HIPK wrapper)
// on every machine.
func (sm *simulator) judgeKey(s *Site, u *unit, ki int) {
	j := sm.judging
	j.site, j.u, j.key = s, u, s.Kernels[ki]
	vs := j.judge.Module(j.kmod, s.Request.Windows)
	for i := range vs {
		j.agg.add(j.judge, &vs[i], s.Binary, s, ki, nil)
	}
}

// siteOutcomes returns the outcomes of site s gathered by judgeKey, their
// kernel keys taken from s.Kernels (a sub-slice when they are one run;
// outcomes with the same runs share one list).
func (a *machineAgg) siteOutcomes(s *Site) []MachineOutcome {
	var lists map[string][]string
	var sig []byte
	for i := range a.out {
		rs := a.runs[i]
		if len(rs) == 1 {
			a.out[i].Kernels = s.Kernels[rs[0].lo:rs[0].hi:rs[0].hi]
			continue
		}
		sig = sig[:0]
		for _, r := range rs {
			sig = binary.AppendUvarint(binary.AppendUvarint(sig, uint64(r.lo)), uint64(r.hi))
		}
		ks, ok := lists[string(sig)]
		if !ok {
			for _, r := range rs {
				ks = append(ks, s.Kernels[r.lo:r.hi]...)
			}
			ks = slices.Clip(ks)
			if lists == nil {
				lists = map[string][]string{}
			}
			lists[string(sig)] = ks
		}
		a.out[i].Kernels = ks
	}
	return a.out
}

// machineAgg gathers the outcomes of one binary: per machine, device
// group and outcome, the modules (kernel keys or embedded wrapper names)
// it concerns, in the order first seen.
type machineAgg struct {
	out   []MachineOutcome
	index map[*MachineCause]int // this binary's entry of each cause
	// last is, per machine's first slot (base) + first device, the last
	// entry (valid when its gen is the binary's)
	last  []aggLast
	base  []int
	gen   int
	group []int
	// runs are, per entry of a kpack site, its kernel keys as runs of
	// indexes into the site's Kernels.
	runs [][]keyRun
	// causes keeps each outcome, shared by the binaries this worker
	// judges.
	causes map[aggKey]*MachineCause
	// joins are an embedded binary's lists of wrapper names: a list
	// with another module's names added, shared by the outcomes that
	// have both (every list is shared, never appended to in place).
	joins map[joinKey][]string
}

// joinKey is a list of names (its first element and length) with a
// module's names added.
type joinKey struct {
	list  *string
	n     int
	names *string
}

// keyRun is the kernel keys lo to hi-1 of a site.
type keyRun struct{ lo, hi int }

// joinWhere is where the rules join the outcomes of kpack'd binaries:
// the sites' unit (folder and search paths) and group.
type joinWhere struct {
	u     *unit
	group string
}

// joinIDs numbers the places outcomes are joined (MachineOutcome.Join).
func joinIDs(outs []MachineOutcome, where func(o *MachineOutcome) joinWhere) {
	ids := map[joinWhere]int{}
	for i := range outs {
		w := where(&outs[i])
		id, ok := ids[w]
		if !ok {
			id = len(ids)
			ids[w] = id
		}
		outs[i].Join = id
	}
}

// aggKey identifies one aggregated outcome: a machine, its devices (a bit
// set: at most machine.MaxDevices), the outcome of the first and whether
// the module failed everywhere.
type aggKey struct {
	machine int
	windows bool
	devices uint64
	outcome machine.Outcome
	failed  bool
}

type aggLast struct {
	key aggKey
	i   int
	gen int
}

// reset starts a binary.
func (a *machineAgg) reset() {
	a.out, a.runs = nil, a.runs[:0]
	clear(a.index)
	a.gen++
}

// add files verdict v of one module of binary bin (kernel key ki of site
// s, or the embedded wrappers names, the first wrapper ki): each group of
// devices with one outcome and ISA that did not load their own code. A
// new entry keeps ki, the module its fixes are asked of.
func (a *machineAgg) add(jd *machine.Judge, v *machine.Verdict, bin *model.Binary, s *Site, ki int, names []string) {
	if a.index == nil {
		a.index, a.causes = map[*MachineCause]int{}, map[aggKey]*MachineCause{}
		a.base = deviceSlots(jd.Plan())
		a.last, a.gen = make([]aggLast, a.base[len(a.base)-1]), 1
	}
	var done uint64
	for d, o := range v.Devices {
		if o.Kind == machine.Loaded || done&(1<<d) != 0 {
			continue
		}
		a.group = append(a.group[:0], d)
		mask := uint64(1) << d
		for e := d + 1; e < len(v.Devices); e++ {
			if v.Devices[e] == o && sameISA(jd, v, d, e) {
				a.group = append(a.group, e)
				mask |= 1 << e
			}
		}
		done |= mask
		k := aggKey{machine: v.Machine, windows: v.Windows, devices: mask, outcome: o, failed: v.Failed}
		slot := a.base[v.Machine] + d
		i := -1
		if l := &a.last[slot]; l.gen == a.gen && l.key == k {
			i = l.i
		} else {
			cause, ok := a.causes[k]
			if !ok {
				cause = &MachineCause{Machine: v.Machine, Windows: v.Windows, Devices: slices.Clone(a.group), Outcome: o, Failed: v.Failed}
				a.causes[k] = cause
			}
			if j, ok := a.index[cause]; ok {
				i = j
			} else {
				i = len(a.out)
				a.index[cause] = i
				if a.out == nil {
					a.out = make([]MachineOutcome, 0, 8)
				}
				a.out = append(a.out, MachineOutcome{MachineCause: cause, Binary: bin, Site: s, First: ki})
				a.runs = append(a.runs, nil)
			}
		}
		a.last[slot] = aggLast{k, i, a.gen}
		if names != nil {
			a.out[i].Kernels = a.addNames(a.out[i].Kernels, names)
		} else if rs := a.runs[i]; len(rs) > 0 && rs[len(rs)-1].hi == ki {
			rs[len(rs)-1].hi++
		} else {
			a.runs[i] = append(rs, keyRun{ki, ki + 1})
		}
	}
}

// addNames returns list with names added (a shared list each).
func (a *machineAgg) addNames(list, names []string) []string {
	if len(list) == 0 {
		return names[:len(names):len(names)]
	}
	if len(names) == 0 {
		return list
	}
	k := joinKey{&list[0], len(list), &names[0]}
	joined, ok := a.joins[k]
	if !ok {
		joined = slices.Concat(list, names)
		if a.joins == nil {
			a.joins = map[joinKey][]string{}
		}
		a.joins[k] = joined
	}
	return joined
}

// deviceSlots numbers the devices of every machine's processes: machine
// i's device d is slot out[i]+d; out[len(machines)] counts them.
func deviceSlots(p *machine.Plan) []int {
	ms := p.Machines()
	out := make([]int, len(ms)+1)
	for i, m := range ms {
		n := len(m.Devices)
		for _, w := range []bool{false, true} {
			n = max(n, len(p.View(i, w).Devices))
		}
		out[i+1] = out[i] + n
	}
	return out
}

// sameISA reports whether devices d and e of v's process report one ISA.
func sameISA(jd *machine.Judge, v *machine.Verdict, d, e int) bool {
	p := jd.Plan()
	return p.AgentOf(v.Machine, v.Windows, d) == p.AgentOf(v.Machine, v.Windows, e)
}

// JudgeEmbedded judges the embedded device code of every host binary keep
// selects (the shard's: HIPF wrappers' offload bundles,
// machine.BundlePick) on every machine, on workers goroutines, and counts
// the binaries the machines judged, and those of the build (all: every
// site, whatever the shard).
func JudgeEmbedded(b *model.Build, r *Result, workers int, keep func(*model.Binary) bool, all []*Site) {
	c := &run{Result: r, Build: b}
	ms := c.Machines
	var bins []*model.Binary
	for _, bin := range c.Build.Binaries {
		if keep(bin) {
			bins = append(bins, bin)
		}
	}
	per := make([][]MachineOutcome, len(bins))
	par.Each(len(bins), workers, 8, func() *embeddedJudging { return &embeddedJudging{jd: ms.Plan.NewJudge()} }, func(ej *embeddedJudging, i int) {
		if ms.Exceeded() {
			return
		}
		if outs := ej.judgeBinary(bins[i]); ms.Reserve(len(outs)) {
			per[i] = outs
		}
	})
	base, n := 0, 0
	for _, o := range ms.Outcomes {
		base = max(base, o.Join+1)
	}
	for i := range per {
		n += len(per[i])
	}
	ms.Outcomes = slices.Grow(ms.Outcomes, n)
	for i := range per {
		for j := range per[i] {
			per[i][j].Join = base + i // an embedded binary is joined with none
		}
		ms.Outcomes = append(ms.Outcomes, per[i]...)
	}
	judged := map[*model.Binary]bool{}
	for _, s := range c.Sites {
		if s.Binary != nil {
			judged[s.Binary] = true
		}
	}
	for _, bin := range bins {
		if bin.Info != nil && bin.Info.Embedded() {
			judged[bin] = true
		}
	}
	for bin := range judged {
		ms.Judged[b2i(bin.Info.Format == hostbin.FormatPE)]++
	}
	kinds := map[*model.Binary]bool{}
	for _, s := range all {
		if s.Binary != nil {
			kinds[s.Binary] = true
		}
	}
	for _, bin := range c.Build.Binaries {
		if bin.Info != nil && bin.Info.Embedded() {
			kinds[bin] = true
		}
	}
	for bin := range kinds {
		ms.Kinds[b2i(bin.Info.Format == hostbin.FormatPE)]++
	}
}

// embeddedJudging is one worker's state for embedded device code: its
// Judge and the aggregation, reused binary after binary.
type embeddedJudging struct {
	jd  *machine.Judge
	agg machineAgg
}

// judgeBinary judges one binary's embedded wrappers: one module per
// readable bundle (the wrappers sharing it) and one per unreadable
// bundle, which gives no device code.
func (ej *embeddedJudging) judgeBinary(bin *model.Binary) []MachineOutcome {
	if bin.Info == nil || !bin.Info.Embedded() {
		return nil
	}
	jd, agg := ej.jd, &ej.agg
	windows := bin.Info.Format == hostbin.FormatPE
	agg.reset()
	clear(agg.joins)
	shared, broken := bundleGroups(bin.Info.Bundles)
	judge := func(mod machine.Module, wrappers []int) {
		names := make([]string, len(wrappers))
		for i, w := range wrappers {
			names[i] = EmbeddedName(bin, bin.Info.Bundles[w])
		}
		finding.SortKernels(names)
		vs := jd.Module(mod, windows)
		for i := range vs {
			agg.add(jd, &vs[i], bin, nil, wrappers[0], names)
		}
	}
	for _, g := range shared {
		judge(machine.Module{Fat: machine.BundlePick(bin.Info.Bundles[g[0]].Entries)}, g)
	}
	for _, w := range broken {
		judge(machine.Module{Fat: NoCode}, []int{w})
	}
	for i := range agg.out {
		if ks := agg.out[i].Kernels; !slices.IsSortedFunc(ks, compareKernels) {
			finding.SortKernels(ks)
		}
	}
	return slices.Clip(agg.out)
}

// compareKernels orders kernel keys as finding.SortKernels.
func compareKernels(a, b string) int {
	switch {
	case finding.KernelLess(a, b):
		return -1
	case finding.KernelLess(b, a):
		return 1
	}
	return 0
}

// NewMachines returns the simulated machines of plan for build b, to be
// judged by Simulate and JudgeEmbedded; their fixes (Machines.Fixes)
// probe loads of b, verified by deep (--deep; nil without). fromMatrix
// is Machines.FromMatrix.
func NewMachines(b *model.Build, plan *machine.Plan, fromMatrix bool, deep *verify.Result) *Machines {
	pr := &probes{build: b, deep: func() *verify.Result { return deep }}
	return &Machines{Plan: plan, FromMatrix: fromMatrix, ModuleOf: moduleOf(pr), Oracle: pr}
}

// moduleOf returns the module an outcome was first seen on
// (Machines.ModuleOf): a kpack'd binary's kernel key as the fixes
// probe it, an embedded wrapper's bundle (none when it does not read).
func moduleOf(p *probes) func(o *MachineOutcome) machine.Module {
	return func(o *MachineOutcome) machine.Module {
		if o.Site != nil {
			return p.module(o.Site, o.Site.Kernels[o.First])
		}
		bd := o.Binary.Info.Bundles[o.First]
		if bd.Err != "" {
			return machine.Module{Fat: NoCode}
		}
		return machine.Module{Fat: machine.BundlePick(bd.Entries)}
	}
}

// NoCode is the pick of a bundle that does not read: no code object.
func NoCode(machine.Agent) (int, bool) { return -1, false }

// b2i is 1 for true.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
