package machine

import (
	"strings"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// Kind is what one device gets from one module.
type Kind uint8

// The outcome kinds.
const (
	// Loaded: the device has a code object built for it.
	Loaded Kind = iota
	// NoCode: the device has no code because the module has none for it
	// (kpack 13/14 or another loader error on its own arch_list, no
	// bundle entry for its ISA).
	NoCode
	// FailedByOther: the module has code for the device, but HIP gives it
	// none because another device (Outcome.Other) lacks code or made the
	// module fail: the fat-binary loop before PR 9498, PR 2622's one
	// load, PR 9167's rollback.
	FailedByOther
	// ForeignCode: the device was given a code object built for another
	// device's ISA (PR 2622 registers the one code object on every
	// device); a launch crashes.
	ForeignCode
	// Aborted: the process aborts (HIP 5.x when a device has no code
	// object; the loader aborting, kpack.Abort).
	Aborted
	// Unsupported: this HIP cannot load an HIPK wrapper at all (no kpack
	// support, or built without ROCM_KPACK_ENABLED).
	Unsupported
)

// String names the kind for reports: "loaded", "no-code",
// "failed-by-other", "foreign-code", "aborted", "unsupported".
func (k Kind) String() string {
	switch k {
	case Loaded:
		return "loaded"
	case NoCode:
		return "no-code"
	case FailedByOther:
		return "failed-by-other"
	case ForeignCode:
		return "foreign-code"
	case Aborted:
		return "aborted"
	}
	return "unsupported"
}

// Outcome is what one visible device gets from one module.
type Outcome struct {
	Kind Kind
	// Other is the HIP index of the device responsible for a
	// FailedByOther, ForeignCode (the device whose ISA the code object
	// was built for) or Aborted (the device without code) outcome of
	// another device; -1 when there is none or it is this device.
	Other int
	// Code is the loader's result that decided a kpack outcome: the
	// device's own load (PR 9167; PR 2622 when the combined load
	// failed), or the combined load (PR 2622). Success otherwise.
	Code kpack.Code
	// Target is the target of the code object a kpack load registered on
	// the device ("gfx1100", "gfx11-generic"), "" for none.
	Target string
	// Entry is the bundle entry HIP picked for the device (fat-binary
	// path), -1 for none or the kpack path.
	Entry int
	// Seen is what the user sees on the device: the module load's error
	// and the launch's; zero when the device loaded its code.
	Seen hip.Symptom
}

// Verdict is one module's outcome on one machine.
type Verdict struct {
	// Machine indexes the Plan's machines.
	Machine int
	// Windows is the process kind (the binary's format).
	Windows bool
	// Failed is set when the module load fails for every device (the
	// digest's error; a process abort included).
	Failed bool
	// Devices holds one outcome per visible device, in HIP order.
	Devices []Outcome
}

// Clean reports whether every visible device loaded its own code.
func (v *Verdict) Clean() bool {
	for _, o := range v.Devices {
		if o.Kind != Loaded {
			return false
		}
	}
	return true
}

// Clone returns a copy of v whose Devices do not share the Judge's
// memory.
func (v *Verdict) Clone() Verdict {
	c := *v
	c.Devices = append([]Outcome(nil), v.Devices...)
	return c
}

// ArchList is one distinct arch_list a Plan's machines pass to the kpack
// loader, with the loader their release ships.
type ArchList struct {
	// Index is its place in Plan.ArchLists, for callers that keep results
	// in a slice; -1 for a list outside the plan (Fixes asks about
	// override candidates).
	Index   int
	Loader  hip.Loader
	Targets []string
}

// Load is the loader's answer for one arch_list: kpack_load_code_object's
// result and the target of the archive entry it returned ("" unless
// Code is Success).
type Load struct {
	Code   kpack.Code
	Target string
}

// Agent is one distinct ISA a Plan's machines look up in an offload
// bundle, with what their release accepts besides native entries.
type Agent struct {
	// Index is its place in Plan.Agents; -1 outside the plan (Fixes).
	Index int
	ISA   targetid.ID
	// Release is one release with these lookup rules; pass it to
	// hip.Release.SelectEntry.
	Release hip.Release
}

// LoadFunc answers a module's kpack load for one arch_list (one kernel
// key: kernel_name#co_index). Judge calls it at most once per ArchList per
// module. A Target that does not parse as a target ID counts as fitting
// every device (no foreign-code outcome).
type LoadFunc func(ArchList) Load

// PickFunc answers a module's bundle lookup for one agent: the index of
// the entry HIP loads and whether there is one (hip.Release.SelectEntry).
// Judge calls it at most once per Agent per module.
type PickFunc func(Agent) (entry int, ok bool)

// Module is one module (one wrapper) of a binary: exactly one of Kpack
// (an HIPK wrapper) and Fat (an HIPF wrapper with an offload bundle) is
// set.
type Module struct {
	Kpack LoadFunc
	Fat   PickFunc
}

// BundlePick returns the PickFunc of a bundle with these entry IDs, as
// each agent's release selects (hip.Release.SelectEntry).
func BundlePick(entryIDs []string) PickFunc {
	return func(a Agent) (int, bool) { return a.Release.SelectEntry(entryIDs, a.ISA) }
}

// Plan is a set of machines prepared for judging modules: each machine's
// views (Linux and Windows processes), and the distinct arch_lists and
// agents their loads use, so a module's oracle is asked once per distinct
// question whatever the number of machines.
type Plan struct {
	machines []Machine
	views    [2][]View
	prep     [2][]prepared
	lists    []ArchList
	agents   []Agent
}

// prepared is what judging needs of one machine's view.
type prepared struct {
	rel      hip.Release
	kpackOff bool
	// kpack: per visible device its own list; per unique ISA (first
	// device order) its list and devices; the PR 2622 combined list.
	own      []int
	slotOf   []int
	slots    []int
	combined int
	// fat: per visible device its agent
	agent []int
}

// NewPlan validates the machines and prepares them. The error names the
// first invalid machine.
func NewPlan(ms []Machine) (*Plan, error) {
	p := &Plan{machines: append([]Machine(nil), ms...)}
	listIDs := map[string]int{}
	agentIDs := map[string]int{}
	for i := range p.machines {
		m := &p.machines[i]
		if err := m.Validate(); err != nil {
			return nil, err
		}
		for w := 0; w < 2; w++ {
			v := m.View(w == 1)
			p.views[w] = append(p.views[w], v)
			p.prep[w] = append(p.prep[w], p.prepare(m, v, listIDs, agentIDs))
		}
	}
	return p, nil
}

// prepare interns the lists and agents of one view.
func (p *Plan) prepare(m *Machine, v View, listIDs, agentIDs map[string]int) prepared {
	rel := m.release()
	pr := prepared{rel: rel, kpackOff: m.KpackOff, combined: -1}
	n := len(v.Devices)
	pr.own, pr.slotOf, pr.agent = make([]int, n), make([]int, n), make([]int, n)
	var combined []string
	slotISA := map[string]int{}
	for i, d := range v.Devices {
		al := rel.ArchList(d.ISA)
		pr.own[i] = p.internList(rel.Loader.Value, al, listIDs)
		combined = append(combined, al...)
		key := d.ISA.String()
		s, ok := slotISA[key]
		if !ok {
			s = len(pr.slots)
			slotISA[key] = s
			pr.slots = append(pr.slots, pr.own[i])
		}
		pr.slotOf[i] = s
		pr.agent[i] = p.internAgent(d.ISA, rel, agentIDs)
	}
	if rel.Kpack.Value == hip.KpackPerProcess && n > 0 {
		pr.combined = p.internList(rel.Loader.Value, combined, listIDs)
	}
	return pr
}

// internList returns the index of (loader, targets), adding it if new.
func (p *Plan) internList(l hip.Loader, targets []string, ids map[string]int) int {
	key := l.String() + "\x00" + strings.Join(targets, "\x00")
	if i, ok := ids[key]; ok {
		return i
	}
	i := len(p.lists)
	ids[key] = i
	p.lists = append(p.lists, ArchList{Index: i, Loader: l, Targets: targets})
	return i
}

// internAgent returns the index of (isa, the release's lookup rules).
func (p *Plan) internAgent(isa targetid.ID, rel hip.Release, ids map[string]int) int {
	key := isa.String()
	if len(rel.Generic.Value) > 0 {
		key += "\x00generic"
	}
	if rel.SPIRV.Value {
		key += "\x00spirv"
	}
	if i, ok := ids[key]; ok {
		return i
	}
	i := len(p.agents)
	ids[key] = i
	p.agents = append(p.agents, Agent{Index: i, ISA: isa, Release: rel})
	return i
}

// Machines returns the plan's machines, in the order given.
func (p *Plan) Machines() []Machine { return p.machines }

// View returns what a process on machine i sees.
func (p *Plan) View(i int, windows bool) *View { return &p.views[b2i(windows)][i] }

// ArchLists returns every distinct arch_list the machines' kpack loads
// use (both process kinds), for callers that compute them in advance.
func (p *Plan) ArchLists() []ArchList { return p.lists }

// Agents returns every distinct agent the machines' bundle lookups use.
func (p *Plan) Agents() []Agent { return p.agents }

// b2i is 1 for true.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Judge judges modules against a plan's machines, caching the oracle's
// answers per module. A Judge is one goroutine's: make one per worker.
type Judge struct {
	p        *Plan
	gen      uint32
	loads    []Load
	loadGen  []uint32
	parsed   []targetid.ID
	parsedOK []bool
	picks    []int
	pickOK   []bool
	pickGen  []uint32
	arena    []Outcome
	verdicts []Verdict
}

// NewJudge returns a Judge for p.
func (p *Plan) NewJudge() *Judge {
	return &Judge{p: p,
		loads: make([]Load, len(p.lists)), loadGen: make([]uint32, len(p.lists)),
		parsed: make([]targetid.ID, len(p.lists)), parsedOK: make([]bool, len(p.lists)),
		picks: make([]int, len(p.agents)), pickOK: make([]bool, len(p.agents)), pickGen: make([]uint32, len(p.agents)),
	}
}

// Module judges mod on every machine of the plan as a process of the
// binary's kind (windows for a PE binary) and returns one Verdict per
// machine, in plan order. The verdicts and their Devices are the Judge's
// memory, valid until its next Module call (Verdict.Clone keeps one).
func (j *Judge) Module(mod Module, windows bool) []Verdict {
	j.gen++
	if j.gen == 0 {
		clear(j.loadGen)
		clear(j.pickGen)
		j.gen = 1
	}
	w := b2i(windows)
	n := 0
	for _, v := range j.p.views[w] {
		n += len(v.Devices)
	}
	if cap(j.arena) < n {
		j.arena = make([]Outcome, n)
	}
	arena := j.arena[:n]
	j.verdicts = j.verdicts[:0]
	for mi := range j.p.machines {
		pr := &j.p.prep[w][mi]
		v := &j.p.views[w][mi]
		k := len(v.Devices)
		out := Verdict{Machine: mi, Windows: windows, Devices: arena[:k:k]}
		arena = arena[k:]
		switch {
		case k == 0:
		case mod.Kpack != nil:
			j.kpack(mod.Kpack, pr, v, &out)
		case mod.Fat != nil:
			j.fat(mod.Fat, pr, &out)
		}
		j.verdicts = append(j.verdicts, out)
	}
	return j.verdicts
}

// load answers list i for this module.
func (j *Judge) load(f LoadFunc, i int) Load {
	if j.loadGen[i] != j.gen {
		j.loads[i] = f(j.p.lists[i])
		j.loadGen[i] = j.gen
		j.parsedOK[i] = false
		if j.loads[i].Code == kpack.Success {
			if id, err := targetid.Parse(j.loads[i].Target); err == nil {
				j.parsed[i], j.parsedOK[i] = id, true
			}
		}
	}
	return j.loads[i]
}

// pick answers agent i for this module.
func (j *Judge) pick(f PickFunc, i int) (int, bool) {
	if j.pickGen[i] != j.gen {
		j.picks[i], j.pickOK[i] = f(j.p.agents[i])
		j.pickGen[i] = j.gen
	}
	return j.picks[i], j.pickOK[i]
}

// all sets every device's outcome to o.
func all(out *Verdict, o Outcome) {
	for i := range out.Devices {
		out.Devices[i] = o
	}
}

// kpack judges an HIPK module.
func (j *Judge) kpack(f LoadFunc, pr *prepared, v *View, out *Verdict) {
	rel := pr.rel
	if rel.Kpack.Value == hip.KpackUnknown || pr.kpackOff || !rel.KpackBuiltIn.Value {
		out.Failed = true
		all(out, Outcome{Kind: Unsupported, Other: -1, Entry: -1, Seen: rel.KpackUnsupported.Value})
		return
	}
	if rel.Kpack.Value == hip.KpackPerProcess {
		j.perProcess(f, pr, v, out)
		return
	}
	j.perDevice(f, pr, out)
}

// perProcess is PR 2622: one load of the combined arch_list, its code
// object on every device.
func (j *Judge) perProcess(f LoadFunc, pr *prepared, v *View, out *Verdict) {
	rel := pr.rel
	r := j.load(f, pr.combined)
	switch r.Code {
	case kpack.Abort:
		out.Failed = true
		all(out, Outcome{Kind: Aborted, Other: -1, Code: r.Code, Entry: -1, Seen: hip.Symptom{Registration: hip.Aborted, Launch: hip.Aborted}})
		return
	case kpack.Success:
	default:
		out.Failed = true
		culprit := -1
		for d := range out.Devices {
			if own := j.load(f, pr.own[d]); own.Code != kpack.Success {
				culprit = d
				break
			}
		}
		for d := range out.Devices {
			own := j.load(f, pr.own[d])
			o := Outcome{Kind: NoCode, Other: -1, Code: own.Code, Entry: -1, Seen: rel.KpackFailed.Value}
			if own.Code == kpack.Success {
				o.Kind, o.Other, o.Code = FailedByOther, culprit, r.Code
			}
			out.Devices[d] = o
		}
		return
	}
	target, ok := j.parsed[pr.combined], j.parsedOK[pr.combined]
	for d, dev := range v.Devices {
		o := Outcome{Kind: Loaded, Other: -1, Target: r.Target, Entry: -1}
		if ok && !targetid.CompatibleOrGeneric(target, dev.ISA) {
			o.Kind, o.Seen = ForeignCode, rel.KpackForeign.Value
			for e, other := range v.Devices {
				if targetid.CompatibleOrGeneric(target, other.ISA) {
					o.Other = e
					break
				}
			}
		}
		out.Devices[d] = o
	}
}

// perDevice is PR 9167: one load per unique ISA; 13/14 leave its devices
// without code, another error rolls the module back everywhere.
func (j *Judge) perDevice(f LoadFunc, pr *prepared, out *Verdict) {
	rel := pr.rel
	fatal, aborted, loaded := -1, -1, false
	for d := range out.Devices {
		r := j.load(f, pr.slots[pr.slotOf[d]])
		switch r.Code {
		case kpack.Success:
			loaded = true
		case kpack.ArchiveNotFound, kpack.ArchNotFound:
		case kpack.Abort:
			if aborted < 0 {
				aborted = d
			}
		default:
			if fatal < 0 {
				fatal = d
			}
		}
	}
	if aborted >= 0 {
		out.Failed = true
		for d := range out.Devices {
			o := Outcome{Kind: Aborted, Other: aborted, Code: kpack.Abort, Entry: -1, Seen: hip.Symptom{Registration: hip.Aborted, Launch: hip.Aborted}}
			if d == aborted {
				o.Other = -1
			}
			out.Devices[d] = o
		}
		return
	}
	seen := rel.KpackNoCode.Value
	switch {
	case fatal >= 0:
		out.Failed, seen = true, rel.KpackFailed.Value
	case !loaded:
		out.Failed, seen = true, rel.KpackNoneLoaded.Value
	}
	for d := range out.Devices {
		r := j.load(f, pr.slots[pr.slotOf[d]])
		o := Outcome{Kind: NoCode, Other: -1, Code: r.Code, Entry: -1, Seen: seen}
		if r.Code == kpack.Success {
			o = Outcome{Kind: Loaded, Other: -1, Target: r.Target, Entry: -1}
			if fatal >= 0 {
				o.Kind, o.Other, o.Target, o.Seen = FailedByOther, fatal, "", seen
			}
		}
		out.Devices[d] = o
	}
}

// fat judges an HIPF module: each device's bundle entry, then the
// release's loop.
func (j *Judge) fat(f PickFunc, pr *prepared, out *Verdict) {
	rel := pr.rel
	first := -1
	for d := range out.Devices {
		e, ok := j.pick(f, pr.agent[d])
		out.Devices[d] = Outcome{Kind: Loaded, Other: -1, Entry: e}
		if !ok {
			out.Devices[d] = Outcome{Kind: NoCode, Other: -1, Entry: -1}
			if first < 0 {
				first = d
			}
		}
	}
	if first < 0 {
		return
	}
	// from is the first device the loop leaves without code; failed says
	// whether the module fails for every device.
	from, failed, kind := first, true, FailedByOther
	seen := rel.FatFailed.Value
	switch rel.Fat.Value {
	case hip.FatAbort:
		from, kind = 0, Aborted
	case hip.FatAllOrNothing:
		from = 0
	case hip.FatStopAtFirst:
		if first > 0 {
			failed, seen = false, rel.FatNoCode.Value
		}
	case hip.FatPerDevice:
		from, kind = len(out.Devices), Loaded
		for _, o := range out.Devices {
			if o.Kind == Loaded {
				failed, seen = false, rel.FatNoCode.Value
				break
			}
		}
	}
	out.Failed = failed
	for d := range out.Devices {
		o := &out.Devices[d]
		switch {
		case o.Kind == NoCode:
			o.Seen = seen
			if kind == Aborted {
				o.Kind = Aborted
			}
		case d >= from:
			o.Kind, o.Other, o.Entry, o.Seen = kind, first, -1, seen
		}
	}
}
