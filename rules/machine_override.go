package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim/machine"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// checkMachineGenerations is KPL009 for the machines: a device that
// reports, under HSA_OVERRIDE_GFX_VERSION, an ISA of another GFX
// generation (machine.Visible.OtherGeneration: a gfx1200 made to report
// gfx1030 by 10.3.0, ROCm/legacy-rocm-build#5069). Releases before
// rocm-systems PR 5686 apply such an override to every GPU, so every code
// object and kernel database the process loads for that device is built
// for another generation. One error per machine and real ISA (its
// devices of that ISA together), for a Linux
// process (Windows does not read the variable) of a build with Linux host
// binaries or kernel-database libraries; the fix is the per-node
// variable, checked (machine.Plan.GenerationFixes).
func checkMachineGenerations(c *Context) []finding.Finding {
	ms := c.Machines
	if ms == nil || !linuxLoads(c) {
		return nil
	}
	var out []finding.Finding
	for mi, m := range ms.Plan.Machines() {
		v := ms.Plan.View(mi, false)
		var groups [][]int // devices of another generation, by real and reported ISA
		for _, d := range v.Devices {
			if !d.OtherGeneration() {
				continue
			}
			i := slices.IndexFunc(groups, func(g []int) bool {
				f := v.Devices[g[0]]
				return f.Real.Equal(d.Real) && f.ISA.Equal(d.ISA)
			})
			if i < 0 {
				groups = append(groups, []int{d.Index})
			} else {
				groups[i] = append(groups[i], d.Index)
			}
		}
		for _, g := range groups {
			out = append(out, generationFinding(c, mi, m, v, g))
		}
	}
	return out
}

// linuxLoads reports whether the build has something a Linux process
// loads device code for: an ELF host binary or a Linux kernel-database
// library.
func linuxLoads(c *Context) bool {
	if c.Machines.Kinds[0] > 0 {
		return true
	}
	if d := c.Machines.Databases; d != nil {
		for _, s := range d.Result.Sites {
			if !windowsLibrary(s) {
				return true
			}
		}
	}
	return false
}

// generationFinding words devices devs (one real and reported ISA) of
// another generation.
func generationFinding(c *Context, mi int, m machine.Machine, v *machine.View, devs []int) finding.Finding {
	rel := m.Release()
	d := v.Devices[devs[0]]
	fixes := fixTexts(c.Machines.Plan.GenerationFixes(mi, d.Index))
	msg := fmt.Sprintf("On machine %s %s reports an ISA of another GFX generation: HIP %s predates rocm-systems PR 5686, which refuses an override to another major version, "+
		"so libhsakmt applies %s to every GPU (topology.c), and every module and kernel database of the process serves it code built for %s (%s), "+
		"code of another generation on a %s device: its launches can crash, hang the GPU or compute wrong results (rocm-systems PR 3461's description).",
		machineWords(m, v), devicesWords(v, devs), rel.Name, d.Override, strings.Join(servedFor(rel.ArchList(d.ISA)), ", "), generation(d.ISA.Processor), generation(d.Real.Processor))
	if len(fixes) > 0 {
		msg += " Fix: " + strings.Join(fixes, "; ") + "."
	}
	loc := firstBinary(c, false)
	if c.Machines.Kinds[0] == 0 && c.Machines.Databases != nil {
		for _, s := range c.Machines.Databases.Result.Sites {
			if !windowsLibrary(s) {
				loc = finding.Location{Input: s.Input, Path: s.Path}
				break
			}
		}
	}
	if c.Policy != nil && c.Policy.Path != "" && c.Policy.Machines[m.Name] != nil {
		loc = finding.Location{Input: finding.PolicyInput, Path: c.Policy.Path}
	}
	return finding.Finding{
		Level:    finding.LevelError,
		Message:  msg,
		Location: loc,
		Agents:   []string{d.ISA.String()},
		Machine: &finding.OnMachine{Machine: m.Name, HIP: rel.Name, Devices: devs, DeviceISA: d.ISA.String(),
			RealISA: d.Real.String(), Outcome: "foreign-code", Fixes: fixes},
		Subject: subject("machine-generation", m.Name, deviceList(devs), d.Real.String(), d.ISA.String()),
	}
}

// servedFor is the arch_list entries without features ("gfx1030",
// "gfx10-3-generic"), for messages.
func servedFor(list []string) []string {
	out := make([]string, 0, len(list))
	for _, t := range list {
		if id, err := targetid.Parse(t); err == nil {
			out = append(out, id.Processor)
		}
	}
	return out
}

// generation names a processor's GFX generation: "gfx10" for gfx1030,
// "gfx9" for gfx90a.
func generation(proc string) string {
	s := strings.TrimPrefix(proc, "gfx")
	if len(s) < 3 {
		return proc
	}
	return "gfx" + s[:len(s)-2]
}
