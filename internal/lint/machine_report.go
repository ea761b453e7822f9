package lint

import (
	"maps"
	"slices"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// machineInfos states the simulated machines for a report: devices,
// release, loader, environment and what each process kind sees.
func machineInfos(ms *rules.Machines) []finding.MachineInfo {
	if ms == nil {
		return nil
	}
	var out []finding.MachineInfo
	for i, m := range ms.Plan.Machines() {
		info := finding.MachineInfo{Name: m.Name, HIP: m.Release().Name, CPUNodes: m.CPUNodes, KpackOff: m.KpackOff,
			Loader: string(findingLoader(m.KpackLoader()))}
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

// machineVerdicts is each machine's verdict on the binaries it judged:
// those of the process kinds that see a device, the failing ones with
// the outcome of every device that did not load its own code.
func machineVerdicts(ms *rules.Machines) []finding.MachineVerdict {
	if ms == nil {
		return nil
	}
	out := make([]finding.MachineVerdict, len(ms.Plan.Machines()))
	failing := make([]map[string]int, len(out)) // per machine: binary path -> index in Failing
	for i, m := range ms.Plan.Machines() {
		out[i].Machine = m.Name
		for w := range 2 {
			if len(ms.Plan.View(i, w == 1).Devices) > 0 {
				out[i].Binaries += ms.Judged[w]
			}
		}
		failing[i] = map[string]int{}
	}
	for _, o := range ms.Outcomes {
		v := &out[o.Machine]
		bi, ok := failing[o.Machine][o.Binary.Path]
		if !ok {
			bi = len(v.Failing)
			failing[o.Machine][o.Binary.Path] = bi
			v.Failing = append(v.Failing, finding.BinaryVerdict{Input: o.Binary.Entry.Input, Path: o.Binary.Path})
		}
		b := &v.Failing[bi]
		isa := ms.View(&o).Devices[o.Devices[0]].ISA.String()
		for _, d := range o.Devices {
			b.Devices = addDeviceVerdict(b.Devices, finding.DeviceVerdict{Device: d, ISA: isa, Outcome: o.Outcome.Kind.String(), Modules: len(o.Kernels)})
		}
	}
	for i := range out {
		v := &out[i]
		slices.SortFunc(v.Failing, func(a, b finding.BinaryVerdict) int {
			if a.Input != b.Input {
				return a.Input - b.Input
			}
			if a.Path < b.Path {
				return -1
			}
			if a.Path > b.Path {
				return 1
			}
			return 0
		})
		for j := range v.Failing {
			slices.SortFunc(v.Failing[j].Devices, func(a, b finding.DeviceVerdict) int {
				if a.Device != b.Device {
					return a.Device - b.Device
				}
				if a.Outcome < b.Outcome {
					return -1
				}
				if a.Outcome > b.Outcome {
					return 1
				}
				return 0
			})
		}
		v.Clean = v.Binaries - len(v.Failing)
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
