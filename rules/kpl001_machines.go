package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

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

// lackWhy says why o's devices (devs, worded) get no code of their own:
// a HIP that cannot load kpack'd binaries, a process that aborts, no code
// object for the device (KPL001; KPL006 when no archive opens).
func lackWhy(c *Context, o *sim.MachineOutcome, devs string) string {
	ms := c.Machines
	m := ms.Machine(o)
	v := ms.View(o)
	rel := m.Release()
	kpackPath := o.Site != nil
	switch o.Outcome.Kind {
	case machine.Unsupported:
		if m.KpackOff || (rel.Kpack.Value != hip.KpackUnknown && !rel.KpackBuiltIn.Value) {
			return fmt.Sprintf("every device gets no code: this HIP %s was built without ROCM_KPACK_ENABLED and rejects the binary's kpack (HIPK) wrappers", rel.Name)
		}
		return fmt.Sprintf("every device gets no code: HIP %s predates kpack (rocm-systems PR 2622) and does not know the HIPK wrapper magic", rel.Name)
	case machine.Aborted:
		if kpackPath {
			return fmt.Sprintf("the %s loader aborts the process loading them for %s (see KPL001 of the target matrix or kpack-lint explain)", sim.FindingLoader(m.KpackLoader()), devs)
		}
		return fmt.Sprintf("%s has no code object in the offload bundles (%s), and HIP %s aborts the process at HIP init when any device lacks one "+
			"(hipamd hip_code_object.cpp:489@rocm-5.2.3, guarantee(false, \"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\")), so every device fails",
			devs, bundleTargets(c, o), rel.Name)
	}
	if kpackPath && o.Outcome.Rejected {
		return rejectedWhy(ms, o, devs)
	}
	if kpackPath {
		return fmt.Sprintf("%s gets no code object: the %s loader returns %s for its arch_list [%s]%s", devs, sim.FindingLoader(m.KpackLoader()),
			o.Outcome.Code.Short(), strings.Join(ownList(ms, o), ", "), kpackRule(rel, o))
	}
	return fmt.Sprintf("%s has no code object in the offload bundles (%s)%s", devs, bundleTargets(c, o), fatRule(rel, o, len(v.Devices)))
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
		devs, sim.FindingLoader(m.KpackLoader()), o.Outcome.Code.Short(), strings.Join(list, ", "), how)
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
