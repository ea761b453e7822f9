package hostbin

import (
	"debug/pe"
	"encoding/binary"
	"io"
)

// openPE parses PE/COFF headers with debug/pe, turning a panic into a
// *FormatError, and locates the kpack sections.
func openPE(r io.ReaderAt, size int64) (c *container, err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, formatErr(nil, "debug/pe panic: %v", p)
		}
	}()
	f, err := pe.NewFile(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, formatErr(err, "invalid PE file")
	}
	base := imageBase(f)
	c = &container{format: FormatPE, order: binary.LittleEndian}
	if c.ref, err = peSection(f, RefSectionPE, base, size); err != nil {
		return nil, err
	}
	if c.fatBin, err = peSection(f, FatBinSectionPE, base, size); err != nil {
		return nil, err
	}
	if c.bundles, err = peSection(f, BundleSectionPE, base, size); err != nil {
		return nil, err
	}
	return c, nil
}

// imageBase returns the optional header's ImageBase, 0 without one.
func imageBase(f *pe.File) uint64 {
	switch oh := f.OptionalHeader.(type) {
	case *pe.OptionalHeader64:
		return oh.ImageBase
	case *pe.OptionalHeader32:
		return uint64(oh.ImageBase)
	}
	return 0
}

// peSection returns the first section called name, nil when there is none.
// Its memory size is VirtualSize (SizeOfRawData when VirtualSize is 0, as in
// object files); raw data beyond it is file-alignment padding.
func peSection(f *pe.File, name string, base uint64, fileSize int64) (*Section, error) {
	s := f.Section(name)
	if s == nil {
		return nil, nil
	}
	size := int64(s.VirtualSize)
	if size == 0 {
		size = int64(s.Size)
	}
	sec := &Section{
		Name:     name,
		Offset:   int64(s.Offset),
		Size:     size,
		FileSize: min(size, int64(s.Size)),
		Addr:     base + uint64(s.VirtualAddress),
	}
	return sec, checkSection(sec, fileSize)
}
