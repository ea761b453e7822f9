package targetid

import "fmt"

// EI_ABIVERSION values for ELFOSABI_AMDGPU_HSA code objects (LLVM ELF.h
// ELFABIVERSION_AMDGPU_HSA_V2..V6).
const (
	ABIVersionV2 uint8 = 0
	ABIVersionV3 uint8 = 1
	ABIVersionV4 uint8 = 2
	ABIVersionV5 uint8 = 3
	ABIVersionV6 uint8 = 4
)

// AMDGPU e_flags fields (LLVM ELF.h, AMDGPUUsage "AMDGPU ELF Header
// e_flags").
const (
	MachMask           uint32 = 0x0ff      // EF_AMDGPU_MACH
	xnackV3            uint32 = 0x100      // EF_AMDGPU_FEATURE_XNACK_V3
	srameccV3          uint32 = 0x200      // EF_AMDGPU_FEATURE_SRAMECC_V3
	xnackV4Mask        uint32 = 0x300      // EF_AMDGPU_FEATURE_XNACK_V4
	srameccV4Mask      uint32 = 0xc00      // EF_AMDGPU_FEATURE_SRAMECC_V4
	GenericVersionMask uint32 = 0xff000000 // EF_AMDGPU_GENERIC_VERSION
	genericVersionBit         = 24         // EF_AMDGPU_GENERIC_VERSION_OFFSET
)

// v4+ feature selector values, after shifting the field to bits 0..1.
const (
	selUnsupported = 0
	selAny         = 1
	selOff         = 2
	selOn          = 3
)

// ELFError is the error DecodeELF returns: the header fields it was given
// and what is wrong with them.
type ELFError struct {
	ABIVersion uint8
	Flags      uint32
	Msg        string
}

// Error implements error.
func (e *ELFError) Error() string {
	return fmt.Sprintf("AMDGPU code object (EI_ABIVERSION %d, e_flags %#08x): %s", e.ABIVersion, e.Flags, e.Msg)
}

// CodeObjectVersion maps an HSA EI_ABIVERSION to the code object version it
// stands for (0 -> 2, ..., 4 -> 6); ok is false for other values.
func CodeObjectVersion(abiVersion uint8) (version int, ok bool) {
	if abiVersion > ABIVersionV6 {
		return 0, false
	}
	return int(abiVersion) + 2, true
}

// GenericVersion returns EF_AMDGPU_GENERIC_VERSION (e_flags >> 24), the
// version of a generic code object; 0 for non-generic code objects.
func GenericVersion(eflags uint32) uint32 {
	return (eflags & GenericVersionMask) >> genericVersionBit
}

// DecodeELF returns the target ID an AMDGPU HSA code object was built for,
// from its ELF header (SPEC 6; LLVM AMDGPUUsage "AMDGPU ELF Header e_flags").
// abiVersion is EI_ABIVERSION and eflags is e_flags.
//
// The processor is e_flags & 0xff (EF_AMDGPU_MACH). For code object v4-v6
// (abiVersion 2-4), xnack is e_flags & 0x300 (0 unsupported, 0x100 any,
// 0x200 off, 0x300 on) and sramecc e_flags & 0xc00 (0, 0x400 any, 0x800 off,
// 0xc00 on); "any" and "unsupported" add no feature. For v3 (abiVersion 1),
// bit 0x100 is xnack on/off and 0x200 sramecc on/off, and a feature the
// processor supports is always specified. Features come out in canonical
// order (sramecc, xnack).
//
// It returns an *ELFError for v2 and older or unknown ABI versions, an
// unknown or reserved EF_AMDGPU_MACH, an on/off setting of a feature the
// processor does not support, and a generic processor in a code object
// older than v6 or with EF_AMDGPU_GENERIC_VERSION 0 (generic targets need
// code object v6 and a version of at least 1).
func DecodeELF(abiVersion uint8, eflags uint32) (ID, error) {
	fail := func(format string, args ...any) (ID, error) {
		return ID{}, &ELFError{ABIVersion: abiVersion, Flags: eflags, Msg: fmt.Sprintf(format, args...)}
	}
	if abiVersion < ABIVersionV3 || abiVersion > ABIVersionV6 {
		return fail("unsupported EI_ABIVERSION %d (want 1..4, code object v3..v6)", abiVersion)
	}
	p, ok := ProcessorByMach(eflags & MachMask)
	if !ok {
		return fail("unknown EF_AMDGPU_MACH %#03x", eflags&MachMask)
	}
	if msg := checkGeneric(p, abiVersion, eflags); msg != "" {
		return fail("%s", msg)
	}
	id := ID{Processor: p.Name}
	for _, name := range canonicalFeatures {
		f, set, msg := decodeFeature(p, name, abiVersion, eflags)
		if msg != "" {
			return fail("%s", msg)
		}
		if set {
			id.Features = append(id.Features, f)
		}
	}
	return id, nil
}

// checkGeneric validates the generic-target rules for processor p; it
// returns a non-empty message on error.
func checkGeneric(p Processor, abiVersion uint8, eflags uint32) string {
	if !p.Generic {
		return ""
	}
	if abiVersion < ABIVersionV6 {
		return fmt.Sprintf("generic processor %s needs code object v6 (EI_ABIVERSION 4)", p.Name)
	}
	if GenericVersion(eflags) == 0 {
		return fmt.Sprintf("generic processor %s without EF_AMDGPU_GENERIC_VERSION", p.Name)
	}
	return ""
}

// decodeFeature reads feature name from eflags. set is false for "any" and
// "unsupported"; msg is non-empty when the processor cannot have the
// setting found.
func decodeFeature(p Processor, name string, abiVersion uint8, eflags uint32) (f Feature, set bool, msg string) {
	sel := featureSelector(name, abiVersion, eflags, p.Supports(name))
	switch sel {
	case selOn, selOff:
		if !p.Supports(name) {
			return Feature{}, false, fmt.Sprintf("processor %s does not support %s", p.Name, name)
		}
		return Feature{Name: name, Enabled: sel == selOn}, true, ""
	}
	return Feature{}, false, ""
}

// featureSelector returns the v4-style selector (selUnsupported, selAny,
// selOff, selOn) of feature name. For v3, the single bit means on when set
// and off when clear on a processor that supports the feature.
func featureSelector(name string, abiVersion uint8, eflags uint32, supported bool) uint32 {
	if abiVersion == ABIVersionV3 {
		bit := xnackV3
		if name == Sramecc {
			bit = srameccV3
		}
		switch {
		case eflags&bit != 0:
			return selOn
		case supported:
			return selOff
		}
		return selUnsupported
	}
	if name == Sramecc {
		return (eflags & srameccV4Mask) >> 10
	}
	return (eflags & xnackV4Mask) >> 8
}
