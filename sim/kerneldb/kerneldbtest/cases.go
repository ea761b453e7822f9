package kerneldbtest

import (
	"fmt"
	"strings"
)

// Environment variables the generated libraries read.
const (
	EnvRocBLAS   = "ROCBLAS_TENSILE_LIBPATH"
	EnvHipBLASLt = "HIPBLASLT_TENSILE_LIBPATH"
	EnvMIOpen    = "MIOPEN_SYSTEM_DB_PATH"
)

// Case is one committed test build (testdata/kerneldb/<Name>): one or more
// inputs overlaid in order, and the policy to check it with.
type Case struct {
	Name   string
	Doc    string           // what it shows
	Inputs []string         // input folder names, in overlay order
	Trees  map[string]*Tree // input folder name -> tree
	Policy string           // policies.yaml
}

// Cases returns the committed builds: a clean tree per library and layout,
// and the public reports.
func Cases() []Case {
	return []Case{
		one("rocblas-flat-lazy", "rocBLAS, flat lazy layout (one library folder for every arch, xnack variants in file names); clean",
			rocblasFlatLazy(), policy("gfx90a, gfx942, gfx1100", "")),
		one("rocblas-per-arch", "rocBLAS, per-arch folders gfx90a-xnack-/, gfx90a-xnack+/, gfx942/ (rocm-libraries#5976); clean",
			rocblasPerArch(), policy("gfx90a, gfx942", "")),
		one("rocblas-non-lazy", "rocBLAS without lazy loading: TensileLibrary_<proc>.dat and *<proc>*.co; clean",
			rocblasNonLazy(), policy("gfx942, gfx1100", "")),
		one("hipblaslt-per-arch", "hipBLASLt, per-arch lazy folders (TheRock); clean", hipblasltPerArch(), policy("gfx942, gfx950", "")),
		one("hipblaslt-flat", "hipBLASLt, flat lazy layout with xnack variants and extension-op files; clean",
			hipblasltFlat(), policy("gfx90a, gfx942", "")),
		one("miopen", "MIOpen kernel, find and perf databases for gfx90a (104 and 110 CUs) and gfx942 (304 CUs); clean",
			miopen(), policy("gfx90a, gfx942", miopenAgents+"cu_counts:\n  gfx90a: [104, 110]\n  gfx942: [304]\n")),
		one("therock-5179", "TheRock#5179: librocblas built for gfx942, lib/rocblas/library holds only 55 *_fallback.dat and a manifest",
			theRock5179(), policy("gfx942", "")),
		theRock5478(),
		one("rocm-systems-7645", "rocm-systems#7645: the gfx90a-xnack± Tensile folders were dropped while splitting; gfx942's remain",
			rocmSystems7645(), policy("gfx90a, gfx942", "")),
		one("miopen-1651", "MIOpen#1651: an MI210 (gfx90a, 104 CUs) needs gfx90a68.kdb, only gfx90a6e (110 CUs, MI250X) is shipped",
			miopen1651(), policy("gfx90a", miopenAgent90a+"cu_counts:\n  gfx90a: [104, 110]\n")),
	}
}

func one(name, doc string, t *Tree, pol string) Case {
	return Case{Name: name, Doc: doc, Inputs: []string{"tree"}, Trees: map[string]*Tree{"tree": t}, Policy: pol}
}

// miopenAgents pins the agents to the default xnack- mode: MIOpen ships no
// _xnack databases, so xnack+ devices always compile at run time.
const (
	miopenAgents   = miopenAgent90a + "      gfx942: [\"gfx942:sramecc+:xnack-\"]\n"
	miopenAgent90a = "    agents:\n      gfx90a: [\"gfx90a:sramecc+:xnack-\"]\n"
)

func policy(targets, extra string) string {
	variant, top := extra, ""
	if i := strings.Index(extra, "cu_counts:"); i >= 0 {
		variant, top = extra[:i], extra[i:]
	}
	return "version: 1\nvariants:\n  release:\n    targets: [" + targets + "]\n" + variant + top
}

func rocblasFlatLazy() *Tree {
	t := New()
	t.AddLibrary("lib", "librocblas", "5", "4", EnvRocBLAS)
	t.AddTensile(Tensile{Dir: "lib/rocblas/library", Arches: []string{"gfx90a:xnack-", "gfx90a:xnack+", "gfx942", "gfx1100"},
		Lazy: true, Kernels: 3, Fallback: true})
	return t
}

func rocblasPerArch() *Tree {
	t := New()
	t.AddLibrary("lib", "librocblas", "5", "4", EnvRocBLAS)
	t.AddTensile(Tensile{Dir: "lib/rocblas/library", Arches: []string{"gfx90a:xnack-", "gfx90a:xnack+", "gfx942"},
		PerArch: true, Lazy: true, Kernels: 3, Fallback: true})
	return t
}

func rocblasNonLazy() *Tree {
	t := New()
	t.AddLibrary("lib", "librocblas", "5", "4", EnvRocBLAS)
	t.AddTensile(Tensile{Dir: "lib/rocblas/library", Arches: []string{"gfx942", "gfx1100"}, Kernels: 2})
	return t
}

func hipblasltPerArch() *Tree {
	t := New()
	t.AddLibrary("lib", "libhipblaslt", "1", "0", EnvHipBLASLt)
	t.AddTensile(Tensile{Dir: "lib/hipblaslt/library", Arches: []string{"gfx942", "gfx950"}, PerArch: true, Lazy: true, Kernels: 3, Lite: true})
	return t
}

func hipblasltFlat() *Tree {
	t := New()
	t.AddLibrary("lib", "libhipblaslt", "1", "0", EnvHipBLASLt)
	t.AddTensile(Tensile{Dir: "lib/hipblaslt/library", Arches: []string{"gfx90a:xnack-", "gfx90a:xnack+", "gfx942"}, Lazy: true, Kernels: 3, Lite: true})
	// Files kerneldb does not model, named as hipBLASLt ships them.
	t.Add("lib/hipblaslt/library/hipblasltExtOpLibrary.dat", SubLibraryBytes("extop", false))
	t.Add("lib/hipblaslt/library/extop_gfx90a.co", []byte("extop gfx90a"))
	t.Add("lib/hipblaslt/library/extop_gfx942.co", []byte("extop gfx942"))
	t.Add("lib/hipblaslt/library/hipblasltTransform.hsaco", []byte("transform"))
	return t
}

func miopen() *Tree {
	t := New()
	t.AddLibrary("lib", "libMIOpen", "1", "0", EnvMIOpen)
	t.AddMIOpen("share/miopen/db", []string{"gfx90a68", "gfx90a6e", "gfx942130"}, ".kdb", ".HIP.fdb.txt", ".db.txt")
	t.Add("share/miopen/db/gfx942.tn.model", []byte("{}\n"))
	return t
}

// fallbackLayouts are transpose layouts of the generated fallback names.
var fallbackLayouts = []string{"Ailk_Bljk_Cijk_Dijk", "Alik_Bljk_Cijk_Dijk", "Ailk_Bjlk_Cijk_Dijk", "Alik_Bjlk_Cijk_Dijk",
	"Ailk_BjlkC_Cijk_Dijk", "AlikC_Bljk_Cijk_Dijk"}

func theRock5179() *Tree {
	t := New()
	t.AddLibrary("lib", "librocblas", "5", "4", EnvRocBLAS)
	var manifest strings.Builder
	for i := 0; i < 55; i++ {
		name := fmt.Sprintf("TensileLibrary_Type_%s_Contraction_l_%s_fallback.dat", Types[i%len(Types)], fallbackLayouts[i/len(Types)])
		t.Add("lib/rocblas/library/"+name, SubLibraryBytes(name, false))
	}
	for _, arch := range []string{"gfx1200", "gfx1201"} {
		fmt.Fprintf(&manifest, "TensileLibrary_lazy_%s.dat\nKernels.so-000-%s.hsaco\n", arch, arch)
	}
	t.Add("lib/rocblas/library/TensileManifest.txt", []byte(manifest.String()))
	return t
}

// theRock5478: a pip install of the hipBLASLt base package and its gfx1100
// device package, which lacks TensileLibrary_lazy_gfx1100.dat and
// Kernels.so-000-gfx1100.hsaco.
func theRock5478() Case {
	base := New()
	base.AddLibrary("lib", "libhipblaslt", "1", "0", EnvHipBLASLt)
	base.Add("lib/hipblaslt/library/hipblasltExtOpLibrary.dat", SubLibraryBytes("extop", false))
	dev := New()
	dev.AddTensile(Tensile{Dir: "lib/hipblaslt/library", Arches: []string{"gfx1100"}, Lazy: true, Kernels: 3, Lite: true})
	dev.Remove("lib/hipblaslt/library/TensileLibrary_lazy_gfx1100.dat")
	dev.Remove("lib/hipblaslt/library/Kernels.so-000-gfx1100.hsaco")
	return Case{Name: "therock-5478",
		Doc:    "TheRock#5478: the hipBLASLt gfx1100 device package lacks TensileLibrary_lazy_gfx1100.dat and Kernels.so-000-gfx1100.hsaco",
		Inputs: []string{"base", "gfx1100"}, Trees: map[string]*Tree{"base": base, "gfx1100": dev}, Policy: policy("gfx1100", "")}
}

func rocmSystems7645() *Tree {
	t := New()
	t.AddLibrary("lib", "librocblas", "5", "4", EnvRocBLAS)
	s := Tensile{Dir: "lib/rocblas/library", Arches: []string{"gfx90a:xnack-", "gfx90a:xnack+", "gfx942"}, PerArch: true, Lazy: true, Kernels: 3, Fallback: true}
	t.AddTensile(s)
	t.Remove(s.ArchFolder("gfx90a:xnack-"))
	t.Remove(s.ArchFolder("gfx90a:xnack+"))
	return t
}

func miopen1651() *Tree {
	t := New()
	t.AddLibrary("lib", "libMIOpen", "1", "0", EnvMIOpen)
	t.AddMIOpen("share/miopen/db", []string{"gfx90a6e"}, ".kdb", ".HIP.fdb.txt", ".db.txt")
	return t
}
