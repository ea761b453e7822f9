package kerneldb

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// libraryNames matches the shipped shared objects of each library: the
// development link, the SONAME link and the versioned file
// (librocblas.so, librocblas.so.5, librocblas.so.5.0.60400).
var libraryNames = map[Library]*regexp.Regexp{
	RocBLAS:   regexp.MustCompile(`^librocblas\.so(\.[0-9]+)*$`),
	HipBLASLt: regexp.MustCompile(`^libhipblaslt\.so(\.[0-9]+)*$`),
	MIOpen:    regexp.MustCompile(`^libMIOpen\.so(\.[0-9]+)*$`),
	AOTriton:  regexp.MustCompile(`^libaotriton(_v[0-9]+)?\.so(\.[0-9]+)*$`),
}

// windowsNames matches the Windows DLLs (case-insensitive, as Windows
// names files): TheRock's and the HIP SDK's bin/rocblas.dll,
// bin/hipblaslt.dll and bin/MIOpen.dll (rocBLAS looks itself up as
// GetModuleHandleA("rocblas.dll"), tensile_host.cpp:703-704@rocm-6.0.2).
var windowsNames = map[Library]*regexp.Regexp{
	RocBLAS:   regexp.MustCompile(`(?i)^(lib)?rocblas\.dll$`),
	HipBLASLt: regexp.MustCompile(`(?i)^(lib)?hipblaslt\.dll$`),
	MIOpen:    regexp.MustCompile(`(?i)^(lib)?miopen\.dll$`),
}

// libraryOf returns the library a file name belongs to.
func libraryOf(name string) (Library, bool) {
	if strings.HasSuffix(strings.ToLower(name), ".dll") {
		for _, lib := range Libraries {
			if re := windowsNames[lib]; re != nil && re.MatchString(name) {
				return lib, true
			}
		}
		return "", false
	}
	if !strings.HasPrefix(name, "lib") || !strings.Contains(name, ".so") {
		return "", false
	}
	for _, lib := range Libraries {
		if libraryNames[lib].MatchString(name) {
			return lib, true
		}
	}
	return "", false
}

// IsLibraryName reports whether a path's file name is one of the modelled
// libraries' shared objects.
func IsLibraryName(p string) bool {
	_, ok := libraryOf(path.Base(p))
	return ok
}

// tensileArch finds the arch in a Tensile file name. TheRock's
// database_handlers.py uses gfx\d+[a-z]*(-xnack[+-])?; the xnack suffix
// joins the base arch's package (ROCM-25535), so only the processor is
// kept here.
var tensileArch = regexp.MustCompile(`gfx[0-9]+[a-z]*`)

// tensileArchDir matches a per-arch subfolder of a Tensile library folder
// (library/gfx942/, library/gfx90a-xnack+/; rocm-libraries#5976).
var tensileArchDir = regexp.MustCompile(`^(gfx[0-9]+[a-z]*)(-xnack[+-])?$`)

// tensileExts are the file types TheRock attributes by name in the flat
// layout (".dat.zlib": hipBLASLt's compressed indexes).
var tensileExts = []string{".co", ".hsaco", ".dat", ".dat" + zlibExt, ".yaml"}

// zlibExt is the suffix of hipBLASLt's compressed MessagePack files
// (TensileLibrary_lazy_gfx942.dat.zlib): TensileLite's fileToMsgObject
// probes "<name>.zlib" before "<name>" for every .dat it reads
// (projects/hipblaslt/tensilelite MessagePack.cpp; MasterSolutionLibrary::
// initLibraryMapping: callers pass the bare .dat name).
const zlibExt = ".zlib"

// isMappingName reports whether name is a hipBLASLt lazy mapping file:
// TensileLiteLibrary_lazy_<arch>_Mapping.dat or, in older releases, the
// shared TensileLiteLibrary_lazy_Mapping.dat (either .zlib-compressed).
func isMappingName(name string) bool {
	name = strings.TrimSuffix(name, zlibExt)
	return strings.HasPrefix(name, "TensileLiteLibrary_lazy_") && strings.HasSuffix(name, "Mapping.dat")
}

// knownProcessor reports whether p is a non-generic LLVM processor.
func knownProcessor(p string) bool {
	proc, ok := targetid.LookupProcessor(p)
	return ok && !proc.Generic
}

// tensileFileArch returns the processor a Tensile database file belongs
// to, from its per-arch subfolder (rel's first element) or, in the flat
// layout, the arch in its name; "" for arch-less files (TensileManifest.txt,
// *_fallback.dat of older layouts).
func tensileFileArch(rel string) string {
	if dir, _, ok := strings.Cut(rel, "/"); ok {
		if m := tensileArchDir.FindStringSubmatch(dir); m != nil && knownProcessor(m[1]) {
			return m[1]
		}
	}
	name := path.Base(rel)
	if !hasExt(name, tensileExts) {
		return ""
	}
	if p := tensileArch.FindString(name); knownProcessor(p) {
		return p
	}
	return ""
}

// miopenExts are the MIOpen database files TheRock splits per arch.
var miopenExts = []string{".kdb", ".model", ".db.txt", ".fdb.txt", ".db"}

// miopenFileArch returns the processor a file of MIOpen's db folder
// belongs to: the longest processor name its file name starts with
// (gfx90a68.kdb is gfx90a with 0x68 CUs, gfx1030_36.db.txt gfx1030 with 36).
func miopenFileArch(name string) string {
	if !hasExt(name, miopenExts) {
		return ""
	}
	best := ""
	for _, p := range processorNames() {
		if strings.HasPrefix(name, p) && len(p) > len(best) {
			best = p
		}
	}
	return best
}

// processorNames are the non-generic processors' names.
var processorNames = sync.OnceValue(func() []string {
	var out []string
	for _, p := range targetid.Processors() {
		if !p.Generic {
			out = append(out, p.Name)
		}
	}
	return out
})

func hasExt(name string, exts []string) bool {
	for _, e := range exts {
		if strings.HasSuffix(name, e) {
			return true
		}
	}
	return false
}
