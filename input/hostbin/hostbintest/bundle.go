package hostbintest

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"

	"github.com/klauspost/compress/zstd"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
)

// HostEntry is the host entry every HIP offload bundle carries.
const HostEntry = "host-x86_64-unknown-linux-gnu-"

// Bundle writes an uncompressed clang offload bundle
// ("__CLANG_OFFLOAD_BUNDLE__") with one entry per ID, each holding a few
// placeholder bytes: HIP device entries are "hipv4-amdgcn-amd-amdhsa--<target-id>".
func Bundle(ids ...string) []byte {
	entries := make([]Entry, len(ids))
	for i, id := range ids {
		entries[i] = Entry{ID: id, Data: []byte{0x7f, 'E', 'L', 'F', byte(i)}}
	}
	return BundleOf(entries...)
}

// Entry is one entry of a bundle BundleOf writes: its ID and bytes.
type Entry struct {
	ID   string
	Data []byte
}

// BundleOf writes an uncompressed clang offload bundle holding entries,
// their bytes in entry order after the table (as clang-offload-bundler
// lays them out).
func BundleOf(entries ...Entry) []byte {
	le := binary.LittleEndian
	var hdr, data []byte
	hdrSize := 24 + 8
	for _, e := range entries {
		hdrSize += 24 + len(e.ID)
	}
	hdr = append(hdr, "__CLANG_OFFLOAD_BUNDLE__"...)
	hdr = le.AppendUint64(hdr, uint64(len(entries)))
	for _, e := range entries {
		hdr = le.AppendUint64(hdr, uint64(hdrSize+len(data)))
		hdr = le.AppendUint64(hdr, uint64(len(e.Data)))
		hdr = le.AppendUint64(hdr, uint64(len(e.ID)))
		hdr = append(hdr, e.ID...)
		data = append(data, e.Data...)
	}
	return append(hdr, data...)
}

// CompressedBundle writes a "CCOB" version 2 bundle around Bundle(ids...),
// compressed with zstd or, when zlibbed is set, zlib.
func CompressedBundle(zlibbed bool, ids ...string) []byte {
	return Compress(zlibbed, Bundle(ids...))
}

// Compress wraps an uncompressed bundle raw in a "CCOB" version 2 header,
// its payload compressed with zstd or, when zlibbed is set, zlib.
func Compress(zlibbed bool, raw []byte) []byte {
	var payload bytes.Buffer
	if zlibbed {
		w := zlib.NewWriter(&payload)
		_, _ = w.Write(raw)
		_ = w.Close()
	} else {
		enc, _ := zstd.NewWriter(&payload)
		_, _ = enc.Write(raw)
		_ = enc.Close()
	}
	le := binary.LittleEndian
	method := uint16(1) // zstd
	if zlibbed {
		method = 0
	}
	out := []byte("CCOB")
	out = le.AppendUint16(out, 2)
	out = le.AppendUint16(out, method)
	out = le.AppendUint32(out, uint32(24+payload.Len()))
	out = le.AppendUint32(out, uint32(len(raw)))
	out = le.AppendUint64(out, 0) // hash
	return append(out, payload.Bytes()...)
}

// EmbeddedELF builds an ELF64 x86-64 shared object whose .hip_fatbin holds
// bundles (each 64-byte aligned) and whose .hipFatBinSegment holds one HIPF
// wrapper per bundle pointing at it. With pic set the pointers are 0 and a
// .rela.dyn section fills them with R_X86_64_RELATIVE relocations, as in a
// position-independent library.
func EmbeddedELF(bundles [][]byte, pic bool) []byte {
	const fatbinAddr = 64 // ELFWith puts the first section right after the header
	var fatbin []byte
	var ptrs []uint64
	for _, b := range bundles {
		fatbin = pad(fatbin, alignUp(len(fatbin), 64))
		ptrs = append(ptrs, fatbinAddr+uint64(len(fatbin)))
		fatbin = append(fatbin, b...)
	}
	segAddr := uint64(alignUp(fatbinAddr+len(fatbin), 8))
	ws := make([]Wrap, len(bundles))
	var rela []byte
	for i := range ws {
		ws[i] = Wrap{Magic: hostbin.MagicHIPF, Binary: ptrs[i]}
		if pic {
			ws[i].Binary = 0
			rela = binary.LittleEndian.AppendUint64(rela, segAddr+uint64(i*hostbin.WrapperSize)+8)
			rela = binary.LittleEndian.AppendUint64(rela, uint64(elf.R_X86_64_RELATIVE))
			rela = binary.LittleEndian.AppendUint64(rela, ptrs[i])
		}
	}
	secs := []ELFSection{
		{Name: hostbin.BundleSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Align: 64, Data: fatbin},
		{Name: hostbin.FatBinSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC | elf.SHF_WRITE, Align: 8,
			Data: WrapperBytes(ws, 0)},
	}
	if pic {
		secs = append(secs, ELFSection{Name: ".rela.dyn", Type: elf.SHT_RELA, Flags: elf.SHF_ALLOC, Align: 8, Data: rela})
	}
	return ELFWith(secs...)
}
