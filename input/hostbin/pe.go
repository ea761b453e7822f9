package hostbin

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
)

// PE/COFF layout (Microsoft PE Format: "MS-DOS Stub", "COFF File Header",
// "Optional Header", "Section Table", "COFF String Table").
const (
	peFileHeaderSize    = 20
	peSectionHeaderSize = 40
	peSymbolSize        = 18
	peMagic32           = 0x10b // PE32: ImageBase is a u32 at offset 28
	peMagic64           = 0x20b // PE32+: ImageBase is a u64 at offset 24
	peMinOptional32     = 96    // the fixed part of the PE32 optional header
	peMinOptional64     = 112   // and of PE32+
	peMaxLongName       = 256   // bytes read of a "/N" section name
)

// openPE reads the PE/COFF headers kpack-lint needs (file header,
// ImageBase, section table; long section names from the COFF string
// table) and locates the kpack sections. It does not call debug/pe.NewFile,
// which allocates every section's COFF relocations (NumberOfRelocations
// records per section, even when all sections name the same bytes) and
// copies a symbol's long name per symbol: what it reads here is bounded by
// the file's own bytes (at most 65,535 section headers of 40 bytes).
func openPE(r io.ReaderAt, size int64) (c *container, err error) {
	h, err := readPEHeaders(r, size)
	if err != nil {
		return nil, err
	}
	c = &container{format: FormatPE, order: binary.LittleEndian}
	if c.ref, err = peSection(h, RefSectionPE, size); err != nil {
		return nil, err
	}
	if c.fatBin, err = peSection(h, FatBinSectionPE, size); err != nil {
		return nil, err
	}
	if c.bundles, err = peSection(h, BundleSectionPE, size); err != nil {
		return nil, err
	}
	return c, nil
}

// peHeaders is what openPE reads of a PE file.
type peHeaders struct {
	imageBase uint64
	sections  []peSectionHeader
}

// peSectionHeader is one section table entry with its full name.
type peSectionHeader struct {
	name             string
	virtualSize      uint32
	virtualAddress   uint32
	sizeOfRawData    uint32
	pointerToRawData uint32
}

// readPEHeaders checks the signature, machine and optional header as
// debug/pe.NewFile does and reads the section table.
func readPEHeaders(r io.ReaderAt, size int64) (*peHeaders, error) {
	var dos [0x40]byte
	if _, err := r.ReadAt(dos[:], 0); err != nil {
		return nil, formatErr(err, "invalid PE file")
	}
	signOff := int64(binary.LittleEndian.Uint32(dos[0x3c:]))
	var fh [4 + peFileHeaderSize]byte
	if n, _ := r.ReadAt(fh[:], signOff); n < 4 || string(fh[:4]) != "PE\x00\x00" {
		return nil, formatErr(fmt.Errorf("invalid PE file signature: % x", fh[:min(max(n, 0), 4)]), "invalid PE file")
	} else if n < len(fh) {
		return nil, formatErr(io.ErrUnexpectedEOF, "invalid PE file: truncated COFF file header")
	}
	le := binary.LittleEndian
	machine, nsec := le.Uint16(fh[4:]), int(le.Uint16(fh[6:]))
	symtab, nsyms, optSize := le.Uint32(fh[12:]), le.Uint32(fh[16:]), le.Uint16(fh[20:])
	if !knownPEMachine(machine) {
		return nil, formatErr(fmt.Errorf("unrecognized PE machine: %#x", machine), "invalid PE file")
	}
	optOff := signOff + int64(len(fh))
	base, err := peImageBase(r, optOff, optSize)
	if err != nil {
		return nil, err
	}
	table := make([]byte, nsec*peSectionHeaderSize) // at most 2.6 MB, and read from the file below
	if n, _ := r.ReadAt(table, optOff+int64(optSize)); n < len(table) {
		return nil, formatErr(io.ErrUnexpectedEOF, "invalid PE file: section table of %d headers past the end of the file", nsec)
	}
	h := &peHeaders{imageBase: base, sections: make([]peSectionHeader, nsec)}
	strtab := int64(-1) // COFF string table offset (after the symbol table), -1 without one
	if symtab > 0 {
		strtab = int64(symtab) + peSymbolSize*int64(nsyms)
	}
	for i := range h.sections {
		b := table[i*peSectionHeaderSize:]
		name, err := peSectionName(r, b[:8], strtab, size)
		if err != nil {
			return nil, formatErr(err, "invalid PE file")
		}
		h.sections[i] = peSectionHeader{name: name, virtualSize: le.Uint32(b[8:]), virtualAddress: le.Uint32(b[12:]),
			sizeOfRawData: le.Uint32(b[16:]), pointerToRawData: le.Uint32(b[20:])}
	}
	return h, nil
}

// knownPEMachine is debug/pe.NewFile's list of accepted machines.
func knownPEMachine(m uint16) bool {
	switch m {
	case pe.IMAGE_FILE_MACHINE_AMD64, pe.IMAGE_FILE_MACHINE_ARM64, pe.IMAGE_FILE_MACHINE_ARMNT,
		pe.IMAGE_FILE_MACHINE_I386, pe.IMAGE_FILE_MACHINE_RISCV32, pe.IMAGE_FILE_MACHINE_RISCV64,
		pe.IMAGE_FILE_MACHINE_RISCV128, pe.IMAGE_FILE_MACHINE_UNKNOWN:
		return true
	}
	return false
}

// peImageBase reads the optional header's ImageBase (0 without an optional
// header), with debug/pe's checks on its size and magic.
func peImageBase(r io.ReaderAt, off int64, size uint16) (uint64, error) {
	if size == 0 {
		return 0, nil
	}
	if size < 2 {
		return 0, formatErr(nil, "invalid PE file: optional header size is less than optional header magic size")
	}
	var b [peMinOptional64]byte
	n, _ := r.ReadAt(b[:min(int(size), len(b))], off)
	le := binary.LittleEndian
	if n < 2 {
		return 0, formatErr(io.ErrUnexpectedEOF, "invalid PE file: failure to read optional header magic")
	}
	magic := le.Uint16(b[:])
	want := map[uint16]int{peMagic32: peMinOptional32, peMagic64: peMinOptional64}[magic]
	switch {
	case want == 0:
		return 0, formatErr(nil, "invalid PE file: optional header has unexpected Magic of 0x%x", magic)
	case int(size) < want:
		return 0, formatErr(nil, "invalid PE file: optional header size(%d) is less than the minimum size (%d)", size, want)
	case n < want:
		return 0, formatErr(io.ErrUnexpectedEOF, "invalid PE file: truncated optional header")
	case magic == peMagic32:
		return uint64(le.Uint32(b[28:])), nil
	}
	return le.Uint64(b[24:]), nil
}

// peSectionName returns a section's name: the NUL-terminated 8-byte field,
// or for "/N" the string at offset N of the COFF string table at strtab
// (the offset counts the table's 4-byte length), at most peMaxLongName
// bytes of it.
func peSectionName(r io.ReaderAt, field []byte, strtab, fileSize int64) (string, error) {
	if field[0] != '/' {
		return cstr(field), nil
	}
	n, err := strconv.Atoi(cstr(field[1:]))
	if err != nil {
		return "", err
	}
	var lb [4]byte
	if strtab < 0 {
		return "", fmt.Errorf("section name %q but no COFF string table", cstr(field))
	}
	if k, _ := r.ReadAt(lb[:], strtab); k < 4 {
		return "", fmt.Errorf("fail to read string table length: %w", io.ErrUnexpectedEOF)
	}
	tabLen := int64(binary.LittleEndian.Uint32(lb[:]))
	if n < 4 || int64(n) > tabLen || strtab+int64(n) > fileSize {
		return "", fmt.Errorf("section name offset %d is outside the string table", n)
	}
	buf := make([]byte, min(peMaxLongName, tabLen-int64(n)))
	k, _ := r.ReadAt(buf, strtab+int64(n))
	return cstr(buf[:k]), nil
}

// cstr is b up to its first NUL.
func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// peSection returns the first section called name, nil when there is none.
// Its memory size is VirtualSize (SizeOfRawData when VirtualSize is 0, as in
// object files); raw data beyond it is file-alignment padding.
func peSection(h *peHeaders, name string, fileSize int64) (*Section, error) {
	for _, s := range h.sections {
		if s.name != name {
			continue
		}
		size := int64(s.virtualSize)
		if size == 0 {
			size = int64(s.sizeOfRawData)
		}
		sec := &Section{
			Name:     name,
			Offset:   int64(s.pointerToRawData),
			Size:     size,
			FileSize: min(size, int64(s.sizeOfRawData)),
			Addr:     h.imageBase + uint64(s.virtualAddress),
		}
		return sec, checkSection(sec, fileSize)
	}
	return nil, nil
}
