package kerneldb

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Wheel extras. TheRock's rocm meta package selects device code with
// extras (ROCm/TheRock build_tools/packaging/python/templates/rocm/setup.py
// lines 58-69 at therock-7.14, 418cd5f63abb): one extra per optional
// package (libraries, device, devel, profiler) and, for a target-specific
// package of a distribution with several targets, one extra per target
// ("device-gfx942": rocm-sdk-device-gfx942==VERSION, with a sys_platform
// marker for a target one platform alone publishes) and "device-all"
// requiring every one of them (rocm_sdk/_dist_info.py
// build_per_target_extras, lines 339-367). The installed METADATA holds
// them as "Provides-Extra: device-all" and "Requires-Dist:
// rocm-sdk-device-gfx942==7.14.0; extra == \"device-all\"". A device-all
// without a target's device wheel installs no device code (kpack
// archives, kernel databases) for it: TheRock#5347, rocm[device-all] on
// Linux without rocm-sdk-device-gfx942 and -gfx950.

// WheelExtras is a distribution of the inputs whose METADATA provides
// extras: its name (METADATA Name:), the tree path of the METADATA, the
// input it came from, and its extras sorted by name.
type WheelExtras struct {
	Wheel, Metadata string
	Input           int
	Extras          []Extra
}

// Extra is one extra: its name as PEP 685 normalises it (lowercase, runs
// of "-", "_" and "." as one "-"), whether Provides-Extra declares it,
// and the distributions Requires-Dist names under it (PEP 508 names as
// written, distinct, in file order). Other markers next to the extra
// (sys_platform == "win32") are not evaluated: the requirement counts.
type Extra struct {
	Name     string
	Declared bool
	Requires []string
}

// Extra returns the extra called name (normalised first).
func (w WheelExtras) Extra(name string) (Extra, bool) {
	name = normalize(name)
	i, ok := slices.BinarySearchFunc(w.Extras, name, func(e Extra, n string) int { return strings.Compare(e.Name, n) })
	if !ok {
		return Extra{}, false
	}
	return w.Extras[i], true
}

// extraRequirement is one Requires-Dist value under an extra marker: the
// extra's normalised name and the distribution required.
type extraRequirement struct {
	extra, dist string
}

// maxExtraLines bounds the Provides-Extra and extra Requires-Dist lines
// kept per METADATA (TheRock's rocm has a few dozen; a METADATA of
// maxMetadataBytes could hold about 20,000).
const maxExtraLines = 1 << 12

// extraMarker finds the extra a PEP 508 marker names: extra == "name" or
// extra == 'name'.
var extraMarker = regexp.MustCompile(`\bextra\s*==\s*(?:"([^"]*)"|'([^']*)')`)

// addExtraRequirement keeps a Requires-Dist value (req; marker is the part
// after ";") under each extra its marker names, up to maxExtraLines.
func (m *metadata) addExtraRequirement(req, marker string) {
	n := requirementName.FindStringSubmatch(req)
	if n == nil {
		return
	}
	for _, x := range extraMarker.FindAllStringSubmatch(marker, 4) {
		if len(m.extras)+len(m.provides) >= maxExtraLines {
			return
		}
		m.extras = append(m.extras, extraRequirement{extra: normalize(x[1] + x[2]), dist: n[1]})
	}
}

// addProvides keeps a Provides-Extra value, up to maxExtraLines.
func (m *metadata) addProvides(name string) {
	if name != "" && len(m.extras)+len(m.provides) < maxExtraLines {
		m.provides = append(m.provides, normalize(name))
	}
}

// extrasOf lists the METADATA that provide or require under extras, in
// path order.
func extrasOf(all []metadata) []WheelExtras {
	var out []WheelExtras
	for _, m := range all {
		if len(m.provides) == 0 && len(m.extras) == 0 {
			continue
		}
		byName := map[string]*Extra{}
		get := func(name string) *Extra {
			if byName[name] == nil {
				byName[name] = &Extra{Name: name}
			}
			return byName[name]
		}
		for _, p := range m.provides {
			get(p).Declared = true
		}
		for _, r := range m.extras {
			if e := get(r.extra); !slices.Contains(e.Requires, r.dist) {
				e.Requires = append(e.Requires, r.dist)
			}
		}
		w := WheelExtras{Wheel: m.name, Metadata: m.path, Input: m.input}
		for _, name := range slices.Sorted(maps.Keys(byName)) {
			w.Extras = append(w.Extras, *byName[name])
		}
		out = append(out, w)
	}
	return out
}

// distributions are the PEP 503 names of the METADATA read, sorted and
// distinct.
func distributions(all []metadata) []string {
	out := make([]string, 0, len(all))
	for _, m := range all {
		out = append(out, normalize(m.name))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Normalize is PEP 503's name normalisation (lowercase, runs of "-", "_"
// and "." as one "-"), which pip applies to distribution names and PEP
// 685 to extras: Rocm_SDK.Device-gfx942 is rocm-sdk-device-gfx942.
func Normalize(name string) string { return normalize(name) }
