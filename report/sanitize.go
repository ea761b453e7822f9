package report

import (
	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// Sanitize returns r with every string it holds passed through
// escape.String: the findings (rule ID, level, message, locations,
// kernels, agents, targets, group, loader, errors, effects, library, missing
// files, trace, fingerprint, baseline state, waiver), what was checked,
// the inventory, the matrix, the notifications, the inputs, the path
// prefix and the rerun command. Every writer (Write and each WriteX) and
// Read (strings read back from a baseline or a shard) go through it, so
// no string of an input, a policy or a report read back reaches an output
// with a raw control character (C0, DEL, C1) or bidi control. Subject is
// kept: it is only hashed into the fingerprint. String lists are copied
// only when a string changes; escape.String is idempotent, so sanitizing
// twice gives the same Run.
func Sanitize(r Run) Run {
	e := escape.String
	r.ToolName, r.ToolVersion, r.InformationURI = e(r.ToolName), e(r.ToolVersion), e(r.InformationURI)
	r.Inputs = strs(r.Inputs)
	r.PathPrefix = e(r.PathPrefix)
	r.Rerun = sanitizeRerun(r.Rerun)
	r.Checked = sanitizeChecked(r.Checked)
	r.Findings = each(r.Findings, sanitizeFinding)
	r.Inventory = each(r.Inventory, func(it finding.InventoryItem) finding.InventoryItem {
		it.Group, it.Target = e(it.Group), e(it.Target)
		it.Archives = each(it.Archives, func(a finding.ArchiveRef) finding.ArchiveRef { a.Path = e(a.Path); return a })
		return it
	})
	r.Matrix = each(r.Matrix, func(c finding.Cell) finding.Cell { c.Group, c.Target = e(c.Group), e(c.Target); return c })
	r.Machines = sanitizeVerdicts(r.Machines)
	r.Notifications = each(r.Notifications, func(n Notification) Notification {
		n.Level, n.Kind, n.Message, n.Source = finding.Level(e(string(n.Level))), e(n.Kind), e(n.Message), e(n.Source)
		return n
	})
	return r
}

func sanitizeRerun(r Rerun) Rerun {
	e := escape.String
	return Rerun{Inputs: strs(r.Inputs), Policy: e(r.Policy), PolicyLoader: e(r.PolicyLoader), Env: strs(r.Env), HIP: e(r.HIP), Loader: e(r.Loader)}
}

func sanitizeChecked(k *Checked) *Checked {
	if k == nil {
		return nil
	}
	e := escape.String
	c := *k
	c.Inputs, c.Targets, c.Agents, c.Env = strs(c.Inputs), strs(c.Targets), strs(c.Agents), strs(c.Env)
	if c.Policy != nil {
		p := e(*c.Policy)
		c.Policy = &p
	}
	c.Variant, c.Loader, c.TargetSource, c.Shard = e(c.Variant), e(c.Loader), e(c.TargetSource), e(c.Shard)
	c.PolicySource = e(c.PolicySource)
	if c.Rerun != nil {
		rr := sanitizeRerun(*c.Rerun)
		c.Rerun = &rr
	}
	c.Baseline, c.Waivers, c.PathPrefix = e(c.Baseline), e(c.Waivers), e(c.PathPrefix)
	c.HIP, c.Machines = e(c.HIP), sanitizeMachines(c.Machines)
	c.Families = each(c.Families, func(f TargetFamily) TargetFamily {
		return TargetFamily{Name: e(f.Name), Processors: strs(f.Processors)}
	})
	return &c
}

func sanitizeFinding(f finding.Finding) finding.Finding {
	e := escape.String
	f.RuleID, f.Level, f.Message = e(f.RuleID), finding.Level(e(string(f.Level))), e(f.Message)
	f.Location.Path = e(f.Location.Path)
	f.Related = each(f.Related, func(l finding.Location) finding.Location { l.Path = e(l.Path); return l })
	f.Kernels, f.Agents, f.Trace, f.Missing = strs(f.Kernels), strs(f.Agents), strs(f.Trace), strs(f.Missing)
	f.Targets = strs(f.Targets)
	f.Group, f.Loader, f.KpackError = e(f.Group), e(f.Loader), e(f.KpackError)
	f.HIPError, f.HIPEffect, f.Library, f.Effect = e(f.HIPError), e(f.HIPEffect), e(f.Library), e(f.Effect)
	f.Fingerprint, f.Baseline, f.Coverage = e(f.Fingerprint), e(f.Baseline), e(f.Coverage)
	if g := f.Grown; g != nil {
		c := *g
		c.Agents, c.Targets, c.Kernels, c.Binaries = strs(c.Agents), strs(c.Targets), strs(c.Kernels), strs(c.Binaries)
		c.Machine, c.Missing, c.Unrecorded = e(c.Machine), strs(c.Missing), strs(c.Unrecorded)
		c.Untold, c.Level, c.WasLevel = strs(c.Untold), finding.Level(e(string(c.Level))), finding.Level(e(string(c.WasLevel)))
		f.Grown = &c
	}
	if m := f.Machine; m != nil {
		c := *m
		c.Machine, c.HIP, c.DeviceISA, c.RealISA, c.Outcome = e(c.Machine), e(c.HIP), e(c.DeviceISA), e(c.RealISA), e(c.Outcome)
		c.Registration, c.Launch, c.Then, c.Fixes = e(c.Registration), e(c.Launch), e(c.Then), strs(c.Fixes)
		f.Machine = &c
	}
	if s := f.Suppression; s != nil {
		c := *s
		c.Justification, c.Source, c.Expires = e(c.Justification), e(c.Source), e(c.Expires)
		f.Suppression = &c
	}
	return f
}

// strs is ss with each string escaped; ss itself when none changes.
func strs(ss []string) []string {
	var out []string
	for i, x := range ss {
		y := escape.String(x)
		if out == nil && y != x {
			out = append(make([]string, 0, len(ss)), ss[:i]...)
		}
		if out != nil {
			out = append(out, y)
		}
	}
	if out == nil {
		return ss
	}
	return out
}

// each returns a copy of xs with f applied to every element (nil for nil).
func each[T any](xs []T, f func(T) T) []T {
	if xs == nil {
		return nil
	}
	out := make([]T, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
