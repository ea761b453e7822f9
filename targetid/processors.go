package targetid

import "sort"

// Processor is one row of the AMDGPU processor table.
//
// Name is the LLVM processor name ("gfx942", "gfx9-4-generic"). Mach is its
// EF_AMDGPU_MACH value (e_flags & 0xff) from LLVM's ELF.h / AMDGPUUsage
// "AMDGPU ELF Header e_flags". Xnack and Sramecc say whether the processor
// supports those target-ID features (AMDGPUUsage "AMDGPU Processors",
// AMDGPUTargetParser.def FEATURE_XNACK / FEATURE_SRAMECC). Generic marks a
// generic processor (AMDGPUUsage "Generic Processors"); GenericVersion is then
// the lowest EF_AMDGPU_GENERIC_VERSION (e_flags >> 24) the HSA runtime
// accepts for it on every member processor (1 for all current families,
// ROCr isa.cpp), and 0 for non-generic processors. Family is the generic
// processor whose code objects run on this processor ("gfx942" ->
// "gfx9-4-generic"), a generic processor's own name, or "" when no generic
// target covers the processor.
type Processor struct {
	Name           string
	Mach           uint32
	Xnack          bool
	Sramecc        bool
	Generic        bool
	GenericVersion uint32
	Family         string
	// Retired marks a processor LLVM has removed (gfx940 and gfx941 in
	// LLVM 20): its code objects still decode, but no device reports it, so
	// a generic target does not expand to it (AgentISAs).
	Retired bool
}

// Supports reports whether p accepts feature name (sramecc or xnack) in a
// target ID. Unknown names are never supported.
func (p Processor) Supports(name string) bool {
	switch name {
	case Xnack:
		return p.Xnack
	case Sramecc:
		return p.Sramecc
	}
	return false
}

// supportedFeatures returns the names of the features p supports, in
// canonical order.
func (p Processor) supportedFeatures() []string {
	var out []string
	for _, name := range canonicalFeatures {
		if p.Supports(name) {
			out = append(out, name)
		}
	}
	return out
}

// Generic processor names (AMDGPUUsage "Generic Processors").
const (
	gfx9Generic   = "gfx9-generic"
	gfx94Generic  = "gfx9-4-generic"
	gfx101Generic = "gfx10-1-generic"
	gfx103Generic = "gfx10-3-generic"
	gfx11Generic  = "gfx11-generic"
	gfx12Generic  = "gfx12-generic"
	gfx125Generic = "gfx12-5-generic"
)

// Row constructors keep the table one line per processor.
func none(name string, mach uint32, family string) Processor {
	return Processor{Name: name, Mach: mach, Family: family}
}

func xnack(name string, mach uint32, family string) Processor {
	return Processor{Name: name, Mach: mach, Xnack: true, Family: family}
}

func both(name string, mach uint32, family string) Processor {
	return Processor{Name: name, Mach: mach, Xnack: true, Sramecc: true, Family: family}
}

func retired(p Processor) Processor {
	p.Retired = true
	return p
}

func generic(p Processor) Processor {
	p.Generic, p.GenericVersion, p.Family = true, 1, p.Name
	return p
}

// processorTable is every AMDGCN processor LLVM knows, from gfx600 to
// gfx1310, plus the generic processors. R600 processors and aliases
// ("tahiti", "carrizo") are left out: they never appear in HSA ISA names.
//
// gfx940 (0x040) and gfx941 (0x04b) were removed from LLVM 20 and their mach
// values marked reserved; they stay here, Retired, so that older code objects
// decode.
// gfx1250/gfx1251 accept sramecc but not xnack (their XNACK is always on and
// has no on/off mode; clang rejects gfx1250:xnack+).
var processorTable = []Processor{
	none("gfx600", 0x020, ""),
	none("gfx601", 0x021, ""),
	none("gfx602", 0x03a, ""),
	none("gfx700", 0x022, ""),
	none("gfx701", 0x023, ""),
	none("gfx702", 0x024, ""),
	none("gfx703", 0x025, ""),
	none("gfx704", 0x026, ""),
	none("gfx705", 0x03b, ""),
	xnack("gfx801", 0x028, ""),
	none("gfx802", 0x029, ""),
	none("gfx803", 0x02a, ""),
	none("gfx805", 0x03c, ""),
	xnack("gfx810", 0x02b, ""),
	xnack("gfx900", 0x02c, gfx9Generic),
	xnack("gfx902", 0x02d, gfx9Generic),
	xnack("gfx904", 0x02e, gfx9Generic),
	both("gfx906", 0x02f, gfx9Generic),
	both("gfx908", 0x030, ""),
	xnack("gfx909", 0x031, gfx9Generic),
	both("gfx90a", 0x03f, ""),
	xnack("gfx90c", 0x032, gfx9Generic),
	retired(both("gfx940", 0x040, gfx94Generic)),
	retired(both("gfx941", 0x04b, gfx94Generic)),
	both("gfx942", 0x04c, gfx94Generic),
	both("gfx950", 0x04f, gfx94Generic),
	xnack("gfx1010", 0x033, gfx101Generic),
	xnack("gfx1011", 0x034, gfx101Generic),
	xnack("gfx1012", 0x035, gfx101Generic),
	xnack("gfx1013", 0x042, gfx101Generic),
	none("gfx1030", 0x036, gfx103Generic),
	none("gfx1031", 0x037, gfx103Generic),
	none("gfx1032", 0x038, gfx103Generic),
	none("gfx1033", 0x039, gfx103Generic),
	none("gfx1034", 0x03e, gfx103Generic),
	none("gfx1035", 0x03d, gfx103Generic),
	none("gfx1036", 0x045, gfx103Generic),
	none("gfx1100", 0x041, gfx11Generic),
	none("gfx1101", 0x046, gfx11Generic),
	none("gfx1102", 0x047, gfx11Generic),
	none("gfx1103", 0x044, gfx11Generic),
	none("gfx1150", 0x043, gfx11Generic),
	none("gfx1151", 0x04a, gfx11Generic),
	none("gfx1152", 0x055, gfx11Generic),
	none("gfx1153", 0x058, gfx11Generic),
	none("gfx1154", 0x057, ""),
	none("gfx1170", 0x05d, ""),
	none("gfx1171", 0x05e, ""),
	none("gfx1172", 0x05c, ""),
	none("gfx1200", 0x048, gfx12Generic),
	none("gfx1201", 0x04e, gfx12Generic),
	{Name: "gfx1250", Mach: 0x049, Sramecc: true, Family: gfx125Generic},
	{Name: "gfx1251", Mach: 0x05a, Sramecc: true, Family: gfx125Generic},
	none("gfx1310", 0x050, ""),
	generic(xnack(gfx9Generic, 0x051, "")),
	generic(both(gfx94Generic, 0x05f, "")),
	generic(xnack(gfx101Generic, 0x052, "")),
	generic(none(gfx103Generic, 0x053, "")),
	generic(none(gfx11Generic, 0x054, "")),
	generic(none(gfx12Generic, 0x059, "")),
	generic(none(gfx125Generic, 0x05b, "")),
}

// LookupProcessor returns the table row for an exact processor name
// ("gfx90a", "gfx11-generic"); ok is false for unknown names. Names are
// case-sensitive and carry no features.
func LookupProcessor(name string) (Processor, bool) {
	for _, p := range processorTable {
		if p.Name == name {
			return p, true
		}
	}
	return Processor{}, false
}

// ProcessorByMach returns the processor whose EF_AMDGPU_MACH value is mach
// (only the low 8 bits of e_flags; pass e_flags & 0xff). ok is false for
// reserved, R600 and unknown values.
func ProcessorByMach(mach uint32) (Processor, bool) {
	for _, p := range processorTable {
		if p.Mach == mach {
			return p, true
		}
	}
	return Processor{}, false
}

// Processors returns a copy of the processor table sorted by name (byte
// order, so "gfx1010" sorts before "gfx600").
func Processors() []Processor {
	out := append([]Processor(nil), processorTable...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// GenericCovers reports whether code objects built for the generic processor
// generic run on processor p (AMDGPUUsage "Generic Processors" table, ROCr
// isa.cpp): gfx9-generic covers gfx900, gfx902, gfx904, gfx906, gfx909 and
// gfx90c; gfx9-4-generic covers gfx940, gfx941, gfx942 and gfx950;
// gfx10-1-generic gfx1010-gfx1013; gfx10-3-generic gfx1030-gfx1036;
// gfx11-generic gfx1100-gfx1103 and gfx1150-gfx1153; gfx12-generic gfx1200
// and gfx1201; gfx12-5-generic gfx1250 and gfx1251. A generic processor also
// covers itself. Unknown names or a non-generic first argument give false.
func GenericCovers(generic, p string) bool {
	g, ok := LookupProcessor(generic)
	if !ok || !g.Generic {
		return false
	}
	proc, ok := LookupProcessor(p)
	return ok && proc.Family == g.Name
}

// GenericMembers returns the non-generic processors generic covers, sorted
// by name; nil when generic is not a generic processor.
func GenericMembers(generic string) []string {
	var out []string
	for _, p := range Processors() {
		if !p.Generic && GenericCovers(generic, p.Name) {
			out = append(out, p.Name)
		}
	}
	return out
}
