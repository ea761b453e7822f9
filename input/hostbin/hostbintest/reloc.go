package hostbintest

import (
	"debug/elf"
	"debug/pe"
	"encoding/binary"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
)

// FatbinAddr is where RelocELF puts .hip_fatbin: right after the ELF
// header (addresses equal file offsets).
const FatbinAddr = 64

// Sym is one .dynsym symbol RelocELF writes (index i+1 for Syms[i]).
type Sym struct {
	Name    string
	Value   uint64
	Section elf.SectionIndex // st_shndx: elf.SHN_UNDEF for an undefined symbol
	Type    elf.SymType      // STT_OBJECT when 0
}

// Reloc is one relocation record RelocELF writes. It sets the pointer
// word of wrapper Wrapper (r_offset = the segment's address + 24*Wrapper
// + 8) unless At is set, which is then r_offset.
type Reloc struct {
	Wrapper int
	At      uint64
	Type    uint32 // elf.R_X86_64_* (or another machine's, see RelocSpec.Machine)
	Sym     uint32 // .dynsym index: 0 none, i+1 for Syms[i]
	Addend  int64  // r_addend; not written in a REL table
}

// RelocSpec describes a position-independent shared object for
// RelocELF: Bundles in .hip_fatbin (each 64-byte aligned, the first at
// FatbinAddr), one HIPF wrapper per Stored word in .hipFatBinSegment
// (its pointer as stored), .dynstr and .dynsym holding Syms, and one
// relocation table .rela.dyn (SHT_RELA) or, with REL, .rel.dyn (SHT_REL)
// holding Relocs. TableSize, when not 0, is written as the table's
// sh_size instead of its length (a table declaring more than the file
// holds); Machine, when not 0, replaces e_machine (EM_X86_64).
type RelocSpec struct {
	Bundles   [][]byte
	Stored    []uint64
	Syms      []Sym
	Relocs    []Reloc
	REL       bool
	TableSize uint64
	Machine   elf.Machine
}

// RelocELF builds the shared object spec describes. It returns the file,
// the address of each bundle and the address of the fat-binary segment.
func RelocELF(spec RelocSpec) (data []byte, bundleAddrs []uint64, segAddr uint64) {
	var fatbin []byte
	for _, b := range spec.Bundles {
		fatbin = pad(fatbin, alignUp(len(fatbin), 64))
		bundleAddrs = append(bundleAddrs, FatbinAddr+uint64(len(fatbin)))
		fatbin = append(fatbin, b...)
	}
	segAddr = uint64(alignUp(FatbinAddr+len(fatbin), 8))
	ws := make([]Wrap, len(spec.Stored))
	for i := range ws {
		ws[i] = Wrap{Magic: hostbin.MagicHIPF}
	}
	segment := WrapperBytes(ws, 0)
	for i, p := range spec.Stored {
		binary.LittleEndian.PutUint64(segment[i*hostbin.WrapperSize+8:], p)
	}
	dynstr, dynsym := symbols(spec.Syms)
	name, typ, table := ".rela.dyn", elf.SHT_RELA, relocRecords(spec, segAddr)
	if spec.REL {
		name, typ = ".rel.dyn", elf.SHT_REL
	}
	// Section indexes: 1 .hip_fatbin, 2 .hipFatBinSegment, 3 .dynstr,
	// 4 .dynsym, 5 the relocation table.
	data = ELFWith(
		ELFSection{Name: hostbin.BundleSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Align: 64, Data: fatbin},
		ELFSection{Name: hostbin.FatBinSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC | elf.SHF_WRITE, Align: 8, Data: segment},
		ELFSection{Name: ".dynstr", Type: elf.SHT_STRTAB, Flags: elf.SHF_ALLOC, Align: 1, Data: dynstr},
		ELFSection{Name: ".dynsym", Type: elf.SHT_DYNSYM, Flags: elf.SHF_ALLOC, Align: 8, Data: dynsym, Link: 3},
		ELFSection{Name: name, Type: typ, Flags: elf.SHF_ALLOC, Align: 8, Data: table, Size: spec.TableSize, Link: 4},
	)
	if spec.Machine != 0 {
		binary.LittleEndian.PutUint16(data[18:], uint16(spec.Machine))
	}
	return data, bundleAddrs, segAddr
}

// symbols writes the string table and the Elf64_Sym records (the null
// symbol first) of syms.
func symbols(syms []Sym) (strtab, symtab []byte) {
	le := binary.LittleEndian
	strtab = []byte{0}
	symtab = make([]byte, 24)
	for _, s := range syms {
		typ := s.Type
		if typ == 0 {
			typ = elf.STT_OBJECT
		}
		symtab = le.AppendUint32(symtab, uint32(len(strtab)))
		strtab = append(append(strtab, s.Name...), 0)
		symtab = append(symtab, byte(elf.STB_GLOBAL)<<4|byte(typ), 0)
		symtab = le.AppendUint16(symtab, uint16(s.Section))
		symtab = le.AppendUint64(symtab, s.Value)
		symtab = le.AppendUint64(symtab, 0)
	}
	return strtab, symtab
}

// relocRecords writes spec's relocations as Elf64_Rela (or Elf64_Rel).
func relocRecords(spec RelocSpec, segAddr uint64) []byte {
	le := binary.LittleEndian
	var out []byte
	for _, r := range spec.Relocs {
		at := r.At
		if at == 0 {
			at = segAddr + uint64(r.Wrapper*hostbin.WrapperSize) + 8
		}
		out = le.AppendUint64(out, at)
		out = le.AppendUint64(out, uint64(r.Sym)<<32|uint64(r.Type))
		if !spec.REL {
			out = le.AppendUint64(out, uint64(r.Addend))
		}
	}
	return out
}

// EmbeddedPE builds a PE32+ x86-64 DLL whose .hip_fat section holds
// bundle and whose .hipFatB section holds one HIPF wrapper pointing at it
// by its preferred address (ImageBase + RVA), as a linker writes it: a
// base relocation (IMAGE_REL_BASED_DIR64) adds the load delta to that
// word, so the stored pointer is the address in the file's own terms. It
// returns the file and that address.
func EmbeddedPE(bundle []byte) ([]byte, uint64) {
	addr := uint64(peImageBase + peSectionAlign) // .hip_fat is the first section
	ws := WrapperBytes([]Wrap{{Magic: hostbin.MagicHIPF, Binary: addr}}, 0)
	return PEWith(
		PESection{Name: hostbin.BundleSectionPE, Data: bundle},
		PESection{Name: hostbin.FatBinSectionPE, Data: ws, Characteristics: peDataRead | pe.IMAGE_SCN_MEM_WRITE},
	), addr
}
