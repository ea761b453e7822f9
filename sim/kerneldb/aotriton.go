package kerneldb

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// AOTriton (ROCm/aotriton, PyTorch's flash and mem-efficient SDPA
// kernels) loads per-architecture kernel images at run time:
// locate_aotriton_images() takes the folder of libaotriton_v2.so as dladdr
// names it (as opened, not canonicalised) and appends "aotriton.images"
// (v2src/packed_kernel.cc 0.8b-0.12, v3src/packed_kernel_common.cc 0.13b:
// KERNEL_STORAGE_V2_BASE); there is no environment variable and no
// fallback. Each agent's processor (gcnArchNameSansColon) maps, by a table
// fixed per AOTriton version (v2src/util.cc LazyGpu; the folders from
// v3python/gpu_targets.py AOTRITON_ARCH_TO_DIRECTORY), to one folder
// amd-<family>/ holding its images (.aks2 files up to 0.12, .zip archives
// of them from 0.13b, commit d1e09cc9). A processor outside the table is
// GPU_ARCH_UNKNOWN: the op returns hipErrorNoBinaryForGpu (v2src/template/
// shim.cc lookup_optimal) and PyTorch falls back to the MATH backend. A
// folder that is missing makes PackedKernel::open fail and
// TritonKernel::invoke launch a null kernel: hipErrorInvalidValue, "HIP
// error: invalid argument", deferred to the next checked call
// (pytorch/pytorch#194498; 0.11b v2src/triton_kernel.cc ~100-125).

// aotritonGen is one AOTriton version range's processor -> folder table.
type aotritonGen struct {
	name    string
	folders map[string]string
}

// The tables, oldest first (notes: ROCm/aotriton tags 0.9b f539cf9c, 0.10b
// 6fca155f, 0.11b 972223c5, 0.11.2b dd1b68b6, 0.12b 26903689, 0.13b
// 6e00ef3e). 0.10-0.11 share one entry with 0.11.2b's processors: 0.10b
// knows gfx1100 and gfx1101 only of gfx11, 0.11b adds gfx1102, gfx1150,
// gfx1151 and gfx1200, 0.11.2b the rest; all of them use amd-gfx11xx.
var aotritonGens = []aotritonGen{
	{"AOTriton 0.9", map[string]string{"gfx90a": "amd-gfx90a", "gfx942": "amd-gfx942", "gfx950": "amd-gfx950",
		"gfx1100": "amd-gfx110x", "gfx1101": "amd-gfx110x", "gfx1201": "amd-gfx120x"}},
	{"AOTriton 0.10-0.11", with(map[string]string{"gfx90a": "amd-gfx90a", "gfx942": "amd-gfx942", "gfx950": "amd-gfx950",
		"gfx1200": "amd-gfx120x", "gfx1201": "amd-gfx120x"}, "amd-gfx11xx", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153")},
	{"AOTriton 0.12", gen012()},
	{"AOTriton 0.13 and later", with(gen012(), "amd-gfx1250", "gfx1250")},
}

func gen012() map[string]string {
	m := map[string]string{"gfx90a": "amd-gfx90a", "gfx942": "amd-gfx942", "gfx950": "amd-gfx950", "gfx1200": "amd-gfx120x", "gfx1201": "amd-gfx120x"}
	with(m, "amd-gfx110x", "gfx1100", "gfx1101", "gfx1102", "gfx1103")
	return with(m, "amd-gfx115x", "gfx1150", "gfx1151", "gfx1152", "gfx1153")
}

func with(m map[string]string, folder string, procs ...string) map[string]string {
	for _, p := range procs {
		m[p] = folder
	}
	return m
}

// aotritonFolders are every folder name some version uses, the needles
// the library's read-only data is scanned for.
var aotritonFolders = []string{"amd-gfx90a", "amd-gfx942", "amd-gfx950", "amd-gfx110x", "amd-gfx11xx", "amd-gfx115x", "amd-gfx120x", "amd-gfx1250"}

// aotritonImages is the folder AOTriton appends to its library's folder.
const aotritonImages = "aotriton.images"

// aotritonVersion matches a version in a library name
// (libaotriton_v2.so.0.11.2).
var aotritonVersion = regexp.MustCompile(`\.so\.([0-9]+)\.([0-9]+)`)

// aotritonGeneration decides which table the site's AOTriton uses, and
// says why: (1) a version in one of its names (libaotriton_v2.so.0.12.1);
// else (2) the family folders its read-only data names (the images' paths,
// "amd-gfx942/flash/..."), else (3) those its aotriton.images folder holds:
// amd-gfx1250 is 0.13 or later, amd-gfx115x 0.12, amd-gfx11xx 0.10-0.11,
// amd-gfx110x alone 0.9; (4) else the newest. named returns the folders
// the read-only data names (nil when it names none).
func aotritonGeneration(fs *view, s *Site) (gen aotritonGen, why string, named []string) {
	for _, n := range append([]string{s.Path}, s.Names...) {
		if m := aotritonVersion.FindStringSubmatch(path.Base(n)); m != nil {
			major, _ := strconv.Atoi(m[1])
			minor, _ := strconv.Atoi(m[2])
			if major == 0 && minor >= 9 {
				return genOfMinor(minor), "its name " + path.Base(n), nil
			}
		}
	}
	found := fs.rodata(fs.entry(s.Path), aotritonFolders...)
	for i, ok := range found {
		if ok {
			named = append(named, aotritonFolders[i])
		}
	}
	if g, ok := genOfFolders(named); ok {
		return g, "the image folders its read-only data names: " + strings.Join(named, ", "), named
	}
	var present []string
	for _, n := range fs.list(s.Base) {
		if slices.Contains(aotritonFolders, n) {
			present = append(present, n)
		}
	}
	if g, ok := genOfFolders(present); ok {
		return g, "the image folders " + show(s.Base) + " holds: " + strings.Join(present, ", "), named
	}
	return aotritonGens[len(aotritonGens)-1], "the newest, as nothing names another", named
}

func genOfMinor(minor int) aotritonGen {
	switch {
	case minor >= 13:
		return aotritonGens[3]
	case minor == 12:
		return aotritonGens[2]
	case minor >= 10:
		return aotritonGens[1]
	}
	return aotritonGens[0]
}

// genOfFolders tells the version from the family folders named.
func genOfFolders(names []string) (aotritonGen, bool) {
	has := func(n string) bool { return slices.Contains(names, n) }
	switch {
	case has("amd-gfx1250"):
		return aotritonGens[3], true
	case has("amd-gfx115x"):
		return aotritonGens[2], true
	case has("amd-gfx11xx"):
		return aotritonGens[1], true
	case has("amd-gfx110x"):
		return aotritonGens[0], true
	}
	return aotritonGen{}, false
}

// AOTritonWheel names the torch device wheel that holds an image folder:
// TheRock's multi-arch torch wheels put AOTriton's images into the family
// or sub-family wheel amd-torch-device-<bundle>, bundle being rocm-kpack's
// name for the folder (database_handlers.py AotritonHandler _BUNDLE_MAP:
// gfx11xx -> gfx11, gfx120x -> gfx12_0, others as they are; the wheel's
// name has '-' for '_').
func AOTritonWheel(folder string) string {
	bundle := strings.TrimPrefix(folder, "amd-")
	switch bundle {
	case "gfx11xx":
		bundle = "gfx11"
	case "gfx120x":
		bundle = "gfx12-0"
	}
	return "amd-torch-device-" + bundle
}

// aotritonBase sets the site's image folder: next to the library.
func (s *Site) aotritonBase(fs *view) {
	s.BaseFrom = "library location"
	s.Base = join(s.Dir, aotritonImages)
	s.BaseSteps = []Step{{Path: show(s.Base), Found: fs.isDir(s.Base),
		Note: "the library's folder (dladdr, as opened) + aotriton.images: no variable, no fallback"}}
}

// aotritonLookup is AOTriton's lookup for one agent.
func aotritonLookup(fs *view, l *Lookup, agent targetid.ID) {
	s, proc := l.Site, agent.Processor
	gen := s.aotriton
	l.Dir = show(s.Base)
	folder, ok := gen.folders[proc]
	if !ok {
		l.Steps = append(l.Steps, Step{Path: l.Dir, Found: fs.isDir(s.Base), Note: fmt.Sprintf("%s has no kernels for %s; the version from %s", gen.name, proc, s.aotritonWhy)})
		l.Misses = append(l.Misses, newMiss(UnsupportedArch, nil, Slow, fmt.Sprintf(
			"%s does not support %s (its processor table, v2src/util.cc): the flash and mem-efficient SDPA backends report hipErrorNoBinaryForGpu "+
				"and PyTorch falls back to the MATH backend (slower, more memory)", gen.name, proc)))
		return
	}
	if len(s.aotritonNamed) > 0 && !slices.Contains(s.aotritonNamed, folder) {
		l.Steps = append(l.Steps, Step{Path: show(join(s.Base, folder)), Found: fs.isDir(join(s.Base, folder)),
			Note: "not named in the library's read-only data (" + strings.Join(s.aotritonNamed, ", ") + ")"})
		l.Misses = append(l.Misses, newMiss(UnsupportedArch, nil, Slow, fmt.Sprintf(
			"%s was built without %s images (its read-only data names %s only): SDPA on %s finds no tuned kernel and PyTorch falls back to the MATH backend",
			path.Base(s.Path), folder, strings.Join(s.aotritonNamed, ", "), proc)))
		return
	}
	dir := join(s.Base, folder)
	files := 0
	fs.walkFiles(dir, 1, func(string, *vfs.Entry) { files++ })
	l.Steps = append(l.Steps, Step{Path: show(dir), Found: files > 0, Note: fmt.Sprintf("the %s folder for %s; the version from %s", gen.name, proc, s.aotritonWhy)})
	if files > 0 {
		l.Dir = show(dir)
		return
	}
	state := "is missing"
	if fs.isDir(dir) {
		state = "is empty"
	}
	m := newMiss(MissingImages, []string{show(dir)}, FailsLater, fmt.Sprintf(
		"%s %s: AOTriton's PackedKernel::open fails for every %s kernel and TritonKernel::invoke launches a null kernel, so flash and "+
			"mem-efficient SDPA fail on this GPU with hipErrorInvalidValue (\"HIP error: invalid argument\", reported at the next checked call) "+
			"while the MATH backend works (pytorch/pytorch#194498); the images ship in the torch device wheel %s (the family wheel next to the "+
			"per-arch amd-torch-device-%s) or the package that installs %s",
		show(dir), state, proc, AOTritonWheel(folder), proc, show(dir)))
	l.Misses = append(l.Misses, m)
}
