package hostbin_test

import (
	"bytes"
	"debug/elf"
	"debug/pe"
	"encoding/binary"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
)

// zstdZeros is a zstd frame of RLE blocks decoding to n zero bytes (n a
// multiple of 128 KiB): 4 bytes per 128 KiB.
func zstdZeros(n int) []byte {
	f := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x70}
	const block = 128 << 10
	for i := 0; i < n/block; i++ {
		h := uint32(block<<3 | 1<<1)
		if i == n/block-1 {
			h |= 1
		}
		f = append(f, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return f
}

// chdr64 is an ELFCOMPRESS_ZSTD compression header declaring size bytes.
func chdr64(size uint64) []byte {
	le := binary.LittleEndian
	return le.AppendUint64(le.AppendUint64(le.AppendUint32(le.AppendUint32(nil, uint32(elf.COMPRESS_ZSTD)), 0), size), 8)
}

// picWithRela is a position-independent binary whose one HIPF wrapper
// (pointer 0) is filled by the .rela.dyn section given.
func picWithRela(rela hostbintest.ELFSection) []byte {
	bundle := hostbintest.Bundle(hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx942")
	return hostbintest.ELFWith(
		hostbintest.ELFSection{Name: hostbin.BundleSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Align: 64, Data: bundle},
		hostbintest.ELFSection{Name: hostbin.FatBinSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC | elf.SHF_WRITE, Align: 8,
			Data: hostbintest.WrapperBytes([]hostbintest.Wrap{{Magic: hostbin.MagicHIPF}}, 0)},
		rela)
}

// rela-zstd-bomb: a compressed .rela.dyn declaring 1 TiB is not inflated;
// the wrapper's bundle says why it was not read. One declaring its real
// size is read like an uncompressed one.
func TestCompressedRelaDyn(t *testing.T) {
	bomb := append(chdr64(1<<40), zstdZeros(64<<20)...)
	bin := read(t, picWithRela(hostbintest.ELFSection{Name: ".rela.dyn", Type: elf.SHT_RELA, Flags: elf.SHF_COMPRESSED, Align: 8, Data: bomb}))
	if len(bin.Bundles) != 1 || !strings.Contains(bin.Bundles[0].Err, "elfsafe.MaxInflate") || bin.Bundles[0].Entries != nil {
		t.Fatalf("bundles %+v, want one whose Err names elfsafe.MaxInflate", bin.Bundles)
	}

	const fatbinAddr = 64 // ELFWith: the bundle right after the header, then the wrappers (8-aligned)
	segAddr := uint64(fatbinAddr+len(hostbintest.Bundle(hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx942"))+7) &^ 7
	le := binary.LittleEndian
	rela := le.AppendUint64(le.AppendUint64(le.AppendUint64(nil, segAddr+8), uint64(elf.R_X86_64_RELATIVE)), fatbinAddr)
	enc, _ := zstd.NewWriter(nil)
	small := append(chdr64(uint64(len(rela))), enc.EncodeAll(rela, nil)...)
	bin = read(t, picWithRela(hostbintest.ELFSection{Name: ".rela.dyn", Type: elf.SHT_RELA, Flags: elf.SHF_COMPRESSED, Align: 8, Data: small}))
	if len(bin.Bundles) != 1 || bin.Bundles[0].Err != "" || len(bin.Bundles[0].Entries) != 2 {
		t.Fatalf("bundles %+v, want the bundle read through the compressed relocation", bin.Bundles)
	}
}

// A compressed section name table declaring 1 TiB is a FormatError, not
// an inflation (debug/elf.NewFile reads it whole).
func TestCompressedNameTable(t *testing.T) {
	data := hostbintest.ELF(goodRef, hostbintest.HIPK(1))
	payload := append(chdr64(1<<40), zstdZeros(1<<20)...)
	at := uint64(len(data))
	data = append(data, payload...)
	le := binary.LittleEndian
	shoff, shnum := le.Uint64(data[40:]), uint64(le.Uint16(data[60:]))
	sh := data[shoff+(shnum-1)*64:] // .shstrtab is last
	le.PutUint64(sh[8:], uint64(elf.SHF_COMPRESSED))
	le.PutUint64(sh[24:], at)
	le.PutUint64(sh[32:], uint64(len(payload)))
	_, err := hostbin.Read(bytes.NewReader(data), int64(len(data)))
	if err == nil || !strings.Contains(err.Error(), "elfsafe.MaxInflate") {
		t.Fatalf("Read = %v, want a FormatError naming elfsafe.MaxInflate", err)
	}
}

// pe-shared-relocs: section headers that all claim 65,535 COFF
// relocations at the same offset cost nothing (debug/pe.NewFile allocates
// the table once per section), and the sections still read.
func TestPESharedRelocations(t *testing.T) {
	data := hostbintest.PE(goodRef, hostbintest.HIPK(2))
	le := binary.LittleEndian
	peOff := le.Uint32(data[0x3c:])
	optSize := le.Uint16(data[peOff+4+16:])
	table := peOff + 4 + 20 + uint32(optSize)
	nsec := le.Uint16(data[peOff+4+2:])
	for i := range uint32(nsec) {
		sh := data[table+i*40:]
		le.PutUint32(sh[24:], uint32(len(data))) // PointerToRelocations
		le.PutUint16(sh[32:], 65535)             // NumberOfRelocations
	}
	data = append(data, make([]byte, 65535*10)...)
	if _, err := pe.NewFile(bytes.NewReader(data)); err != nil {
		t.Fatalf("debug/pe rejects the test file: %v", err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	bin := read(t, data)
	runtime.ReadMemStats(&after)
	if len(bin.COIndexes()) != 2 || bin.Ref == nil {
		t.Fatalf("binary read as %+v", bin)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<10 {
		t.Errorf("Read allocated %d bytes for %d sections sharing one relocation table, want < 256 KiB", alloc, nsec)
	}
}

// ccob-many-bundles: compressed bundles with empty entry tables, each
// declaring a 16 MiB zstd window, reuse one decoder: 2,000 of them
// allocate a few MiB, not a window each.
func TestManyEmptyCompressedBundles(t *testing.T) {
	inner := append([]byte("__CLANG_OFFLOAD_BUNDLE__"), make([]byte, 8)...) // 0 entries
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x70}                     // 16 MiB window, no content size
	h := uint32(len(inner)<<3 | 1)                                          // one raw block, last
	frame = append(append(frame, byte(h), byte(h>>8), byte(h>>16)), inner...)
	le := binary.LittleEndian
	ccob := append([]byte("CCOB"), le.AppendUint16(le.AppendUint16(nil, 2), 1)...)
	ccob = le.AppendUint32(le.AppendUint32(ccob, uint32(24+len(frame))), uint32(len(inner)))
	ccob = append(le.AppendUint64(ccob, 0), frame...)
	bundles := make([][]byte, 2000)
	for i := range bundles {
		bundles[i] = ccob
	}
	data := hostbintest.EmbeddedELF(bundles, false)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	bin := read(t, data)
	runtime.ReadMemStats(&after)
	if len(bin.Bundles) != 2000 || !bin.Bundles[1999].Compressed || bin.Bundles[1999].Err != "" {
		t.Fatalf("%d bundles, last %+v", len(bin.Bundles), bin.Bundles[len(bin.Bundles)-1])
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("reading 2,000 empty compressed bundles allocated %d MiB, want < 64", alloc>>20)
	}
}
