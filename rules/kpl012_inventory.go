package rules

import (
	"fmt"
	"math"
	"slices"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// inventoryRegression is KPL012: a kpack group lost a target or most of its
// kernels since the baseline. Its findings take their ID from it (Run);
// explain shows nothing of it: the cause is what the build lost, not one
// load.
var inventoryRegression = Rule{
	Rule: finding.Rule{
		ID: "KPL012", Name: "inventory-regression", Level: finding.LevelError,
		Title: "A kpack group lost a target or most of its kernels since the baseline",
		Text: "Against a baseline report (check --baseline), a kpack group x target whose archives are gone, or that holds " +
			"fewer kernel keys than the baseline by more than the allowed share (--max-kernel-loss, 10%). " +
			"TheRock PR 6362: a stray 3-kernel blas_lib_gfx906 artifact overwrote the 646-kernel one and gfx906 users got hipErrorInvalidImage.",
		Help: "Package the group's archive for that target from the complete build (look for an artifact that overwrote it); " +
			"if the kernels or the target were dropped on purpose, refresh the baseline.",
	},
	Checks: []Check{checkInventory},
}

// DefaultMaxKernelLoss is the share of a group x target's kernel keys
// (10%) it may lose against the baseline before KPL012 reports it.
const DefaultMaxKernelLoss = 0.10

// checkInventory is KPL012: against a baseline report (check --baseline),
// a kpack group x target whose archives are gone, or that lost more than
// MaxKernelLoss of its kernel keys. TheRock PR 6362 (TheRock#5274): a stray
// 3-kernel blas_lib_gfx906 artifact overwrote the 646-kernel one and users
// saw hipErrorInvalidImage on gfx906.
func checkInventory(c *Context) []finding.Finding {
	if c.BaselineInventory == nil {
		return nil
	}
	now := map[[2]string]finding.InventoryItem{}
	for _, it := range c.Inventory {
		now[[2]string{it.Group, it.Target}] = it
	}
	var out []finding.Finding
	for _, was := range c.BaselineInventory {
		if was.Kernels == 0 {
			continue
		}
		is, ok := now[[2]string{was.Group, was.Target}]
		lost := was.Kernels - is.Kernels
		if ok && float64(lost) <= c.MaxKernelLoss*float64(was.Kernels) {
			continue
		}
		out = append(out, inventoryFinding(c, was, is, ok))
	}
	return out
}

func inventoryFinding(c *Context, was, is finding.InventoryItem, present bool) finding.Finding {
	f := finding.Finding{
		Group:   was.Group,
		Subject: subject(was.Group, was.Target, "inventory"),
	}
	effect := lossEffect(c, was.Group, was.Target)
	if !present {
		f.Location = baselineLocation(c, was)
		f.Message = fmt.Sprintf("Kpack group %s no longer ships %s: the baseline had %d kernel keys (%s) for it in %s, this build has no archive declaring it. "+
			"%s Fix: ship the archive again; if dropping %s is intended, refresh the baseline.",
			was.Group, was.Target, was.Kernels, sizeText(was.Bytes), finding.CapList(refPaths(was.Archives), finding.MaxListed, ", "), effect, was.Target)
		return f
	}
	f.Location = baselineLocation(c, is)
	share := float64(was.Kernels-is.Kernels) / float64(was.Kernels)
	f.Message = fmt.Sprintf("Kpack group %s lost %d of its %d kernel keys for %s since the baseline (%s; more than the %s allowed): %s now holds %d kernel keys (%s, was %s). "+
		"A smaller artifact may have overwritten the full one (TheRock PR 6362: hipErrorInvalidImage on gfx906). %s "+
		"Fix: package the group's %s archive from the complete build; if the kernels were removed on purpose, refresh the baseline.",
		was.Group, was.Kernels-is.Kernels, was.Kernels, was.Target, percent(share), percent(c.MaxKernelLoss),
		finding.CapList(refPaths(is.Archives), finding.MaxListed, ", "), is.Kernels, sizeText(is.Bytes), sizeText(was.Bytes), effect, was.Target)
	return f
}

// lossEffect says what fewer kernels for group x target mean in this run:
// the simulated loads of the group that fail on agents that run code
// built for target, else that none fails (the loader serves those agents
// from other archives of the group, with code not built for target) or
// that no simulated agent runs such code.
func lossEffect(c *Context, group, target string) string {
	t, err := targetid.Parse(target)
	if err != nil {
		return fmt.Sprintf("The build has fewer kernels for %s than the baseline.", target)
	}
	var agents []string
	failed := map[string]bool{}
	for _, a := range c.Agents {
		if id, err := targetid.Parse(a.ISA); err == nil && targetid.CompatibleOrGeneric(t, id) {
			agents = append(agents, a.ISA)
		}
	}
	loads := 0
	for i := range c.Outcomes {
		o := &c.Outcomes[i]
		if o.Site.Group == group && slices.Contains(agents, o.Agent.ISA) && !c.result(o).OK() {
			loads++
			failed[o.Agent.ISA] = true
		}
	}
	switch {
	case loads > 0:
		return fmt.Sprintf("%s of kpack group %s fail on %s (see KPL001 and KPL006).",
			plural(loads, "kernel load"), group, listAgents(sortedKeys(failed)))
	case len(agents) > 0:
		return fmt.Sprintf("No simulated load of the group fails on %s: the loader serves them from other archives of the group, "+
			"with code not built for %s, so the build has fewer kernels for %s than the baseline.", listAgents(agents), target, target)
	}
	return fmt.Sprintf("No simulated agent runs code built for %s; devices that do get fewer kernels than with the baseline.", target)
}

// baselineLocation points at the item's first archive; an input index the
// run does not have (a baseline of more inputs) falls back to the first.
func baselineLocation(c *Context, it finding.InventoryItem) finding.Location {
	if len(it.Archives) == 0 {
		return finding.Location{Path: it.Group}
	}
	a := it.Archives[0]
	if a.Input < 0 || a.Input >= max(len(c.Inputs), 1) {
		a.Input = 0
	}
	return finding.Location{Input: a.Input, Path: a.Path}
}

func refPaths(refs []finding.ArchiveRef) []string {
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		out = append(out, r.Path)
	}
	return out
}

// percent writes a share as "99.5%" (one decimal, trailing ".0" dropped).
func percent(share float64) string {
	v := math.Round(share*1000) / 10
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f%%", v)
	}
	return fmt.Sprintf("%.1f%%", v)
}

// sizeText writes a byte count for people: "512 bytes", "1.5 MiB".
func sizeText(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	v, suffix := float64(n), []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	i := -1
	for v >= unit && i < len(suffix)-1 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %s", v, suffix[i])
}
