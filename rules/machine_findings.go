package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// The findings of the simulated machines (Context.Machines): a device's
// own lack of code is KPL001 (KPL006 when no archive opens for it), the
// process aborting and a HIP that cannot load kpack'd binaries too; a
// device that fails because of another device, or runs another device's
// code object, is KPL014; a process that sees no device is KPL010. Each
// names the machine, the devices (HIP index and ISA, real and reported),
// the release's symptom at registration and at launch, and the fixes
// users reported.

// checkMachineLack is KPL001 for the machines: devices without code of
// their own (not ARCHIVE_NOT_FOUND: KPL006), the process aborting, a HIP
// that cannot load the binary's kpack wrappers.
func checkMachineLack(c *Context) []finding.Finding {
	return machineFindings(c, func(o *sim.MachineOutcome) bool {
		switch o.Outcome.Kind {
		case machine.NoCode:
			return o.Site == nil || o.Outcome.Code != kpack.ArchiveNotFound
		case machine.Aborted:
			return o.Outcome.Other < 0
		case machine.Unsupported:
			return o.Devices[0] == 0
		}
		return false
	})
}

// checkMachineMissing is KPL006 for the machines: devices for which no
// kpack archive opens (ARCHIVE_NOT_FOUND, error 13).
func checkMachineMissing(c *Context) []finding.Finding {
	return machineFindings(c, func(o *sim.MachineOutcome) bool {
		return o.Outcome.Kind == machine.NoCode && o.Site != nil && o.Outcome.Code == kpack.ArchiveNotFound
	})
}

// checkCrossDevice is KPL014: devices that have code of their own in a
// module and get none because of another device, or run another
// device's code object.
func checkCrossDevice(c *Context) []finding.Finding {
	return machineFindings(c, func(o *sim.MachineOutcome) bool {
		return o.Outcome.Kind == machine.FailedByOther || o.Outcome.Kind == machine.ForeignCode
	})
}

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
		f.Loader = string(findingLoader(m.KpackLoader()))
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
	ms := c.Machines
	m := ms.Machine(o)
	v := ms.View(o)
	rel := m.Release()
	devs := devicesWords(v, o.Devices)
	other := func() string {
		if o.Outcome.Other < 0 || o.Outcome.Other >= len(v.Devices) {
			return "another device"
		}
		return devicesWords(v, []int{o.Outcome.Other})
	}
	kpackPath := o.Site != nil
	switch o.Outcome.Kind {
	case machine.Unsupported:
		if m.KpackOff || (rel.Kpack.Value != hip.KpackUnknown && !rel.KpackBuiltIn.Value) {
			return fmt.Sprintf("every device gets no code: this HIP %s was built without ROCM_KPACK_ENABLED and rejects the binary's kpack (HIPK) wrappers", rel.Name)
		}
		return fmt.Sprintf("every device gets no code: HIP %s predates kpack (rocm-systems PR 2622) and does not know the HIPK wrapper magic", rel.Name)
	case machine.Aborted:
		if kpackPath {
			return fmt.Sprintf("the %s loader aborts the process loading them for %s (see KPL001 of the target matrix or kpack-lint explain)", findingLoader(m.KpackLoader()), devs)
		}
		return fmt.Sprintf("%s has no code object in the offload bundles (%s), and HIP %s aborts the process at HIP init when any device lacks one "+
			"(hipamd hip_code_object.cpp:489@rocm-5.2.3, guarantee(false, \"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\")), so every device fails",
			devs, bundleTargets(c, o), rel.Name)
	case machine.NoCode:
		if kpackPath && o.Outcome.Rejected {
			return rejectedWhy(ms, o, devs)
		}
		if kpackPath {
			return fmt.Sprintf("%s gets no code object: the %s loader returns %s for its arch_list [%s]%s", devs, findingLoader(m.KpackLoader()),
				o.Outcome.Code.Short(), strings.Join(ownList(ms, o), ", "), kpackRule(rel, o))
		}
		return fmt.Sprintf("%s has no code object in the offload bundles (%s)%s", devs, bundleTargets(c, o), fatRule(rel, o, len(v.Devices)))
	case machine.ForeignCode:
		return fmt.Sprintf("%s is given the code object built for %s (%s's): HIP %s loads one code object for every device of the process "+
			"(rocm-systems PR 2622, \"Add code object to all devices\") and registers it on each, and %s cannot run it", devs, o.Outcome.Target, other(), rel.Name, first.ISA)
	case machine.FailedByOther:
		if kpackPath {
			if rel.Kpack.Value == hip.KpackPerProcess {
				combined := combinedList(ms, o)
				return fmt.Sprintf("%s has code objects for its ISA but gets none: HIP %s loads one code object for every device with the arch_list [%s] "+
					"(rocm-systems PR 2622), and that load returns %s because %s has none, so the module fails on every device",
					devs, rel.Name, strings.Join(combined, ", "), o.Outcome.Code.Short(), other())
			}
			if o.Outcome.Rejected {
				return fmt.Sprintf("%s has code objects for its ISA but gets none: the load for %s returns %s with a buffer that is not an ELF file, "+
					"which HIP's AddDevProgram rejects with hipErrorInvalidKernelFile (rocclr Program::addDeviceProgram: amd::Elf::isElfMagic fails, CL_INVALID_BINARY), "+
					"and HIP %s then rolls the module back on every device (rocm-systems PR 9167, rollback_kpack_state)",
					devs, other(), o.Outcome.Code.Short(), rel.Name)
			}
			return fmt.Sprintf("%s has code objects for its ISA but gets none: the load for %s returns %s, which HIP %s treats as fatal "+
				"(rocm-systems PR 9167: any error but ARCHIVE_NOT_FOUND and ARCH_NOT_FOUND rolls the module back on every device)",
				devs, other(), o.Outcome.Code.Short(), rel.Name)
		}
		switch rel.Fat.Value {
		case hip.FatAllOrNothing:
			return fmt.Sprintf("%s has a code object in the offload bundle but gets none: %s has none, and HIP %s loads a fat binary only when every device has one "+
				"(hipamd hip_code_object.cpp:485-486@rocm-5.4.0), so no device gets code", devs, other(), rel.Name)
		}
		if o.Failed {
			return fmt.Sprintf("%s has a code object in the offload bundle but gets none: %s has none, and HIP %s stops loading the fat binary at the first device "+
				"without one (before rocm-systems PR 9498: break, not continue), so the module fails on every device", devs, other(), rel.Name)
		}
		return fmt.Sprintf("%s has a code object in the offload bundle but gets none: HIP %s stops loading the fat binary at %s, the first device without one "+
			"(before rocm-systems PR 9498), and leaves it and every later device without code", devs, rel.Name, other())
	}
	return devs + " does not load its code"
}

// rejectedWhy says why a device whose load returned a buffer that is not
// an ELF file gets no code: HIP's AddDevProgram rejects it, and the module
// fails on every device (PR 9167's rollback; PR 2622's one code object).
func rejectedWhy(ms *sim.Machines, o *sim.MachineOutcome, devs string) string {
	m := ms.Machine(o)
	rel := m.Release()
	list := ownList(ms, o)
	how := fmt.Sprintf("HIP %s then rolls the module back on every device (rocm-systems PR 9167, rollback_kpack_state)", rel.Name)
	if rel.Kpack.Value == hip.KpackPerProcess {
		list = combinedList(ms, o)
		how = fmt.Sprintf("HIP %s's one load for every device (rocm-systems PR 2622) returns that error, so no device gets code", rel.Name)
	}
	return fmt.Sprintf("%s gets no code object: the %s loader returns %s for the arch_list [%s], but the buffer it serves is not an ELF file: "+
		"HIP's AddDevProgram rejects it with hipErrorInvalidKernelFile (rocclr Program::addDeviceProgram: amd::Elf::isElfMagic fails, CL_INVALID_BINARY), and %s",
		devs, findingLoader(m.KpackLoader()), o.Outcome.Code.Short(), strings.Join(list, ", "), how)
}

// kpackRule says how the release treats a device's failed kpack load.
func kpackRule(rel hip.Release, o *sim.MachineOutcome) string {
	switch {
	case rel.Kpack.Value == hip.KpackPerProcess:
		return fmt.Sprintf(", and HIP %s's one load for every device (rocm-systems PR 2622) fails with it", rel.Name)
	case o.Failed && (o.Outcome.Code == kpack.ArchiveNotFound || o.Outcome.Code == kpack.ArchNotFound):
		return fmt.Sprintf("; HIP %s loads per device ISA (rocm-systems PR 9167) and no ISA of the process loads, so the module fails", rel.Name)
	case o.Failed:
		return fmt.Sprintf(", which HIP %s treats as fatal for the module (rocm-systems PR 9167)", rel.Name)
	case o.Outcome.Code == kpack.ArchiveNotFound || o.Outcome.Code == kpack.ArchNotFound:
		return fmt.Sprintf("; HIP %s loads per device ISA (rocm-systems PR 9167) and leaves this device without code while the others load", rel.Name)
	}
	return ""
}

// fatRule says how the release treats a device without a code object in
// a fat binary.
func fatRule(rel hip.Release, o *sim.MachineOutcome, devices int) string {
	switch {
	case o.Failed && devices == 1:
		return fmt.Sprintf(", the only device of the process, so HIP %s fails the module", rel.Name)
	case o.Failed && rel.Fat.Value == hip.FatPerDevice:
		return fmt.Sprintf("; no device of the process has one, so HIP %s fails the module", rel.Name)
	case o.Failed:
		return fmt.Sprintf(", and HIP %s fails the module on every device (%s)", rel.Name, rel.Fat.Value)
	case rel.Fat.Value == hip.FatPerDevice:
		return fmt.Sprintf("; HIP %s loads the devices that have one (rocm-systems PR 9498)", rel.Name)
	}
	return ""
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

// bundleTargets says what the offload bundles of o's wrappers hold: "they
// hold code objects for gfx1100, gfx1101 only".
func bundleTargets(c *Context, o *sim.MachineOutcome) string {
	info := o.Binary.Info
	if info.BundleSection == nil {
		return fmt.Sprintf("the binary has no %s section", info.Format.BundleSection())
	}
	var targets []string
	for _, bd := range info.Bundles {
		if !slices.Contains(o.Kernels, sim.EmbeddedName(o.Binary, bd)) {
			continue
		}
		if bd.Err != "" {
			return "they do not read: " + bd.Err
		}
		for _, e := range bd.Entries {
			if id, ok := hip.EntryTarget(e); ok && !slices.Contains(targets, id.String()) {
				targets = append(targets, id.String())
			}
		}
	}
	if len(targets) == 0 {
		return "they hold no HIP code object"
	}
	slices.Sort(targets)
	return "they hold code objects for " + finding.CapList(targets, finding.MaxListed, ", ") + " only"
}

// fixTexts are the fixes' words.
func fixTexts(fs []machine.Fix) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Text)
	}
	return out
}

// findingLoader names a release table loader.
func findingLoader(l hip.Loader) finding.Loader {
	if l == hip.LegacyLoader {
		return finding.Legacy
	}
	return finding.Fallthrough
}

// checkMachineNoDevice is KPL010 for the machines: a process that sees no
// device (ROCr does not initialise, or the visible-device variables hide
// every GPU), one error per machine and process kind the build has
// binaries of: nothing of the build is checked there, and the program
// has no GPU (hipGetDeviceCount returns hipErrorNoDevice: clr
// hipamd/src/hip_device.cpp ihipDeviceGetCount@rocm-6.2.0; a failed
// hsa_init with no GPU counts as a runtime without devices,
// rocclr/device/rocm/rocdevice.cpp:476-483).
func checkMachineNoDevice(c *Context) []finding.Finding {
	ms := c.Machines
	if ms == nil {
		return nil
	}
	var out []noDevicePart
	for mi, m := range ms.Plan.Machines() {
		for w, kind := range [2]string{"Linux", "Windows"} {
			v := ms.Plan.View(mi, w == 1)
			if ms.Kinds[w] == 0 || len(v.Devices) > 0 {
				continue
			}
			loc := firstBinary(c, w == 1)
			if c.Policy != nil && c.Policy.Path != "" && c.Policy.Machines[m.Name] != nil {
				loc = finding.Location{Input: finding.PolicyInput, Path: c.Policy.Path}
			}
			out = append(out, noDevicePart{m: m, v: v, kind: kind, binaries: ms.Kinds[w], f: finding.Finding{
				Level:    finding.LevelError,
				Message:  noDeviceMessage(m, v, kind, ms.Kinds[w]),
				Location: loc,
				Machine:  &finding.OnMachine{Machine: m.Name, HIP: m.Release().Name, Windows: w == 1, Outcome: "no-device"},
				Subject:  subject("machine", m.Name, "no-device", kind),
			}})
		}
	}
	return joinNoDevice(out)
}

// noDeviceMessage words a process of m that sees no device: the variable
// and value that hid the devices, what the runtime does with it, what the
// program sees, and the fix.
func noDeviceMessage(m machine.Machine, v *machine.View, kind string, binaries int) string {
	why, fix := "the environment hides every GPU", "correct the machine's environment"
	if h := v.Hidden; h != nil {
		why, fix = h.Why, h.Fix
	}
	runtime := "HIP starts without a GPU"
	if v.NoRuntime {
		runtime = "hsa_init fails and HIP starts without a GPU"
	}
	loaded := fmt.Sprintf("none of the build's %d %s host binaries is loaded there", binaries, kind)
	if binaries == 1 {
		loaded = fmt.Sprintf("the build's %s host binary is not loaded there", kind)
	}
	return fmt.Sprintf("On machine %s a %s process has no GPU: %s. So %s: hipGetDeviceCount returns hipErrorNoDevice, "+
		"%s and nothing of the build is checked on this machine. Fix: %s.",
		machineWords(m, v), kind, why, runtime, loaded, fix)
}

// firstBinary locates a finding about a machine's processes of one kind:
// the first host binary of that kind by path (every shard alike).
func firstBinary(c *Context, windows bool) finding.Location {
	for _, b := range c.Build.Binaries {
		if b.Info != nil && (b.Info.Format == hostbin.FormatPE) == windows {
			return sim.BinaryLocation(b)
		}
	}
	return firstLoadSite(c)
}
