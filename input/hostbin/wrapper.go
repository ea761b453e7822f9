package hostbin

import (
	"encoding/binary"
	"fmt"
)

// Wrapper magics, as the u32 read from the first 4 bytes of a wrapper
// (clang offload wrapper __CudaFatBinaryWrapper; HIPK set by the rocm-kpack
// writer). In little-endian files the bytes spell "HIPK" and "FPIH".
const (
	// MagicHIPK marks a wrapper whose device code lives in a kpack
	// archive; the runtime calls kpack_load_code_object for it.
	MagicHIPK uint32 = 0x4B504948
	// MagicHIPF marks an ordinary wrapper pointing at an embedded fat
	// binary; kpack is not involved.
	MagicHIPF uint32 = 0x48495046
)

// WrapperSize is the size in bytes of one wrapper in the fat-binary segment
// (u32 magic, u32 version, u64 binary, u64 reserved1). ROCm hosts are 64-bit;
// 32-bit files are read with the same layout.
const WrapperSize = 24

// Wrapper is one __CudaFatBinaryWrapper record, decoded in the file's byte
// order (little-endian for x86-64 and PE).
type Wrapper struct {
	Magic     uint32 // MagicHIPK, MagicHIPF, or anything else (ignored by the runtime)
	Version   uint32 // 1 in every known writer
	Binary    uint64 // pointer as stored: for HIPK, the reference section's address (0 when a relocation fills it at load time)
	Reserved1 uint64 // for HIPK, the co_index in the low 32 bits
}

// IsKpack reports whether HIP loads the wrapper through kpack: magic HIPK
// and version 1 (hip_code_object.cpp digestFatBinary). HIP reads any other
// wrapper, a HIPK one of another version included, as an embedded fat
// binary.
func (w Wrapper) IsKpack() bool { return w.Magic == MagicHIPK && w.Version == 1 }

// Embedded reports whether HIP reads the wrapper as an embedded fat binary
// (a clang offload bundle at Binary): magic HIPF, or HIPK of a version
// other than 1. Other magics are not HIP wrappers.
func (w Wrapper) Embedded() bool {
	return w.Magic == MagicHIPF || (w.Magic == MagicHIPK && w.Version != 1)
}

// COIndex returns the low 32 bits of Reserved1: the code object index that
// the runtime appends to the kernel name ("<kernel_name>#<co_index>") for a
// HIPK wrapper. It has no meaning for other magics.
func (w Wrapper) COIndex() uint32 { return uint32(w.Reserved1) }

// MagicString returns the name of a known magic ("HIPK", "HIPF"), else the
// value in hex (e.g. "0x00000000").
func (w Wrapper) MagicString() string {
	switch w.Magic {
	case MagicHIPK:
		return "HIPK"
	case MagicHIPF:
		return "HIPF"
	}
	return fmt.Sprintf("%#08x", w.Magic)
}

// ParseWrappers decodes the fat-binary segment data into wrappers, one per
// full 24 bytes; trailing bytes that do not fill a wrapper are ignored
// (Read reports them as FatBinBadSize).
func ParseWrappers(data []byte, order binary.ByteOrder) []Wrapper {
	n := len(data) / WrapperSize
	ws := make([]Wrapper, 0, n)
	for i := range n {
		b := data[i*WrapperSize : (i+1)*WrapperSize]
		ws = append(ws, Wrapper{
			Magic:     order.Uint32(b[0:4]),
			Version:   order.Uint32(b[4:8]),
			Binary:    order.Uint64(b[8:16]),
			Reserved1: order.Uint64(b[16:24]),
		})
	}
	return ws
}
