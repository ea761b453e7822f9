package hostbin_test

import (
	"debug/elf"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
)

// Two bundles for the relocation tests, told apart by their one HIP entry.
var (
	relocBundleA = hostbintest.Bundle(hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx942")
	relocBundleB = hostbintest.Bundle(hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx1100")
	entriesA     = []string{hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx942"}
	entriesB     = []string{hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx1100"}
)

// fatbinSym is the library's own __hip_fatbin symbol (defined in section
// 1, .hip_fatbin), as in Debian 13's librccl.so.1.0.
var fatbinSym = hostbintest.Sym{Name: "__hip_fatbin", Value: hostbintest.FatbinAddr, Section: 1}

// relocRead builds spec with the two bundles and reads it.
func relocRead(t *testing.T, spec hostbintest.RelocSpec) (*hostbin.Binary, []uint64) {
	t.Helper()
	spec.Bundles = [][]byte{relocBundleA, relocBundleB}
	data, addrs, _ := hostbintest.RelocELF(spec)
	return read(t, data), addrs
}

// TestRelocationKinds: a wrapper's pointer word set by R_X86_64_64 (S +
// A), R_X86_64_RELATIVE (B + A, B = 0 in the file) or R_X86_64_GLOB_DAT
// (S, no addend: x86-64 psABI), in a RELA table or a REL one (the addend
// is the stored word), resolves to the bundle the loader points it at.
func TestRelocationKinds(t *testing.T) {
	offB := int64(64 * ((len(relocBundleA) + 63) / 64)) // bundle B's offset in .hip_fatbin
	r64, rel, glob := uint32(elf.R_X86_64_64), uint32(elf.R_X86_64_RELATIVE), uint32(elf.R_X86_64_GLOB_DAT)
	tests := map[string]struct {
		spec hostbintest.RelocSpec
		want [][]string
	}{
		"R_X86_64_64 against __hip_fatbin (librccl)": {
			spec: hostbintest.RelocSpec{Stored: []uint64{0}, Syms: []hostbintest.Sym{fatbinSym},
				Relocs: []hostbintest.Reloc{{Type: r64, Sym: 1}}},
			want: [][]string{entriesA}},
		"R_X86_64_64 with an addend": {
			spec: hostbintest.RelocSpec{Stored: []uint64{0, 0}, Syms: []hostbintest.Sym{fatbinSym},
				Relocs: []hostbintest.Reloc{{Wrapper: 0, Type: r64, Sym: 1, Addend: offB}, {Wrapper: 1, Type: r64, Sym: 1}}},
			want: [][]string{entriesB, entriesA}},
		"R_X86_64_RELATIVE": {
			spec: hostbintest.RelocSpec{Stored: []uint64{0}, Relocs: []hostbintest.Reloc{{Type: rel, Addend: hostbintest.FatbinAddr + offB}}},
			want: [][]string{entriesB}},
		"R_X86_64_GLOB_DAT ignores the addend": {
			spec: hostbintest.RelocSpec{Stored: []uint64{0}, Syms: []hostbintest.Sym{fatbinSym},
				Relocs: []hostbintest.Reloc{{Type: glob, Sym: 1, Addend: offB}}},
			want: [][]string{entriesA}},
		"a RELA relocation overrides a stored pointer": {
			spec: hostbintest.RelocSpec{Stored: []uint64{hostbintest.FatbinAddr}, Syms: []hostbintest.Sym{fatbinSym},
				Relocs: []hostbintest.Reloc{{Type: r64, Sym: 1, Addend: offB}}},
			want: [][]string{entriesB}},
		"REL R_X86_64_64: the stored word is the addend": {
			spec: hostbintest.RelocSpec{REL: true, Stored: []uint64{uint64(offB)}, Syms: []hostbintest.Sym{fatbinSym},
				Relocs: []hostbintest.Reloc{{Type: r64, Sym: 1}}},
			want: [][]string{entriesB}},
		"REL R_X86_64_RELATIVE": {
			spec: hostbintest.RelocSpec{REL: true, Stored: []uint64{hostbintest.FatbinAddr}, Relocs: []hostbintest.Reloc{{Type: rel}}},
			want: [][]string{entriesA}},
		"an absolute symbol": {
			spec: hostbintest.RelocSpec{Stored: []uint64{0}, Syms: []hostbintest.Sym{{Name: "abs", Value: hostbintest.FatbinAddr, Section: elf.SHN_ABS}},
				Relocs: []hostbintest.Reloc{{Type: r64, Sym: 1}}},
			want: [][]string{entriesA}},
		"a relocation outside every section is not the wrapper's": {
			spec: hostbintest.RelocSpec{Stored: []uint64{hostbintest.FatbinAddr}, Relocs: []hostbintest.Reloc{{At: 1 << 40, Type: rel, Addend: 5}}},
			want: [][]string{entriesA}},
	}
	for name, tt := range tests {
		bin, _ := relocRead(t, tt.spec)
		var got [][]string
		for _, bd := range bin.Bundles {
			if bd.Err != "" {
				t.Errorf("%s: bundle %d: %s", name, bd.Wrapper, bd.Err)
			}
			got = append(got, bd.Entries)
		}
		if !reflect.DeepEqual(got, tt.want) || len(bin.Problems) != 0 {
			t.Errorf("%s: entries %v, problems %v; want %v, none", name, got, bin.Problems, tt.want)
		}
	}
}

// TestRelocationUnresolvable: a pointer the file alone cannot give is
// said so in the bundle's Err, naming the relocation and the symbol.
func TestRelocationUnresolvable(t *testing.T) {
	r64 := uint32(elf.R_X86_64_64)
	tests := map[string]struct {
		spec hostbintest.RelocSpec
		want []string
	}{
		"undefined symbol": {
			spec: hostbintest.RelocSpec{Stored: []uint64{0}, Syms: []hostbintest.Sym{{Name: "__hip_fatbin", Section: elf.SHN_UNDEF}},
				Relocs: []hostbintest.Reloc{{Type: r64, Sym: 1}}},
			want: []string{"R_X86_64_64 against symbol __hip_fatbin + 0x0 (.rela.dyn)", "does not define", "another module"}},
		"indirect function": {
			spec: hostbintest.RelocSpec{Stored: []uint64{0}, Syms: []hostbintest.Sym{{Name: "pick", Value: 64, Section: 1, Type: elf.STT_GNU_IFUNC}},
				Relocs: []hostbintest.Reloc{{Type: r64, Sym: 1}}},
			want: []string{"symbol pick", "STT_GNU_IFUNC"}},
		"symbol index past the table": {
			spec: hostbintest.RelocSpec{Stored: []uint64{0}, Relocs: []hostbintest.Reloc{{Type: r64, Sym: 7}}},
			want: []string{"symbol 7", "past the end of .dynsym"}},
		"symbol in a section that does not exist": {
			spec: hostbintest.RelocSpec{Stored: []uint64{0}, Syms: []hostbintest.Sym{{Name: "far", Value: 64, Section: 99}},
				Relocs: []hostbintest.Reloc{{Type: r64, Sym: 1}}},
			want: []string{"symbol far", "names section 99 of 7"}},
		"a value outside every section": {
			spec: hostbintest.RelocSpec{Stored: []uint64{0}, Syms: []hostbintest.Sym{{Name: "elsewhere", Value: 1 << 30, Section: 2}},
				Relocs: []hostbintest.Reloc{{Type: r64, Sym: 1, Addend: 8}}},
			want: []string{"pointer 0x40000008 (set at load time by relocation R_X86_64_64 against symbol elsewhere + 0x8 (.rela.dyn)) is outside the .hip_fatbin section"}},
		"a type this reader does not compute": {
			spec: hostbintest.RelocSpec{Stored: []uint64{0}, Syms: []hostbintest.Sym{fatbinSym},
				Relocs: []hostbintest.Reloc{{Type: uint32(elf.R_X86_64_JMP_SLOT), Sym: 1}}},
			want: []string{"relocation R_X86_64_JMP_SLOT (.rela.dyn), which this reader does not compute"}},
	}
	for name, tt := range tests {
		bin, _ := relocRead(t, tt.spec)
		if len(bin.Bundles) != 1 || bin.Bundles[0].Entries != nil || bin.Bundles[0].Offset != -1 {
			t.Fatalf("%s: bundles %+v, want one not read", name, bin.Bundles)
		}
		for _, w := range tt.want {
			if !strings.Contains(bin.Bundles[0].Err, w) {
				t.Errorf("%s: Err %q lacks %q", name, bin.Bundles[0].Err, w)
			}
		}
	}
}

// TestRelocationAArch64: R_AARCH64_ABS64 is S + A.
func TestRelocationAArch64(t *testing.T) {
	bin, _ := relocRead(t, hostbintest.RelocSpec{Machine: elf.EM_AARCH64, Stored: []uint64{0}, Syms: []hostbintest.Sym{fatbinSym},
		Relocs: []hostbintest.Reloc{{Type: uint32(elf.R_AARCH64_ABS64), Sym: 1}}})
	if len(bin.Bundles) != 1 || !reflect.DeepEqual(bin.Bundles[0].Entries, entriesA) {
		t.Fatalf("bundles %+v", bin.Bundles)
	}
}

// TestRelocationTableTruncated: a table that ends before the records its
// header declares is a RelocUnread problem, and a wrapper whose pointer
// is 0 says the relocations were not all read, not that it points
// nowhere.
func TestRelocationTableTruncated(t *testing.T) {
	spec := hostbintest.RelocSpec{Stored: []uint64{0}, Syms: []hostbintest.Sym{fatbinSym},
		Relocs: []hostbintest.Reloc{{At: 8, Type: uint32(elf.R_X86_64_RELATIVE)}}, TableSize: 24 * 1000}
	bin, _ := relocRead(t, spec)
	wantProblem(t, bin, "relocation table .rela.dyn is truncated: it ends after ")
	wantProblem(t, bin, " of the 1000 records its section header declares")
	if len(bin.Bundles) != 1 || !strings.Contains(bin.Bundles[0].Err, "the wrapper's pointer is 0 and the relocations that set it were not all read: relocation table .rela.dyn is truncated") {
		t.Errorf("bundles %+v", bin.Bundles)
	}

	spec.TableSize = 24 + 7 // a partial record
	bin, _ = relocRead(t, spec)
	wantProblem(t, bin, "relocation table .rela.dyn ends in a partial record after 1 records (31 bytes, not a multiple of 24)")

	// The wrapper's own relocation came before the cut: it reads, and the
	// problem is still reported.
	spec.Relocs = []hostbintest.Reloc{{Type: uint32(elf.R_X86_64_64), Sym: 1}}
	spec.TableSize = 24 * 1000
	bin, _ = relocRead(t, spec)
	wantProblem(t, bin, "is truncated")
	if len(bin.Bundles) != 1 || !reflect.DeepEqual(bin.Bundles[0].Entries, entriesA) {
		t.Errorf("bundles %+v", bin.Bundles)
	}
}

// TestRelocationCountBomb: a table declaring 2^40 bytes (45 billion
// records) in a file of a few hundred bytes reads what the file holds,
// allocating nothing from the declared size; a binary holding more
// records than MaxRelocations stops at the bound with a problem.
func TestRelocationCountBomb(t *testing.T) {
	spec := hostbintest.RelocSpec{Stored: []uint64{0}, Syms: []hostbintest.Sym{fatbinSym},
		Relocs: []hostbintest.Reloc{{Type: uint32(elf.R_X86_64_64), Sym: 1}}, TableSize: 1 << 40}
	spec.Bundles = [][]byte{relocBundleA}
	data, _, _ := hostbintest.RelocELF(spec)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	bin := read(t, data)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("Read allocated %d bytes for a %d-byte file", alloc, len(data))
	}
	wantProblem(t, bin, " of the 45812984490 records its section header declares")
	if !reflect.DeepEqual(bin.Bundles[0].Entries, entriesA) {
		t.Errorf("bundles %+v", bin.Bundles)
	}

	defer hostbin.SetMaxRelocations(4)()
	var relocs []hostbintest.Reloc
	for range 10 {
		relocs = append(relocs, hostbintest.Reloc{At: 8, Type: uint32(elf.R_X86_64_RELATIVE)})
	}
	bin, _ = relocRead(t, hostbintest.RelocSpec{Stored: []uint64{hostbintest.FatbinAddr}, Relocs: relocs})
	wantProblem(t, bin, "more than 4 relocation records in the binary's dynamic relocation tables (this reader's limit, hostbin.MaxRelocations)")
}

// wantProblem checks that bin has exactly one problem, a RelocUnread one
// whose message holds msg.
func wantProblem(t *testing.T, bin *hostbin.Binary, msg string) {
	t.Helper()
	if len(bin.Problems) != 1 || bin.Problems[0].Kind != hostbin.RelocUnread || !strings.Contains(bin.Problems[0].Msg, msg) ||
		bin.Problems[0].Section == "" || bin.Problems[0].Kind.Invalid() {
		t.Errorf("problems %v, want one relocations-unread problem saying %q", bin.Problems, msg)
	}
}

// TestPEWrapperPointer: a PE wrapper stores its bundle's preferred
// address (ImageBase + RVA; a base relocation adds the load delta), which
// is the address .hip_fat has in the file's terms: it reads as stored.
func TestPEWrapperPointer(t *testing.T) {
	data, addr := hostbintest.EmbeddedPE(relocBundleB)
	bin := read(t, data)
	if bin.Format != hostbin.FormatPE || bin.BundleSection == nil || bin.BundleSection.Addr != addr || len(bin.Bundles) != 1 {
		t.Fatalf("format %s, bundle section %+v, bundles %+v", bin.Format, bin.BundleSection, bin.Bundles)
	}
	bd := bin.Bundles[0]
	if bd.Err != "" || bd.Offset != bin.BundleSection.Offset || !reflect.DeepEqual(bd.Entries, entriesB) || len(bin.Problems) != 0 {
		t.Errorf("bundle %+v, problems %v", bd, bin.Problems)
	}
}
