// Package machine models a user's machine: the GPUs one process sees, in
// enumeration order, what each reports after the environment
// (HSA_OVERRIDE_GFX_VERSION, ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES),
// and what one HIP release (sim/hip) does when the process loads a module
// for every visible device at once: which devices get their own code,
// which get none, which fail because another device lacks code or made
// the module fail, which get another device's code object, and when the
// process aborts (SPEC 4c; notes/hip-releases.md).
//
// The package decides nothing about archives or bundles itself: a module's
// loads come from the caller's oracle (LoadFunc for an HIPK wrapper,
// PickFunc for an HIPF wrapper's offload bundle), asked once per distinct
// arch_list or agent ISA a Plan's machines need, whatever the number of
// machines.
//
// Windows-ness belongs to a binary, not to a machine: a PE/COFF binary runs
// in a Windows process, an ELF binary in a Linux one, so each View and
// verdict is asked for with the binary's windows flag. On Windows HIP runs
// on the PAL backend: HSA_OVERRIDE_GFX_VERSION and ROCR_VISIBLE_DEVICES are
// not read there and HIP_VISIBLE_DEVICES filters without reordering (clr
// rocclr/device/pal/paldevice.cpp:1431-1447@amd-staging).
package machine

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// Limits on a machine definition, so a policy cannot ask for unbounded
// work: devices per machine, bytes per environment value.
const (
	MaxDevices  = 64
	MaxEnvValue = 4096
)

// Environment variables a machine's Env may set.
const (
	EnvOverride     = "HSA_OVERRIDE_GFX_VERSION" // also HSA_OVERRIDE_GFX_VERSION_<node>
	EnvRocrVisible  = "ROCR_VISIBLE_DEVICES"
	EnvHIPVisible   = "HIP_VISIBLE_DEVICES"
	EnvCUDAVisible  = "CUDA_VISIBLE_DEVICES"
	EnvXnack        = "HSA_XNACK" // the process xnack mode an override's ISA takes ("1": xnack+)
	envOverrideNode = EnvOverride + "_"
)

// Device is one GPU of a machine as ROCr enumerates it, without overrides.
type Device struct {
	// ISA is the agent ISA the device reports: every feature its
	// processor supports set ("gfx942:sramecc+:xnack-"), or the bare name
	// ("gfx1100", "gfx90c"); see DeviceISA.
	ISA targetid.ID
	// UUID is the device's "GPU-<16 hex digits>" as ROCr reports it
	// (upper case), "" when the machine does not say. GPU- entries of
	// ROCR_VISIBLE_DEVICES and Linux HIP_VISIBLE_DEVICES match it.
	UUID string
	// PCI is the device's PCI location, which Windows' HIP (PAL) makes
	// its UUID of for HIP_VISIBLE_DEVICES GPU- entries (PALUUID); nil
	// when the machine does not say.
	PCI *PCI
}

// Machine is one machine a process runs on.
type Machine struct {
	// Name names the machine in reports ("ci-mi300", or the --machine
	// value "gfx1036,gfx1100").
	Name string
	// Devices are the GPUs in enumeration order, device 0 first (at
	// most MaxDevices).
	Devices []Device
	// HIP is the HIP release; the zero Release is hip.Newest().
	HIP hip.Release
	// Env holds the variables of the process environment that change
	// what the devices report or which are visible (IsEnvKey); a key
	// present with "" is set but empty, which differs from absent.
	Env map[string]string
	// CPUNodes is the number of KFD CPU nodes enumerated before the
	// GPUs: the first GPU is node CPUNodes, which
	// HSA_OVERRIDE_GFX_VERSION_<node> counts. 0 means 1, a one-socket
	// machine (libhsakmt topology.c:671 keeps CPU nodes in the
	// numbering; ROCR-Runtime 84567b64's message: "device 0 ...
	// HSA_OVERRIDE_GFX_VERSION_1").
	CPUNodes int
	// KpackOff marks a HIP built without ROCM_KPACK_ENABLED (TheRock
	// 7.12 outside split builds, or a distribution's build): HIPK
	// wrappers get the release's KpackUnsupported symptom.
	KpackOff bool
	// Loader, when LoaderSet, replaces the rocm-kpack loader the release
	// ships (a --loader or policy loader: given explicitly).
	Loader    hip.Loader
	LoaderSet bool
}

// release returns m.HIP, or the newest release for the zero value.
func (m *Machine) release() hip.Release {
	if m.HIP.Name == "" {
		return hip.Newest()
	}
	return m.HIP
}

// Release returns the machine's HIP release (hip.Newest() when unset).
func (m *Machine) Release() hip.Release { return m.release() }

// KpackLoader returns the loader the machine's kpack loads use: Loader
// when LoaderSet, else the one its release ships.
func (m *Machine) KpackLoader() hip.Loader {
	if m.LoaderSet {
		return m.Loader
	}
	return m.release().Loader.Value
}

// cpuNodes returns CPUNodes, 1 when unset.
func (m *Machine) cpuNodes() int {
	if m.CPUNodes <= 0 {
		return 1
	}
	return m.CPUNodes
}

// IsEnvKey reports whether key is a variable a machine's Env takes:
// HSA_OVERRIDE_GFX_VERSION, HSA_OVERRIDE_GFX_VERSION_<node> (node a
// decimal number), ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES,
// CUDA_VISIBLE_DEVICES and HSA_XNACK.
func IsEnvKey(key string) bool {
	switch key {
	case EnvOverride, EnvRocrVisible, EnvHIPVisible, EnvCUDAVisible, EnvXnack:
		return true
	}
	_, ok := overrideNode(key)
	return ok
}

// overrideNode returns n for HSA_OVERRIDE_GFX_VERSION_<n>.
func overrideNode(key string) (int, bool) {
	s, ok := strings.CutPrefix(key, envOverrideNode)
	if !ok || s == "" || len(s) > 5 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// uuidRE is a ROCr device UUID: "GPU-" and 16 hex digits.
var uuidRE = regexp.MustCompile(`^GPU-[0-9A-F]{16}$`)

// CheckUUID checks a device UUID as ROCr reports it: "GPU-" and 16
// upper-case hex digits.
func CheckUUID(uuid string) error {
	if !uuidRE.MatchString(uuid) {
		return fmt.Errorf("uuid %q is not GPU- and 16 upper-case hex digits", uuid)
	}
	return nil
}

// Validate checks m: a name, 1 to MaxDevices devices each reporting a
// device ISA (targetid.IsDeviceISA) and a well-formed UUID if any, no two
// devices with one UUID, and Env keys IsEnvKey accepts with values of at
// most MaxEnvValue bytes. The error names the machine and the field.
func (m *Machine) Validate() error {
	if m.Name == "" {
		return fmt.Errorf("machine: no name")
	}
	if len(m.Devices) == 0 || len(m.Devices) > MaxDevices {
		return fmt.Errorf("machine %s: %d devices (1 to %d)", m.Name, len(m.Devices), MaxDevices)
	}
	uuids := map[string]int{}
	for i, d := range m.Devices {
		if !targetid.IsDeviceISA(d.ISA) {
			return fmt.Errorf("machine %s: device %d: %s is not an ISA a device reports", m.Name, i, d.ISA)
		}
		if d.UUID == "" {
			continue
		}
		if err := CheckUUID(d.UUID); err != nil {
			return fmt.Errorf("machine %s: device %d: %v", m.Name, i, err)
		}
		if j, dup := uuids[d.UUID]; dup {
			return fmt.Errorf("machine %s: devices %d and %d have the uuid %s", m.Name, j, i, d.UUID)
		}
		uuids[d.UUID] = i
	}
	pcis := map[PCI]int{}
	for i, d := range m.Devices {
		if d.PCI == nil {
			continue
		}
		if j, dup := pcis[*d.PCI]; dup {
			return fmt.Errorf("machine %s: devices %d and %d have the pci location %s", m.Name, j, i, d.PCI)
		}
		pcis[*d.PCI] = i
	}
	for _, k := range sortedKeys(m.Env) {
		if !IsEnvKey(k) {
			return fmt.Errorf("machine %s: env %s is not a machine variable (%s, %s_<node>, %s, %s, %s, %s)",
				m.Name, k, EnvOverride, EnvOverride, EnvRocrVisible, EnvHIPVisible, EnvCUDAVisible, EnvXnack)
		}
		if len(m.Env[k]) > MaxEnvValue {
			return fmt.Errorf("machine %s: env %s: value longer than %d bytes", m.Name, k, MaxEnvValue)
		}
	}
	return nil
}

// sortedKeys returns the keys of env in byte order.
func sortedKeys(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k := range env {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// DeviceISA parses a device's ISA as a machine definition writes it. A
// processor that supports sramecc or xnack may leave them out: a missing
// sramecc is sramecc+ (the setting of the data-centre parts that have SRAM
// ECC, MI100 to MI355) and a missing xnack is xnack- (ROCr's default xnack
// mode without HSA_XNACK=1), so "gfx942" is gfx942:sramecc+:xnack-.
// Processors whose devices report the bare ISA (gfx90c, gfx902, gfx909;
// targetid.ReportsBareISA) stay bare. Generic targets, unknown processors
// and settings no device reports (gfx90c:xnack+) are errors, with a
// suggestion where targetid.Suggest has one.
func DeviceISA(s string) (targetid.ID, error) {
	id, err := targetid.Parse(strings.TrimSpace(s))
	if err != nil {
		if sug := targetid.Suggest(s); sug != "" {
			return targetid.ID{}, fmt.Errorf("%v (did you mean %s?)", err, sug)
		}
		return targetid.ID{}, err
	}
	p, _ := targetid.LookupProcessor(id.Processor)
	if p.Generic {
		return targetid.ID{}, fmt.Errorf("%s is a generic target, not a device ISA (name a member: %s)",
			s, strings.Join(targetid.GenericMembers(p.Name), ", "))
	}
	if _, bare := targetid.ReportsBareISA(p.Name); !bare {
		id = withDefaults(id, p)
	}
	if !targetid.IsDeviceISA(id) {
		return targetid.ID{}, fmt.Errorf("%s is not an ISA a device reports", s)
	}
	return canonical(id), nil
}

// withDefaults adds sramecc+ and xnack- where p supports them and id does
// not say.
func withDefaults(id targetid.ID, p targetid.Processor) targetid.ID {
	out := targetid.ID{Processor: id.Processor, Features: append([]targetid.Feature(nil), id.Features...)}
	if _, set := id.Setting(targetid.Sramecc); p.Sramecc && !set {
		out.Features = append(out.Features, targetid.Feature{Name: targetid.Sramecc, Enabled: true})
	}
	if _, set := id.Setting(targetid.Xnack); p.Xnack && !set {
		out.Features = append(out.Features, targetid.Feature{Name: targetid.Xnack})
	}
	return out
}

// canonical orders id's features sramecc, xnack, as devices report them.
func canonical(id targetid.ID) targetid.ID {
	c, err := targetid.Parse(id.Canonical())
	if err != nil {
		return id
	}
	return c
}

// ParseDevices reads the devices of a --machine value, ISAs separated by
// commas in enumeration order ("gfx1036,gfx1100"; DeviceISA).
func ParseDevices(spec string) ([]Device, error) {
	parts := strings.Split(spec, ",")
	if len(parts) > MaxDevices {
		return nil, fmt.Errorf("machine %s: more than %d devices", spec, MaxDevices)
	}
	out := make([]Device, 0, len(parts))
	for i, p := range parts {
		isa, err := DeviceISA(p)
		if err != nil {
			return nil, fmt.Errorf("machine %s: device %d: %v", spec, i, err)
		}
		out = append(out, Device{ISA: isa})
	}
	return out, nil
}
