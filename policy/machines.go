package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Machine is one entry of the policy's machines: a machine the build must
// run on, as one process sees it: its GPUs in enumeration order (device 0
// first), the HIP release (a --hip value; "" is the newest modelled), the
// process environment that changes what the GPUs report or which are
// visible (HSA_OVERRIDE_GFX_VERSION, HSA_OVERRIDE_GFX_VERSION_<node>,
// ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES,
// HSA_XNACK), the KFD CPU nodes enumerated before the GPUs (0 is one)
// and whether its HIP was built without kpack (kpack: off). The pipeline
// checks the devices, release and environment (internal/lint), with
// errors at machines.<name>.<field>.
type Machine struct {
	Devices  []Device          `yaml:"devices"`
	HIP      string            `yaml:"hip"`
	Env      map[string]string `yaml:"env"`
	CPUNodes int               `yaml:"cpu_nodes"`
	Kpack    string            `yaml:"kpack"`
}

// Device is one GPU of a policy machine: its ISA as the machine reports
// it ("gfx1100", "gfx942:sramecc+:xnack-"; a missing sramecc is +, a
// missing xnack -), optionally its ROCr UUID ("GPU-" and 16 hex digits)
// and its PCI location ("0000:03:00.0", which Windows' HIP makes its
// HIP_VISIBLE_DEVICES UUID of). It is written as the ISA alone or as
// {isa: ..., uuid: ..., pci: ...}.
type Device struct {
	ISA  string `yaml:"isa"`
	UUID string `yaml:"uuid"`
	PCI  string `yaml:"pci"`
}

// UnmarshalYAML reads a device written as its ISA or as a map.
func (d *Device) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		d.ISA = n.Value
		return nil
	}
	type plain Device
	return n.Decode((*plain)(d))
}

// MaxMachines bounds the machines of a policy; MaxMachineCPUNodes a
// machine's cpu_nodes.
const (
	MaxMachines        = 4096
	MaxMachineCPUNodes = 64
)

// MachineNames returns the policy's machine names, sorted (nil without a
// policy).
func (p *Policy) MachineNames() []string {
	if p == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(p.Machines))
}

// validateMachines checks what the policy can check of its machines by
// itself: names, a list of devices, kpack on or off, cpu_nodes in range;
// then, for each machine that passes, opt.Machine (devices, release,
// environment).
func (p *Policy) validateMachines(l *errList, opt Options) {
	if len(p.Machines) > MaxMachines {
		l.add(p.Errorf("machines", "%d machines: at most %d", len(p.Machines), MaxMachines))
		return
	}
	for _, name := range p.MachineNames() {
		m := p.Machines[name]
		key := "machines." + name
		switch {
		case name == "" || strings.ContainsAny(name, ", \t"):
			l.add(p.Errorf(key, "machine name %q: want a name without commas or spaces (--machine NAME selects it)", name))
			continue
		case m == nil || len(m.Devices) == 0:
			l.add(p.Errorf(key, "no devices (want devices: [ISA, ...] in enumeration order, device 0 first)"))
			continue
		case m.Kpack != "" && m.Kpack != "on" && m.Kpack != "off":
			l.add(p.Errorf(key+".kpack", "want on or off (off: a HIP built without ROCM_KPACK_ENABLED), got %q%s", m.Kpack, DidYouMean(m.Kpack, []string{"on", "off"})))
			continue
		case m.CPUNodes < 0 || m.CPUNodes > MaxMachineCPUNodes:
			l.add(p.Errorf(key+".cpu_nodes", "%d: want 1 to %d (KFD CPU nodes before the first GPU)", m.CPUNodes, MaxMachineCPUNodes))
			continue
		}
		blank := false
		for i, d := range m.Devices {
			if strings.TrimSpace(d.ISA) == "" {
				l.add(p.Errorf(fmt.Sprintf("%s.devices[%d]", key, i), "no isa (want an ISA such as gfx1100, or {isa: gfx1100, uuid: GPU-...})"))
				blank = true
			}
		}
		if opt.Machine != nil && !blank {
			for _, err := range opt.Machine(p, name) {
				l.add(err)
			}
		}
	}
}
