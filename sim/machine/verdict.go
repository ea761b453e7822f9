package machine

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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
	// device's own load (PR 9167 NoCode; PR 2622 when the combined load
	// failed), the load of the device that failed the module (PR 9167
	// FailedByOther: Other's), or the combined load (PR 2622). Success
	// otherwise.
	Code kpack.Code
	// Rejected is set when the load that decided the outcome (Code
	// Success) returned a buffer that is not an ELF file, which HIP's
	// AddDevProgram rejects (rocclr Program::addDeviceProgram:
	// amd::Elf::isElfMagic fails, CL_INVALID_BINARY; clr
	// rocclr/platform/program.cpp:115-117@rocm-6.2.0), failing the module
	// with hipErrorInvalidKernelFile.
	Rejected bool
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
func (v Verdict) Clean() bool {
	for _, o := range v.Devices {
		if o.Kind != Loaded {
			return false
		}
	}
	return true
}

// Clone returns a copy of v whose Devices do not share the Judge's
// memory.
func (v Verdict) Clone() Verdict {
	v.Devices = append([]Outcome(nil), v.Devices...)
	return v
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
	// Origin and Slot name the list for an oracle that keeps answers
	// across plans: the serial number of the plan that made it (never
	// reused in a process) and its index there; Origin is 0 for a list
	// made outside any plan.
	Origin uint64
	Slot   int
}

// planSerial numbers plans (ArchList.Origin).
var planSerial atomic.Uint64

// Load is the loader's answer for one arch_list: kpack_load_code_object's
// result and the target of the archive entry it returned ("" unless
// Code is Success). NotELF marks a Success whose buffer does not start
// with the ELF magic (known with --deep only): HIP's AddDevProgram
// rejects it.
type Load struct {
	Code   kpack.Code
	Target string
	NotELF bool
}

// usable reports whether HIP registers the code object of l: a Success
// whose buffer is an ELF file.
func (l Load) usable() bool { return l.Code == kpack.Success && !l.NotELF }

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
	// classes group the machines whose processes judge alike (one
	// release, kpack build, visible ISAs in HIP order), per process kind.
	classes [2][]class
	classOf [2][]int
	lists   []ArchList
	agents  []Agent
	serial  uint64
	// fixPlans are the one-machine plans fixes are checked on (fixPlan),
	// judges the Judges a one-machine plan lends (Plan.judge).
	fixMu    sync.Mutex
	fixPlans map[string]*Plan
	judges   sync.Pool
}

// class is what the machines sharing one prepared view judge by.
type class struct {
	prepared
}

// prepared is what judging needs of one machine's view.
type prepared struct {
	devices  int
	rel      hip.Release
	kpackOff bool
	// kpack: per visible device its own list and its slot, per unique
	// ISA (in order of its first device) the list (PR 9167 loads each
	// once), the PR 2622 combined list (-1 for other releases).
	own      []int
	slotOf   []int
	slots    []int
	combined int
	// fat: per visible device its agent
	agent []int
}

// MaxMachines bounds the machines of one plan.
const MaxMachines = 4096

// NewPlan validates the machines (at most MaxMachines) and prepares them.
// The error names the first invalid machine.
func NewPlan(ms []Machine) (*Plan, error) {
	if len(ms) > MaxMachines {
		return nil, fmt.Errorf("%d machines: at most %d", len(ms), MaxMachines)
	}
	p := &Plan{machines: append([]Machine(nil), ms...), serial: planSerial.Add(1)}
	listIDs := map[string]int{}
	agentIDs := map[string]int{}
	var classIDs [2]map[string]int
	for i := range p.machines {
		m := &p.machines[i]
		if err := m.Validate(); err != nil {
			return nil, err
		}
		for w := 0; w < 2; w++ {
			v := m.View(w == 1)
			p.views[w] = append(p.views[w], v)
			key := classKey(m, v)
			if classIDs[w] == nil {
				classIDs[w] = map[string]int{}
			}
			c, ok := classIDs[w][key]
			if !ok {
				c = len(p.classes[w])
				classIDs[w][key] = c
				p.classes[w] = append(p.classes[w], class{prepared: p.prepare(m, v, listIDs, agentIDs)})
			}
			p.classOf[w] = append(p.classOf[w], c)
		}
	}
	return p, nil
}

// classKey identifies the views that judge alike.
func classKey(m *Machine, v View) string {
	var b strings.Builder
	b.WriteString(m.release().Name)
	b.WriteString("\x00" + m.KpackLoader().String())
	if m.KpackOff {
		b.WriteString("\x00off")
	}
	for _, d := range v.Devices {
		b.WriteByte(0)
		b.WriteString(d.ISA.String())
	}
	return b.String()
}

// prepare interns the lists and agents of one view.
func (p *Plan) prepare(m *Machine, v View, listIDs, agentIDs map[string]int) prepared {
	rel := m.release()
	n := len(v.Devices)
	pr := prepared{devices: n, rel: rel, kpackOff: m.KpackOff, combined: -1}
	pr.own, pr.slotOf, pr.agent = make([]int, n), make([]int, n), make([]int, n)
	var combined []string
	slotISA := map[string]int{}
	for i, d := range v.Devices {
		al := rel.ArchList(d.ISA)
		pr.own[i] = p.internList(m.KpackLoader(), al, listIDs)
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
		pr.combined = p.internList(m.KpackLoader(), combined, listIDs)
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
	p.lists = append(p.lists, ArchList{Index: i, Loader: l, Targets: targets, Origin: p.serial, Slot: i})
	return i
}

// internAgent returns the index of (isa, the release's lookup rules for
// it): what Release.SelectEntry reads, the generic target the release
// maps isa to (releases' maps differ: gfx1250 is only in the newest) and
// whether it compiles SPIR-V.
func (p *Plan) internAgent(isa targetid.ID, rel hip.Release, ids map[string]int) int {
	key := isa.String()
	if g, ok := rel.GenericTarget(isa); ok {
		key += "\x00" + g.String()
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
	p       *Plan
	gen     uint32
	loads   []Load
	loadGen []uint32
	// loadTarget is the interned Target of each list's load, -1 when the
	// load failed; targets intern the strings across modules, and
	// fitsAgent caches, per target and plan agent, whether the target's
	// code object runs on the agent (0 unknown, 1 yes, 2 no).
	loadTarget []int
	targets    map[string]int
	targetIDs  []targetid.ID
	fitsAgent  [][]uint8
	picks      []int
	pickOK     []bool
	pickGen    []uint32
	arena      []Outcome
	verdicts   []Verdict
	// per class (the Linux classes, then the Windows ones): judged in
	// this module (gen), clean, the verdict and the answers it came from
	classGen   []uint32
	classClean []bool
	classOut   []Verdict
	classSig   [][]int32
	sig        []int32
	// per list, the last Target string and its interned index
	lastTarget    []string
	lastTargetIdx []int
}

// NewJudge returns a Judge for p.
func (p *Plan) NewJudge() *Judge {
	return &Judge{p: p,
		loads: make([]Load, len(p.lists)), loadGen: make([]uint32, len(p.lists)),
		loadTarget: make([]int, len(p.lists)), targets: map[string]int{},
		lastTarget: make([]string, len(p.lists)), lastTargetIdx: make([]int, len(p.lists)),
		picks: make([]int, len(p.agents)), pickOK: make([]bool, len(p.agents)), pickGen: make([]uint32, len(p.agents)),
	}
}

// AgentOf returns the plan agent (Plan.Agents) of device d of machine mi's
// process: devices with one agent report one ISA.
func (p *Plan) AgentOf(mi int, windows bool, d int) int {
	w := b2i(windows)
	return p.classes[w][p.classOf[w][mi]].agent[d]
}

// Plan returns the plan j judges against.
func (j *Judge) Plan() *Plan { return j.p }

// Module judges mod on every machine of the plan as a process of the
// binary's kind (windows for a PE binary) and returns the verdicts of the
// machines where some device did not load its own code, in plan order; a
// machine not returned is clean, and one whose process sees no device
// (View.NoRuntime, an empty filter) has no verdict. The verdicts and
// their Devices are the Judge's memory, valid until its next Module call
// (Verdict.Clone keeps one); machines that judge alike share Devices.
func (j *Judge) Module(mod Module, windows bool) []Verdict {
	j.next()
	w := b2i(windows)
	j.verdicts = j.verdicts[:0]
	classes := j.p.classes[w]
	if j.classGen == nil {
		n := len(j.p.classes[0]) + len(j.p.classes[1])
		j.classGen, j.classClean = make([]uint32, n), make([]bool, n)
		j.classOut, j.classSig = make([]Verdict, n), make([][]int32, n)
	}
	base := w * len(j.p.classes[0])
	for mi, c0 := range j.p.classOf[w] {
		c, ci := &classes[c0], base+c0
		if j.classGen[ci] != j.gen {
			j.classGen[ci] = j.gen
			j.classClean[ci] = c.devices == 0 || j.clean(mod, &c.prepared)
			if !j.classClean[ci] {
				j.judgeMemo(mod, windows, ci, c)
			}
		}
		if !j.classClean[ci] {
			out := j.classOut[ci]
			out.Machine = mi
			j.verdicts = append(j.verdicts, out)
		}
	}
	return j.verdicts
}

// judgeMemo judges mod on class c (memo slot ci) unless the oracle's answers for it are
// those of the last module that judged it (the usual case: a binary's
// modules mostly load alike), whose verdict it keeps.
func (j *Judge) judgeMemo(mod Module, windows bool, ci int, c *class) {
	j.sig = j.signature(mod, &c.prepared, j.sig[:0])
	old := j.classSig[ci]
	if old != nil && slices.Equal(old, j.sig) {
		return
	}
	j.classSig[ci] = append(old[:0], j.sig...)
	out := Verdict{Windows: windows, Devices: j.classOut[ci].Devices[:0]}
	for range c.devices {
		out.Devices = append(out.Devices, Outcome{})
	}
	switch {
	case mod.Kpack != nil:
		j.kpack(mod.Kpack, &c.prepared, &out)
	case mod.Fat != nil:
		j.fat(mod.Fat, &c.prepared, &out)
	}
	j.classOut[ci] = out
}

// signature appends to dst every answer a class's verdict depends on: a
// mark of the path, then the code and interned target of each kpack load
// (PR 2622: the combined one, and each device's own when it failed), or
// each device's bundle entry (-1 for none).
func (j *Judge) signature(mod Module, pr *prepared, dst []int32) []int32 {
	if mod.Kpack == nil {
		dst = append(dst, -2)
		for _, a := range pr.agent {
			e, ok := j.pick(mod.Fat, a)
			if !ok {
				e = -1
			}
			dst = append(dst, int32(e))
		}
		return dst
	}
	rel := &pr.rel
	dst = append(dst, -1)
	switch {
	case rel.Kpack.Value == hip.KpackUnknown || pr.kpackOff || !rel.KpackBuiltIn.Value:
	case rel.Kpack.Value == hip.KpackPerProcess:
		r := j.load(mod.Kpack, pr.combined)
		dst = append(dst, int32(r.Code), int32(j.loadTarget[pr.combined]), int32(b2i(r.NotELF)))
		if r.Code != kpack.Success && r.Code != kpack.Abort {
			for _, l := range pr.own {
				dst = append(dst, int32(j.load(mod.Kpack, l).Code))
			}
		}
	default:
		for _, l := range pr.slots {
			r := j.load(mod.Kpack, l)
			dst = append(dst, int32(r.Code), int32(j.loadTarget[l]), int32(b2i(r.NotELF)))
		}
	}
	return dst
}

// judgeClass judges mod on one class, its outcomes in the arena.
func (j *Judge) judgeClass(mod Module, windows bool, c *class) Verdict {
	start := len(j.arena)
	for range c.devices {
		j.arena = append(j.arena, Outcome{})
	}
	out := Verdict{Windows: windows, Devices: j.arena[start:len(j.arena):len(j.arena)]}
	switch {
	case c.devices == 0:
	case mod.Kpack != nil:
		j.kpack(mod.Kpack, &c.prepared, &out)
	case mod.Fat != nil:
		j.fat(mod.Fat, &c.prepared, &out)
	}
	return out
}

// Verdict judges mod on machine mi alone and returns its verdict, clean
// or not, with every device's outcome (the entry or target of a loaded
// device too): the per-device trace of explain. Its Devices are the
// Judge's memory, as Module's.
func (j *Judge) Verdict(mod Module, windows bool, mi int) Verdict {
	j.next()
	j.arena = j.arena[:0]
	w := b2i(windows)
	out := j.judgeClass(mod, windows, &j.p.classes[w][j.p.classOf[w][mi]])
	out.Machine = mi
	return out
}

// clean reports, from the oracle's answers alone, whether every device of
// a class loads its own code from mod.
func (j *Judge) clean(mod Module, pr *prepared) bool {
	if mod.Kpack != nil {
		rel := &pr.rel
		switch {
		case rel.Kpack.Value == hip.KpackUnknown || pr.kpackOff || !rel.KpackBuiltIn.Value:
			return false
		case rel.Kpack.Value == hip.KpackPerProcess:
			if !j.load(mod.Kpack, pr.combined).usable() {
				return false
			}
			t := j.loadTarget[pr.combined]
			for _, a := range pr.agent {
				if !j.fits(t, a) {
					return false
				}
			}
			return true
		}
		for _, l := range pr.slots {
			if !j.load(mod.Kpack, l).usable() {
				return false
			}
		}
		return true
	}
	if mod.Fat == nil {
		return true
	}
	for _, a := range pr.agent {
		if _, ok := j.pick(mod.Fat, a); !ok {
			return false
		}
	}
	return true
}

// next starts a module: the cached answers are the previous module's.
func (j *Judge) next() {
	j.gen++
	if j.gen == 0 {
		clear(j.loadGen)
		clear(j.pickGen)
		j.gen = 1
	}
}

// load answers list i for this module.
func (j *Judge) load(f LoadFunc, i int) Load {
	if j.loadGen[i] != j.gen {
		j.loads[i] = f(j.p.lists[i])
		j.loadGen[i] = j.gen
		j.loadTarget[i] = -1
		if t := j.loads[i].Target; j.loads[i].Code == kpack.Success {
			if t != j.lastTarget[i] || j.lastTarget[i] == "" {
				j.lastTarget[i], j.lastTargetIdx[i] = t, j.target(t)
			}
			j.loadTarget[i] = j.lastTargetIdx[i]
		}
	}
	return j.loads[i]
}

// target interns a code object's target, -1 when it does not parse.
func (j *Judge) target(s string) int {
	if t, ok := j.targets[s]; ok {
		return t
	}
	t := len(j.targetIDs)
	id, err := targetid.Parse(s)
	j.targetIDs = append(j.targetIDs, id)
	row := make([]uint8, len(j.p.agents))
	if err != nil {
		for a := range row {
			row[a] = 1 // a target that does not parse fits every device
		}
	}
	j.fitsAgent = append(j.fitsAgent, row)
	j.targets[s] = t
	return t
}

// fits reports whether a code object for target t runs on plan agent a
// (targetid.CompatibleOrGeneric); -1 (no code object) fits all.
func (j *Judge) fits(t, a int) bool {
	if t < 0 {
		return true
	}
	c := j.fitsAgent[t][a]
	if c == 0 {
		c = 2
		if targetid.CompatibleOrGeneric(j.targetIDs[t], j.p.agents[a].ISA) {
			c = 1
		}
		j.fitsAgent[t][a] = c
	}
	return c == 1
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
func (j *Judge) kpack(f LoadFunc, pr *prepared, out *Verdict) {
	rel := &pr.rel
	if rel.Kpack.Value == hip.KpackUnknown || pr.kpackOff || !rel.KpackBuiltIn.Value {
		out.Failed = true
		all(out, Outcome{Kind: Unsupported, Other: -1, Entry: -1, Seen: rel.KpackUnsupported.Value})
		return
	}
	if rel.Kpack.Value == hip.KpackPerProcess {
		j.perProcess(f, pr, out)
		return
	}
	j.perDevice(f, pr, out)
}

// perProcess is PR 2622: one load of the combined arch_list, its code
// object on every device.
func (j *Judge) perProcess(f LoadFunc, pr *prepared, out *Verdict) {
	rel := &pr.rel
	r := j.load(f, pr.combined)
	switch r.Code {
	case kpack.Abort:
		out.Failed = true
		all(out, Outcome{Kind: Aborted, Other: -1, Code: r.Code, Entry: -1, Seen: hip.Symptom{Registration: hip.Aborted, Launch: hip.Aborted}})
		return
	case kpack.Success:
		if r.NotELF {
			// AddDevProgram rejects the buffer on the first device and
			// the load returns its hipErrorInvalidKernelFile: no device
			// gets code (6b0e43f3 ExtractKpackBinary, "Add code object to
			// all devices").
			out.Failed = true
			all(out, Outcome{Kind: NoCode, Other: -1, Code: r.Code, Rejected: true, Entry: -1, Seen: rel.KpackRejected.Value})
			return
		}
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
	t := j.loadTarget[pr.combined]
	for d := range out.Devices {
		o := Outcome{Kind: Loaded, Other: -1, Target: r.Target, Entry: -1}
		if !j.fits(t, pr.agent[d]) {
			o.Kind, o.Seen = ForeignCode, rel.KpackForeign.Value
			for e := range out.Devices {
				if j.fits(t, pr.agent[e]) {
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
	rel := &pr.rel
	fatal, aborted, loaded := -1, -1, false
	for d := range out.Devices {
		r := j.load(f, pr.slots[pr.slotOf[d]])
		switch r.Code {
		case kpack.Success:
			loaded = true
			if r.NotELF && fatal < 0 {
				// AddDevProgram's hipErrorInvalidKernelFile rolls every
				// device back (rollback_kpack_state). HIP walks the ISAs
				// in std::unordered_map order; the first failing device
				// in HIP order stands for it.
				fatal = d
			}
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
	var culprit Load
	switch {
	case fatal >= 0:
		culprit = j.load(f, pr.slots[pr.slotOf[fatal]])
		out.Failed, seen = true, rel.KpackFailed.Value
		if culprit.NotELF {
			seen = rel.KpackRejected.Value
		}
	case !loaded:
		out.Failed, seen = true, rel.KpackNoneLoaded.Value
	}
	for d := range out.Devices {
		r := j.load(f, pr.slots[pr.slotOf[d]])
		o := Outcome{Kind: NoCode, Other: -1, Code: r.Code, Rejected: r.NotELF, Entry: -1, Seen: seen}
		if r.usable() {
			o = Outcome{Kind: Loaded, Other: -1, Target: r.Target, Entry: -1}
			if fatal >= 0 {
				o = Outcome{Kind: FailedByOther, Other: fatal, Code: culprit.Code, Rejected: culprit.NotELF, Entry: -1, Seen: seen}
			}
		}
		out.Devices[d] = o
	}
}

// fat judges an HIPF module: each device's bundle entry, then the
// release's loop.
func (j *Judge) fat(f PickFunc, pr *prepared, out *Verdict) {
	rel := &pr.rel
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

// Alone returns what the only device of a process gets from a module as
// rel's HIP does (kpackOff: a HIP built without ROCM_KPACK_ENABLED): the
// one-device machine of a target matrix, whose loads were simulated per
// agent. A kpack module (fat false) loads with code, the loader's result
// for the device's arch_list; a fat-binary module (fat true) has no code
// object for the device. The outcome is the Judge's for a one-device
// machine (Unsupported for a kpack module on a release without kpack,
// whatever code says).
func Alone(rel hip.Release, kpackOff, fat bool, code kpack.Code) Outcome {
	m := Machine{Name: "alone", Devices: []Device{{ISA: targetid.MustParse("gfx1100")}}, HIP: rel, KpackOff: kpackOff}
	p, err := NewPlan([]Machine{m})
	if err != nil {
		return Outcome{Kind: NoCode, Other: -1, Entry: -1}
	}
	mod := Module{Kpack: func(ArchList) Load { return Load{Code: code} }}
	if fat {
		mod = Module{Fat: func(Agent) (int, bool) { return -1, false }}
	}
	return p.NewJudge().Verdict(mod, false, 0).Devices[0]
}

// Lists returns the arch_lists machine mi's process (windows for a PE
// binary) passes to the kpack loader: each visible device's own, in HIP
// order, and PR 2622's combined list (ok false for other releases).
func (p *Plan) Lists(mi int, windows bool) (own []ArchList, combined ArchList, ok bool) {
	w := b2i(windows)
	pr := &p.classes[w][p.classOf[w][mi]].prepared
	for _, l := range pr.own {
		own = append(own, p.lists[l])
	}
	if pr.combined >= 0 {
		return own, p.lists[pr.combined], true
	}
	return own, ArchList{}, false
}
