package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/rocm-tools/kpack-lint/finding"
)

// MaxReadDevices bounds the devices of a machine in a report read back,
// and every device index it gives: sim/machine.MaxDevices, the most a
// machine definition may have.
const MaxReadDevices = 64

// machineOutcomes are the outcome names of a machine verdict
// (sim/machine.Kind.String of the kinds that fail a binary).
var machineOutcomes = []string{"no-code", "failed-by-other", "foreign-code", "aborted", "unsupported"}

// readPaths names the parts of a report checkMachines reads, per format:
// formats taking the index of a verdict, a machine and a finding.
type readPaths struct{ verdict, machine, finding string }

var (
	jsonPaths  = readPaths{"machineVerdicts[%d]", "checked.machines[%d]", "findings[%d]"}
	sarifPaths = readPaths{"runs[0].properties.machineVerdicts[%d]", "runs[0].invocations[0].properties.machines[%d]", "runs[0].results[%d].properties"}
)

// checkMachines validates the machines a report read back states: counts
// are not negative, a verdict's clean binaries and each outcome's count
// are within its binaries, outcome names are known, failing binaries are
// at most finding.MaxFailingListed, and every device index lies within
// the machine's devices (at most MaxReadDevices). Errors name the field
// as the format writes it ("machineVerdicts[0].clean: ...").
func checkMachines(r Run, at readPaths) error {
	for i, v := range r.Machines {
		if err := checkVerdict(v); err != nil {
			return fmt.Errorf(at.verdict+".%v", i, err)
		}
	}
	if r.Checked != nil {
		for i, m := range r.Checked.Machines {
			if err := checkMachineInfo(m); err != nil {
				return fmt.Errorf(at.machine+".%v", i, err)
			}
		}
	}
	for i, f := range r.Findings {
		if err := checkOnMachine(f.Machine); err != nil {
			return fmt.Errorf(at.finding+".%v", i, err)
		}
	}
	return nil
}

func checkVerdict(v finding.MachineVerdict) error {
	switch {
	case v.Binaries < 0:
		return fmt.Errorf("binaries: %d is negative", v.Binaries)
	case v.Clean < 0 || v.Clean > v.Binaries:
		return fmt.Errorf("clean: %d is not within 0 to binaries (%d)", v.Clean, v.Binaries)
	case len(v.Failing) > finding.MaxFailingListed:
		return fmt.Errorf("failing: %d binaries listed, at most %d (finding.MaxFailingListed)", len(v.Failing), finding.MaxFailingListed)
	case len(v.Failing) > v.Binaries-v.Clean:
		return fmt.Errorf("failing: %d listed, more than the %d failing binaries (binaries - clean)", len(v.Failing), v.Binaries-v.Clean)
	}
	for k, n := range v.Outcomes {
		switch {
		case !slices.Contains(machineOutcomes, k):
			return fmt.Errorf("outcomes: unknown outcome %q (want one of %v)", k, machineOutcomes)
		case n < 0 || n > v.Binaries-v.Clean:
			return fmt.Errorf("outcomes[%q]: %d is not within 0 to the failing binaries (%d)", k, n, v.Binaries-v.Clean)
		}
	}
	for i, b := range v.Failing {
		if b.Input < 0 {
			return fmt.Errorf("failing[%d].input: %d is negative", i, b.Input)
		}
		for j, d := range b.Devices {
			if err := checkDeviceVerdict(d); err != nil {
				return fmt.Errorf("failing[%d].devices[%d].%v", i, j, err)
			}
		}
	}
	return nil
}

func checkDeviceVerdict(d finding.DeviceVerdict) error {
	switch {
	case d.Device < 0 || d.Device >= MaxReadDevices:
		return fmt.Errorf("device: %d is not a device index (0 to %d)", d.Device, MaxReadDevices-1)
	case !slices.Contains(machineOutcomes, d.Outcome):
		return fmt.Errorf("outcome: unknown outcome %q (want one of %v)", d.Outcome, machineOutcomes)
	case d.Modules < 0:
		return fmt.Errorf("modules: %d is negative", d.Modules)
	}
	return nil
}

func checkMachineInfo(m finding.MachineInfo) error {
	switch {
	case m.CPUNodes < 0:
		return fmt.Errorf("cpuNodes: %d is negative", m.CPUNodes)
	case len(m.Devices) > MaxReadDevices:
		return fmt.Errorf("devices: %d devices, at most %d (report.MaxReadDevices)", len(m.Devices), MaxReadDevices)
	}
	for _, kv := range []struct {
		kind string
		v    *finding.MachineView
	}{{"linux", m.Linux}, {"windows", m.Windows}} {
		kind, v := kv.kind, kv.v
		if v == nil {
			continue
		}
		for j, d := range v.Devices {
			switch {
			case d.Index < 0 || d.Index >= len(v.Devices):
				return fmt.Errorf("%s.devices[%d].index: %d is not a HIP index of the %d devices HIP sees", kind, j, d.Index, len(v.Devices))
			case d.Device < 0 || d.Device >= len(m.Devices):
				return fmt.Errorf("%s.devices[%d].device: %d is not one of the machine's %d devices", kind, j, d.Device, len(m.Devices))
			}
		}
	}
	return nil
}

// checkOnMachine validates the device indexes of a finding's machine
// properties.
func checkOnMachine(m *finding.OnMachine) error {
	if m == nil {
		return nil
	}
	for j, d := range m.Devices {
		if d < 0 || d >= MaxReadDevices {
			return fmt.Errorf("devices[%d]: %d is not a device index (0 to %d)", j, d, MaxReadDevices-1)
		}
	}
	if o := m.OtherDevice; o != nil && (*o < 0 || *o >= MaxReadDevices) {
		return fmt.Errorf("otherDevice: %d is not a device index (0 to %d)", *o, MaxReadDevices-1)
	}
	return nil
}

// addCount adds two counts of a merge; ok is false when the sum would pass
// math.MaxInt.
func addCount(a, b int) (sum int, ok bool) {
	if b > math.MaxInt-a {
		return 0, false
	}
	return a + b, true
}
