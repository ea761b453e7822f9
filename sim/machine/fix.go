package machine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// FixKind is the kind of a fix users reported for a machine outcome.
type FixKind uint8

// The fix kinds.
const (
	// AddTarget: build the module for the device's processor (or its
	// generic family on releases that map one).
	AddTarget FixKind = iota
	// HideDevice: set HIP_VISIBLE_DEVICES so the process does not see a
	// device (TheRock#5543: HIP_VISIBLE_DEVICES=1; rocm-jax#390 used
	// ROCR_VISIBLE_DEVICES).
	HideDevice
	// Override: make the device report an ISA the module has code for
	// (pytorch/pytorch#164346: HSA_OVERRIDE_GFX_VERSION=11.0.0). Linux
	// only, to a processor of the device's own family.
	Override
	// UpgradeHIP: a newer HIP release no longer fails this way (PR 9498
	// for the fat-binary loop, PR 9167 for kpack loads, 5.4 for the 5.x
	// abort, kpack support).
	UpgradeHIP
)

// Fix is one way out of an outcome.
type Fix struct {
	Kind FixKind
	// Target is the processor to build for (AddTarget).
	Target string
	// Env is the setting to use (HideDevice, Override): "HIP_VISIBLE_DEVICES=1".
	Env string
	// More are further settings the fix makes with Env (KEY=VALUE), and
	// Unset the variables it removes from the environment: a per-node
	// override in place of a global one.
	More, Unset []string
	// Release is the --hip value to move to (UpgradeHIP).
	Release string
	// Text says it in words.
	Text string

	// hidesSelf marks a HideDevice fix that hides the devices of the
	// outcome it is for (every device of their ISA), which checks
	// without judging (selfHideWorks).
	hidesSelf bool
}

// Fixes returns the fixes for device dev (HIP index) of verdict v, which
// Judge.Module returned for mod: for a device without code, its target,
// hiding it so the others run, and the override to a family member the
// module has code for (Linux, where the release would apply it); for a
// device failed by another, hiding or building for that one and the HIP
// release that stops failing it; for foreign code, one GPU type per
// process or a HIP with PR 9167. A loaded device has none.
func (j *Judge) Fixes(mod Module, v *Verdict, dev int) []Fix {
	return j.FixesFor(mod, v, []int{dev})
}

// FixesFor is Fixes for several devices of v with the same outcome and
// ISA (a machine of 8 identical GPUs): their target, the override and the
// upgrade as for the first, and hiding (or showing) all of them at once.
func (j *Judge) FixesFor(mod Module, v *Verdict, devs []int) []Fix {
	for _, d := range devs {
		if d < 0 || d >= len(v.Devices) {
			return nil
		}
	}
	if len(devs) == 0 {
		return nil
	}
	return j.p.Fixes(mod, v.Machine, v.Windows, devs, v.Devices[devs[0]])
}

// Fixes is Judge.FixesFor for devices devs (HIP indexes, one ISA) of
// machine mi's process (Windows: a PE binary's) that have outcome o
// from mod: the Plan alone answers it, so the rules can ask for the
// fixes of the outcomes they word after judging, from any goroutine.
// Devices outside the view give none. Every fix returned has been
// checked (Works): applied to the machine, the devices no longer have
// o and no device that loaded its code stops loading it.
func (p *Plan) Fixes(mod Module, mi int, windows bool, devs []int, o Outcome) []Fix {
	cands := p.candidates(mod, mi, windows, devs, o)
	if len(cands) == 0 {
		return nil
	}
	m := p.machines[mi]
	alone, ok := p.fixPlan(mi, m, Fix{})
	if !ok {
		return nil
	}
	before := lazyVerdict{p: alone, mod: mod, windows: windows}
	view := &p.views[b2i(windows)][mi]
	out := cands[:0]
	for _, f := range cands {
		if f.hidesSelf || perDeviceFix(m.release(), mod, o, f) || p.works(mi, m, mod, windows, view, &before, devs, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// candidates are the fixes users reported for o, before they are
// checked.
func (p *Plan) candidates(mod Module, mi int, windows bool, devs []int, o Outcome) []Fix {
	if mi < 0 || mi >= len(p.machines) || len(devs) == 0 {
		return nil
	}
	view := &p.views[b2i(windows)][mi]
	for _, d := range devs {
		if d < 0 || d >= len(view.Devices) {
			return nil
		}
	}
	dev := devs[0]
	m := &p.machines[mi]
	rel := m.release()
	out := make([]Fix, 0, 4)
	switch o.Kind {
	case NoCode:
		out = append(out, addTarget(rel, view.Devices[dev].ISA))
		if f, ok := override(mod, m, view, dev); ok {
			out = append(out, f)
		}
		if f, ok := hide(view, devs, "so the other devices do not meet it"); ok {
			f.hidesSelf = true
			out = append(out, f)
		}
		if f, ok := upgrade(rel, mod, o); ok {
			out = append(out, f)
		}
	case FailedByOther, Aborted:
		if o.Other >= 0 {
			if f, ok := hide(view, []int{o.Other}, fmt.Sprintf("so %s %s its code", deviceWords(devs), loadVerb(devs))); ok {
				out = append(out, f)
			}
			out = append(out, addTarget(rel, view.Devices[o.Other].ISA))
		} else {
			out = append(out, addTarget(rel, view.Devices[dev].ISA))
			if f, ok := hide(view, devs, "so the process does not abort"); ok {
				f.hidesSelf = o.Kind == NoCode
				out = append(out, f)
			}
		}
		if f, ok := upgrade(rel, mod, o); ok {
			out = append(out, f)
		}
	case ForeignCode:
		if f, ok := only(view, devs); ok {
			out = append(out, f)
		}
		if f, ok := hide(view, devs, "so no device runs another device's code object"); ok {
			f.hidesSelf = true
			out = append(out, f)
		}
		// no build for the device's own processor: PR 2622's one load
		// registers the first candidate's code object, another device's
		// entries come first or its own would have fit it
		if f, ok := upgrade(rel, mod, o); ok {
			out = append(out, f)
		}
	case Unsupported:
		text := "use a HIP release that loads kpack'd binaries (--hip newest)"
		if m.KpackOff || (rel.Kpack.Value != hip.KpackUnknown && !rel.KpackBuiltIn.Value) {
			text = "use a HIP built with ROCM_KPACK_ENABLED=ON (TheRock's builds from therock-7.13)"
		}
		out = append(out, Fix{Kind: UpgradeHIP, Release: hip.NewestName, Text: text})
	}
	return out
}

// deviceWords names devices: "device 1", "devices 1, 2".
func deviceWords(devs []int) string {
	if len(devs) == 1 {
		return fmt.Sprintf("device %d", devs[0])
	}
	parts := make([]string, len(devs))
	for i, d := range devs {
		parts[i] = strconv.Itoa(d)
	}
	return "devices " + strings.Join(parts, ", ")
}

// loadVerb agrees "load" with devices.
func loadVerb(devs []int) string {
	if len(devs) == 1 {
		return "loads"
	}
	return "load"
}

// addTarget is the fix of building for isa's processor.
func addTarget(rel hip.Release, isa targetid.ID) Fix {
	text := fmt.Sprintf("build the module for %s", isa.Processor)
	if g, ok := rel.GenericTarget(targetid.ID{Processor: isa.Processor}); ok {
		text += fmt.Sprintf(" (or %s, which HIP %s tries after it)", g.Processor, rel.Name)
	}
	return Fix{Kind: AddTarget, Target: isa.Processor, Text: text}
}

// hide is HIP_VISIBLE_DEVICES listing every visible device but devs, by
// the index HIP_VISIBLE_DEVICES counts (Visible.Below), in HIP order.
func hide(view *View, devs []int, why string) (Fix, bool) {
	var keep []string
	for i, d := range view.Devices {
		if !slices.Contains(devs, i) {
			keep = append(keep, strconv.Itoa(d.Below))
		}
	}
	if len(keep) == 0 {
		return Fix{}, false
	}
	env := EnvHIPVisible + "=" + strings.Join(keep, ",")
	return Fix{Kind: HideDevice, Env: env,
		Text: fmt.Sprintf("hide %s (%s) with %s %s", deviceWords(devs), view.Devices[devs[0]].ISA, env, why)}, true
}

// only is HIP_VISIBLE_DEVICES showing devs alone, for a foreign code
// object: one GPU type per process.
func only(view *View, devs []int) (Fix, bool) {
	if len(devs) >= len(view.Devices) {
		return Fix{}, false
	}
	var show []string
	for _, d := range devs {
		show = append(show, strconv.Itoa(view.Devices[d].Below))
	}
	env := EnvHIPVisible + "=" + strings.Join(show, ",")
	return Fix{Kind: HideDevice, Env: env,
		Text: fmt.Sprintf("run one GPU type per process: %s gives %s (%s) its own code object", env, deviceWords(devs), view.Devices[devs[0]].ISA)}, true
}

// upgrade is the newest release when it would not fail o this way.
func upgrade(rel hip.Release, mod Module, o Outcome) (Fix, bool) {
	newest := hip.Newest()
	if rel.Name == newest.Name {
		return Fix{}, false
	}
	var why string
	switch {
	case o.Kind == Aborted && mod.Fat != nil:
		why = "HIP 5.4 and later do not abort when a device has no code object (hipamd 9463e6c0)"
	case o.Kind == FailedByOther && mod.Fat != nil:
		why = "rocm-systems PR 9498 loads every device that has a code object"
	case (o.Kind == FailedByOther || o.Kind == ForeignCode) && mod.Kpack != nil && rel.Kpack.Value == hip.KpackPerProcess:
		why = "rocm-systems PR 9167 loads each device's own code object"
		if o.Kind == FailedByOther && o.Code != kpack.ArchiveNotFound && o.Code != kpack.ArchNotFound {
			return Fix{}, false
		}
	default:
		return Fix{}, false
	}
	return Fix{Kind: UpgradeHIP, Release: newest.Name, Text: fmt.Sprintf("use HIP %s: %s", newest.Name, why)}, true
}

// override finds an HSA_OVERRIDE_GFX_VERSION that makes device dev report
// a processor of its own family the module has code for: Linux only, the
// first such processor by name. The per-node variable is used when other
// visible devices have another real ISA and the release reads it.
func override(mod Module, m *Machine, view *View, dev int) (Fix, bool) {
	if view.Windows {
		return Fix{}, false
	}
	vis := view.Devices[dev]
	real, _ := targetid.LookupProcessor(vis.Real.Processor)
	if real.Family == "" {
		return Fix{}, false
	}
	rel := m.release()
	for _, c := range familyCandidates()[real.Family] {
		p, ver := c.p, c.ver
		if p.Name == vis.ISA.Processor {
			continue
		}
		isa := overriddenISA(vis.Real, p, m.Env[EnvXnack])
		if !hasCode(mod, m, rel, isa) {
			continue
		}
		key := EnvOverride
		if rel.PerNodeOverride.Value && mixed(view, vis.Real) {
			key = fmt.Sprintf("%s%d", envOverrideNode, vis.Node)
		}
		env := key + "=" + ver.String()
		return Fix{Kind: Override, Env: env, Target: p.Name,
			Text: fmt.Sprintf("make device %d report %s with %s (the module has code for %s; a device of the same family runs it as users report, unsupported by AMD)", dev, isa, env, p.Name)}, true
	}
	return Fix{}, false
}

// candidate is a processor an override can name, with its version.
type candidate struct {
	p   targetid.Processor
	ver gfxVersion
}

// familyCandidates returns, per LLVM family, the processors an override
// can name (not generic, not retired, with a gfx version), by name; built
// once.
var familyCandidates = sync.OnceValue(func() map[string][]candidate {
	out := map[string][]candidate{}
	for _, p := range targetid.Processors() {
		if p.Generic || p.Retired || p.Family == "" {
			continue
		}
		if ver, ok := versionOf(p.Name); ok {
			out[p.Family] = append(out[p.Family], candidate{p, ver})
		}
	}
	return out
})

// mixed reports whether a visible device has another real ISA than real.
func mixed(view *View, real targetid.ID) bool {
	for _, d := range view.Devices {
		if !d.Real.Equal(real) {
			return true
		}
	}
	return false
}

// hasCode reports whether the module has code for a device reporting isa
// on rel, asking the oracle directly (override candidates are not in the
// plan).
func hasCode(mod Module, m *Machine, rel hip.Release, isa targetid.ID) bool {
	if mod.Kpack != nil {
		r := mod.Kpack(ArchList{Index: -1, Loader: m.KpackLoader(), Targets: rel.ArchList(isa)})
		return r.Code == kpack.Success
	}
	if mod.Fat != nil {
		_, ok := mod.Fat(Agent{Index: -1, ISA: isa, Release: rel})
		return ok
	}
	return false
}
