package rules

import (
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// checkCrossDevice is KPL014: devices that have code of their own in a
// module and get none because of another device, or run another
// device's code object.
func checkCrossDevice(c *Context) []finding.Finding {
	return machineFindings(c, func(o *sim.MachineOutcome) bool {
		return o.Outcome.Kind == machine.FailedByOther || o.Outcome.Kind == machine.ForeignCode
	})
}

// crossDeviceWhy says why o's devices (devs, worded; first the first of
// them) do not run their own code because of another device of the
// process: given another device's code object, or left without code by
// another device's load (KPL014).
func crossDeviceWhy(c *Context, o *sim.MachineOutcome, devs string, first machine.Visible) string {
	ms := c.Machines
	m := ms.Machine(o)
	v := ms.View(o)
	rel := m.Release()
	other := func() string {
		if o.Outcome.Other < 0 || o.Outcome.Other >= len(v.Devices) {
			return "another device"
		}
		return devicesWords(v, []int{o.Outcome.Other})
	}
	if o.Outcome.Kind == machine.ForeignCode {
		return fmt.Sprintf("%s is given the code object built for %s (%s's): HIP %s loads one code object for every device of the process "+
			"(rocm-systems PR 2622, \"Add code object to all devices\") and registers it on each, and %s cannot run it", devs, o.Outcome.Target, other(), rel.Name, first.ISA)
	}
	if o.Site != nil {
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
