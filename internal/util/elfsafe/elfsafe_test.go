package elfsafe

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// sec is one section of testELF.
type sec struct {
	name  string
	typ   elf.SectionType
	flags elf.SectionFlag
	data  []byte
	link  uint32
}

// testELF builds a little-endian ELF64 file: the sections in order, then the
// section name table (shstrFlags and shstrData replace its flags and
// contents when set), then the section header table.
func testELF(secs []sec, shstrFlags elf.SectionFlag, shstrData []byte) []byte {
	le := binary.LittleEndian
	names := []byte{0}
	var offs []uint32
	for _, s := range append(secs, sec{name: ".shstrtab"}) {
		offs = append(offs, uint32(len(names)))
		names = append(append(names, s.name...), 0)
	}
	if shstrData == nil {
		shstrData = names
	}
	all := append(secs, sec{name: ".shstrtab", typ: elf.SHT_STRTAB, flags: shstrFlags, data: shstrData})
	out := make([]byte, 64)
	hdrs := make([]byte, 64)
	for i, s := range all {
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
		off := uint64(len(out))
		out = append(out, s.data...)
		hdrs = le.AppendUint32(hdrs, offs[i])
		hdrs = le.AppendUint32(hdrs, uint32(s.typ))
		hdrs = le.AppendUint64(hdrs, uint64(s.flags))
		hdrs = le.AppendUint64(hdrs, 0)
		hdrs = le.AppendUint64(hdrs, off)
		hdrs = le.AppendUint64(hdrs, uint64(len(s.data)))
		hdrs = le.AppendUint32(hdrs, s.link)
		hdrs = le.AppendUint32(hdrs, 0)
		hdrs = le.AppendUint64(hdrs, 1)
		hdrs = le.AppendUint64(hdrs, 0)
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := uint64(len(out))
	out = append(out, hdrs...)
	copy(out, "\x7fELF")
	out[4], out[5], out[6] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	le.PutUint16(out[16:], uint16(elf.ET_DYN))
	le.PutUint16(out[18:], uint16(elf.EM_X86_64))
	le.PutUint32(out[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(out[40:], shoff)
	le.PutUint16(out[52:], 64)
	le.PutUint16(out[54:], 56)
	le.PutUint16(out[58:], 64)
	le.PutUint16(out[60:], uint16(len(all)+1))
	le.PutUint16(out[62:], uint16(len(all)))
	return out
}

// zstdZeros is a zstd frame of RLE blocks that decodes to n zero bytes
// (n a multiple of 128 KiB): 4 bytes per 128 KiB.
func zstdZeros(n int) []byte {
	f := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x70} // no content size, 8 MiB window
	const block = 128 << 10
	for i := 0; i < n/block; i++ {
		h := uint32(block<<3 | 1<<1) // RLE block
		if i == n/block-1 {
			h |= 1 // last
		}
		f = append(f, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return f
}

// compressed is a Chdr64 (ELFCOMPRESS_ZSTD, ch_size declared) and payload.
func compressed(declared uint64, payload []byte) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, uint32(elf.COMPRESS_ZSTD))
	b = le.AppendUint32(b, 0)
	b = le.AppendUint64(b, declared)
	b = le.AppendUint64(b, 1)
	return append(b, payload...)
}

// A compressed section name table declaring 1 TiB fails before debug/elf
// inflates it (deep-codeobj-shstrtab-bomb); one declaring its real size is
// read as debug/elf reads it.
func TestNewFileCompressedNameTable(t *testing.T) {
	bomb := testELF(nil, elf.SHF_COMPRESSED, compressed(1<<40, zstdZeros(4<<20)))
	_, err := NewFile(bytes.NewReader(bomb), nil)
	var ie *InflateError
	if !errors.As(err, &ie) || ie.Declared != 1<<40 {
		t.Fatalf("NewFile(1 TiB name table) = %v, want an *InflateError declaring 1 TiB", err)
	}
	names := []byte("\x00.text\x00.shstrtab\x00")
	padded := append(names, make([]byte, 128<<10-len(names))...)
	// A raw block holding the names: header type 0, size len(padded).
	raw := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x70}
	h := uint32(len(padded)<<3 | 1)
	raw = append(append(raw, byte(h), byte(h>>8), byte(h>>16)), padded...)
	ok := testELF([]sec{{name: ".text", typ: elf.SHT_PROGBITS, data: []byte{1, 2, 3}}}, elf.SHF_COMPRESSED, compressed(uint64(len(padded)), raw))
	f, err := NewFile(bytes.NewReader(ok), nil)
	if err != nil {
		t.Fatalf("NewFile(small compressed name table) = %v", err)
	}
	if f.Sections[1].Name != ".text" {
		t.Fatalf("section 1 is %q, want .text", f.Sections[1].Name)
	}
}

// Open and Data refuse a compressed section declaring more than MaxInflate
// (rela-zstd-bomb, dynamic-zstd-bomb) and never read more than it declares.
func TestOpenBounded(t *testing.T) {
	data := testELF([]sec{
		{name: ".rela.dyn", typ: elf.SHT_RELA, flags: elf.SHF_COMPRESSED, data: compressed(1<<40, zstdZeros(1<<20))},
		{name: ".small", typ: elf.SHT_PROGBITS, flags: elf.SHF_COMPRESSED, data: compressed(1000, zstdZeros(1<<20))},
		{name: ".plain", typ: elf.SHT_PROGBITS, data: []byte("abc")},
	}, 0, nil)
	f, err := NewFile(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ie *InflateError
	if _, err := Open(f.Section(".rela.dyn"), nil); !errors.As(err, &ie) || ie.Section != ".rela.dyn" {
		t.Fatalf("Open(.rela.dyn declaring 1 TiB) = %v, want an *InflateError", err)
	}
	if _, err := Data(f.Section(".rela.dyn"), nil); !errors.As(err, &ie) {
		t.Fatalf("Data(.rela.dyn declaring 1 TiB) = %v, want an *InflateError", err)
	}
	if b, err := Data(f.Section(".small"), nil); err != nil || len(b) != 1000 {
		t.Fatalf("Data(.small declaring 1000 of 1 MiB) = %d bytes, %v; want 1000", len(b), err)
	}
	if b, err := Data(f.Section(".plain"), nil); err != nil || string(b) != "abc" {
		t.Fatalf("Data(.plain) = %q, %v", b, err)
	}
}

// DynString reads DT_SONAME like debug/elf, and refuses a compressed
// .dynamic declaring more than MaxInflate.
func TestDynString(t *testing.T) {
	le := binary.LittleEndian
	var dyn []byte
	dyn = le.AppendUint64(le.AppendUint64(dyn, uint64(elf.DT_SONAME)), 1)
	dyn = le.AppendUint64(le.AppendUint64(dyn, uint64(elf.DT_NULL)), 0)
	data := testELF([]sec{
		{name: ".dynstr", typ: elf.SHT_STRTAB, data: []byte("\x00librocblas.so.5\x00")},
		{name: ".dynamic", typ: elf.SHT_DYNAMIC, data: dyn, link: 1},
	}, 0, nil)
	f, err := NewFile(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DynString(f, elf.DT_SONAME, nil)
	want, werr := f.DynString(elf.DT_SONAME)
	if err != nil || werr != nil || len(got) != 1 || got[0] != "librocblas.so.5" || want[0] != got[0] {
		t.Fatalf("DynString = %q, %v; debug/elf %q, %v", got, err, want, werr)
	}
	bomb := testELF([]sec{
		{name: ".dynstr", typ: elf.SHT_STRTAB, data: []byte("\x00librocblas.so.5\x00")},
		{name: ".dynamic", typ: elf.SHT_DYNAMIC, flags: elf.SHF_COMPRESSED, data: compressed(1<<32, zstdZeros(1<<20)), link: 1},
	}, 0, nil)
	f, err = NewFile(bytes.NewReader(bomb), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ie *InflateError
	if _, err := DynString(f, elf.DT_SONAME, nil); !errors.As(err, &ie) {
		t.Fatalf("DynString(compressed 4 GiB .dynamic) = %v, want an *InflateError", err)
	}
}

// What compressed sections inflate draws on the run's budget: a section
// within MaxInflate reads while the budget lasts, and past it Data fails
// with the budget's error; the name table's declared size is charged
// before debug/elf inflates it.
func TestInflateBudget(t *testing.T) {
	data := testELF([]sec{
		{name: ".a", typ: elf.SHT_PROGBITS, flags: elf.SHF_COMPRESSED, data: compressed(2<<20, zstdZeros(2<<20))},
		{name: ".b", typ: elf.SHT_PROGBITS, flags: elf.SHF_COMPRESSED, data: compressed(2<<20, zstdZeros(2<<20))},
	}, 0, nil)
	b := inflate.New(3 << 20)
	m := b.Meter("lib/libx.so")
	f, err := NewFile(bytes.NewReader(data), m)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Data(f.Section(".a"), m); err != nil || len(got) != 2<<20 || b.Used() != 2<<20 {
		t.Fatalf("Data(.a) = %d bytes, %v; used %d", len(got), err, b.Used())
	}
	_, err = Data(f.Section(".b"), m)
	var le *inflate.LimitError
	if !errors.As(err, &le) || le.What != "lib/libx.so" || le.Limit != 3<<20 {
		t.Fatalf("Data(.b) past the budget = %v", err)
	}
	if _, err := Open(f.Section(".a"), m); !errors.As(err, &le) {
		t.Fatalf("Open after the budget is spent = %v", err)
	}

	names := []byte("\x00.text\x00.shstrtab\x00")
	padded := append(names, make([]byte, 2<<20-len(names))...)
	raw := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x70}
	for off := 0; off < len(padded); off += 128 << 10 {
		h := uint32(128<<10<<3 | 0)
		if off+128<<10 >= len(padded) {
			h |= 1
		}
		raw = append(append(raw, byte(h), byte(h>>8), byte(h>>16)), padded[off:off+128<<10]...)
	}
	named := testELF([]sec{{name: ".text", typ: elf.SHT_PROGBITS, data: []byte{1}}}, elf.SHF_COMPRESSED, compressed(uint64(len(padded)), raw))
	b = inflate.New(1 << 20)
	if _, err := NewFile(bytes.NewReader(named), b.Meter("co")); !errors.As(err, &le) || le.What != "co" {
		t.Fatalf("NewFile(2 MiB name table, 1 MiB budget) = %v", err)
	}
	if f, err := NewFile(bytes.NewReader(named), inflate.New(4<<20).Meter("co")); err != nil || f.Sections[1].Name != ".text" {
		t.Fatalf("NewFile within the budget = %v", err)
	}
}
