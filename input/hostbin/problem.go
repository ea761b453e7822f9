package hostbin

import "fmt"

// ProblemKind classifies a Problem. The reference rules follow the
// runtime's parse_hipk_metadata (rocm-kpack kpack.cpp); the wrapper rules
// follow the clang offload wrapper layout.
type ProblemKind int

// The problem kinds. Kinds for which Invalid reports true make the runtime
// return KPACK_ERROR_INVALID_METADATA (error 12) for every HIPK wrapper.
const (
	// RefInvalidMsgpack: the reference is not one complete MessagePack
	// object (truncated, reserved byte 0xc1, empty section). Invalid.
	RefInvalidMsgpack ProblemKind = iota + 1
	// RefMissingField: kernel_name or kpack_search_paths is absent (keys
	// must be MessagePack strings; the first occurrence counts). Invalid.
	RefMissingField
	// RefWrongType: the root is not a map, kernel_name is not a string,
	// or kpack_search_paths is not an array. Invalid.
	RefWrongType
	// RefEmptyPaths: kpack_search_paths holds no string. Invalid.
	RefEmptyPaths
	// RefPathIgnored: an entry of kpack_search_paths is not a string; the
	// runtime skips it silently. Not invalid on its own.
	RefPathIgnored
	// RefTooLarge: the MessagePack object does not end within the first
	// RuntimeRefLimit (64 KiB) bytes, the most the runtime parses. Invalid.
	RefTooLarge
	// HIPKWithoutRef: HIPK wrappers but no reference section; the runtime
	// parses whatever the wrapper's pointer names. Invalid.
	HIPKWithoutRef
	// RefWithoutHIPK: a reference section but no HIPK wrapper (no
	// fat-binary segment, or only HIPF wrappers); the runtime never reads
	// the reference. Not invalid.
	RefWithoutHIPK
	// FatBinBadSize: the fat-binary segment size is not a multiple of 24
	// bytes; the trailing bytes are ignored. Not invalid.
	FatBinBadSize
	// FatBinTooLarge: the fat-binary segment is larger than
	// MaxFatBinSectionSize; its wrappers were not read. Not invalid.
	FatBinTooLarge
	// HIPKBadVersion: a HIPK wrapper whose version is not 1. HIP loads
	// through kpack only HIPK version 1 and reads this wrapper as an
	// embedded fat binary, which it is not. Not invalid (the kpack loader
	// never sees it).
	HIPKBadVersion
	// EmbeddedTooMany: more than MaxEmbeddedWrappers embedded wrappers;
	// the rest were not read. Not invalid.
	EmbeddedTooMany
	// RelocUnread: a dynamic relocation table (.rela.dyn, .rela.plt) did
	// not read to its end (truncated, a partial record, a compressed table
	// past elfsafe.MaxInflate, more than MaxRelocations records), so a
	// wrapper pointer the loader sets may not be known. Not invalid.
	RelocUnread
)

var kindNames = map[ProblemKind]string{
	RefInvalidMsgpack: "ref-invalid-msgpack",
	RefMissingField:   "ref-missing-field",
	RefWrongType:      "ref-wrong-type",
	RefEmptyPaths:     "ref-empty-paths",
	RefPathIgnored:    "ref-path-ignored",
	RefTooLarge:       "ref-too-large",
	HIPKWithoutRef:    "hipk-without-ref",
	RefWithoutHIPK:    "ref-without-hipk",
	FatBinBadSize:     "fatbin-bad-size",
	FatBinTooLarge:    "fatbin-too-large",
	HIPKBadVersion:    "hipk-bad-version",
	EmbeddedTooMany:   "embedded-too-many",
	RelocUnread:       "relocations-unread",
}

// String returns a stable kebab-case name, e.g. "ref-missing-field", or
// "ProblemKind(N)" for unknown values.
func (k ProblemKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("ProblemKind(%d)", int(k))
}

// Invalid reports whether the runtime rejects the reference with
// KPACK_ERROR_INVALID_METADATA (12), so no kernel of the binary can load.
func (k ProblemKind) Invalid() bool {
	switch k {
	case RefInvalidMsgpack, RefMissingField, RefWrongType, RefEmptyPaths, RefTooLarge, HIPKWithoutRef:
		return true
	}
	return false
}

// Problem is one defect found in a host binary's kpack sections.
type Problem struct {
	Kind    ProblemKind
	Msg     string // human-readable detail, no file name
	Section string // section name, empty from ParseRef
	// Offset is the byte offset of the problem: from the start of the
	// file in Binary.Problems, from the start of the payload in ParseRef.
	Offset int64
}

// String returns "<kind>: <msg>".
func (p Problem) String() string { return p.Kind.String() + ": " + p.Msg }

func sizeMsg(s *Section, limit int64) string {
	return fmt.Sprintf("section %s is %d bytes, more than the %d-byte limit", s.Name, s.Size, limit)
}

func badSizeMsg(n int) string {
	return fmt.Sprintf("fat-binary segment is %d bytes, not a multiple of %d (%d trailing bytes ignored)",
		n, WrapperSize, n%WrapperSize)
}

func hipkWithoutRefMsg(n int, f Format) string {
	return fmt.Sprintf("%d HIPK wrapper(s) but no %s section", n, f.RefSection())
}

func refWithoutHIPKMsg(b *Binary) string {
	if b.FatBinSection == nil {
		return fmt.Sprintf("reference section present but no %s section; the runtime never reads it",
			b.Format.FatBinSection())
	}
	n := fmt.Sprintf("%d wrappers", len(b.Wrappers))
	if len(b.Wrappers) == 1 {
		n = "1 wrapper"
	}
	return fmt.Sprintf("reference section present but %s has no version-1 HIPK wrapper (%s); the runtime never reads it",
		b.FatBinSection.Name, n)
}
