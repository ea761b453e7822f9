package sim

import (
	"maps"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// MachineInfos states the simulated machines for a report: devices,
// release, loader, environment and what each process kind sees.
func MachineInfos(ms *Machines) []finding.MachineInfo {
	if ms == nil {
		return nil
	}
	var out []finding.MachineInfo
	for i, m := range ms.Plan.Machines() {
		info := finding.MachineInfo{Name: m.Name, HIP: m.Release().Name, CPUNodes: m.CPUNodes, KpackOff: m.KpackOff,
			Loader: string(FindingLoader(m.KpackLoader()))}
		for _, d := range m.Devices {
			info.Devices = append(info.Devices, finding.MachineDevice{ISA: d.ISA.String(), UUID: d.UUID})
		}
		for _, k := range slices.Sorted(maps.Keys(m.Env)) {
			info.Env = append(info.Env, k+"="+m.Env[k])
		}
		if ms.Kinds[0] > 0 {
			info.Linux = viewInfo(ms.Plan.View(i, false))
		}
		if ms.Kinds[1] > 0 {
			info.Windows = viewInfo(ms.Plan.View(i, true))
		}
		out = append(out, info)
	}
	return out
}

// viewInfo states one process kind's view of a machine.
func viewInfo(v *machine.View) *finding.MachineView {
	out := &finding.MachineView{Devices: []finding.ViewDevice{}, NoRuntime: v.NoRuntime}
	for _, d := range v.Devices {
		vd := finding.ViewDevice{Index: d.Index, Device: d.Device, ISA: d.ISA.String(), Override: d.Override}
		if !d.Real.Equal(d.ISA) {
			vd.Real = d.Real.String()
		}
		out.Devices = append(out.Devices, vd)
	}
	for _, n := range v.Notes {
		out.Notes = append(out.Notes, finding.MachineNote{Var: n.Var, Text: n.Text})
	}
	return out
}

// MachineVerdicts is each machine's verdict on the binaries it judged:
// those of the process kinds that see a device; the failing ones counted
// per outcome, and the first finding.MaxFailingListed of them by input
// and path with the outcome of every device that did not load its own
// code.
func MachineVerdicts(ms *Machines, b *model.Build) []finding.MachineVerdict {
	if ms == nil {
		return nil
	}
	rank := binaryRanks(b)
	machines := ms.Plan.Machines()
	out := make([]finding.MachineVerdict, len(machines))
	isas := map[[3]int]string{} // machine, windows, device -> ISA
	for i, m := range machines {
		out[i].Machine = m.Name
		for w := range 2 {
			v := ms.Plan.View(i, w == 1)
			if len(v.Devices) > 0 {
				out[i].Binaries += ms.Judged[w]
			}
			for _, d := range v.Devices {
				isas[[3]int{i, w, d.Index}] = d.ISA.String()
			}
		}
	}
	// pairs are the failing (machine, binary) pairs: their outcome kinds
	// and their outcomes, linked through next.
	type machineBinary struct {
		machine int
		bin     *model.Binary
	}
	type pair struct {
		machineBinary
		kinds       uint32
		first, last int
	}
	// pairOf is, per machine and binary (rank), its pair + 1 (0: none yet)
	pairOf := make([]int32, len(machines)*len(rank))
	pairs := make([]pair, 0, min(len(ms.Outcomes), len(pairOf)))
	next := make([]int, len(ms.Outcomes))
	for i := range ms.Outcomes {
		o := &ms.Outcomes[i]
		next[i] = -1
		k := machineBinary{o.Machine, o.Binary}
		slot := o.Machine*len(rank) + rank[o.Binary]
		pi := int(pairOf[slot]) - 1
		if pi < 0 {
			pi = len(pairs)
			pairOf[slot] = int32(pi + 1)
			pairs = append(pairs, pair{machineBinary: k, first: i, last: i})
		} else {
			next[pairs[pi].last] = i
			pairs[pi].last = i
		}
		pairs[pi].kinds |= 1 << o.Outcome.Kind
	}
	perMachine := make([][]int, len(machines))
	for pi, p := range pairs {
		perMachine[p.machine] = append(perMachine[p.machine], pi)
		v := &out[p.machine]
		if v.Outcomes == nil {
			v.Outcomes = map[string]int{}
		}
		for k := machine.Kind(0); k < 8; k++ {
			if p.kinds&(1<<k) != 0 {
				v.Outcomes[k.String()]++
			}
		}
	}
	for mi, list := range perMachine {
		v := &out[mi]
		v.Clean = v.Binaries - len(list)
		slices.SortFunc(list, func(a, b int) int { return rank[pairs[a].bin] - rank[pairs[b].bin] })
		v.Failing = make([]finding.BinaryVerdict, 0, min(len(list), finding.MaxFailingListed))
		for _, pi := range list[:min(len(list), finding.MaxFailingListed)] {
			p := pairs[pi]
			b := finding.BinaryVerdict{Input: p.bin.Entry.Input, Path: p.bin.Path}
			for i := p.first; i >= 0; i = next[i] {
				o := &ms.Outcomes[i]
				isa := isas[[3]int{o.Machine, b2i(o.Windows), o.Devices[0]}]
				for _, d := range o.Devices {
					b.Devices = addDeviceVerdict(b.Devices, finding.DeviceVerdict{Device: d, ISA: isa, Outcome: o.Outcome.Kind.String(), Modules: len(o.Kernels)})
				}
			}
			slices.SortFunc(b.Devices, func(a, c finding.DeviceVerdict) int {
				if a.Device != c.Device {
					return a.Device - c.Device
				}
				return strings.Compare(a.Outcome, c.Outcome)
			})
			v.Failing = append(v.Failing, b)
		}
	}
	return out
}

// binaryRanks numbers the build's binaries by input, then path.
func binaryRanks(b *model.Build) map[*model.Binary]int {
	bins := slices.Clone(b.Binaries)
	slices.SortStableFunc(bins, func(x, y *model.Binary) int {
		if x.Entry.Input != y.Entry.Input {
			return x.Entry.Input - y.Entry.Input
		}
		return strings.Compare(x.Path, y.Path)
	})
	out := make(map[*model.Binary]int, len(bins))
	for i, bin := range bins {
		out[bin] = i
	}
	return out
}

// addDeviceVerdict adds d's modules to the entry of its device and
// outcome, or appends it.
func addDeviceVerdict(list []finding.DeviceVerdict, d finding.DeviceVerdict) []finding.DeviceVerdict {
	for i := range list {
		if list[i].Device == d.Device && list[i].Outcome == d.Outcome {
			list[i].Modules += d.Modules
			return list
		}
	}
	return append(list, d)
}
