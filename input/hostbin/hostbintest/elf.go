package hostbintest

import (
	"debug/elf"
	"encoding/binary"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
)

// ELFSection is one section for ELFWith. Data is written to the file; for
// SHT_NOBITS sections nothing is written and Size gives sh_size. Size 0
// means len(Data).
type ELFSection struct {
	Name  string
	Type  elf.SectionType
	Flags elf.SectionFlag
	Align uint64
	Data  []byte
	Size  uint64
	// Link is sh_link: the index of a linked section (a .dynamic
	// section's string table), counting the null section as 0.
	Link uint32
}

// Addresses equal file offsets in the writers' output, so sh_addr and the
// wrappers' binary field can point at the reference like in a real binary.

// ELF builds a minimal little-endian ELF64 x86-64 shared object (ET_DYN,
// no program headers) with a .rocm_kpack_ref section holding ref (none when
// ref is nil), a .hipFatBinSegment section holding the wrappers (none when
// wrappers is nil) and .shstrtab. Each wrapper's binary field holds the
// reference section's address.
func ELF(ref []byte, wrappers []Wrap) []byte {
	var secs []ELFSection
	if ref != nil {
		secs = append(secs, ELFSection{Name: hostbin.RefSectionELF, Type: elf.SHT_PROGBITS,
			Flags: elf.SHF_ALLOC, Align: 32, Data: ref})
	}
	if wrappers != nil {
		secs = append(secs, ELFSection{Name: hostbin.FatBinSectionELF, Type: elf.SHT_PROGBITS,
			Flags: elf.SHF_ALLOC | elf.SHF_WRITE, Align: 8, Data: WrapperBytes(wrappers, elfRefAddr(ref))})
	}
	return ELFWith(secs...)
}

// elfRefAddr is where ELFWith places the first section: right after the
// 64-byte header, aligned to 32.
func elfRefAddr(ref []byte) uint64 {
	if ref == nil {
		return 0
	}
	return 64
}

// ELFWith builds a minimal little-endian ELF64 x86-64 shared object with the
// given sections in order, followed by .shstrtab and the section header
// table. Section data starts right after the 64-byte ELF header.
func ELFWith(secs ...ELFSection) []byte {
	names, nameOff := shstrtab(secs)
	out := make([]byte, 64)
	var hdrs []byte
	hdrs = append(hdrs, make([]byte, 64)...) // SHN_UNDEF
	for i, s := range secs {
		al := max(int(s.Align), 1)
		out = pad(out, alignUp(len(out), al))
		size := s.Size
		if size == 0 {
			size = uint64(len(s.Data))
		}
		hdrs = appendShdr(hdrs, nameOff[i], s, uint64(len(out)), size)
		if s.Type != elf.SHT_NOBITS {
			out = append(out, s.Data...)
		}
	}
	strOff := uint64(len(out))
	out = append(out, names...)
	hdrs = appendShdr(hdrs, nameOff[len(secs)], ELFSection{Type: elf.SHT_STRTAB, Align: 1}, strOff, uint64(len(names)))
	out = pad(out, alignUp(len(out), 8))
	shoff := uint64(len(out))
	out = append(out, hdrs...)
	putEhdr(out[:64], shoff, uint16(len(secs)+2))
	return out
}

// shstrtab returns the section name table and each name's offset; the last
// offset is that of ".shstrtab" itself.
func shstrtab(secs []ELFSection) ([]byte, []uint32) {
	tab := []byte{0}
	var offs []uint32
	for _, s := range append(secs, ELFSection{Name: ".shstrtab"}) {
		offs = append(offs, uint32(len(tab)))
		tab = append(append(tab, s.Name...), 0)
	}
	return tab, offs
}

func appendShdr(b []byte, name uint32, s ELFSection, off, size uint64) []byte {
	le := binary.LittleEndian
	addr := off
	if s.Flags&elf.SHF_ALLOC == 0 {
		addr = 0
	}
	b = le.AppendUint32(b, name)
	b = le.AppendUint32(b, uint32(s.Type))
	b = le.AppendUint64(b, uint64(s.Flags))
	b = le.AppendUint64(b, addr)
	b = le.AppendUint64(b, off)
	b = le.AppendUint64(b, size)
	b = le.AppendUint32(b, s.Link)
	b = le.AppendUint32(b, 0) // info
	b = le.AppendUint64(b, max(s.Align, 1))
	return le.AppendUint64(b, 0) // entsize
}

// putEhdr fills the 64-byte ELF64 header.
func putEhdr(h []byte, shoff uint64, shnum uint16) {
	le := binary.LittleEndian
	copy(h, "\x7fELF")
	h[4], h[5], h[6] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	le.PutUint16(h[16:], uint16(elf.ET_DYN))
	le.PutUint16(h[18:], uint16(elf.EM_X86_64))
	le.PutUint32(h[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(h[40:], shoff)
	le.PutUint16(h[52:], 64) // e_ehsize
	le.PutUint16(h[54:], 56) // e_phentsize (no program headers: e_phnum 0)
	le.PutUint16(h[58:], 64) // e_shentsize
	le.PutUint16(h[60:], shnum)
	le.PutUint16(h[62:], shnum-1) // .shstrtab is last
}
