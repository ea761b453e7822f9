package rules

import (
	"fmt"
	"slices"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// One environment that leaves a process without a GPU is one cause,
// however many machines it is set on: a mistyped --env
// HSA_OVERRIDE_GFX_VERSION=11.0 hides the GPU of every agent of the
// target matrix (each a machine of its own) for the same reason, and is
// reported once, naming the machines.

// noDevicePart is the KPL010 finding of one machine's processes of one
// kind that see no device (checkMachineNoDevice), with what joins it to
// the others of its cause.
type noDevicePart struct {
	m        machine.Machine
	v        *machine.View
	kind     string // "Linux" or "Windows"
	binaries int    // host binaries of that kind
	f        finding.Finding
}

// noDeviceCause is what makes two machines' processes see no device for
// one reason: the process kind, the release and the runtime's reason
// (machine.Hidden.Why, which names the variable and its value).
type noDeviceCause struct {
	kind, release, why string
	noRuntime          bool
	binaries           int
}

func (p noDevicePart) cause() noDeviceCause {
	why := "the environment hides every GPU"
	if h := p.v.Hidden; h != nil {
		why = h.Why
	}
	return noDeviceCause{kind: p.kind, release: p.m.Release().Name, why: why, noRuntime: p.v.NoRuntime, binaries: p.binaries}
}

// joinNoDevice reports the parts of one cause once, in the order their
// first machine comes: a cause of one machine as its own finding, of
// several as one finding that names every machine (at most
// finding.MaxListed, then "... and N more"), lists their device ISAs as
// its agents and has the cause, not a machine, as its Subject.
func joinNoDevice(parts []noDevicePart) []finding.Finding {
	index := map[noDeviceCause]int{}
	var groups [][]noDevicePart
	for _, p := range parts {
		k := p.cause()
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], p)
	}
	out := make([]finding.Finding, 0, len(groups))
	for _, g := range groups {
		if len(g) == 1 {
			out = append(out, g[0].f)
			continue
		}
		out = append(out, joinedNoDevice(g))
	}
	return out
}

// joinedNoDevice is the one finding of several machines whose processes
// of one kind see no device for one reason.
func joinedNoDevice(g []noDevicePart) finding.Finding {
	first, k := g[0], g[0].cause()
	var names, agents []string
	for _, p := range g {
		names = append(names, p.m.Name)
		for _, d := range p.m.Devices {
			agents = append(agents, d.ISA.String())
		}
	}
	slices.Sort(agents)
	agents = slices.Compact(agents)
	env := "HIP " + k.release
	fix := "correct the machines' environment"
	if h := first.v.Hidden; h != nil {
		env += "; " + h.Var + "=" + h.Value
		fix = h.Fix
		if !sameFix(g) {
			fix = fmt.Sprintf("on machine %s (the others alike, each with its own devices' values), %s", first.m.Name, h.Fix)
		}
	}
	runtime := "HIP starts without a GPU"
	if k.noRuntime {
		runtime = "hsa_init fails and HIP starts without a GPU"
	}
	loaded := fmt.Sprintf("none of the build's %d %s host binaries is loaded there", k.binaries, k.kind)
	if k.binaries == 1 {
		loaded = fmt.Sprintf("the build's %s host binary is not loaded there", k.kind)
	}
	msg := fmt.Sprintf("On %d machines, %s (%s), a %s process has no GPU: %s. So %s: hipGetDeviceCount returns hipErrorNoDevice, "+
		"%s and nothing of the build is checked on these machines. Fix: %s.",
		len(g), finding.CapList(names, finding.MaxListed, ", "), env, k.kind, k.why, runtime, loaded, fix)
	f := first.f
	f.Message, f.Agents = msg, agents
	f.Machine = &finding.OnMachine{HIP: k.release, Windows: k.kind == "Windows", Outcome: "no-device"}
	f.Subject = subject("machines", "no-device", k.kind, k.release, k.why)
	return f
}

// sameFix reports whether every part's machine is fixed alike.
func sameFix(g []noDevicePart) bool {
	for _, p := range g[1:] {
		if p.v.Hidden == nil || p.v.Hidden.Fix != g[0].v.Hidden.Fix {
			return false
		}
	}
	return true
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
