package kerneldb

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// hipBLASLt's lookup changed between releases (notes: ROCm/hipBLASLt
// tags rocm-5.5.0 ... rocm-6.2.2 and release-staging/rocm-rel-6.3 against
// ROCm/rocm-libraries projects/hipblaslt; PR #2049 "[windows] Find
// hipblaslt library with posix directory layout", merged 2025-05-09, came
// between them). Release6 is ROCm 5.5 to 6.4, the standalone hipBLASLt
// (library/src/amd_detail/rocblaslt/src/tensile_host.cpp,
// TensileHost::initialize: rocm-6.2.0 50015815 lines 1015-1049,
// release-staging/rocm-rel-6.3 902dbb92 lines 1267-1301; 6.4 inferred the
// same, it predates PR #2049):
//
//  1. HIPBLASLT_TENSILE_LIBPATH as given, no subfolder added; else the
//     folder of libhipblaslt.so (dl_iterate_phdr, as opened) and, tested
//     with access(R_OK) (rocblaslt_internal_test_path), ../Tensile/library,
//     then path+"library" with no '/' (lib + library = liblibrary: the
//     bug makes that candidate one only a folder named so takes), else
//     hipblaslt/library, not tested (no working-directory fallback);
//  2. then <proc> when it is readable (a file named <proc> counts too);
//  3. index: TensileLibrary_lazy_<proc>.dat in lazy builds (6.2 and
//     later, ROCBLASLT_TENSILE_LAZY_LOAD), else TensileLibrary.dat
//     (.yaml in TENSILE_YAML builds); no .dat.zlib and no library
//     mapping. Missing: "rocblaslt error: Cannot read <path>: <strerror>"
//     (the path unquoted), no abort;
//  4. non-lazy: glob(path + "/*" + <proc> + "*co") ("rocblaslt warning: No
//     paths matched <dir>. Make sure that HIPBLASLT_TENSILE_LIBPATH is set
//     correctly."); lazy: Kernels.so-000-<proc>.hsaco and the
//     placeholder sub-libraries, as in 7.x.
//
// Release7 is ROCm 7.0 and later (hipblaslt.go).
const (
	Release6 = "ROCm 5.5-6.4"
	Release7 = "ROCm 7.0 and later"
)

// hipblasltSoname matches a hipBLASLt name with its SONAME major
// (libhipblaslt.so.0, libhipblaslt.so.1.2.70000).
var hipblasltSoname = regexp.MustCompile(`^libhipblaslt\.so\.([0-9]+)(\.|$)`)

// hipblasltRelease decides which release's lookup the site's hipBLASLt
// follows, and says why: its DT_SONAME (libhipblaslt.so.0 is ROCm 6.x,
// libhipblaslt.so.1 ROCm 7.x: TheRock rocm_sdk/_dist_info.py names
// libhipblaslt.so.1; hipBLASLt 6.2's CMakeLists sets SOVERSION 0.8);
// without one, the 7.x read-only data ("(or .zlib variant)", the lazy
// mapping's "TensileLiteLibrary_lazy_"), which 6.x lacks; then the major
// of a versioned name; else 7.x, the newest.
func hipblasltRelease(fs *view, s *Site) (release, why string) {
	file := fs.entry(s.Path)
	if file != nil && file.IsLink() {
		if r, _, err := fs.t.Lookup(s.Path); err == nil {
			file = r
		}
	}
	if file != nil {
		if so := readSoname(file, fs.t.Budget()); so != "" {
			if m := hipblasltSoname.FindStringSubmatch(so); m != nil {
				return majorRelease(m[1]), "its SONAME " + so
			}
		}
		if found := fs.rodata(file, "(or .zlib variant)", "TensileLiteLibrary_lazy_"); found[0] || found[1] {
			return Release7, "its read-only data (the 7.x index and mapping names)"
		}
	}
	for _, n := range s.Names {
		if m := hipblasltSoname.FindStringSubmatch(path.Base(n)); m != nil && (m[1] == "0" || m[1] == "1") {
			return majorRelease(m[1]), "its name " + path.Base(n)
		}
	}
	return Release7, "the newest, as nothing names another"
}

// The rows of hipBLASLt's lookup within the two families: 5.5-6.1 read
// TensileLibrary.dat only; 6.2-6.4 add the lazy index and run the
// "*<proc>*co" glob in lazy builds too (hipBLASLt tensile_host.cpp:1015-
// 1049@rocm-6.2.0, :1267-1301@release-staging/rocm-rel-6.3: the glob is
// not under if(!lazy)); 7.0-7.12 enter <proc>/ whenever it exists;
// rocm-libraries PR 5354 (merged 2026-04-06, after therock-7.12: inferred)
// enters it only when its mapping file is there. The merged guard was not
// read: that it tests the uncompressed TensileLiteLibrary_lazy_<proc>_
// Mapping.dat is inferred from TheRock#7976 (2026-09), where library/
// gfx1250/ held only .dat.zlib files and the runtime read library/
// TensileLibrary_lazy_gfx1250.dat.
const (
	HipBLASLt55   = "5.5-6.1"
	HipBLASLt62   = "6.2-6.4"
	HipBLASLt70   = "7.0-7.12"
	HipBLASLt5354 = "7.13 and later (rocm-libraries PR 5354)"
)

// hipblasltRowFor picks the row within the site's family from --hip
// (the HIP release row a ROCm release ships with its hipBLASLt), the
// newest of the family when --hip names none of it.
func hipblasltRowFor(family, hipName string) string {
	if family == Release6 {
		switch hipName {
		case "5.2", "5.6", "5.7", "6.1":
			return HipBLASLt55
		}
		return HipBLASLt62
	}
	switch hipName {
	case "7.2", "7.12":
		return HipBLASLt70
	}
	return HipBLASLt5354
}

// hipblasltFamilyFromHIP is the family --hip names when the library names
// none (HIP rows up to 6.3 ship hipBLASLt 6.x).
func hipblasltFamilyFromHIP(hipName string) (string, bool) {
	switch hipName {
	case "5.2", "5.6", "5.7", "6.1", "6.2", "6.3":
		return Release6, true
	case "":
		return "", false
	}
	return Release7, true
}

func majorRelease(major string) string {
	if major == "0" {
		return Release6
	}
	return Release7
}

// hipblaslt6Base probes the 6.x base folders next to the library folder
// dir (variable unset) and returns the one used.
func hipblaslt6Base(fs *view, dir string, steps *[]Step) string {
	tensile := join(dir, "../Tensile/library")
	if fs.exists(tensile) {
		*steps = append(*steps, Step{Path: strings.TrimPrefix(tensile, "/"), Found: true, Note: "used"})
		return tensile
	}
	*steps = append(*steps, Step{Path: strings.TrimPrefix(tensile, "/")})
	glued := strings.TrimSuffix(dir, "/") + "library" // path + "library", no '/'
	if dir == "." {
		glued = "library"
	}
	st := Step{Path: glued, Note: "tested as the library folder + \"library\" with no '/' (rocm-6.x tensile_host.cpp)"}
	if fs.exists(glued) {
		st.Found, st.Note = true, st.Note+"; used: "+show(join(dir, "library"))
		*steps = append(*steps, st)
		return join(dir, "library")
	}
	*steps = append(*steps, st)
	def := join(dir, "hipblaslt/library")
	*steps = append(*steps, Step{Path: show(def), Found: fs.isDir(def), Note: "default, not tested: no working-directory fallback"})
	return def
}

var hipblaslt6Text = tensileText{
	prefix: "rocblaslt error", badIndexEffect: FailsLater,
	badIndexThen: "hipBLASLt then reports \"Could not initialize Tensile library\" and every matmul on this GPU fails",
}

// hipblaslt6Lookup is the 6.x lookup of one agent (see Release6).
func hipblaslt6Lookup(fs *view, dc *deepCache, l *Lookup, agent targetid.ID) {
	proc := agent.Processor
	s := l.Site
	lazy := s.lazy && s.HipBLASLtRow != HipBLASLt55
	name := "TensileLibrary" + s.ext()
	if lazy {
		name = "TensileLibrary_lazy_" + proc + s.ext()
	}
	dir := tensileDir(fs, l, proc)
	l.Dir = show(dir)
	p := join(dir, name)
	if fs.isFile(p) {
		l.Steps = append(l.Steps, Step{Path: show(p), Found: true, Note: indexNote(lazy)})
		l.Index, l.Lazy = show(p), lazy
	} else {
		l.Steps = append(l.Steps, Step{Path: show(p)})
		m := newMiss(MissingIndex, []string{show(p)}, FailsLater, fmt.Sprintf("rocblaslt error: Cannot read %s: %s; %s",
			show(p), errnoText(fs, dir), hipblasltAfter)+archFolderHint(fs, l, agent))
		m.Tried = []string{show(p)}
		l.Misses = append(l.Misses, m)
	}
	switch {
	case !lazy && l.Index != "":
		hipblaslt6Glob(fs, dc, l, dir, agent)
	case lazy:
		lazyGlob6(fs, l, dir, proc)
		checkHelper(fs, dc, l, dir, agent, "hipBLASLt (\"hipModuleLoad failed\")")
		if l.Index != "" {
			checkPlaceholders(fs, dc, l, dir, agent, hipblaslt6Text)
		}
	}
}

// lazyGlob6 is 6.2-6.4's glob in a lazy build: the "*<proc>*co" files are
// loaded up front as well (errors ignored), and none prints the warning;
// the lazy loads that follow decide what works, so it is a step, not a
// miss.
func lazyGlob6(fs *view, l *Lookup, dir, proc string) {
	files := codeObjectGlob(fs, dir, proc, "", false)
	pattern := show(dir) + "/*" + proc + "*co"
	st := Step{Path: pattern, Found: len(files) > 0, Note: plural(len(files), "code object", "code objects") + " loaded up front (6.2-6.4 glob in lazy builds too)"}
	if len(files) == 0 {
		st.Note = "rocblaslt warning: No paths matched " + pattern + ". Make sure that HIPBLASLT_TENSILE_LIBPATH is set correctly. (6.2-6.4 run the glob in lazy builds too; the lazy loads decide)"
	}
	l.Steps = append(l.Steps, st)
}

// hipblaslt6Glob is glob(<dir>/*<proc>*co): every name holding the
// processor and ending in "co" (.co and .hsaco alike).
func hipblaslt6Glob(fs *view, dc *deepCache, l *Lookup, dir string, agent targetid.ID) {
	files := codeObjectGlob(fs, dir, agent.Processor, "", false)
	pattern := show(dir) + "/*" + agent.Processor + "*co"
	l.Steps = append(l.Steps, Step{Path: pattern, Found: len(files) > 0, Note: plural(len(files), "code object", "code objects")})
	if len(files) == 0 {
		l.Misses = append(l.Misses, newMiss(NoCodeObjects, []string{pattern}, FailsLater,
			"rocblaslt warning: No paths matched "+pattern+". Make sure that HIPBLASLT_TENSILE_LIBPATH is set correctly.; matmuls on this GPU fail"))
		return
	}
	if wrong := wrongGlobbed(dc, files, agent); len(wrong) > 0 {
		m := newMiss(WrongCodeObject, badPaths(wrong), FailsLater, fmt.Sprintf(
			"hipModuleLoad failed: %s; hipBLASLt ignores the error: the kernels in %s are not found and the matmuls that select them fail",
			named(badTexts(wrong)), plural(len(wrong), "that code object", "those code objects")))
		m.Exist = true
		l.Misses = append(l.Misses, m)
	}
}
