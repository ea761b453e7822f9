package machine

import (
	"strings"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// A fix is printed only once it is checked: the machine is judged again
// with the fix applied (an environment variable set, another HIP
// release, or, for AddTarget, the module given code for the processor),
// and the fix works when every device it is about loads its own code or
// is hidden, and no device that loaded its code before stops loading it.
// A fix that leaves the process without a GPU does not work.

// Works reports whether fix f, applied to machine m's process (windows:
// a PE binary's), makes devices devs (HIP indexes of m's view, which
// have outcome o) load their code from mod or hides them, without making
// another device fail. mod's oracle
// is asked about lists and agents outside any plan (Index -1).
func Works(m Machine, mod Module, windows bool, devs []int, o Outcome, f Fix) bool {
	if m.Validate() != nil {
		return false
	}
	before, ok := judgeAlone(m, mod, windows)
	if !ok {
		return false
	}
	view := m.View(windows)
	return works(m, mod, windows, &view, before, devs, o, f)
}

// works is Works with m's view and verdict (before) at hand.
func works(m Machine, mod Module, windows bool, view *View, before Verdict, devs []int, o Outcome, f Fix) bool {
	for _, d := range devs {
		if d < 0 || d >= len(view.Devices) || d >= len(before.Devices) {
			return false
		}
	}
	m2, ok := applyFix(m, f)
	if !ok {
		return false
	}
	mod2 := mod
	if f.Kind == AddTarget {
		mod2 = withTarget(mod, f.Target)
	}
	after, ok := judgeAlone(m2, mod2, windows)
	if !ok {
		return false
	}
	view2 := m2.View(windows)
	if len(view2.Devices) == 0 {
		return false
	}
	// outcome per enumerated GPU (Machine.Devices index), before and after
	was := map[int]Kind{}
	for i, vd := range view.Devices {
		was[vd.Device] = before.Devices[i].Kind
	}
	concerned := map[int]bool{}
	for _, d := range devs {
		concerned[view.Devices[d].Device] = true
	}
	for i, vd := range view2.Devices {
		now := after.Devices[i]
		if k, ok := was[vd.Device]; ok && k == Loaded && now.Kind != Loaded {
			return false
		}
		if concerned[vd.Device] && now.Kind != Loaded {
			return false
		}
	}
	return true
}

// applyFix returns m with fix f applied: its Env setting
// (HIP_VISIBLE_DEVICES=1, HSA_OVERRIDE_GFX_VERSION_2=10.3.0) or its
// release; AddTarget changes the module, not the machine. ok is false
// for a fix that does not read or a machine that no longer checks.
func applyFix(m Machine, f Fix) (Machine, bool) {
	switch f.Kind {
	case HideDevice, Override:
		env := make(map[string]string, len(m.Env)+1)
		for k, v := range m.Env {
			env[k] = v
		}
		for _, k := range f.Unset {
			delete(env, k)
		}
		for _, kv := range append([]string{f.Env}, f.More...) {
			if kv == "" && len(f.Unset) > 0 {
				continue
			}
			key, val, ok := strings.Cut(kv, "=")
			if !ok || !IsEnvKey(key) {
				return m, false
			}
			env[key] = val
		}
		m.Env = env
	case UpgradeHIP:
		rel, err := hip.Lookup(f.Release)
		if err != nil {
			return m, false
		}
		m.HIP, m.KpackOff = rel, false
	}
	return m, m.Validate() == nil
}

// judgeAlone judges mod on machine m alone; ok is false when m does not
// check.
func judgeAlone(m Machine, mod Module, windows bool) (Verdict, bool) {
	p, err := NewPlan([]Machine{m})
	if err != nil {
		return Verdict{}, false
	}
	return p.NewJudge().Verdict(outside(mod), windows, 0).Clone(), true
}

// outside is mod asked about lists and agents outside its plan: the
// caller's oracle must not read the indexes of another plan.
func outside(mod Module) Module {
	out := Module{}
	if mod.Kpack != nil {
		f := mod.Kpack
		out.Kpack = func(l ArchList) Load { l.Index = -1; return f(l) }
	}
	if mod.Fat != nil {
		f := mod.Fat
		out.Fat = func(a Agent) (int, bool) { a.Index = -1; return f(a) }
	}
	return out
}

// withTarget is mod built for processor proc too, as AddTarget says: a
// kpack module's archives then hold every kernel for proc (target proc,
// without features), an offload bundle an entry for proc. A load whose
// arch_list starts with a proc ISA (the device's own list, or PR 2622's
// combined list when device 0 is proc) is served proc's code object; a
// later proc entry serves it when the module found no archive for the
// earlier entries (ARCHIVE_NOT_FOUND, ARCH_NOT_FOUND) or the loader
// falls through to it. A loader abort and a buffer that is not an ELF
// file stay: building for another processor changes neither.
func withTarget(mod Module, proc string) Module {
	out := mod
	if mod.Kpack != nil {
		f := mod.Kpack
		out.Kpack = func(l ArchList) Load {
			r := f(l)
			if r.Code == kpack.Abort || r.NotELF {
				return r
			}
			at := -1
			for i, t := range l.Targets {
				if id, err := targetid.Parse(t); err == nil && id.Processor == proc {
					at = i
					break
				}
			}
			switch {
			case at < 0:
				return r
			case at == 0,
				r.Code == kpack.ArchiveNotFound || r.Code == kpack.ArchNotFound,
				r.Code != kpack.Success && l.Loader == hip.FallthroughLoader:
				return Load{Code: kpack.Success, Target: proc}
			}
			return r
		}
	}
	if mod.Fat != nil {
		f := mod.Fat
		out.Fat = func(a Agent) (int, bool) {
			if a.ISA.Processor == proc {
				return 0, true
			}
			return f(a)
		}
	}
	return out
}

// ApplyFix returns m with the fix's environment settings or release
// applied (AddTarget leaves m as it is), for callers that check a fix on
// what they simulate themselves (kernel databases); ok is false for a
// fix that does not read or a machine that no longer checks.
func ApplyFix(m Machine, f Fix) (Machine, bool) { return applyFix(m, f) }

// HideFix is the fix that hides devices devs (HIP indexes of view) with
// HIP_VISIBLE_DEVICES, counted as HIP counts (Visible.Below), why saying
// what it is for ("so device 1 runs"); ok is false when no device would
// be left.
func HideFix(view *View, devs []int, why string) (Fix, bool) { return hide(view, devs, why) }
