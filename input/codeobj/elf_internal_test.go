package codeobj

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"math/rand"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
)

// elfSeeds are ELF64 files elfParses accepts: a bare code object header
// and files with sections, one of them with a program header table.
func elfSeeds() [][]byte {
	withSections := hostbintest.ELFWith(
		hostbintest.ELFSection{Name: ".text", Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR, Align: 16, Data: []byte("code")},
		hostbintest.ELFSection{Name: ".note", Type: elf.SHT_NOTE, Align: 4, Data: make([]byte, 24)},
		hostbintest.ELFSection{Name: ".bss", Type: elf.SHT_NOBITS, Flags: elf.SHF_ALLOC | elf.SHF_WRITE, Align: 8, Size: 64},
	)
	withProgs := append([]byte(nil), withSections...)
	// one PT_LOAD program header appended at the end
	ph := make([]byte, 56)
	ph[0] = byte(elf.PT_LOAD)
	withProgs = append(withProgs, ph...)
	le := func(b []byte, off int, v uint64, n int) {
		for i := 0; i < n; i++ {
			b[off+i] = byte(v >> (8 * i))
		}
	}
	le(withProgs, 32, uint64(len(withSections)), 8) // e_phoff
	le(withProgs, 54, 56, 2)                        // e_phentsize
	le(withProgs, 56, 1, 2)                         // e_phnum
	return [][]byte{codeobjtest.CodeObject("gfx942", "pad"), withSections, withProgs}
}

// checkAgrees fails when elfParses accepts data that debug/elf rejects or
// reads differently.
func checkAgrees(t *testing.T, data []byte) {
	t.Helper()
	if len(data) < HeaderSize || string(data[:4]) != elf.ELFMAG || data[elf.EI_CLASS] != byte(elf.ELFCLASS64) || data[elf.EI_DATA] != byte(elf.ELFDATA2LSB) {
		return // DecodeCodeObject rejects these before parseELF
	}
	if !elfParses(data) {
		return
	}
	want, err := parseELFSlow(data, nil)
	if err != nil {
		t.Fatalf("elfParses accepts what debug/elf rejects (%v): % x", err, data[:min(len(data), 128)])
	}
	if got, _ := parseELF(data, nil); got != want {
		t.Fatalf("parseELF = %+v, debug/elf %+v", got, want)
	}
}

func TestELFParsesAgreesWithDebugELF(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i, seed := range elfSeeds() {
		if !elfParses(seed) {
			t.Fatalf("seed %d: elfParses rejects it", i)
		}
		checkAgrees(t, seed)
		shoff := int(uint64(seed[40]) | uint64(seed[41])<<8)
		for n := 0; n < 20000; n++ {
			d := append([]byte(nil), seed...)
			for k := rng.Intn(4); k >= 0; k-- {
				var at int
				switch r := rng.Intn(3); {
				case r == 0 || shoff == 0:
					at = rng.Intn(64)
				case r == 1:
					at = shoff + rng.Intn(len(d)-shoff)
				default:
					at = rng.Intn(len(d))
				}
				switch rng.Intn(3) {
				case 0:
					d[at] = byte(rng.Intn(256))
				case 1:
					d[at] ^= 1 << rng.Intn(8)
				default:
					d[at] = []byte{0, 1, 0x7f, 0x80, 0xff}[rng.Intn(5)]
				}
			}
			if rng.Intn(8) == 0 {
				d = d[:rng.Intn(len(d)+1)]
			}
			checkAgrees(t, d)
		}
	}
}

func FuzzELFParses(f *testing.F) {
	for _, s := range elfSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgrees(t, bytes.Clone(data))
	})
}

// deep-codeobj-shstrtab-bomb: a code object whose section name table is
// compressed and declares 1 TiB does not parse (debug/elf.NewFile would
// inflate it whole).
func TestDecodeCodeObjectCompressedNameTable(t *testing.T) {
	data := hostbintest.ELFWith(hostbintest.ELFSection{Name: ".text", Type: elf.SHT_PROGBITS, Align: 16, Data: []byte("code")})
	le := binary.LittleEndian
	chdr := le.AppendUint64(le.AppendUint64(le.AppendUint32(le.AppendUint32(nil, uint32(elf.COMPRESS_ZSTD)), 0), 1<<40), 1)
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x70}
	for i := range 64 { // 64 RLE blocks of 128 KiB: 8 MiB of zeros
		h := uint32(128<<10<<3 | 1<<1 | min(i/63, 1))
		frame = append(frame, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	at := uint64(len(data))
	data = append(data, append(chdr, frame...)...)
	data[elf.EI_OSABI] = byte(OSABIAMDGPUHSA)
	le.PutUint16(data[18:], uint16(elf.EM_AMDGPU))
	le.PutUint32(data[elf64FlagsOffset:], 0x4c)
	shoff, shnum := le.Uint64(data[40:]), uint64(le.Uint16(data[60:]))
	sh := data[shoff+(shnum-1)*64:]
	le.PutUint64(sh[8:], uint64(elf.SHF_COMPRESSED))
	le.PutUint64(sh[24:], at)
	le.PutUint64(sh[32:], uint64(len(chdr)+len(frame)))
	_, err := DecodeCodeObject(data, nil)
	if err == nil || !strings.Contains(err.Error(), "elfsafe.MaxInflate") {
		t.Fatalf("DecodeCodeObject = %v, want an error naming elfsafe.MaxInflate", err)
	}
}
