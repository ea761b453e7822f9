package hostbin

import (
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"io"

	"github.com/rocm-tools/kpack-lint/internal/util/elfsafe"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// Wrapper pointers set by the dynamic loader. A position-independent
// library stores 0 (RELA) or an addend (REL) in a wrapper's pointer word and
// leaves the address to a dynamic relocation: R_X86_64_RELATIVE (B + A) in
// most libraries, R_X86_64_64 (S + A) against the library's own
// __hip_fatbin symbol in Debian 13's librccl.so.1.0 (RCCL 5.4.3). Reading
// the file, the load base B is 0: a pointer is the link-time address that
// Section.Addr is in. Packed relative relocations (SHT_RELR) keep their
// addend in place, so the stored word already is that address.

// MaxRelocations bounds the relocation records read from one binary's
// dynamic relocation tables, all tables together (8,388,608 records: 192
// MiB of Elf64_Rela). Real ROCm libraries hold a few thousand; a binary
// holding more gets a RelocUnread problem and the records past the bound
// are not read.
const MaxRelocations = 1 << 23

// maxRelocations is MaxRelocations; tests lower it.
var maxRelocations = MaxRelocations

// maxSymbolName bounds the bytes read of a symbol's name for messages.
const maxSymbolName = 256

// relocKind is how a relocation computes the word it writes.
type relocKind int

const (
	relocUnsupported relocKind = iota // a type this reader does not compute
	relocRelative                     // B + A
	relocSymbolic                     // S + A
	relocSymbol                       // S (the addend is not used)
)

// relocKindOf classifies a relocation type of machine m: x86-64 psABI
// (R_X86_64_64 S + A, R_X86_64_RELATIVE B + A, R_X86_64_GLOB_DAT S) and
// AAELF64 (R_AARCH64_ABS64 and R_AARCH64_GLOB_DAT S + A,
// R_AARCH64_RELATIVE Delta(S) + A). ok is false for other machines, whose
// relocations are not read.
func relocKindOf(m elf.Machine, typ uint32) (k relocKind, name string, ok bool) {
	switch m {
	case elf.EM_X86_64:
		name = elf.R_X86_64(typ).String()
		switch elf.R_X86_64(typ) {
		case elf.R_X86_64_RELATIVE:
			return relocRelative, name, true
		case elf.R_X86_64_64:
			return relocSymbolic, name, true
		case elf.R_X86_64_GLOB_DAT:
			return relocSymbol, name, true
		}
		return relocUnsupported, name, true
	case elf.EM_AARCH64:
		name = elf.R_AARCH64(typ).String()
		switch elf.R_AARCH64(typ) {
		case elf.R_AARCH64_RELATIVE:
			return relocRelative, name, true
		case elf.R_AARCH64_ABS64, elf.R_AARCH64_GLOB_DAT:
			return relocSymbolic, name, true
		}
		return relocUnsupported, name, true
	}
	return relocUnsupported, "", false
}

// slotReloc is the last dynamic relocation of one wrapper's pointer word
// (the loader applies a table in order, so the last one stands).
type slotReloc struct {
	kind     relocKind
	name     string // relocation type, "R_X86_64_64"
	table    string // the relocation section, ".rela.dyn"
	sym      uint32 // symbol index (0: none)
	symtab   uint32 // the table's sh_link: its symbol table
	addend   int64  // r_addend (RELA); 0 for REL, whose addend is the stored word
	implicit bool   // REL: the addend is the word stored at the place
	// resolved by resolveSymbols: S, and why it cannot be known from the
	// file ("" when it can) with the symbol's name for messages.
	symValue uint64
	symName  string
	why      string
}

// pointer is the word the loader writes, stored being the word the file
// holds at the place; ok is false when it cannot be computed from this
// file (s.why says why).
func (s slotReloc) pointer(stored uint64) (uint64, bool) {
	if s.why != "" {
		return 0, false
	}
	a := uint64(s.addend)
	if s.implicit {
		a = stored
	}
	switch s.kind {
	case relocRelative:
		return a, true
	case relocSymbolic:
		return s.symValue + a, true
	case relocSymbol:
		return s.symValue, true
	}
	return 0, false
}

// String names the relocation for messages: "R_X86_64_64 against
// __hip_fatbin + 0x0 (.rela.dyn)".
func (s slotReloc) String() string {
	switch {
	case s.kind == relocRelative:
		return fmt.Sprintf("%s (%s)", s.name, s.table)
	case s.sym == 0:
		return fmt.Sprintf("%s without a symbol (%s)", s.name, s.table)
	case s.implicit:
		return fmt.Sprintf("%s against %s (%s)", s.name, s.symWords(), s.table)
	}
	return fmt.Sprintf("%s against %s + %#x (%s)", s.name, s.symWords(), s.addend, s.table)
}

func (s slotReloc) symWords() string {
	if s.symName != "" {
		return "symbol " + s.symName
	}
	return fmt.Sprintf("symbol %d", s.sym)
}

// relocTable is what the dynamic relocation tables do to the wrapper
// pointer words of the fat-binary segment: the relocation of each word
// that has one, by the word's address, and the problems of tables that
// did not read to their end.
type relocTable struct {
	slots    map[uint64]slotReloc
	problems []Problem
}

// incomplete says why relocations may be missing ("" when every table read).
func (t relocTable) incomplete() string {
	if len(t.problems) == 0 {
		return ""
	}
	return t.problems[0].Msg
}

// elfRelocs reads the dynamic relocation tables of f (sections of type
// SHT_RELA or SHT_REL that are loaded, SHF_ALLOC, or named .rela.dyn,
// .rela.plt, .rel.dyn or .rel.plt: what the loader applies through
// DT_RELA, DT_REL and DT_JMPREL) in section order and keeps the records
// that land on the pointer word of a wanted wrapper of seg (want[i] for
// wrapper i), at most MaxRelocations records in all. A table that ends early (past the end of the file, a
// partial record, a compressed table declaring more than
// elfsafe.MaxInflate) or the bound gives a RelocUnread problem. Only
// ELF64 x86-64 and AArch64 files are read. Memory: one entry per wanted
// wrapper at most (MaxEmbeddedWrappers). What compressed tables inflate
// is counted with m.
func elfRelocs(f *elf.File, seg Section, want []bool, m *inflate.Meter) relocTable {
	t := relocTable{slots: map[uint64]slotReloc{}}
	if f.Class != elf.ELFCLASS64 {
		return t
	}
	if _, _, ok := relocKindOf(f.Machine, 0); !ok {
		return t
	}
	budget := maxRelocations
	for _, s := range f.Sections {
		if !dynamicRelocs(s) {
			continue
		}
		n, err := scanRelocs(f, s, seg, want, t.slots, budget, m)
		budget -= n
		if errors.Is(err, errRelocLimit) {
			t.problems = append(t.problems, relocProblem(s, int64(n)*relocSize(s), fmt.Sprintf(
				"more than %d relocation records in the binary's dynamic relocation tables (this reader's limit, hostbin.MaxRelocations); the rest of %s and the tables after it were not read",
				maxRelocations, s.Name)))
			break
		}
		if err != nil {
			t.problems = append(t.problems, relocProblem(s, int64(n)*relocSize(s), err.Error()))
		}
	}
	resolveSymbols(f, t.slots)
	return t
}

// dynamicRelocs says whether s is a relocation table the dynamic loader
// applies.
func dynamicRelocs(s *elf.Section) bool {
	if s.Type != elf.SHT_RELA && s.Type != elf.SHT_REL {
		return false
	}
	switch s.Name {
	case ".rela.dyn", ".rela.plt", ".rel.dyn", ".rel.plt":
		return true
	}
	return s.Flags&elf.SHF_ALLOC != 0
}

// relocSize is the record size of an ELF64 relocation table.
func relocSize(s *elf.Section) int64 {
	if s.Type == elf.SHT_RELA {
		return 24 // Elf64_Rela: r_offset, r_info, r_addend
	}
	return 16 // Elf64_Rel: r_offset, r_info
}

// relocProblem is a RelocUnread problem of table s, at the file offset of
// its first record not read (at bytes into the table).
func relocProblem(s *elf.Section, at int64, msg string) Problem {
	off := int64(0)
	if s.Offset <= 1<<62 {
		off = int64(s.Offset) + at
	}
	return Problem{Kind: RelocUnread, Section: s.Name, Offset: off, Msg: msg}
}

// errRelocLimit ends a scan at the MaxRelocations bound.
var errRelocLimit = errors.New("relocation record limit")

// scanRelocs reads at most budget records of table s and records in
// slots those that land on the pointer word of a wanted wrapper i of seg
// (the word at seg.Addr + 24*i + 8). It returns the records read and why
// it stopped before the table's end (nil when it did not). A compressed
// table is inflated through elfsafe.Open, at most elfsafe.MaxInflate bytes,
// counted with m against the run's budget of decompressed bytes.
func scanRelocs(f *elf.File, s *elf.Section, seg Section, want []bool, slots map[uint64]slotReloc, budget int, m *inflate.Meter) (int, error) {
	rd, err := elfsafe.Open(s, m)
	if err != nil {
		return 0, err
	}
	size := relocSize(s)
	r := bufio.NewReaderSize(rd, 64<<10)
	var rec [24]byte
	o := f.ByteOrder
	for n := 0; ; n++ {
		if _, err := io.ReadFull(r, rec[:size]); err != nil {
			return n, tableEnd(s, n, size, err)
		}
		if n == budget {
			return n, errRelocLimit
		}
		off, info := o.Uint64(rec[:]), o.Uint64(rec[8:])
		if off < seg.Addr || (off-seg.Addr)%WrapperSize != 8 {
			continue
		}
		if i := (off - seg.Addr) / WrapperSize; i >= uint64(len(want)) || !want[i] {
			continue
		}
		kind, name, _ := relocKindOf(f.Machine, elf.R_TYPE64(info))
		sr := slotReloc{kind: kind, name: name, table: s.Name, sym: elf.R_SYM64(info), symtab: s.Link, implicit: size == 16}
		if size == 24 {
			sr.addend = int64(o.Uint64(rec[16:]))
		}
		if kind == relocUnsupported {
			sr.why = fmt.Sprintf("the loader sets the wrapper's pointer through relocation %s (%s), which this reader does not compute", name, s.Name)
		}
		slots[off] = sr
	}
}

// tableEnd turns the read error that ended table s after n records into
// nil at its clean end (n records of size bytes fill its sh_size, or for a
// compressed table the size its header declares), else the reason it
// ended early.
func tableEnd(s *elf.Section, n int, size int64, err error) error {
	read, want := uint64(n)*uint64(size), s.Size
	switch {
	case read == want && errors.Is(err, io.EOF):
		return nil
	case !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("relocation table %s: %w after %d records", s.Name, err, n)
	case read+uint64(size) > want:
		return fmt.Errorf("relocation table %s ends in a partial record after %d records (%d bytes, not a multiple of %d)", s.Name, n, want, size)
	}
	return fmt.Errorf("relocation table %s is truncated: it ends after %d of the %d records its section header declares", s.Name, n, want/uint64(size))
}

// resolveSymbols fills symValue, symName and why of every slot relocation
// that uses a symbol (S), reading the symbols from the table's linked
// symbol table (.dynsym): a symbol the binary defines gives its st_value;
// an undefined one (the loader takes it from another module), an
// indirect function (its value is what a resolver returns), a TLS or a
// common symbol cannot be known from the file.
func resolveSymbols(f *elf.File, slots map[uint64]slotReloc) {
	for off, s := range slots {
		if s.why != "" || s.kind == relocRelative || s.kind == relocUnsupported || s.sym == 0 {
			continue
		}
		sym, name, err := readSymbol(f, s.symtab, s.sym)
		s.symName = name
		switch {
		case err != nil:
			s.why = fmt.Sprintf("the loader sets the wrapper's pointer through relocation %s, whose symbol %d does not read: %v", s, s.sym, err)
		case sym.Section == elf.SHN_UNDEF:
			s.why = fmt.Sprintf("the loader sets the wrapper's pointer through relocation %s, a symbol this binary does not define (the loader takes it from another module), so the bundle it points to is not in this file", s)
		case elf.ST_TYPE(sym.Info) == elf.STT_GNU_IFUNC || elf.ST_TYPE(sym.Info) == elf.STT_TLS || sym.Section == elf.SHN_COMMON:
			s.why = fmt.Sprintf("the loader sets the wrapper's pointer through relocation %s, a %s symbol whose address is not in the file", s, symbolWhat(sym))
		case sym.Section < elf.SHN_LORESERVE && int(sym.Section) >= len(f.Sections):
			s.why = fmt.Sprintf("the loader sets the wrapper's pointer through relocation %s, whose symbol names section %d of %d", s, sym.Section, len(f.Sections))
		default:
			s.symValue = sym.Value
		}
		slots[off] = s
	}
}

func symbolWhat(s elf.Symbol) string {
	if s.Section == elf.SHN_COMMON {
		return "common"
	}
	if elf.ST_TYPE(s.Info) == elf.STT_TLS {
		return "thread-local"
	}
	return "indirect-function (STT_GNU_IFUNC)"
}

// readSymbol reads symbol idx of the ELF64 symbol table in section
// symtab (24 bytes at idx*24) and its name (at most maxSymbolName bytes
// of the table's string table; "" when it does not read).
func readSymbol(f *elf.File, symtab, idx uint32) (elf.Symbol, string, error) {
	var sym elf.Symbol
	if symtab == 0 || int(symtab) >= len(f.Sections) {
		return sym, "", fmt.Errorf("the relocation table links section %d, not a symbol table", symtab)
	}
	st := f.Sections[symtab]
	if st.Type != elf.SHT_DYNSYM && st.Type != elf.SHT_SYMTAB {
		return sym, "", fmt.Errorf("the relocation table links section %s (%s), not a symbol table", st.Name, st.Type)
	}
	var b [24]byte // Elf64_Sym: st_name, st_info, st_other, st_shndx, st_value, st_size
	if err := readAt(st, b[:], uint64(idx)*24); err != nil {
		return sym, "", fmt.Errorf("symbol %d of %s: %w", idx, st.Name, err)
	}
	o := f.ByteOrder
	sym = elf.Symbol{Info: b[4], Other: b[5], Section: elf.SectionIndex(o.Uint16(b[6:])), Value: o.Uint64(b[8:]), Size: o.Uint64(b[16:])}
	return sym, symbolName(f, st.Link, o.Uint32(b[:])), nil
}

// symbolName reads the NUL-terminated name at off of string table
// section strtab, at most maxSymbolName bytes; "" when it does not read.
func symbolName(f *elf.File, strtab, off uint32) string {
	if strtab == 0 || int(strtab) >= len(f.Sections) || f.Sections[strtab].Type != elf.SHT_STRTAB {
		return ""
	}
	s := f.Sections[strtab]
	if uint64(off) >= s.FileSize {
		return ""
	}
	buf := make([]byte, min(maxSymbolName, s.FileSize-uint64(off)))
	if err := readAt(s, buf, uint64(off)); err != nil {
		return ""
	}
	return cstr(buf)
}

// readAt fills b from s's contents at off: an uncompressed section reads
// its stored bytes in place; a compressed one (never seen in a real
// symbol table) is not read.
func readAt(s *elf.Section, b []byte, off uint64) error {
	if elfsafe.Compressed(s) || s.Type == elf.SHT_NOBITS {
		return fmt.Errorf("section %s is compressed or holds no bytes", s.Name)
	}
	if off > s.FileSize || uint64(len(b)) > s.FileSize-off {
		return fmt.Errorf("offset %d is past the end of %s (%d bytes)", off, s.Name, s.FileSize)
	}
	if _, err := s.ReadAt(b, int64(off)); err != nil {
		return fmt.Errorf("reading %s: %w", s.Name, err)
	}
	return nil
}
