package kerneldb

import (
	"debug/elf"
	"encoding/binary"
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
	if got := readSoname(v.entry("plain/librocblas.so")); got != "librocblas.so.5" {
		t.Errorf("plain soname %q", got)
	}
	if got := readSoname(v.entry("bomb/librocblas.so")); got != "" {
		t.Errorf("compressed .dynamic soname %q, want none", got)
	}
}
