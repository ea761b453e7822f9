package hostbin_test

import (
	"bytes"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
)

// BenchmarkReadPIC reads a position-independent library of 512 HIPF
// wrappers whose pointers R_X86_64_RELATIVE relocations set (librocsolver
// has 187): the relocation tables are scanned once per binary.
func BenchmarkReadPIC(b *testing.B) {
	bundles := make([][]byte, 512)
	for i := range bundles {
		bundles[i] = hostbintest.Bundle(hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx942", "hipv4-amdgcn-amd-amdhsa--gfx1100")
	}
	data := hostbintest.EmbeddedELF(bundles, true)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		bin, err := hostbin.Read(bytes.NewReader(data), int64(len(data)))
		if err != nil || len(bin.Bundles) != 512 || bin.Bundles[511].Err != "" {
			b.Fatal(err, bin.Bundles[511])
		}
	}
}
