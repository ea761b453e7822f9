package rules

import (
	"debug/elf"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
)

// A truncated dynamic relocation table is a KPL007 finding of its own,
// worded for the binary (not for kpack sections), even when the
// wrapper's pointer was read before the cut.
func TestRelocationTableFinding(t *testing.T) {
	bundle := hostbintest.Bundle(hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx1100")
	data, _, _ := hostbintest.RelocELF(hostbintest.RelocSpec{Bundles: [][]byte{bundle}, Stored: []uint64{0},
		Syms:      []hostbintest.Sym{{Name: "__hip_fatbin", Value: hostbintest.FatbinAddr, Section: 1}},
		Relocs:    []hostbintest.Reloc{{Type: uint32(elf.R_X86_64_64), Sym: 1}},
		TableSize: 24 * 1000})
	tree, err := vfs.Open([]string{testtree.Write(t, map[string][]byte{"lib/libx.so": data})}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tree.Close() })
	b := model.Load(tree)
	if len(b.Binaries) != 1 || b.Binaries[0].Info == nil || b.Binaries[0].Info.Bundles[0].Err != "" {
		t.Fatalf("binaries %+v", b.Binaries)
	}
	got := checkSearchPaths(&Context{Build: b})
	if len(got) != 1 || !strings.HasPrefix(got[0].Message, "lib/libx.so has dynamic relocation tables that do not read to their end: relocations-unread: relocation table .rela.dyn is truncated") ||
		strings.Contains(got[0].Message, "kpack splitter") || got[0].Subject != "lib/libx.so|relocations" {
		t.Fatalf("findings %+v", got)
	}
}
