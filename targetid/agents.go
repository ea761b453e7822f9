package targetid

import "sync"

// What a device reports and what HIP asks the loader for: the agent ISAs a
// target stands for, the processors whose devices report a bare ISA, and
// HIP's generic fallback target.

// bareISA lists the processors whose devices report the bare ISA name, with
// no feature settings, and the public change that says so. These are APUs
// whose driver exposes no XNACK mode, so ROCr builds the ISA name without
// ":xnack±" (SPEC 3). A bare agent accepts only code objects whose features
// are all "any" (Compatible).
var bareISA = map[string]string{
	"gfx90c": "rocm-libraries PR 11211, Renoir and Cezanne APUs",
	"gfx902": "rocm-systems PR 2669, Raven APUs",
	"gfx909": "rocm-systems PR 8237, Raven 2 APUs",
}

// ReportsBareISA reports whether devices of processor proc report the bare
// ISA name (e.g. "gfx90c", never "gfx90c:xnack-"), and the source that
// says so. Unknown and generic processors give false.
func ReportsBareISA(proc string) (source string, ok bool) {
	source, ok = bareISA[proc]
	return source, ok
}

// AgentISAs returns every ISA a device can report that is compatible with
// target: for a processor, each fully specified ISA (SPEC 3: an HSA agent
// reports a value for every feature its processor supports), features in
// canonical order (sramecc, xnack), sramecc varying slowest and "+" before
// "-"; for a generic processor, the ISAs of every current member processor
// (GenericMembers without the Retired ones), members in name order, each
// with the target's features it supports.
//
//	gfx950:xnack+ => gfx950:sramecc+:xnack+, gfx950:sramecc-:xnack+
//	gfx942        => gfx942:sramecc+:xnack+, gfx942:sramecc+:xnack-,
//	                 gfx942:sramecc-:xnack+, gfx942:sramecc-:xnack-
//	gfx900        => gfx900:xnack+, gfx900:xnack-
//	gfx1100       => gfx1100
//	gfx90c        => gfx90c (ReportsBareISA)
//	gfx12-generic => gfx1200, gfx1201
//
// It returns nil when the processor is unknown, target sets a feature the
// processor does not support, or no device can report a compatible ISA
// (gfx90c:xnack+: a gfx90c device reports the bare ISA, which accepts only
// code objects built without xnack).
func AgentISAs(target ID) []ID {
	p, ok := LookupProcessor(target.Processor)
	if !ok || !featuresSupported(p, target) {
		return nil
	}
	if p.Generic {
		return memberISAs(p, target)
	}
	if _, bare := bareISA[p.Name]; bare {
		if len(target.Features) > 0 {
			return nil
		}
		return []ID{{Processor: p.Name}}
	}
	out := []ID{{Processor: p.Name}}
	for _, name := range p.supportedFeatures() {
		out = expand(out, name, target)
	}
	return out
}

// memberISAs expands a generic target to the agent ISAs of its current
// member processors; a feature a member does not support is left out for
// that member (gfx9-generic:xnack+ keeps xnack+ on every member).
func memberISAs(g Processor, target ID) []ID {
	var out []ID
	for _, m := range GenericMembers(g.Name) {
		mp, _ := LookupProcessor(m)
		if mp.Retired {
			continue
		}
		member := ID{Processor: m}
		for _, f := range target.Features {
			if mp.Supports(f.Name) {
				member.Features = append(member.Features, f)
			}
		}
		out = append(out, AgentISAs(member)...)
	}
	return out
}

// featuresSupported reports whether p supports every feature target names.
func featuresSupported(p Processor, target ID) bool {
	for _, f := range target.Features {
		if !p.Supports(f.Name) {
			return false
		}
	}
	return true
}

// expand appends feature name to every ID in ids: the value target fixes,
// or both values ("+" first) when target leaves it unspecified.
func expand(ids []ID, name string, target ID) []ID {
	values := []bool{true, false}
	if enabled, specified := target.Setting(name); specified {
		values = []bool{enabled}
	}
	out := make([]ID, 0, len(ids)*len(values))
	for _, id := range ids {
		for _, v := range values {
			fs := append(append([]Feature(nil), id.Features...), Feature{Name: name, Enabled: v})
			out = append(out, ID{Processor: id.Processor, Features: fs})
		}
	}
	return out
}

// noHIPGeneric lists the processors LLVM gives a generic family that HIP's
// own table (rocm-systems clr hip_fatbin.cpp TargetGenericMap, the map
// ExtractKpackBinary uses) does not map: HIP passes no generic target for
// their devices.
var noHIPGeneric = map[string]bool{"gfx940": true, "gfx941": true, "gfx1250": true, "gfx1251": true}

// GenericTarget returns the generic target HIP appends to an agent's
// arch_list (rocm-systems clr hip_fatbin.cpp TargetToGeneric): the generic
// processor of the agent's family (Processor.Family, from LLVM's table),
// then the agent's sramecc setting, then its xnack setting, re-appended as
// the agent reports them, whether or not the generic processor supports
// them (gfx906:sramecc+:xnack- => gfx9-generic:sramecc+:xnack-). ok is
// false when HIP passes none: no generic target covers the processor
// (gfx908, gfx90a), HIP's TargetGenericMap lacks it (gfx940, gfx941,
// gfx1250, gfx1251, although LLVM puts them in gfx9-4-generic and
// gfx12-5-generic), or the agent is itself generic or unknown.
func GenericTarget(agent ID) (ID, bool) {
	p, ok := LookupProcessor(agent.Processor)
	if !ok || p.Generic || p.Family == "" || noHIPGeneric[p.Name] {
		return ID{}, false
	}
	g := ID{Processor: p.Family}
	for _, name := range canonicalFeatures {
		if enabled, set := agent.Setting(name); set {
			g.Features = append(g.Features, Feature{Name: name, Enabled: enabled})
		}
	}
	return g, true
}

// IsDeviceISA reports whether some device reports exactly agent (features
// in any order): a non-generic processor with every feature it supports
// set, or the bare name of a processor whose devices report the bare ISA
// (ReportsBareISA). "gfx942" (a gfx942 device always reports sramecc and
// xnack), "gfx90c:xnack+" and generic targets are not device ISAs.
func IsDeviceISA(agent ID) bool {
	if set, ok := deviceISAs()[agent.Processor]; ok {
		return set[agent.Canonical()]
	}
	for _, isa := range AgentISAs(ID{Processor: agent.Processor}) {
		if isa.Equal(agent) {
			p, _ := LookupProcessor(agent.Processor)
			return !p.Generic
		}
	}
	return false
}

// deviceISAs are, per non-generic processor of the table, the canonical
// ISAs its devices report (AgentISAs), built once: a policy's machines
// name up to 4,096 x 64 devices.
var deviceISAs = sync.OnceValue(func() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, p := range processorTable {
		if p.Generic {
			continue
		}
		set := map[string]bool{}
		for _, isa := range AgentISAs(ID{Processor: p.Name}) {
			set[isa.Canonical()] = true
		}
		out[p.Name] = set
	}
	return out
})
