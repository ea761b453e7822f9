package machine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// gfxVersion is an HSA_OVERRIDE_GFX_VERSION value: MAJOR.MINOR.STEPPING.
type gfxVersion struct{ major, minor, step uint64 }

// parseGfxVersion reads a value as libhsakmt does (topology.c:1243-1246
// @1b1610fc): sscanf(value, "%u.%u.%u%c") must read exactly three numbers
// with nothing after them, and major <= 63, minor <= 255, stepping <= 255.
// Each number is decimal and may follow white space and a sign, as %u
// reads it ("-1" wraps and fails the bound). ok is false otherwise, empty
// values included.
func parseGfxVersion(s string) (gfxVersion, bool) {
	var v [3]uint64
	rest := s
	for i := range v {
		if i > 0 {
			if !strings.HasPrefix(rest, ".") {
				return gfxVersion{}, false
			}
			rest = rest[1:]
		}
		n, after, ok := scanUnsigned(rest)
		if !ok {
			return gfxVersion{}, false
		}
		v[i], rest = n, after
	}
	if rest != "" || v[0] > 63 || v[1] > 255 || v[2] > 255 {
		return gfxVersion{}, false
	}
	return gfxVersion{v[0], v[1], v[2]}, true
}

// scanUnsigned is scanf's %u: white space, an optional sign, decimal
// digits. A negative number wraps (it is returned as past every bound).
func scanUnsigned(s string) (uint64, string, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == 0 {
		return 0, s, false
	}
	n, err := strconv.ParseUint(s[:end], 10, 64)
	if err != nil || (neg && n != 0) {
		n = 1 << 63
	}
	return n, s[end:], true
}

// processor returns the processor ROCr registers for the version (core/
// runtime/isa.cpp ISAREG_ENTRY_GEN("gfx90a", 9, 0, 10, ...)): "gfx", the
// major number in decimal, then minor and stepping as one hex digit each
// (9.0.10 -> gfx90a, 11.5.1 -> gfx1151). ok is false when no device
// processor has that name (ROCr knows no such ISA): a minor or stepping
// above 15, an unknown or generic name.
func (v gfxVersion) processor() (targetid.Processor, bool) {
	if v.minor > 15 || v.step > 15 {
		return targetid.Processor{}, false
	}
	p, ok := targetid.LookupProcessor(fmt.Sprintf("gfx%d%x%x", v.major, v.minor, v.step))
	if !ok || p.Generic || p.Retired {
		return targetid.Processor{}, false
	}
	return p, true
}

// String writes the version as the variable takes it.
func (v gfxVersion) String() string { return fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.step) }

// versionOf returns the HSA_OVERRIDE_GFX_VERSION value naming processor
// name ("gfx1100" -> 11.0.0, "gfx90a" -> 9.0.10); ok is false for names
// that are not gfx<major><minor hex><stepping hex>.
func versionOf(name string) (gfxVersion, bool) {
	s, ok := strings.CutPrefix(name, "gfx")
	if !ok || len(s) < 3 {
		return gfxVersion{}, false
	}
	major, err := strconv.ParseUint(s[:len(s)-2], 10, 64)
	if err != nil {
		return gfxVersion{}, false
	}
	minor, err1 := strconv.ParseUint(s[len(s)-2:len(s)-1], 16, 64)
	step, err2 := strconv.ParseUint(s[len(s)-1:], 16, 64)
	if err1 != nil || err2 != nil {
		return gfxVersion{}, false
	}
	return gfxVersion{major, minor, step}, true
}

// overriddenISA is the ISA a device reports under an override naming
// processor p (core/runtime/amd_gpu_agent.cpp:134-180@1b1610fc): sramecc
// only if p supports it, set as the real device has it (its SRAM ECC
// capability; a real processor without the feature has no ECC: off);
// xnack only if p supports it, from the process xnack mode (HSA_XNACK, else
// the real device's setting, else off). Processors whose devices report
// the bare ISA stay bare.
func overriddenISA(real targetid.ID, p targetid.Processor, xnack string) targetid.ID {
	out := targetid.ID{Processor: p.Name}
	if _, bare := targetid.ReportsBareISA(p.Name); bare {
		return out
	}
	if p.Sramecc {
		on, _ := real.Setting(targetid.Sramecc)
		out.Features = append(out.Features, targetid.Feature{Name: targetid.Sramecc, Enabled: on})
	}
	if p.Xnack {
		on, set := real.Setting(targetid.Xnack)
		if xnack != "" {
			on, set = xnack == "1", true
		}
		out.Features = append(out.Features, targetid.Feature{Name: targetid.Xnack, Enabled: on && set})
	}
	return out
}

// OtherGeneration reports whether the device reports, under an override,
// an ISA of another GFX major version than its own (a gfx1200 made to
// report gfx1030 by HSA_OVERRIDE_GFX_VERSION=10.3.0): every module and
// kernel database then serves it code of another generation. Releases
// before rocm-systems PR 5686 apply such an override (Release.OverrideBug;
// libhsakmt topology.c:1237-1251@1b1610fc takes any three numbers), later
// ones refuse it.
func (d Visible) OtherGeneration() bool {
	if d.Override == "" {
		return false
	}
	real, ok1 := versionOf(d.Real.Processor)
	now, ok2 := versionOf(d.ISA.Processor)
	return ok1 && ok2 && real.major != now.major
}

// GenerationFixes returns the checked fixes for visible device dev of
// machine mi's Linux process, which reports an ISA of another generation
// under an override (OtherGeneration): the override set per node for the
// devices it is meant for and the global one unset, where the release
// reads HSA_OVERRIDE_GFX_VERSION_<n> (ROCR-Runtime 84567b64, ROCm 6.3);
// else the device hidden with ROCR_VISIBLE_DEVICES from the process that
// needs the override; or the variable unset when no device is of its
// generation. Each fix is checked (no visible device reports another
// generation afterwards, and the devices the override is meant for keep
// the ISA it names); none for a device that does not report another
// generation.
func (p *Plan) GenerationFixes(mi int, dev int) []Fix {
	if mi < 0 || mi >= len(p.machines) {
		return nil
	}
	view := &p.views[0][mi]
	if dev < 0 || dev >= len(view.Devices) || !view.Devices[dev].OtherGeneration() {
		return nil
	}
	m := p.machines[mi]
	var out []Fix
	for _, f := range generationCandidates(&m, view, dev) {
		if generationFixWorks(m, view, dev, f) {
			out = append(out, f)
		}
	}
	return out
}

// generationCandidates are the fixes GenerationFixes checks.
func generationCandidates(m *Machine, view *View, dev int) []Fix {
	d := view.Devices[dev]
	key, val, _ := strings.Cut(d.Override, "=")
	target, _ := versionOf(d.ISA.Processor)
	var meant []Visible // devices of the override's generation
	for _, o := range view.Devices {
		if r, ok := versionOf(o.Real.Processor); ok && r.major == target.major && o.Override == d.Override {
			meant = append(meant, o)
		}
	}
	rel := m.release()
	var out []Fix
	switch {
	case key != EnvOverride:
		out = append(out, Fix{Kind: Override, Unset: []string{key},
			Text: fmt.Sprintf("unset %s, which makes device %d (%s) report %s", key, dev, d.Real, d.ISA)})
	case len(meant) == 0:
		out = append(out, Fix{Kind: Override, Unset: []string{key},
			Text: fmt.Sprintf("unset %s: no device of the process is of the generation of %s", key, d.ISA.Processor)})
	case rel.PerNodeOverride.Value:
		var set, words []string
		for _, o := range meant {
			set = append(set, fmt.Sprintf("%s%d=%s", envOverrideNode, o.Node, val))
			words = append(words, fmt.Sprintf("device %d (%s, KFD node %d)", o.Index, o.Real, o.Node))
		}
		out = append(out, Fix{Kind: Override, Env: set[0], More: set[1:], Unset: []string{key},
			Text: fmt.Sprintf("set the override per node: unset %s and set %s for %s, so device %d (%s) keeps its own ISA",
				key, strings.Join(set, " "), strings.Join(words, ", "), dev, d.Real)})
	default:
		var show []string
		for _, o := range meant {
			show = append(show, strconv.Itoa(o.Device))
		}
		env := EnvRocrVisible + "=" + strings.Join(show, ",")
		out = append(out, Fix{Kind: HideDevice, Env: env,
			Text: fmt.Sprintf("HIP %s does not read the per-node %s<n> (ROCm 6.3 and later do): run the devices the override is for in their own process (%s with %s) "+
				"and device %d (%s) in another without it", rel.Name, envOverrideNode, env, d.Override, dev, d.Real)})
	}
	return out
}

// generationFixWorks applies f to m and checks that no visible device
// reports another generation, that the process sees a GPU and that
// every device of the override's generation that reported its ISA still
// does.
func generationFixWorks(m Machine, before *View, dev int, f Fix) bool {
	m2, ok := applyFix(m, f)
	if !ok {
		return false
	}
	after := m2.View(false)
	if len(after.Devices) == 0 {
		return false
	}
	now := map[int]Visible{}
	for _, d := range after.Devices {
		if d.OtherGeneration() {
			return false
		}
		now[d.Device] = d
	}
	for _, d := range before.Devices {
		if d.Override == "" || d.OtherGeneration() {
			continue
		}
		if a, ok := now[d.Device]; ok && !a.ISA.Equal(d.ISA) {
			return false
		}
	}
	return true
}
