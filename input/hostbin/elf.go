package hostbin

import (
	"debug/elf"
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
		c.relocs = func(want []bool) relocTable { return elfRelocs(f, seg, want, m) }
	}
	return c, nil
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
