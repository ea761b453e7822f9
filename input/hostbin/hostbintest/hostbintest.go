// Package hostbintest writes small host binaries with kpack sections for
// tests: minimal ELF64 shared objects and PE32+ DLLs that debug/elf,
// debug/pe, readelf and objdump accept, plus reference payloads encoded like
// the rocm-kpack writer's.
package hostbintest

import (
	"bytes"
	"encoding/binary"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/vmihailenco/msgpack/v5"
)

// Wrap describes one fat-binary wrapper to write: its magic
// (hostbin.MagicHIPK, hostbin.MagicHIPF, or anything) and, for HIPK, the
// co_index stored in the low 32 bits of reserved1.
type Wrap struct {
	Magic   uint32
	COIndex uint32
	// Version is the wrapper version; 0 writes 1, as every known writer.
	Version uint32
	// Binary, when not 0, is written as the wrapper's pointer instead of
	// WrapperBytes' binaryAddr.
	Binary uint64
}

// HIPK returns n HIPK wrappers with co_index 0..n-1.
func HIPK(n int) []Wrap {
	ws := make([]Wrap, n)
	for i := range ws {
		ws[i] = Wrap{Magic: hostbin.MagicHIPK, COIndex: uint32(i)}
	}
	return ws
}

// HIPF returns n ordinary (non-kpack) wrappers.
func HIPF(n int) []Wrap {
	ws := make([]Wrap, n)
	for i := range ws {
		ws[i] = Wrap{Magic: hostbin.MagicHIPF}
	}
	return ws
}

// RefBytes encodes a reference the way the rocm-kpack writer does: a
// two-entry map with kernel_name first, then kpack_search_paths; strings use
// the shortest form (fixstr below 32 bytes, then str8, str16, str32).
// The fixture binaries' sections are byte-for-byte this encoding.
func RefBytes(kernelName string, paths ...string) []byte {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	// Writes to a bytes.Buffer cannot fail.
	_ = enc.EncodeMapLen(2)
	_ = enc.EncodeString(hostbin.KeyKernelName)
	_ = enc.EncodeString(kernelName)
	_ = enc.EncodeString(hostbin.KeySearchPaths)
	_ = enc.EncodeArrayLen(len(paths))
	for _, p := range paths {
		_ = enc.EncodeString(p)
	}
	return buf.Bytes()
}

// WrapperBytes encodes wrappers as 24-byte little-endian records (version
// 1 unless Wrap.Version says otherwise); each binary field holds
// binaryAddr (where the reference lives) unless Wrap.Binary is set.
func WrapperBytes(ws []Wrap, binaryAddr uint64) []byte {
	out := make([]byte, 0, len(ws)*hostbin.WrapperSize)
	for _, w := range ws {
		version, ptr := w.Version, w.Binary
		if version == 0 {
			version = 1
		}
		if ptr == 0 {
			ptr = binaryAddr
		}
		out = binary.LittleEndian.AppendUint32(out, w.Magic)
		out = binary.LittleEndian.AppendUint32(out, version)
		out = binary.LittleEndian.AppendUint64(out, ptr)
		out = binary.LittleEndian.AppendUint64(out, uint64(w.COIndex))
	}
	return out
}

// alignUp rounds n up to a multiple of a (a power of two).
func alignUp(n, a int) int { return (n + a - 1) &^ (a - 1) }

// pad appends zeros to b up to length n.
func pad(b []byte, n int) []byte {
	for len(b) < n {
		b = append(b, 0)
	}
	return b
}
