package machine

import (
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// A fix is printed only once it is checked: the machine is judged again
// with the fix applied (an environment variable set, another HIP
// release, or, for AddTarget, the module given code for the processor),
// and the fix works when every device it is about loads its own code or
// is hidden, no device that loaded its code before stops loading it, and
// no device is given another device's code object that was not before.
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
	p, err := NewPlan([]Machine{m})
	if err != nil {
		return false
	}
	alone, ok := p.fixPlan(0, m, Fix{})
	if !ok {
		return false
	}
	return p.works(0, m, mod, windows, p.View(0, windows), &lazyVerdict{p: alone, mod: mod, windows: windows}, devs, f)
}

// A HideDevice fix that hides the devices of the outcome it is for
// (Fix.hidesSelf: every device of their ISA with that outcome, which
// get no code of their own or another device's) works without judging:
// the fix leaves some device (hide keeps one), and no device that loads
// its code stops loading it. The fat-binary loops only fail devices
// after or with the hidden ones; PR 9167 loads each ISA on its own; and
// in PR 2622's one load the hidden devices' arch_list entries found no
// archive entry (one would have fit them), so the code object the others
// get stays the same.

// perDeviceFix reports whether fix f of a device without code (o) works
// without judging the machine again: on a release that loads each device
// on its own (PR 9167's kpack loads, PR 9498's fat-binary loop) building
// for the device's processor, hiding it, or the override to a processor
// the module has code for (override checked that) change that device
// alone. A rejected buffer or an abort is judged.
func perDeviceFix(rel hip.Release, mod Module, o Outcome, f Fix) bool {
	if o.Kind != NoCode || o.Rejected || f.Kind == UpgradeHIP {
		return false
	}
	switch {
	case mod.Kpack != nil:
		return rel.Kpack.Value == hip.KpackPerDevice && rel.KpackBuiltIn.Value
	case mod.Fat != nil:
		return rel.Fat.Value == hip.FatPerDevice
	}
	return false
}

// lazyVerdict is a machine's verdict before a fix, judged when a fix's
// check first needs it (a fix that makes every device load its code
// needs none).
type lazyVerdict struct {
	p       *Plan
	mod     Module
	windows bool
	v       *Verdict
}

// get judges the module once.
func (l *lazyVerdict) get() *Verdict {
	if l.v == nil {
		var v Verdict
		l.p.judge(l.mod, l.windows, func(j Verdict) { v = j.Clone() })
		l.v = &v
	}
	return l.v
}

// works is Works for machine mi of p (m), with its view and verdict
// (before) at hand.
func (p *Plan) works(mi int, m Machine, mod Module, windows bool, view *View, before *lazyVerdict, devs []int, f Fix) bool {
	for _, d := range devs {
		if d < 0 || d >= len(view.Devices) {
			return false
		}
	}
	fixed, ok := p.fixPlan(mi, m, f)
	if !ok {
		return false
	}
	mod2 := mod
	if f.Kind == AddTarget {
		mod2 = withTarget(mod, f.Target)
	}
	view2 := fixed.View(0, windows)
	if len(view2.Devices) == 0 {
		return false
	}
	ok = false
	fixed.judge(mod2, windows, func(after Verdict) { ok = fixWorks(view, view2, after, before, devs) })
	return ok
}

// fixWorks checks the verdict after a fix (view2, after) against the
// view before it and its verdict (before, judged when needed).
func fixWorks(view, view2 *View, after Verdict, before *lazyVerdict, devs []int) bool {
	// the devices concerned load or are hidden; a device that loaded
	// before (by enumerated GPU, Machine.Devices) still loads
	failing := false
	for i, vd := range view2.Devices {
		if kindAt(after, i) == Loaded {
			continue
		}
		failing = true
		for _, d := range devs {
			if view.Devices[d].Device == vd.Device {
				return false
			}
		}
	}
	if !failing {
		return true
	}
	was := before.get()
	for i, vd := range view2.Devices {
		now := kindAt(after, i)
		if now == Loaded {
			continue
		}
		for j, od := range view.Devices {
			if k := kindAt(*was, j); od.Device == vd.Device && (k == Loaded || now == ForeignCode && k != ForeignCode) {
				return false
			}
		}
	}
	return true
}

// kindAt is device i's outcome in v, Loaded for a clean verdict (judge
// hands those over without devices).
func kindAt(v Verdict, i int) Kind {
	if i < len(v.Devices) {
		return v.Devices[i].Kind
	}
	return Loaded
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

// fixPlan returns the one-machine plan of machine mi (m) with fix f
// applied (the zero Fix: m as it is; AddTarget changes the module, not
// the machine), made once per machine and fix while the cache holds
// fewer than maxFixPlans; ok is false when the fixed machine does not
// check. Safe for concurrent use.
func (p *Plan) fixPlan(mi int, m Machine, f Fix) (*Plan, bool) {
	if f.Kind == AddTarget {
		f = Fix{}
	}
	key := fixKey(mi, f)
	p.fixMu.Lock()
	fp, ok := p.fixPlans[key]
	p.fixMu.Unlock()
	if ok {
		return fp, fp != nil
	}
	m2, ok := applyFix(m, f)
	if ok {
		var err error
		if fp, err = NewPlan([]Machine{m2}); err != nil {
			fp = nil
		}
	}
	p.fixMu.Lock()
	if p.fixPlans == nil {
		p.fixPlans = map[string]*Plan{}
	}
	if len(p.fixPlans) < maxFixPlans {
		p.fixPlans[key] = fp
	}
	p.fixMu.Unlock()
	return fp, fp != nil
}

// maxFixPlans bounds the one-machine plans a Plan keeps for checking
// fixes (a few KiB each); past it they are made again each time.
const maxFixPlans = 4096

// fixKey identifies machine mi with fix f applied.
func fixKey(mi int, f Fix) string {
	return strconv.Itoa(mi) + "\x00" + strconv.Itoa(int(f.Kind)) + "\x00" + f.Env + "\x00" + strings.Join(f.More, "\x01") +
		"\x00" + strings.Join(f.Unset, "\x01") + "\x00" + f.Release
}

// judge judges mod on the plan's only machine, asking mod's oracle
// about lists and agents outside any other plan, and hands the verdict
// (the Judge's memory, valid during fn; without devices when every
// device loads its code) to fn. The plan lends Judges from a pool, so
// concurrent checks each get one, and a Judge keeps the verdict of the
// answers it saw last (Judge.Module), which the findings of one machine
// mostly repeat.
func (p *Plan) judge(mod Module, windows bool, fn func(Verdict)) {
	j, _ := p.judges.Get().(*Judge)
	if j == nil {
		j = p.NewJudge()
	}
	if vs := j.Module(outside(mod), windows); len(vs) > 0 {
		fn(vs[0])
	} else {
		fn(Verdict{Windows: windows})
	}
	p.judges.Put(j)
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
