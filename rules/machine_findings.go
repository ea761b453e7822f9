package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// The words of the simulated machines' findings (Context.Machines),
// shared by the rules' checks of them: a device's own lack of code is
// KPL001 (kpl001_machines.go; KPL006 when no archive opens for it,
// kpl006_machines.go), the process aborting and a HIP that cannot load
// kpack'd binaries too; a device that fails because of another device,
// or runs another device's code object, is KPL014 (kpl014_machines.go);
// a process that sees no device is KPL010 (kpl010_machines.go). Each
// names the machine, the devices (HIP index and ISA, real and reported),
// the release's symptom at registration and at launch, and the fixes
// users reported.

// machineFindings words the machine outcomes keep selects. Outcomes of
// one machine, device group and outcome whose binaries look for archives
// alike (MachineOutcome.Join: kpack'd binaries of one group and folder
// with the same search paths, as KPL006 joins them for the matrix) are
// one finding; embedded code is one finding per binary. Of a file with
// more than MaxFindingsPerFile+1 of them (machines x failing binaries)
// only those that can come first are worded (firstWorded); Run merges
// the rest, a tail, past the limit without their words.
func machineFindings(c *Context, keep func(*sim.MachineOutcome) bool) []finding.Finding {
	ms := c.Machines
	if ms == nil {
		return nil
	}
	groups := machineGroups(ms, keep)
	skip := make([]bool, len(groups))
	worded := len(groups)
	heads := map[int]*tail{} // the first worded group of a file with a tail
	isas := map[deviceKey]string{}
	if c.tails != nil {
		for _, idx := range groupsByFile(groups) {
			if len(idx) <= MaxFindingsPerFile+1 {
				continue
			}
			head, rest := firstWorded(ms, groups, idx)
			t := &tail{n: len(rest)}
			for _, u := range rest {
				for _, gi := range u {
					skip[gi] = true
					worded--
					g := groups[gi]
					t.kernels.add(groupKernels(g))
					t.agents = appendNew(t.agents, tailAgents(isas, ms, g[0]))
				}
			}
			heads[head] = t
		}
	}
	out := make([]finding.Finding, 0, worded)
	for gi, g := range groups {
		if skip[gi] {
			continue
		}
		f := machineFinding(c, joined(g))
		if t := heads[gi]; t != nil {
			c.tails.file(f, t)
		}
		out = append(out, f)
	}
	return out
}

// machineGroups gathers the outcomes keep selects into the findings'
// groups, in the order first seen. An embedded binary's outcomes are
// one per cause already (one Join each): a group each.
func machineGroups(ms *sim.Machines, keep func(*sim.MachineOutcome) bool) [][]*sim.MachineOutcome {
	type cause struct {
		machine int
		windows bool
		devices uint64
		outcome machine.Outcome
		failed  bool
		join    int
	}
	type shared struct {
		cause *sim.MachineCause // shared within a worker
		join  int
	}
	byCause := map[cause]int{}
	byPointer := map[shared]int{}
	n := 0
	for i := range ms.Outcomes {
		if keep(&ms.Outcomes[i]) {
			n++
		}
	}
	alone := make([]*sim.MachineOutcome, 0, n) // the backing of one-outcome groups
	groups := make([][]*sim.MachineOutcome, 0, n)
	for i := range ms.Outcomes {
		o := &ms.Outcomes[i]
		if !keep(o) {
			continue
		}
		if o.Site == nil {
			alone = append(alone, o)
			groups = append(groups, alone[len(alone)-1:len(alone):len(alone)])
			continue
		}
		sk := shared{o.MachineCause, o.Join}
		j, ok := byPointer[sk]
		if !ok {
			var mask uint64
			for _, d := range o.Devices {
				mask |= 1 << d
			}
			k := cause{o.Machine, o.Windows, mask, o.Outcome, o.Failed, o.Join}
			if j, ok = byCause[k]; !ok {
				j = len(groups)
				byCause[k] = j
				groups = append(groups, nil)
			}
			byPointer[sk] = j
		}
		groups[j] = append(groups[j], o)
	}
	return groups
}

// joined is the outcome a group's finding words: its first, with the
// kernel keys of all.
func joined(g []*sim.MachineOutcome) *sim.MachineOutcome {
	o := *g[0]
	o.Kernels = groupKernels(g)
	return &o
}

// groupKernels are the kernel keys of a group's outcomes.
func groupKernels(g []*sim.MachineOutcome) []string {
	if len(g) == 1 {
		return g[0].Kernels
	}
	return joinKernels(g)
}

// groupsByFile lists the groups per file their findings are about, files
// in the order first seen.
func groupsByFile(groups [][]*sim.MachineOutcome) [][]int {
	type file struct {
		input int
		path  string
	}
	index := map[file]int{}
	var out [][]int
	for gi, g := range groups {
		loc := machineLocation(g[0])
		k := file{loc.Input, loc.Path}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], gi)
	}
	return out
}

// firstWorded splits the groups idx of one file into the findings the
// report can show (finding.Sort order: the first MaxFindingsPerFile+1,
// which capPerFile keeps or merges the rest into) and the rest. Groups
// with one Subject are one finding (mergeCauses); findings of one file
// sort by message, which starts with the kernels and the machine's name
// (machineWhat, "on machine NAME ("), so every group whose start ties
// the last one kept is kept too. It returns the first group kept and
// the rest, by finding.
func firstWorded(ms *sim.Machines, groups [][]*sim.MachineOutcome, idx []int) (int, [][]int) {
	type unit struct {
		start [4]string // the message's start: what, " on machine ", name, " ("
		first int
		more  []int // other groups with the Subject
	}
	whats := map[whatKey]string{}
	bySubject := make(map[subjectKey]int, len(idx))
	units := make([]unit, 0, len(idx))
	machines := ms.Plan.Machines()
	for _, gi := range idx {
		g := groups[gi]
		o := g[0]
		start := [4]string{memoWhat(whats, o, groupKernels(g)), " on machine ", machines[o.Machine].Name, " ("}
		sk := subjectKeyOf(o)
		if ui, ok := bySubject[sk]; ok {
			u := &units[ui]
			u.more = append(u.more, gi)
			if compareJoined(start, u.start) < 0 {
				u.start = start
			}
			continue
		}
		bySubject[sk] = len(units)
		units = append(units, unit{start: start, first: gi})
	}
	slices.SortStableFunc(units, func(a, b unit) int { return compareJoined(a.start, b.start) })
	n := min(MaxFindingsPerFile+1, len(units))
	for n < len(units) && compareJoined(units[n].start, units[n-1].start) == 0 {
		n++
	}
	first := units[0].first
	for _, u := range units[:n] {
		first = min(first, u.first)
	}
	rest := make([][]int, 0, len(units)-n)
	for _, u := range units[n:] {
		rest = append(rest, append(u.more, u.first))
	}
	return first, rest
}

// whatKey identifies the kernel keys of an outcome (a slice shared by
// the outcomes of one module) and, for embedded code, its binary.
type whatKey struct {
	keys *string
	n    int
	bin  *model.Binary
}

// memoWhat is machineWhat of o with kernel keys keys, worded once per
// distinct slice.
func memoWhat(memo map[whatKey]string, o *sim.MachineOutcome, keys []string) string {
	k := whatKey{n: len(keys)}
	if len(keys) > 0 {
		k.keys = &keys[0]
	}
	if o.Site == nil {
		k.bin = o.Binary
	}
	w, ok := memo[k]
	if !ok {
		w = whatOf(o, keys)
		memo[k] = w
	}
	return w
}

// subjectKey holds what machineSubject joins into a string: equal keys,
// equal Subjects.
type subjectKey struct {
	machine    int
	where, dir string
	devices    uint64
	outcome    machine.Kind
	windows    bool
	embedded   bool
	code       kpack.Code
	other      int
	err        string
	rejected   bool
}

// subjectKeyOf is o's subjectKey.
func subjectKeyOf(o *sim.MachineOutcome) subjectKey {
	k := subjectKey{machine: o.Machine, where: o.Binary.Path, outcome: o.Outcome.Kind, windows: o.Windows, embedded: o.Site == nil,
		code: o.Outcome.Code, other: o.Outcome.Other, err: o.Outcome.Seen.Error(), rejected: o.Outcome.Rejected}
	if o.Site != nil && o.Site.Group != "" {
		k.where, k.dir = o.Site.Group, o.Site.Request.BinaryDir
	}
	for _, d := range o.Devices {
		k.devices |= 1 << d
	}
	return k
}

// compareJoined compares the concatenations of a's and b's strings.
func compareJoined(a, b [4]string) int {
	ai, aj, bi, bj := 0, 0, 0, 0
	for {
		for ai < len(a) && aj == len(a[ai]) {
			ai, aj = ai+1, 0
		}
		for bi < len(b) && bj == len(b[bi]) {
			bi, bj = bi+1, 0
		}
		switch {
		case ai == len(a) && bi == len(b):
			return 0
		case ai == len(a):
			return -1
		case bi == len(b):
			return 1
		}
		n := min(len(a[ai])-aj, len(b[bi])-bj)
		if c := strings.Compare(a[ai][aj:aj+n], b[bi][bj:bj+n]); c != 0 {
			return c
		}
		aj, bj = aj+n, bj+n
	}
}

// joinKernels concatenates the sorted kernel keys of outcomes of
// different binaries (distinct kernel names) in SortKernels order.
func joinKernels(g []*sim.MachineOutcome) []string {
	order := func(a, b *sim.MachineOutcome) int {
		switch {
		case len(a.Kernels) == 0 || len(b.Kernels) == 0:
			return len(a.Kernels) - len(b.Kernels)
		case finding.KernelLess(a.Kernels[0], b.Kernels[0]):
			return -1
		case finding.KernelLess(b.Kernels[0], a.Kernels[0]):
			return 1
		}
		return 0
	}
	if !slices.IsSortedFunc(g, order) { // binaries come in path order, names mostly too
		g = slices.Clone(g)
		slices.SortStableFunc(g, order)
	}
	n := 0
	for _, o := range g {
		n += len(o.Kernels)
	}
	out := make([]string, 0, n)
	for _, o := range g {
		out = append(out, o.Kernels...)
	}
	return out
}

// machineFinding words one machine outcome.
func machineFinding(c *Context, o *sim.MachineOutcome) finding.Finding {
	ms := c.Machines
	m := ms.Machine(o)
	view := ms.View(o)
	rel := m.Release()
	first := view.Devices[o.Devices[0]]
	fixes := fixTexts(ms.Fixes(o))
	msg := fmt.Sprintf("%s on machine %s: %s. %s.", machineWhat(o), machineWords(m, view), machineWhy(c, o, first), upperFirst(outcomeSeen(o)))
	if len(fixes) > 0 {
		msg += " Fix: " + strings.Join(fixes, "; ") + "."
	}
	om := &finding.OnMachine{Machine: m.Name, HIP: rel.Name, Windows: o.Windows, Devices: o.Devices, DeviceISA: first.ISA.String(),
		Outcome: o.Outcome.Kind.String(), Registration: o.Outcome.Seen.Registration, Launch: o.Outcome.Seen.Launch,
		Then: o.Outcome.Seen.Then, Fixes: fixes}
	if !first.Real.Equal(first.ISA) {
		om.RealISA = first.Real.String()
	}
	agents := machineAgents(view, o)
	if o.Outcome.Kind == machine.Unsupported { // every device alike, one finding
		om.Devices, om.DeviceISA = nil, ""
		for _, d := range view.Devices {
			om.Devices = append(om.Devices, d.Index)
		}
	}
	if o.Outcome.Other >= 0 {
		other := o.Outcome.Other
		om.OtherDevice = &other
	}
	f := finding.Finding{
		Message:   msg,
		Location:  machineLocation(o),
		Kernels:   o.Kernels,
		Agents:    agents,
		HIPError:  o.Outcome.Seen.Error(),
		HIPEffect: o.Outcome.Seen.Text(),
		Machine:   om,
		Subject:   machineSubject(m, o),
	}
	if o.Site != nil {
		f.Group = o.Site.Group
		f.Loader = string(sim.FindingLoader(m.KpackLoader()))
		if o.Outcome.Code != kpack.Success {
			f.KpackError = o.Outcome.Code.String()
		}
	}
	return f
}

// machineWhat names a machine finding's modules: its kernel keys, or an
// embedded binary's wrappers.
func machineWhat(o *sim.MachineOutcome) string { return whatOf(o, o.Kernels) }

// whatOf is machineWhat of o with kernel keys keys.
func whatOf(o *sim.MachineOutcome, keys []string) string {
	what := finding.ShortKernels(keys)
	if o.Site == nil {
		what += " (embedded device code of " + o.Binary.Path + ", not kpack)"
	}
	return what
}

// machineLocation is where a machine finding is: the kpack site, an
// embedded binary's wrappers.
func machineLocation(o *sim.MachineOutcome) finding.Location {
	if o.Site != nil {
		return o.Site.Location
	}
	return WrapperLocation(o.Binary)
}

// machineAgents are the ISAs a machine finding names: the devices', and
// for a HIP without kpack every device's, sorted.
func machineAgents(view *machine.View, o *sim.MachineOutcome) []string {
	if o.Outcome.Kind != machine.Unsupported {
		return []string{view.Devices[o.Devices[0]].ISA.String()}
	}
	var agents []string
	for _, d := range view.Devices {
		if !slices.Contains(agents, d.ISA.String()) {
			agents = append(agents, d.ISA.String())
		}
	}
	slices.Sort(agents)
	return agents
}

// deviceKey is a device of a machine's process.
type deviceKey struct {
	machine int
	windows bool
	device  int
}

// tailAgents is machineAgents of an outcome not worded, the ISA of a
// device named once per device.
func tailAgents(isas map[deviceKey]string, ms *sim.Machines, o *sim.MachineOutcome) []string {
	if o.Outcome.Kind == machine.Unsupported {
		return machineAgents(ms.View(o), o)
	}
	k := deviceKey{o.Machine, o.Windows, o.Devices[0]}
	isa, ok := isas[k]
	if !ok {
		isa = ms.View(o).Devices[o.Devices[0]].ISA.String()
		isas[k] = isa
	}
	return []string{isa}
}

// machineSubject is a machine finding's Subject: the machine, what it is
// about (subjectWhere), the devices and the outcome.
func machineSubject(m machine.Machine, o *sim.MachineOutcome) string {
	s := subject("machine", m.Name, subjectWhere(o), deviceList(o.Devices), o.Outcome.Kind.String(), strconv.FormatBool(o.Windows),
		strconv.FormatBool(o.Site == nil), o.Outcome.Code.String(), strconv.Itoa(o.Outcome.Other), o.Outcome.Seen.Error())
	if o.Outcome.Rejected {
		s = subject(s, "not-elf")
	}
	return s
}

// subjectWhere is what a machine finding is about: the group and folder
// of kpack'd binaries (their path without a group), an embedded one's
// path.
func subjectWhere(o *sim.MachineOutcome) string {
	if o.Site == nil || o.Site.Group == "" {
		return o.Binary.Path
	}
	return o.Site.Group + "|" + o.Site.Request.BinaryDir
}

// machineWords names a machine for messages: "apu (HIP 10.0; device 0
// gfx1036, device 1 gfx1100; HIP_VISIBLE_DEVICES=1)", the devices as the
// process sees them, a Windows process said so.
func machineWords(m machine.Machine, v *machine.View) string {
	parts := []string{"HIP " + m.Release().Name}
	if v.Windows {
		parts = append(parts, "a Windows process")
	}
	var devs []string
	for _, d := range v.Devices {
		devs = append(devs, fmt.Sprintf("device %d %s", d.Index, visibleISA(d)))
	}
	if len(devs) > 0 {
		parts = append(parts, finding.CapList(devs, finding.MaxListed, ", "))
	}
	if env := envWords(m.Env); env != "" {
		parts = append(parts, env)
	}
	for _, n := range v.Notes {
		if strings.HasPrefix(n.Text, "not read") {
			parts = append(parts, n.Var+" "+n.Text)
		}
	}
	return m.Name + " (" + strings.Join(parts, "; ") + ")"
}

// visibleISA is a visible device's ISA: "gfx1100", or "gfx1151 reporting
// gfx1100" under an override.
func visibleISA(d machine.Visible) string {
	if d.Real.Equal(d.ISA) {
		return d.ISA.String()
	}
	return d.Real.String() + " reporting " + d.ISA.String()
}

// envWords is a machine's environment, KEY=VALUE sorted by key.
func envWords(env map[string]string) string {
	var out []string
	for _, k := range sortedKeys(env) {
		out = append(out, k+"="+env[k])
	}
	return strings.Join(out, " ")
}

// devicesWords names devices of a view: "device 1 (gfx1100)", "devices 0,
// 1 (gfx942:sramecc+:xnack-)", "device 0 (gfx1151, reporting gfx1100
// through HSA_OVERRIDE_GFX_VERSION=11.0.0)".
func devicesWords(v *machine.View, devs []int) string {
	d := v.Devices[devs[0]]
	isa := d.ISA.String()
	if d.Override != "" {
		isa = fmt.Sprintf("%s, reporting %s through %s", d.Real, d.ISA, d.Override)
	}
	if len(devs) == 1 {
		return fmt.Sprintf("device %d (%s)", devs[0], isa)
	}
	return fmt.Sprintf("devices %s (%s)", deviceList(devs), isa)
}

// deviceList is "0, 1, 2".
func deviceList(devs []int) string {
	parts := make([]string, len(devs))
	for i, d := range devs {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, ", ")
}

// machineWhy says why the devices get what they get, citing the
// release's rule.
func machineWhy(c *Context, o *sim.MachineOutcome, first machine.Visible) string {
	devs := devicesWords(c.Machines.View(o), o.Devices)
	switch o.Outcome.Kind {
	case machine.Unsupported, machine.Aborted, machine.NoCode:
		return lackWhy(c, o, devs) // KPL001, KPL006: kpl001_machines.go
	case machine.ForeignCode, machine.FailedByOther:
		return crossDeviceWhy(c, o, devs, first) // KPL014: kpl014_machines.go
	}
	return devs + " does not load its code"
}

// outcomeSeen says what the user sees on the devices.
func outcomeSeen(o *sim.MachineOutcome) string {
	if o.Outcome.Kind == machine.ForeignCode {
		return "registration succeeds, but " + launchOnly(o.Outcome.Seen)
	}
	return o.Outcome.Seen.Text()
}

// launchOnly words a symptom's launch alone.
func launchOnly(s hip.Symptom) string {
	return strings.TrimPrefix(hip.Symptom{Launch: s.Launch, Then: s.Then, Lookup: s.Lookup}.Text(), "the module loads, but ")
}

// ownList is the arch_list the first device of o passes on its own.
func ownList(ms *sim.Machines, o *sim.MachineOutcome) []string {
	own, _, _ := ms.Plan.Lists(o.Machine, o.Windows)
	if d := o.Devices[0]; d < len(own) {
		return own[d].Targets
	}
	return nil
}

// combinedList is PR 2622's arch_list of o's process.
func combinedList(ms *sim.Machines, o *sim.MachineOutcome) []string {
	_, combined, _ := ms.Plan.Lists(o.Machine, o.Windows)
	return combined.Targets
}

// fixTexts are the fixes' words.
func fixTexts(fs []machine.Fix) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Text)
	}
	return out
}
