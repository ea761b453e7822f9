package hostbin_test

import (
	"bytes"
	"debug/elf"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
)

func read(t *testing.T, data []byte) *hostbin.Binary {
	t.Helper()
	b, err := hostbin.Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return b
}

func kinds(ps []hostbin.Problem) []hostbin.ProblemKind {
	var ks []hostbin.ProblemKind
	for _, p := range ps {
		ks = append(ks, p.Kind)
	}
	return ks
}

var goodRef = hostbintest.RefBytes("lib/libfoo.so", "../.kpack/foo_@GFXARCH@.kpack")

// Every format writer, so each case runs on ELF and PE alike.
var writers = map[hostbin.Format]func([]byte, []hostbintest.Wrap) []byte{
	hostbin.FormatELF: hostbintest.ELF,
	hostbin.FormatPE:  hostbintest.PE,
}

func TestReadCases(t *testing.T) {
	mixed := []hostbintest.Wrap{{Magic: hostbin.MagicHIPF}, {Magic: hostbin.MagicHIPK, COIndex: 7},
		{Magic: 0}, {Magic: hostbin.MagicHIPK, COIndex: 3}, {Magic: hostbin.MagicHIPK, COIndex: 7}}
	tests := []struct {
		name     string
		ref      []byte
		wrappers []hostbintest.Wrap
		wantRef  bool
		wantIdx  []uint32
		want     []hostbin.ProblemKind
	}{
		{"kpacked", goodRef, hostbintest.HIPK(4), true, seq(4), nil},
		{"plain host binary", nil, nil, false, nil, nil},
		{"ordinary HIP binary", nil, hostbintest.HIPF(3), false, nil, nil},
		{"HIPF and unknown magics ignored, duplicates kept", goodRef, mixed, true, []uint32{7, 3, 7}, nil},
		{"HIPK without ref", nil, hostbintest.HIPK(2), false, seq(2), []hostbin.ProblemKind{hostbin.HIPKWithoutRef}},
		{"ref without fat-bin section", goodRef, nil, true, nil, []hostbin.ProblemKind{hostbin.RefWithoutHIPK}},
		{"ref with only HIPF", goodRef, hostbintest.HIPF(1), true, nil, []hostbin.ProblemKind{hostbin.RefWithoutHIPK}},
		{"invalid ref", []byte{0x82, 0xa1}, hostbintest.HIPK(1), false, seq(1), []hostbin.ProblemKind{hostbin.RefInvalidMsgpack}},
	}
	for format, write := range writers {
		for _, tc := range tests {
			t.Run(string(format)+"/"+tc.name, func(t *testing.T) {
				b := read(t, write(tc.ref, tc.wrappers))
				if b.Format != format || (b.Ref != nil) != tc.wantRef {
					t.Errorf("format %q, Ref %+v", b.Format, b.Ref)
				}
				if got := b.COIndexes(); !slices.Equal(got, tc.wantIdx) {
					t.Errorf("COIndexes = %v, want %v", got, tc.wantIdx)
				}
				if got := kinds(b.Problems); !slices.Equal(got, tc.want) {
					t.Errorf("problems = %v, want %v", b.Problems, tc.want)
				}
				if (b.RefSection != nil) != (tc.ref != nil) || (b.FatBinSection != nil) != (tc.wrappers != nil) {
					t.Errorf("sections %+v %+v", b.RefSection, b.FatBinSection)
				}
			})
		}
	}
}

func TestReadRefProblemLocation(t *testing.T) {
	data := hostbintest.ELF([]byte{0x81, 0xab, 'k', 'e', 'r', 'n', 'e', 'l', '_', 'n', 'a', 'm', 'e', 0x05}, hostbintest.HIPK(1))
	b := read(t, data)
	want := []hostbin.ProblemKind{hostbin.RefWrongType, hostbin.RefMissingField}
	if got := kinds(b.Problems); !slices.Equal(got, want) {
		t.Fatalf("problems = %v, want %v", b.Problems, want)
	}
	p := b.Problems[0]
	if p.Section != hostbin.RefSectionELF || p.Offset != b.RefSection.Offset+13 || data[p.Offset] != 0x05 {
		t.Errorf("problem at %s+%d, want %s at offset of the value", p.Section, p.Offset, hostbin.RefSectionELF)
	}
}

func TestFatBinBadSize(t *testing.T) {
	fat := append(hostbintest.WrapperBytes(hostbintest.HIPK(2), 0), 1, 2, 3, 4, 5)
	data := hostbintest.ELFWith(
		hostbintest.ELFSection{Name: hostbin.RefSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Data: goodRef},
		hostbintest.ELFSection{Name: hostbin.FatBinSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Data: fat},
	)
	b := read(t, data)
	if got := kinds(b.Problems); !slices.Equal(got, []hostbin.ProblemKind{hostbin.FatBinBadSize}) {
		t.Fatalf("problems = %v", b.Problems)
	}
	if p := b.Problems[0]; p.Offset != b.FatBinSection.Offset+48 || p.Kind.Invalid() {
		t.Errorf("problem %+v", p)
	}
	if !slices.Equal(b.COIndexes(), seq(2)) {
		t.Errorf("COIndexes = %v", b.COIndexes())
	}
}

// A zero-filled (SHT_NOBITS) reference reads as the byte 0, not a map; a
// NOBITS fat-bin segment stores no wrapper (its all-zero records are not
// listed).
func TestNoBitsSections(t *testing.T) {
	data := hostbintest.ELFWith(
		hostbintest.ELFSection{Name: hostbin.RefSectionELF, Type: elf.SHT_NOBITS, Flags: elf.SHF_ALLOC, Size: 0x55},
		hostbintest.ELFSection{Name: hostbin.FatBinSectionELF, Type: elf.SHT_NOBITS, Flags: elf.SHF_ALLOC, Size: 48},
	)
	b := read(t, data)
	if b.RefSection.FileSize != 0 || b.RefSection.Size != 0x55 || len(b.Wrappers) != 0 {
		t.Fatalf("sections %+v %+v, wrappers %+v", b.RefSection, b.FatBinSection, b.Wrappers)
	}
	want := []hostbin.ProblemKind{hostbin.RefWrongType, hostbin.RefWithoutHIPK}
	if got := kinds(b.Problems); !slices.Equal(got, want) || b.Ref != nil {
		t.Errorf("problems = %v, want %v", b.Problems, want)
	}
}

// Huge NOBITS sizes must not be allocated.
func TestHugeNoBitsFatBin(t *testing.T) {
	data := hostbintest.ELFWith(
		hostbintest.ELFSection{Name: hostbin.RefSectionELF, Type: elf.SHT_NOBITS, Flags: elf.SHF_ALLOC, Size: 1 << 40},
		hostbintest.ELFSection{Name: hostbin.FatBinSectionELF, Type: elf.SHT_NOBITS, Flags: elf.SHF_ALLOC, Size: 1 << 40},
	)
	b := read(t, data)
	want := []hostbin.ProblemKind{hostbin.RefWrongType, hostbin.FatBinTooLarge}
	if got := kinds(b.Problems); !slices.Equal(got, want) || b.Wrappers != nil {
		t.Errorf("problems = %v, want %v", b.Problems, want)
	}
}

// A PE section whose VirtualSize exceeds its raw data is zero-padded in
// memory: the wrappers up to the end of the raw data are read (the last
// one zero-filled), the all-zero ones after it are not listed; a section
// without raw data lists none.
func TestPEVirtualPadding(t *testing.T) {
	fat := hostbintest.WrapperBytes(hostbintest.HIPK(1), 0)
	data := hostbintest.PEWith(
		hostbintest.PESection{Name: hostbin.RefSectionPE, Data: goodRef},
		hostbintest.PESection{Name: hostbin.FatBinSectionPE, Data: fat, VirtualSize: 610},
	)
	b := read(t, data)
	if b.FatBinSection.Size != 610 || b.FatBinSection.FileSize != 512 || len(b.Wrappers) != 22 {
		t.Fatalf("fat-bin %+v, %d wrappers", b.FatBinSection, len(b.Wrappers))
	}
	if got := kinds(b.Problems); !slices.Equal(got, []hostbin.ProblemKind{hostbin.FatBinBadSize}) ||
		!slices.Equal(b.COIndexes(), []uint32{0}) {
		t.Errorf("problems %v, COIndexes %v", b.Problems, b.COIndexes())
	}
	empty := read(t, hostbintest.PEWith(hostbintest.PESection{Name: hostbin.FatBinSectionPE, VirtualSize: 48}))
	if len(empty.Wrappers) != 0 || empty.FatBinSection.FileSize != 0 {
		t.Errorf("uninitialised fat-bin: %+v", empty.FatBinSection)
	}
}

// nobits-fatbin-memory: tiny ELF files whose .hipFatBinSegment is NOBITS
// with sh_size 64 MiB (just within MaxFatBinSectionSize) cost no more than
// their own size: 20 of them took 1.4 GiB when the zero tail was read.
func TestNoBitsFatBinWithinLimitNotMaterialised(t *testing.T) {
	data := hostbintest.ELFWith(
		hostbintest.ELFSection{Name: hostbin.RefSectionELF, Data: goodRef},
		hostbintest.ELFSection{Name: hostbin.FatBinSectionELF, Type: elf.SHT_NOBITS, Flags: elf.SHF_ALLOC, Size: hostbin.MaxFatBinSectionSize},
	)
	var b *hostbin.Binary
	n := kpacktest.Allocated(func() { b = read(t, data) })
	if n > 1<<20 || len(b.Wrappers) != 0 {
		t.Errorf("allocated %d bytes, %d wrappers", n, len(b.Wrappers))
	}
	want := []hostbin.ProblemKind{hostbin.FatBinBadSize, hostbin.RefWithoutHIPK}
	if got := kinds(b.Problems); !slices.Equal(got, want) {
		t.Errorf("problems = %v", b.Problems)
	}
}

func TestReadNotBinary(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("x"), []byte("KPAK\x01\x00\x00\x00"), []byte("#!/bin/sh\n")} {
		if _, err := hostbin.Read(bytes.NewReader(data), int64(len(data))); !errors.Is(err, hostbin.ErrNotBinary) {
			t.Errorf("Read(%q) err = %v, want ErrNotBinary", data, err)
		}
	}
}

// Truncations and corruptions of real and generated files never panic and
// give a Binary, a *FormatError or (cut before the magic) ErrNotBinary.
func TestReadTruncatedAndCorrupt(t *testing.T) {
	for _, src := range [][]byte{readTestdata(t, "hipfft-test"), readTestdata(t, "kpacked.dll"),
		hostbintest.ELF(goodRef, hostbintest.HIPK(3))} {
		for _, n := range []int{2, 4, 20, 63, 64, 100, 0x200, len(src) / 2, len(src) - 1} {
			checkReadResult(t, src[:n])
		}
		for i := 0; i < len(src); i += 7 {
			c := bytes.Clone(src)
			c[i] ^= 0xff
			checkReadResult(t, c)
		}
	}
}

func checkReadResult(t *testing.T, data []byte) {
	t.Helper()
	b, err := hostbin.Read(bytes.NewReader(data), int64(len(data)))
	var fe *hostbin.FormatError
	if errors.Is(err, hostbin.ErrNotBinary) {
		return
	}
	if (err == nil) == (b == nil) || (err != nil && !errors.As(err, &fe)) {
		t.Fatalf("Read(%d bytes) = %v, %v", len(data), b, err)
	}
}

func TestTruncatedSectionIsFormatError(t *testing.T) {
	data := hostbintest.ELF(goodRef, hostbintest.HIPK(1))
	b := read(t, data)
	// Point the reference section past the end of the file.
	shoff := int(uint64(data[40]) | uint64(data[41])<<8)
	off := shoff + 64 + 24
	c := bytes.Clone(data)
	c[off], c[off+1] = 0xff, 0xff
	_, err := hostbin.Read(bytes.NewReader(c), int64(len(c)))
	var fe *hostbin.FormatError
	if !errors.As(err, &fe) || b.RefSection.Offset != 64 {
		t.Errorf("err = %v", err)
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		head string
		want hostbin.Format
		ok   bool
	}{
		{"\x7fELF\x02", hostbin.FormatELF, true},
		{"MZ\x90\x00", hostbin.FormatPE, true},
		{"\x7fEL", "", false},
		{"KPAK", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		if got, ok := hostbin.Sniff([]byte(tc.head)); got != tc.want || ok != tc.ok {
			t.Errorf("Sniff(%q) = %q, %v", tc.head, got, ok)
		}
	}
}

// The writers' output is accepted by binutils, not only by Go.
func TestWritersAcceptedByBinutils(t *testing.T) {
	tools := map[string][]string{"readelf": {"-S", "-W"}, "objdump": {"-h"}}
	files := map[string][]byte{
		"t.so":  hostbintest.ELF(goodRef, hostbintest.HIPK(2)),
		"t.dll": hostbintest.PE(goodRef, hostbintest.HIPK(2)),
	}
	dir := t.TempDir()
	for name, data := range files {
		path := filepath.Join(dir, name)
		writeFile(t, path, data)
		tool := "readelf"
		if filepath.Ext(name) == ".dll" {
			tool = "objdump"
		}
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
		out, err := exec.Command(tool, append(tools[tool], path)...).CombinedOutput()
		if err != nil || bytes.Contains(out, []byte("Warning")) || !bytes.Contains(out, []byte("kpack")) {
			t.Errorf("%s %s: %v\n%s", tool, name, err, out)
		}
	}
}
