package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// A HIP release that cannot load kpack'd binaries at all (one before
// rocm-systems PR 2622, or built without ROCM_KPACK_ENABLED) fails every
// kpack'd host binary on every agent and machine it is simulated for:
// one cause, which checkUnsupported and the machines' KPL001 report per
// binary (and machine). JoinUnsupported reports it once.

// MaxJoinedRelated bounds the related locations (the other binaries) of
// a finding JoinUnsupported joins; its message counts them all.
const MaxJoinedRelated = 100

// JoinUnsupported joins the KPL001 findings whose outcome is
// "unsupported" (the release cannot load the binary's HIPK wrappers)
// into one finding per level, release, reason and process kind, when
// there are several: it lists every binary (the first in its message and
// location, at most MaxJoinedRelated others as related locations), every
// kernel key and agent, and the machines; its Subject is the cause (the
// release and the reason), its group none. The other findings are
// returned as they are, in their order, the joined ones where their
// first part was (re-sort with finding.Sort). It runs after the shard's
// findings are taken (lint.Run): each part is a binary of the shard, and
// the joined finding spans kpack groups.
func JoinUnsupported(c *Context, fs []finding.Finding) []finding.Finding {
	type key struct {
		level            finding.Level
		release, reason  string
		windows          bool
		registration, hi string
	}
	groups := map[key][]int{}
	var order []key
	for i, f := range fs {
		if f.RuleID != unreachableKernel.ID || f.Machine == nil || f.Machine.Outcome != machine.Unsupported.String() {
			continue
		}
		k := key{f.Level, f.Machine.HIP, unsupportedReason(c, f), f.Machine.Windows, f.Machine.Registration, f.HIPError}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	joined := map[int]finding.Finding{}
	drop := map[int]bool{}
	for _, k := range order {
		idx := groups[k]
		if len(idx) < 2 {
			continue
		}
		parts := make([]finding.Finding, len(idx))
		for i, j := range idx {
			parts[i] = fs[j]
			drop[j] = true
		}
		joined[idx[0]] = joinUnsupportedParts(c, parts, k.reason)
	}
	if len(joined) == 0 {
		return fs
	}
	out := make([]finding.Finding, 0, len(fs)-len(drop)+len(joined))
	for i, f := range fs {
		if j, ok := joined[i]; ok {
			out = append(out, j)
		} else if !drop[i] {
			out = append(out, f)
		}
	}
	return out
}

// unsupportedReason says why f's release loads no kpack'd binary: "HIP
// 6.2 predates kpack (rocm-systems PR 2622) and does not know the HIPK
// wrapper magic", or that the release was built without
// ROCM_KPACK_ENABLED (a machine's kpackOff:, or a release whose HIP is
// not built with it), as machineWhy words it.
func unsupportedReason(c *Context, f finding.Finding) string {
	rel := c.release()
	off := false
	if name := f.Machine.Machine; name != "" && c.Machines != nil {
		for _, m := range c.Machines.Plan.Machines() {
			if m.Name == name {
				rel, off = m.Release(), m.KpackOff
				break
			}
		}
	}
	if off || (rel.Kpack.Value != hip.KpackUnknown && !rel.KpackBuiltIn.Value) {
		return fmt.Sprintf("this HIP %s was built without ROCM_KPACK_ENABLED and rejects kpack (HIPK) wrappers", rel.Name)
	}
	return fmt.Sprintf("HIP %s predates kpack (rocm-systems PR 2622) and does not know the HIPK wrapper magic", rel.Name)
}

// joinUnsupportedParts is the one finding of parts (one cause, at least
// two), sorted first.
func joinUnsupportedParts(c *Context, parts []finding.Finding, reason string) finding.Finding {
	slices.SortStableFunc(parts, finding.Compare)
	m := parts[0]
	seen := map[locKey]bool{}
	var binaries []finding.Location
	var machines, fixes, matrixAgents []string
	targets := map[string]bool{}
	matrix := false
	m.Kernels, m.Agents, m.Related = nil, nil, nil
	for _, p := range parts {
		if k := locKeyOf(p.Location); !seen[k] {
			seen[k] = true
			binaries = append(binaries, p.Location)
		}
		m.Kernels = append(m.Kernels, p.Kernels...)
		m.Agents = append(m.Agents, p.Agents...)
		for _, t := range p.Targets {
			targets[t] = true
		}
		if name := p.Machine.Machine; name == "" {
			matrix = true
			matrixAgents = append(matrixAgents, p.Agents...)
		} else if !slices.Contains(machines, name) {
			machines = append(machines, name)
		}
		fixes = appendNew(fixes, p.Machine.Fixes)
		if p.Group != m.Group {
			m.Group = ""
		}
		if p.Loader != m.Loader {
			m.Loader = ""
		}
	}
	finding.SortKernels(m.Kernels)
	m.Kernels = slices.Compact(m.Kernels)
	slices.Sort(m.Agents)
	m.Agents = slices.Compact(m.Agents)
	m.Targets = orderTargets(c, targets)
	m.Related = binaries[1:min(len(binaries), MaxJoinedRelated+1)]
	if len(fixes) == 0 {
		fixes = []string{"use a HIP release that loads kpack'd binaries (--hip newest)"}
	}
	machines = planOrder(c, machines)
	om := *parts[0].Machine
	om.Machine, om.Devices, om.DeviceISA, om.RealISA, om.OtherDevice, om.Fixes = "", nil, "", "", nil, fixes
	if !matrix && len(machines) == 1 {
		om.Machine, om.Devices = machines[0], parts[0].Machine.Devices
	}
	m.Machine = &om
	paths := make([]string, len(binaries))
	for i, l := range binaries {
		paths[i] = l.Path
	}
	m.Message = fmt.Sprintf("%d kpack'd host binaries (%s) cannot be loaded %s: %s, so %s. Fix: %s, or ship the binaries with embedded device code.",
		len(binaries), finding.CapList(paths, finding.MaxListed, ", "), unsupportedWhere(distinctSorted(matrixAgents), matrix, machines), reason, m.HIPEffect, strings.Join(fixes, "; "))
	m.Subject = subject("hip-unsupported", om.HIP, reason, fmt.Sprint(om.Windows))
	return m
}

// unsupportedWhere names where the binaries were judged: "on the 21
// agents of the target matrix (gfx1010:xnack+, ...) and on machines
// gfx942, gfx1100".
func unsupportedWhere(agents []string, matrix bool, machines []string) string {
	var parts []string
	if matrix {
		parts = append(parts, fmt.Sprintf("on %s of the target matrix (%s)", plural(len(agents), "agent"), listAgents(agents)))
	}
	if len(machines) > 0 {
		noun := "machine"
		if len(machines) > 1 {
			noun = "machines"
		}
		parts = append(parts, fmt.Sprintf("on %s %s", noun, finding.CapList(machines, finding.MaxListed, ", ")))
	}
	if len(parts) == 2 {
		return parts[0] + " and " + parts[1]
	}
	return parts[0]
}

func distinctSorted(xs []string) []string {
	slices.Sort(xs)
	return slices.Compact(xs)
}

// planOrder orders machine names as the run's machines are.
func planOrder(c *Context, names []string) []string {
	if c.Machines == nil {
		return names
	}
	var out []string
	for _, m := range c.Machines.Plan.Machines() {
		if slices.Contains(names, m.Name) && !slices.Contains(out, m.Name) {
			out = append(out, m.Name)
		}
	}
	return out
}
