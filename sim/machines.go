package sim

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/machine"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// MachineConfig is what a run says of its machines: as the fields of
// lint.Config of the same names (--machine, --hip, the machine variables
// of the environment, --loader) and the policy.
type MachineConfig struct {
	Policy     *policy.Policy
	Machines   []string
	HIP        string
	MachineEnv map[string]string
	Loader     finding.Loader
}

// MatrixRelease is the HIP release of the target matrix: name (--hip),
// else ("") the newest modelled. A name hip.Lookup does not know is an
// *errs.OptionError for option "hip".
func MatrixRelease(name string) (hip.Release, error) {
	r, err := hip.Lookup(name)
	if err != nil {
		return hip.Release{}, &errs.OptionError{Option: "hip", Value: name, Err: releaseErr(err)}
	}
	return r, nil
}

// releaseErr is hip.Lookup's error without the quoted name the option
// error already states.
func releaseErr(err error) error {
	var ue *hip.UnknownReleaseError
	if !errors.As(err, &ue) {
		return err
	}
	msg := "not a modelled HIP release"
	if ue.Suggestion != "" {
		msg += " (did you mean " + ue.Suggestion + "?)"
	}
	return fmt.Errorf("%s: the values are %s, or a release one covers (5.2.3, 6.4, 7.14, 10.1, ...)", msg, strings.Join(hip.Names(), ", "))
}

// ResolveMachines returns the machines of the run: the --machine values
// (cfg.Machines: a policy machine's name, else ISAs separated by commas,
// device 0 first), else every machine of the policy's machines:, with
// --hip (cfg.HIP) replacing each release and cfg.MachineEnv set over
// each environment. A machine is judged by the loader its release ships
// unless a loader is given (--loader, the policy's loader:). Errors:
// a --machine or --hip value that names nothing (*errs.OptionError with
// a did-you-mean), a policy machine that does not check (*policy.Error
// at machines.<name>.<field>).
func ResolveMachines(cfg *MachineConfig) ([]machine.Machine, error) {
	pol := cfg.Policy
	var out []machine.Machine
	if len(cfg.Machines) > 0 {
		for _, v := range cfg.Machines {
			m, err := namedMachine(pol, v)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	} else {
		for _, name := range pol.MachineNames() {
			m, err := policyMachine(pol, name)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	if err := setMachineRun(cfg, out); err != nil {
		return nil, err
	}
	return out, nil
}

// setMachineRun applies what the run sets for every machine: --hip, the
// machine environment, an explicit loader. It checks the result
// (machine.Validate).
func setMachineRun(cfg *MachineConfig, ms []machine.Machine) error {
	var rel hip.Release
	if cfg.HIP != "" {
		r, err := MatrixRelease(cfg.HIP)
		if err != nil {
			return err
		}
		rel = r
	}
	loader, given, err := explicitLoader(cfg)
	if err != nil {
		return err
	}
	for i := range ms {
		m := &ms[i]
		if rel.Name != "" {
			m.HIP = rel
		}
		if len(cfg.MachineEnv) > 0 {
			env := maps.Clone(m.Env)
			if env == nil {
				env = map[string]string{}
			}
			maps.Copy(env, cfg.MachineEnv)
			m.Env = env
		}
		if given {
			m.Loader, m.LoaderSet = loader, true
		}
		if err := m.Validate(); err != nil {
			return errs.AsUsage(err)
		}
	}
	return nil
}

// explicitLoader is the loader given explicitly (cfg.Loader, else the
// policy's loader:), as the release table names it; given is false when
// neither says.
func explicitLoader(cfg *MachineConfig) (hip.Loader, bool, error) {
	s := string(cfg.Loader)
	if s == "" && cfg.Policy != nil {
		s = cfg.Policy.Loader
	}
	if s == "" {
		return 0, false, nil
	}
	l, err := finding.ParseLoader(s)
	if err != nil {
		return 0, false, err
	}
	return HIPLoader(l), true, nil
}

// HIPLoader maps a loader name to the release table's.
func HIPLoader(l finding.Loader) hip.Loader {
	if l == finding.Legacy {
		return hip.LegacyLoader
	}
	return hip.FallthroughLoader
}

// FindingLoader maps the release table's loader to its name.
func FindingLoader(l hip.Loader) finding.Loader {
	if l == hip.LegacyLoader {
		return finding.Legacy
	}
	return finding.Fallthrough
}

// namedMachine reads one --machine value: a machine of the policy by
// name, else the devices it lists (machine.ParseDevices), named by the
// value.
func namedMachine(pol *policy.Policy, v string) (machine.Machine, error) {
	if pol != nil && pol.Machines[v] != nil {
		return policyMachine(pol, v)
	}
	devs, err := machine.ParseDevices(v)
	if err != nil {
		if names := pol.MachineNames(); len(names) > 0 && !strings.Contains(v, ",") {
			if hint := policy.DidYouMean(v, names); hint != "" {
				return machine.Machine{}, &errs.OptionError{Option: "machine", Value: v,
					Err: fmt.Errorf("not a machine of %s%s, nor device ISAs (%s)", policyName(pol), hint, deviceErr(err, v))}
			}
		}
		return machine.Machine{}, &errs.OptionError{Option: "machine", Value: v, Err: fmt.Errorf("%s%s", deviceErr(err, v), machineNames(pol))}
	}
	return machine.Machine{Name: v, Devices: devs}, nil
}

// deviceErr is machine.ParseDevices's error without the machine it names
// (the option error names it).
func deviceErr(err error, v string) string {
	return strings.TrimPrefix(err.Error(), "machine "+v+": ")
}

// machineNames lists the policy's machines for an error: "; the policy's
// machines are a, b", or "" without any.
func machineNames(pol *policy.Policy) string {
	names := pol.MachineNames()
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("; the machines of %s are %s", policyName(pol), strings.Join(names, ", "))
}

// policyName names the policy in errors: its file, or "the policy".
func policyName(pol *policy.Policy) string {
	if f := pol.File(); f != "" {
		return f
	}
	return "the policy"
}

// policyMachine reads machines.<name> of the policy. Its error is the
// first of CheckPolicyMachine's.
func policyMachine(pol *policy.Policy, name string) (machine.Machine, error) {
	m, errs := readPolicyMachine(pol, name)
	if len(errs) > 0 {
		return m, errs[0]
	}
	return m, nil
}

// CheckPolicyMachine checks machines.<name> of pol as far as the policy
// alone can tell (policy.Options.Machine): every device ISA
// (machine.DeviceISA) and UUID, the hip: release (hip.Lookup), every env
// key (machine.IsEnvKey) and value length, then what machine.Validate
// checks across fields (device count, repeated UUIDs). Each error is a
// *policy.Error at machines.<name>.<field> with its line, so the policy
// reports them with its own errors, in file order.
func CheckPolicyMachine(pol *policy.Policy, name string) []error {
	_, errs := readPolicyMachine(pol, name)
	return errs
}

// readPolicyMachine reads machines.<name> of the policy and every error
// in it.
func readPolicyMachine(pol *policy.Policy, name string) (machine.Machine, []error) {
	pm := pol.Machines[name]
	key := "machines." + name
	m := machine.Machine{Name: name, CPUNodes: pm.CPUNodes, KpackOff: pm.Kpack == "off"}
	var errs []error
	for i, d := range pm.Devices {
		dkey := fmt.Sprintf("%s.devices[%d]", key, i)
		isa, err := machine.DeviceISA(d.ISA)
		if err != nil {
			errs = append(errs, pol.Errorf(dkey, "%v", err))
		}
		if d.UUID != "" {
			if err := machine.CheckUUID(d.UUID); err != nil {
				errs = append(errs, pol.Errorf(dkey+".uuid", "%v", err))
			}
		}
		dev := machine.Device{ISA: isa, UUID: d.UUID}
		if d.PCI != "" {
			p, err := machine.ParsePCI(d.PCI)
			if err != nil {
				errs = append(errs, pol.Errorf(dkey+".pci", "%v", err))
			}
			dev.PCI = &p
		}
		m.Devices = append(m.Devices, dev)
	}
	if pm.HIP != "" {
		r, err := hip.Lookup(pm.HIP)
		if err != nil {
			errs = append(errs, pol.Errorf(key+".hip", "%q: %v", pm.HIP, releaseErr(err)))
		}
		m.HIP = r
	}
	for _, k := range slices.Sorted(maps.Keys(pm.Env)) {
		switch {
		case !machine.IsEnvKey(k):
			errs = append(errs, pol.Errorf(key+".env."+k, "%s is not a machine variable (%s)%s", k, machineEnvKeys, policy.DidYouMean(k, machineEnvNames)))
		case len(pm.Env[k]) > machine.MaxEnvValue:
			errs = append(errs, pol.Errorf(key+".env."+k, "value longer than %d bytes", machine.MaxEnvValue))
		}
	}
	m.Env = maps.Clone(pm.Env)
	if len(errs) > 0 {
		return m, errs
	}
	if err := m.Validate(); err != nil {
		return m, []error{pol.Errorf(key, "%v", strings.TrimPrefix(err.Error(), "machine "+name+": "))}
	}
	return m, nil
}

// machineEnvKeys lists the variables a machine's env takes (machine.IsEnvKey).
const machineEnvKeys = "HSA_OVERRIDE_GFX_VERSION, HSA_OVERRIDE_GFX_VERSION_<node>, ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES, HSA_XNACK"

// machineEnvNames are the names a misspelt machine variable is matched to.
var machineEnvNames = []string{machine.EnvOverride, machine.EnvRocrVisible, machine.EnvHIPVisible, machine.EnvCUDAVisible, machine.EnvXnack}

// MatrixMachines makes the target matrix's agents one-device machines
// (named by their ISA) with the machine environment env and the matrix's
// release and loader, for a run whose environment names machine
// variables and gives no machine.
func MatrixMachines(env map[string]string, agents []*Agent, rel hip.Release, loader finding.Loader) ([]machine.Machine, error) {
	var out []machine.Machine
	for _, a := range agents {
		isa, err := targetid.Parse(a.ISA)
		if err != nil {
			continue
		}
		out = append(out, machine.Machine{Name: a.ISA, Devices: []machine.Device{{ISA: isa}}, HIP: rel,
			Env: maps.Clone(env), Loader: HIPLoader(loader), LoaderSet: true})
	}
	for i := range out {
		if err := out[i].Validate(); err != nil {
			return nil, errs.AsUsage(err)
		}
	}
	return out, nil
}

// ForeignAgent is an agent that cannot run code built for a target it
// stands for (Target): it is simulated as that target's device reporting
// another ISA, as under HSA_OVERRIDE_GFX_VERSION.
type ForeignAgent struct {
	Agent, Target string
}

// ForeignAgents lists each agent that cannot run code built for a
// target it stands for (--target gfx1151 --agent gfx1100, or a policy's
// agents: {gfx1151: [gfx1100]}), with the first such target; an agent
// given (given: --agent) that stands for no target is judged against
// every target of the matrix.
func ForeignAgents(agents []*Agent, matrix []string, given bool) []ForeignAgent {
	var out []ForeignAgent
	for _, a := range agents {
		isa, err := targetid.Parse(a.ISA)
		if err != nil {
			continue
		}
		targets := a.Targets
		if len(targets) == 0 && given {
			targets = matrix
		}
		for _, t := range targets {
			if id, err := targetid.Parse(t); err == nil && !targetid.CompatibleOrGeneric(id, isa) {
				out = append(out, ForeignAgent{Agent: a.ISA, Target: t})
				break
			}
		}
	}
	return out
}
