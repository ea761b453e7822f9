package hostbin

import (
	"bufio"
	"debug/elf"
	"errors"
	"io"

	"github.com/rocm-tools/kpack-lint/internal/util/elfsafe"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// openELF parses ELF headers with debug/elf (through elfsafe: a compressed
// section name table is not inflated past elfsafe.MaxInflate), turning a
// panic into a *FormatError, and locates the kpack sections. What a
// compressed section name table or .rela.dyn inflates is counted with m.
func openELF(r io.ReaderAt, size int64, m *inflate.Meter) (c *container, err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, formatErr(nil, "debug/elf panic: %v", p)
		}
	}()
	f, err := elfsafe.NewFile(io.NewSectionReader(r, 0, size), m)
	if err != nil {
		return nil, formatErr(err, "invalid ELF file")
	}
	c = &container{format: FormatELF, order: f.ByteOrder}
	if c.ref, err = elfSection(f, RefSectionELF, size); err != nil {
		return nil, err
	}
	if c.fatBin, err = elfSection(f, FatBinSectionELF, size); err != nil {
		return nil, err
	}
	if c.bundles, err = elfSection(f, BundleSectionELF, size); err != nil {
		return nil, err
	}
	if c.fatBin != nil {
		seg := *c.fatBin
		c.relocs = func() (map[uint64]uint64, error) { return relativeRelocs(f, seg, m) }
	}
	return c, nil
}

// Relative relocation types (ELF psABIs): the word at r_offset becomes
// load base + r_addend.
const (
	rX8664Relative   = 8    // R_X86_64_RELATIVE
	rAArch64Relative = 1027 // R_AARCH64_RELATIVE
)

// relativeRelocs returns the addends of the RELA relative relocations of
// .rela.dyn that land inside seg (the fat-binary segment), by address.
// Other relocations are ignored; a read error ends the scan early. A
// compressed .rela.dyn is read through elfsafe (at most
// elfsafe.MaxInflate bytes); one declaring more is not read and the error
// says why. It runs inside Read, whose recover turns a panic of debug/elf
// (not hardened) into a *FormatError: never a partial table with a nil
// error. What a compressed .rela.dyn inflates is counted with m.
func relativeRelocs(f *elf.File, seg Section, m *inflate.Meter) (out map[uint64]uint64, err error) {
	out = map[uint64]uint64{}
	s := f.Section(".rela.dyn")
	if s == nil || f.Class != elf.ELFCLASS64 || s.Type != elf.SHT_RELA {
		return out, nil
	}
	want := uint32(rX8664Relative)
	if f.Machine == elf.EM_AARCH64 {
		want = rAArch64Relative
	}
	rd, err := elfsafe.Open(s, m)
	if err != nil {
		return out, err
	}
	r := bufio.NewReaderSize(rd, 64<<10)
	var rec [24]byte // Elf64_Rela: r_offset, r_info, r_addend
	o := f.ByteOrder
	for {
		if _, err := io.ReadFull(r, rec[:]); err != nil {
			var le *inflate.LimitError
			if errors.As(err, &le) {
				return out, err // the run's budget is spent: not a table
			}
			return out, nil
		}
		off, info, addend := o.Uint64(rec[:]), o.Uint64(rec[8:]), o.Uint64(rec[16:])
		if elf.R_TYPE64(info) == want && off >= seg.Addr && off-seg.Addr < uint64(seg.Size) {
			out[off] = addend
		}
	}
}

// elfSection returns the first section called name, nil when there is none.
func elfSection(f *elf.File, name string, fileSize int64) (*Section, error) {
	s := f.Section(name)
	if s == nil {
		return nil, nil
	}
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		return nil, formatErr(nil, "section %s is compressed", name)
	}
	sec, err := elfLocate(s)
	if err != nil {
		return nil, err
	}
	return sec, checkSection(sec, fileSize)
}

// elfLocate converts the section header; SHT_NOBITS has no file bytes.
func elfLocate(s *elf.Section) (*Section, error) {
	off, err := toInt64(s.Offset, "offset", s.Name)
	if err != nil {
		return nil, err
	}
	sz, err := toInt64(s.Size, "size", s.Name)
	if err != nil {
		return nil, err
	}
	sec := &Section{Name: s.Name, Offset: off, Size: sz, FileSize: sz, Addr: s.Addr}
	if s.Type == elf.SHT_NOBITS {
		sec.FileSize = 0
	}
	return sec, nil
}
