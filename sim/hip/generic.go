package hip

import "github.com/rocm-tools/kpack-lint/targetid"

// GenericEntry is one entry of HIP's TargetGenericMap (rocm-systems clr
// hip_fatbin.cpp): a processor and the generic target HIP appends after
// it (both written there with the "amdgcn-amd-amdhsa--" prefix).
type GenericEntry struct {
	Processor, Generic string
}

// genericMap29 is TargetGenericMap from ROCm 6.4 to therock-10.0 (29
// entries, identical at ROCm/clr 0781225b, index 02ba0621 and rocm-systems
// 6b0e43f3). It is HIP's own table, not LLVM's: gfx908, gfx90a (no
// family), gfx940, gfx941, gfx1250 and gfx1251 are not in it.
var genericMap29 = []GenericEntry{
	{"gfx900", "gfx9-generic"}, {"gfx902", "gfx9-generic"}, {"gfx904", "gfx9-generic"},
	{"gfx906", "gfx9-generic"}, {"gfx909", "gfx9-generic"}, {"gfx90c", "gfx9-generic"},
	{"gfx942", "gfx9-4-generic"}, {"gfx950", "gfx9-4-generic"},
	{"gfx1010", "gfx10-1-generic"}, {"gfx1011", "gfx10-1-generic"}, {"gfx1012", "gfx10-1-generic"},
	{"gfx1013", "gfx10-1-generic"},
	{"gfx1030", "gfx10-3-generic"}, {"gfx1031", "gfx10-3-generic"}, {"gfx1032", "gfx10-3-generic"},
	{"gfx1033", "gfx10-3-generic"}, {"gfx1034", "gfx10-3-generic"}, {"gfx1035", "gfx10-3-generic"},
	{"gfx1036", "gfx10-3-generic"},
	{"gfx1100", "gfx11-generic"}, {"gfx1101", "gfx11-generic"}, {"gfx1102", "gfx11-generic"},
	{"gfx1103", "gfx11-generic"}, {"gfx1150", "gfx11-generic"}, {"gfx1151", "gfx11-generic"},
	{"gfx1152", "gfx11-generic"}, {"gfx1153", "gfx11-generic"},
	{"gfx1200", "gfx12-generic"}, {"gfx1201", "gfx12-generic"},
}

// genericMap30 is genericMap29 plus gfx1250 -> gfx12-5-generic
// (rocm-systems PR 9741; index 66615623207). gfx1251 is still not in it,
// although ROCr registers gfx1251 and gfx12-5-generic (rocm-systems PR
// 7300).
var genericMap30 = append(append([]GenericEntry(nil), genericMap29...), GenericEntry{"gfx1250", "gfx12-5-generic"})

// GenericTarget returns the generic target r's HIP appends to the arch_list
// of a device reporting agent (TargetToGeneric): the text before the first
// ':' is looked up in r's TargetGenericMap, then the agent's sramecc and
// xnack settings are re-appended in that order, as the agent reports them
// (gfx942:sramecc+:xnack- => gfx9-4-generic:sramecc+:xnack-). ok is false
// when the map has no entry (gfx90a; gfx1250 before rocm-systems PR 9741;
// every device before ROCm 6.4, which has no map).
func (r Release) GenericTarget(agent targetid.ID) (targetid.ID, bool) {
	for _, e := range r.Generic.Value {
		if e.Processor == agent.Processor {
			g := targetid.ID{Processor: e.Generic}
			for _, name := range [...]string{targetid.Sramecc, targetid.Xnack} {
				if enabled, set := agent.Setting(name); set {
					g.Features = append(g.Features, targetid.Feature{Name: name, Enabled: enabled})
				}
			}
			return g, true
		}
	}
	return targetid.ID{}, false
}

// ArchList returns the arch_list r's HIP passes to kpack_load_code_object
// for one device reporting agent (ExtractKpackBinary; PR 9167 passes it
// per unique ISA, PR 2622 concatenates it over every device): the agent
// ISA, then its generic target when r's map has one:
//
//	gfx942:sramecc+:xnack- => [gfx942:sramecc+:xnack-, gfx9-4-generic:sramecc+:xnack-]
//	gfx90a:sramecc+:xnack- => [gfx90a:sramecc+:xnack-]
//	gfx1250:sramecc+       => [gfx1250:sramecc+, gfx12-5-generic:sramecc+] (newest only)
//
// HIP prefixes both with "amdgcn-amd-amdhsa--", which the loader strips;
// they are returned without it.
func (r Release) ArchList(agent targetid.ID) []string {
	out := []string{agent.String()}
	if g, ok := r.GenericTarget(agent); ok {
		out = append(out, g.String())
	}
	return out
}

// SelectEntry returns the index of the bundle entry r's HIP loads on a
// device reporting agent (ExtractFatBinaryUsingCOMGR): the first HIP entry
// whose target is compatible with the agent; then, on releases with a
// TargetGenericMap (ROCm 6.4 and later), the first entry compatible with
// the agent's generic target (GenericTarget: the map's entry with the
// agent's feature settings); then, on releases that compile SPIR-V, an
// amdgcnspirv entry. ok is false when no entry fits. Releases before 6.4
// take native entries only (5.x: the first compatible bundle entry,
// hipamd hip_code_object.cpp:448-453@rocm-5.2.3).
func (r Release) SelectEntry(entryIDs []string, agent targetid.ID) (int, bool) {
	g, hasGeneric := r.GenericTarget(agent)
	generic, spirv := -1, -1
	for i, e := range entryIDs {
		id, ok := EntryTarget(e)
		switch {
		case !ok:
			if spirv < 0 && r.SPIRV.Value && IsSPIRVEntry(e) {
				spirv = i
			}
		case targetid.Compatible(id, agent):
			return i, true
		case hasGeneric && generic < 0 && targetid.Compatible(id, g):
			generic = i
		}
	}
	if generic >= 0 {
		return generic, true
	}
	return spirv, spirv >= 0
}
