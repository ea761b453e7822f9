// Package elfsafe opens ELF files with debug/elf on hostile input: it
// checks the section name string table before debug/elf.NewFile inflates
// it, turns debug/elf panics into errors, and reads sections so that a
// compressed section (SHF_COMPRESSED, ELF gABI "Section Compression", or a
// GNU ".zdebug" section) is never inflated past MaxInflate bytes.
//
// debug/elf inflates a compressed section whole through Section.Data and
// reads it to the end through Section.Open: 32 KB of zstd RLE blocks
// declare and produce gigabytes. Every ELF read of kpack-lint (host
// binaries, kernel-database libraries, stored code objects) goes through
// this package, and what it inflates is counted with the caller's
// inflate.Meter against the run's budget of decompressed bytes.
package elfsafe

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// MaxInflate is the most bytes a compressed section may declare (its
// Chdr ch_size, or a .zdebug section's ZLIB header) for this package to
// inflate it; reading one that declares more fails with an
// *InflateError. Toolchains compress only debug sections (ld
// --compress-debug-sections), which kpack-lint never reads, so the bound
// only meets crafted files.
const MaxInflate = 16 << 20

// maxInflate is MaxInflate; the fuzz target lowers it to keep each run
// short.
var maxInflate uint64 = MaxInflate

// InflateError reports a compressed section that declares more than
// MaxInflate bytes.
type InflateError struct {
	Section  string // section name, "" for the section name table before it is read
	Declared uint64 // the uncompressed size the section header declares
}

// Error names the section, the declared size and the limit.
func (e *InflateError) Error() string {
	name := e.Section
	if name == "" {
		name = "section name string table"
	}
	return fmt.Sprintf("%s is compressed (SHF_COMPRESSED) and declares %d bytes uncompressed, more than the %d bytes (elfsafe.MaxInflate) this reader inflates",
		name, e.Declared, MaxInflate)
}

// NewFile checks that the section name string table is not a compressed
// section declaring more than MaxInflate bytes, then runs
// debug/elf.NewFile under a recover (a panic becomes an error). The bytes
// a compressed name table declares (debug/elf inflates it) are counted
// with m, the run's budget of decompressed bytes (nil: not counted); a
// spent budget is its *inflate.LimitError.
func NewFile(r io.ReaderAt, m *inflate.Meter) (f *elf.File, err error) {
	declared, err := checkNameTable(r)
	if err != nil {
		return nil, err
	}
	if declared > 0 {
		if err := m.Check(); err != nil {
			return nil, err
		}
		if err := m.Add(int(declared)); err != nil {
			return nil, err
		}
	}
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("debug/elf panic: %v", p)
		}
	}()
	return elf.NewFile(r)
}

// header is what checkNameTable needs of the ELF header.
type header struct {
	order     binary.ByteOrder
	is64      bool
	shoff     uint64
	shentsize uint64
	shnum     uint64
	shstrndx  uint64
}

// readHeader decodes the ELF identification and header fields; ok is false
// for anything debug/elf will reject on its own.
func readHeader(r io.ReaderAt) (h header, ok bool) {
	var b [64]byte
	if n, _ := r.ReadAt(b[:], 0); n < 52 || string(b[:4]) != elf.ELFMAG {
		return h, false
	}
	switch elf.Data(b[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		h.order = binary.LittleEndian
	case elf.ELFDATA2MSB:
		h.order = binary.BigEndian
	default:
		return h, false
	}
	o := h.order
	switch elf.Class(b[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		h.is64 = true
		h.shoff = o.Uint64(b[40:])
		h.shentsize, h.shnum, h.shstrndx = uint64(o.Uint16(b[58:])), uint64(o.Uint16(b[60:])), uint64(o.Uint16(b[62:]))
	case elf.ELFCLASS32:
		h.shoff = uint64(o.Uint32(b[32:]))
		h.shentsize, h.shnum, h.shstrndx = uint64(o.Uint16(b[46:])), uint64(o.Uint16(b[48:])), uint64(o.Uint16(b[50:]))
	default:
		return h, false
	}
	return h, true
}

// sectionHeader reads the flags, offset, size and link of section i.
func (h header) sectionHeader(r io.ReaderAt, i uint64) (flags, off, size uint64, link uint32, ok bool) {
	var b [64]byte
	n := uint64(40)
	if h.is64 {
		n = 64
	}
	if h.shentsize < n || i > (1<<62)/h.shentsize {
		return 0, 0, 0, 0, false
	}
	at := h.shoff + i*h.shentsize
	if at > 1<<62 {
		return 0, 0, 0, 0, false
	}
	if k, _ := r.ReadAt(b[:n], int64(at)); uint64(k) < n {
		return 0, 0, 0, 0, false
	}
	o := h.order
	if h.is64 {
		return o.Uint64(b[8:]), o.Uint64(b[24:]), o.Uint64(b[32:]), o.Uint32(b[40:]), true
	}
	return uint64(o.Uint32(b[8:])), uint64(o.Uint32(b[16:])), uint64(o.Uint32(b[20:])), o.Uint32(b[24:]), true
}

// checkNameTable fails when the section name string table (e_shstrndx,
// extended numbering included) is compressed and declares more than
// MaxInflate bytes; otherwise it returns the bytes a compressed one
// declares (0 for one not compressed). Headers it cannot read are left to
// debug/elf.
func checkNameTable(r io.ReaderAt) (uint64, error) {
	h, ok := readHeader(r)
	if !ok || h.shoff == 0 {
		return 0, nil
	}
	if h.shstrndx == uint64(elf.SHN_XINDEX) {
		_, _, _, link, ok := h.sectionHeader(r, 0)
		if !ok {
			return 0, nil
		}
		h.shstrndx = uint64(link)
	}
	if h.shstrndx == 0 {
		return 0, nil
	}
	flags, off, _, _, ok := h.sectionHeader(r, h.shstrndx)
	if !ok || flags&uint64(elf.SHF_COMPRESSED) == 0 {
		return 0, nil
	}
	declared, ok := h.chSize(r, off)
	if ok && declared <= maxInflate {
		return declared, nil
	}
	return 0, &InflateError{Declared: declared}
}

// chSize reads ch_size of the compression header at off.
func (h header) chSize(r io.ReaderAt, off uint64) (uint64, bool) {
	var b [24]byte
	n := 12
	if h.is64 {
		n = 24
	}
	if off > 1<<62 {
		return 0, false
	}
	if k, _ := r.ReadAt(b[:n], int64(off)); k < n {
		return 0, false
	}
	if h.is64 {
		return h.order.Uint64(b[8:]), true
	}
	return uint64(h.order.Uint32(b[4:])), true
}

// Compressed reports whether debug/elf inflates s when reading it
// (SHF_COMPRESSED, or a ".zdebug" name).
func Compressed(s *elf.Section) bool {
	return s.Flags&elf.SHF_COMPRESSED != 0 || strings.HasPrefix(s.Name, ".zdebug")
}

// Open returns a reader of s's contents. An uncompressed section reads its
// stored bytes (at most what the file holds); a compressed one is
// refused with an *InflateError when it declares more than MaxInflate
// bytes, never yields more than that, and counts what it inflates with m,
// the run's budget of decompressed bytes (nil: not counted; past the
// budget, reads fail with its *inflate.LimitError).
func Open(s *elf.Section, m *inflate.Meter) (rd io.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			rd, err = nil, fmt.Errorf("debug/elf panic reading section %s: %v", s.Name, p)
		}
	}()
	if s.Type == elf.SHT_NOBITS {
		return bytes.NewReader(nil), nil
	}
	if !Compressed(s) {
		return io.NewSectionReader(s.ReaderAt, 0, int64(min(s.FileSize, 1<<62))), nil
	}
	r := s.Open() // sets s.Size from a .zdebug section's ZLIB header
	if s.Size > maxInflate {
		return nil, &InflateError{Section: s.Name, Declared: s.Size}
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m.Reader(io.LimitReader(r, int64(s.Size))), nil
}

// Data returns s's contents read through Open (what it inflates counted
// with m): for an uncompressed section its stored bytes (a header
// declaring more than the file holds reads to the end of the file and
// fails), for a compressed one at most MaxInflate bytes. SHT_NOBITS gives
// no bytes.
func Data(s *elf.Section, m *inflate.Meter) ([]byte, error) {
	r, err := Open(s, m)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, fmt.Errorf("reading section %s: %w", s.Name, err)
	}
	if !Compressed(s) && uint64(buf.Len()) < s.FileSize && s.Type != elf.SHT_NOBITS {
		return nil, fmt.Errorf("reading section %s: %w", s.Name, io.ErrUnexpectedEOF)
	}
	return buf.Bytes(), nil
}

// DynString returns the strings of the dynamic-section entries with tag
// (DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH) as debug/elf File.DynString
// does (no SHT_DYNAMIC section: none; a bad string offset is skipped), but
// reads the dynamic section and its string table through Data (what it
// inflates counted with m).
func DynString(f *elf.File, tag elf.DynTag, m *inflate.Meter) ([]string, error) {
	switch tag {
	case elf.DT_NEEDED, elf.DT_SONAME, elf.DT_RPATH, elf.DT_RUNPATH:
	default:
		return nil, fmt.Errorf("non-string-valued tag %v", tag)
	}
	ds := f.SectionByType(elf.SHT_DYNAMIC)
	if ds == nil {
		return nil, nil
	}
	d, err := Data(ds, m)
	if err != nil {
		return nil, err
	}
	entry := 8
	if f.Class == elf.ELFCLASS64 {
		entry = 16
	}
	if len(d)%entry != 0 {
		return nil, errors.New("length of dynamic section is not a multiple of dynamic entry size")
	}
	if ds.Link == 0 || int(ds.Link) >= len(f.Sections) {
		return nil, errors.New("section has invalid string table link")
	}
	str, err := Data(f.Sections[ds.Link], m)
	if err != nil {
		return nil, err
	}
	var out []string
	for ; len(d) > 0; d = d[entry:] {
		var t, v uint64
		if entry == 16 {
			t, v = f.ByteOrder.Uint64(d), f.ByteOrder.Uint64(d[8:])
		} else {
			t, v = uint64(f.ByteOrder.Uint32(d)), uint64(f.ByteOrder.Uint32(d[4:]))
		}
		if elf.DynTag(t) != tag || v >= uint64(len(str)) {
			continue
		}
		end := bytes.IndexByte(str[v:], 0)
		if end < 0 {
			continue
		}
		out = append(out, string(str[v:v+uint64(end)]))
	}
	return out, nil
}
