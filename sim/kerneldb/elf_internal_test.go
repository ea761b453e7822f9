package kerneldb

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"io"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb/kerneldbtest"
)

// zstdZeros is a zstd frame of RLE blocks decoding to n zero bytes (n a
// multiple of 128 KiB).
func zstdZeros(n int) []byte {
	f := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x70}
	for i := 0; i < n>>17; i++ {
		h := uint32(128<<10<<3 | 1<<1)
		if i == n>>17-1 {
			h |= 1
		}
		f = append(f, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return f
}

// dynamic-zstd-bomb: a compressed .dynamic declaring 4 GiB gives no
// soname instead of being inflated; a plain one gives its DT_SONAME.
func TestReadSonameCompressedDynamic(t *testing.T) {
	le := binary.LittleEndian
	dyn := le.AppendUint64(le.AppendUint64(nil, uint64(elf.DT_SONAME)), 1)
	chdr := le.AppendUint64(le.AppendUint64(le.AppendUint32(le.AppendUint32(nil, uint32(elf.COMPRESS_ZSTD)), 0), 4<<30), 8)
	lib := func(d []byte, flags elf.SectionFlag) []byte {
		return hostbintest.ELFWith(
			hostbintest.ELFSection{Name: ".dynstr", Type: elf.SHT_STRTAB, Data: []byte("\x00librocblas.so.5\x00")},
			hostbintest.ELFSection{Name: ".dynamic", Type: elf.SHT_DYNAMIC, Flags: flags, Align: 8, Data: d, Link: 1})
	}
	tree := kerneldbtest.New()
	tree.Add("plain/librocblas.so", lib(dyn, 0))
	tree.Add("bomb/librocblas.so", lib(append(chdr, zstdZeros(8<<20)...), elf.SHF_COMPRESSED))
	dir := t.TempDir()
	tree.Write(t, dir)
	vt, err := vfs.Open([]string{dir}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vt.Close()
	v := newView(vt)
	if got := readSoname(v.entry("plain/librocblas.so"), nil); got != "librocblas.so.5" {
		t.Errorf("plain soname %q", got)
	}
	if got := readSoname(v.entry("bomb/librocblas.so"), nil); got != "" {
		t.Errorf("compressed .dynamic soname %q, want none", got)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.r.ReadAt(p, off)
	c.n += int64(k)
	return k, err
}

// A library whose 200 .rodata sections all name the same 256 KiB is read
// once, not 200 times (up to 256 MiB per library before); a library
// reached through a symlink and a hard link is scanned once.
func TestRodataReadOnce(t *testing.T) {
	data := append([]byte("GETENV_ROCBLAS_TENSILE_LIBPATH"), make([]byte, 256<<10)...)
	secs := []hostbintest.ELFSection{{Name: ".rodata", Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Data: data}}
	lib := hostbintest.ELFWith(secs...)
	le := binary.LittleEndian
	shoff, shnum := le.Uint64(lib[40:]), int(le.Uint16(lib[60:]))
	rodata := append([]byte(nil), lib[shoff+64:shoff+128]...) // section 1
	// 199 more headers naming the same bytes, then the name table last.
	hdrs := append([]byte(nil), lib[shoff:shoff+64]...)
	for range 200 {
		hdrs = append(hdrs, rodata...)
	}
	hdrs = append(hdrs, lib[shoff+uint64(shnum-1)*64:shoff+uint64(shnum)*64]...)
	lib = append(lib[:shoff], hdrs...)
	le.PutUint16(lib[60:], uint16(202))
	le.PutUint16(lib[62:], uint16(201))
	cr := &countingReader{r: bytes.NewReader(lib)}
	found, err := scanRodata(cr, nil, []byte("ROCBLAS_TENSILE_LIBPATH"))
	if err != nil || !found[0] {
		t.Fatalf("scanRodata = %v, %v", found, err)
	}
	if cr.n > 2*int64(len(data))+int64(len(lib)) {
		t.Errorf("read %d bytes for %d of .rodata", cr.n, len(data))
	}

	tree := kerneldbtest.New()
	tree.Add("a/librocblas.so", lib)
	tree.Link("b/librocblas.so", "../a/librocblas.so")
	dir := t.TempDir()
	tree.Write(t, dir)
	vt, err := vfs.Open([]string{dir}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vt.Close()
	v := newView(vt)
	for _, p := range []string{"a/librocblas.so", "b/librocblas.so"} {
		if !referencesEnv(v, v.entry(p), "ROCBLAS_TENSILE_LIBPATH") {
			t.Errorf("%s: name not found", p)
		}
	}
	if len(v.scanned) != 1 {
		t.Errorf("%d scans for one library reached by two paths", len(v.scanned))
	}
}
