package kerneldb_test

import (
	"fmt"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb/kerneldbtest"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// bigArches are the processors of a TheRock-sized multi-arch build.
var bigArches = []string{"gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1101", "gfx1151", "gfx1200", "gfx1201"}

// bigTree is a multi-arch install: rocBLAS per-arch with 300 sub-libraries
// per arch, hipBLASLt flat with 600, MIOpen with 4 CU counts per arch.
func bigTree() *kerneldbtest.Tree {
	t := kerneldbtest.New()
	t.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	t.AddLibrary("lib", "libhipblaslt", "1", "0", kerneldbtest.EnvHipBLASLt)
	t.AddLibrary("lib", "libMIOpen", "1", "0", kerneldbtest.EnvMIOpen)
	t.AddTensile(kerneldbtest.Tensile{Dir: "lib/rocblas/library", Arches: bigArches, PerArch: true, Lazy: true, Kernels: 300, Fallback: true})
	t.AddTensile(kerneldbtest.Tensile{Dir: "lib/hipblaslt/library", Arches: bigArches, Lazy: true, Kernels: 600, Lite: true})
	for _, a := range bigArches {
		var bases []string
		for _, cu := range []int{60, 64, 104, 304} {
			bases = append(bases, kerneldb.DbBasename(a, cu))
		}
		t.AddMIOpen("share/miopen/db", bases, ".kdb", ".HIP.fdb.txt", ".db.txt")
	}
	return t
}

func bigAgents() []string {
	var out []string
	for _, a := range bigArches {
		id, _ := targetid.Parse(a)
		for _, isa := range targetid.AgentISAs(id) {
			out = append(out, isa.String())
		}
	}
	return out
}

// BenchmarkCheck: all three libraries of a 10-arch install (about 18,200
// database files, the tree already open) for every agent ISA of those arches, with and without
// Deep (which parses 20 indexes and decodes 9,000 code-object headers).
func BenchmarkCheck(b *testing.B) {
	dir := b.TempDir()
	bigTree().Write(b, dir)
	agents := bigAgents()
	cus := map[string][]int{}
	for _, a := range bigArches {
		cus[a] = []int{104}
	}
	vt, err := vfs.Open([]string{dir}, vfs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer vt.Close()
	b.Logf("%d files, %d agents", len(vt.Files()), len(agents))
	for _, deep := range []bool{false, true} {
		b.Run(fmt.Sprintf("deep=%v", deep), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r := kerneldb.Check(vt, agents, kerneldb.Options{CUs: cus, Deep: deep})
				if len(r.Lookups) != 3*len(agents) {
					b.Fatalf("%d lookups", len(r.Lookups))
				}
				for _, l := range r.Lookups {
					for _, m := range l.Misses {
						if m.Effect.Severe() { // MIOpen ships no _xnack databases: notes only
							b.Fatalf("%s %s: %+v", l.Site.Library, l.Agent, m)
						}
					}
				}
			}
		})
	}
}

// BenchmarkCraftedIndex: Deep on one lazy index naming n sub-libraries
// that are all missing, for the four gfx942 agents: at MaxPlaceholders (the
// most kerneldb reads: every miss is kept up to MaxMissPaths) and just over
// it (the index is refused with a LimitHit miss).
func BenchmarkCraftedIndex(b *testing.B) {
	for _, n := range []int{kerneldb.MaxPlaceholders, kerneldb.MaxPlaceholders + 1} {
		b.Run(fmt.Sprintf("placeholders=%d", n), func(b *testing.B) {
			tree := kerneldbtest.New()
			tree.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
			tree.AddTensile(kerneldbtest.Tensile{Dir: "lib/rocblas/library", Arches: []string{"gfx942"}, PerArch: true, Lazy: true, Kernels: 1})
			subs := make([]string, n)
			for i := range subs {
				subs[i] = fmt.Sprintf("P%07d", i)
			}
			tree.Add("lib/rocblas/library/gfx942/TensileLibrary_lazy_gfx942.dat", kerneldbtest.Index("gfx942", subs, false))
			dir := b.TempDir()
			tree.Write(b, dir)
			vt, err := vfs.Open([]string{dir}, vfs.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer vt.Close()
			agents := []string{"gfx942:sramecc+:xnack+", "gfx942:sramecc+:xnack-", "gfx942:sramecc-:xnack+", "gfx942:sramecc-:xnack-"}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r := kerneldb.Check(vt, agents, kerneldb.Options{Deep: true})
				if m := r.Lookups[0].Misses[0]; len(m.Paths) > kerneldb.MaxMissPaths {
					b.Fatalf("%d paths kept", len(m.Paths))
				}
			}
		})
	}
}

// BenchmarkRequirements reads one device wheel's METADATA of 24,000
// distinct requirements, each written twice (1 MiB).
func BenchmarkRequirements(b *testing.B) {
	tree := kerneldbtest.New()
	tree.Add("amd_torch_device_gfx1100-2.10.0.dist-info/METADATA", manyRequires(24000))
	dir := b.TempDir()
	tree.Write(b, dir)
	vt, err := vfs.Open([]string{dir}, vfs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer vt.Close()
	b.ResetTimer()
	for range b.N {
		if r := kerneldb.Requirements(vt); len(r) != 1 || r[0].MissingTotal != 24000 {
			b.Fatalf("requirements %d", len(r))
		}
	}
}
