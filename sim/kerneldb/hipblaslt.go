package kerneldb

import (
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// hipBLASLt's lookup (rocm-libraries projects/hipblaslt/library/src/
// amd_detail/rocblaslt/src/tensile_host.cpp, TensileHost::initialize, and
// rocblaslt_find_library_relative_path in rocblaslt_auxiliary.cpp):
//
//  1. HIPBLASLT_TENSILE_LIBPATH as given (only if(env) is tested: an empty
//     value is used, and relative paths then resolve against the working
//     directory), with no per-arch subfolder added; else the folder of
//     libhipblaslt.so as dladdr names it (symlinks not resolved) and the
//     first of hipblaslt/library, ../Tensile/library, library that exists
//     (none: the path stays empty, so the files are read relative to the
//     working directory), then <proc>/ when that subfolder exists
//     (<proc>-xnack± folders are never looked at);
//  2. index: TensileLibrary_lazy_<proc>.dat in lazy builds (the default,
//     ROCBLASLT_TENSILE_LAZY_LOAD), TensileLibrary_<proc>.dat otherwise
//     (.yaml in TENSILE_YAML builds); TensileLite's fileToMsgObject reads
//     "<name>.dat.zlib" first when it exists. Missing: `rocblaslt error:
//     Cannot read "<path>" (or .zlib variant): No such file or directory`
//     and `Could not load "<path>"` (std::filesystem::path prints quoted);
//     no abort (rocblaslt_abort is commented out), every Tensile-backed call
//     on that GPU fails later;
//  3. lazy: MasterSolutionLibrary::initLibraryMapping reads
//     TensileLiteLibrary_lazy_<proc>_Mapping.dat next to the index (older
//     releases: the shared TensileLiteLibrary_lazy_Mapping.dat); missing:
//     "No library mapping found at ..." and "rocblaslt error: Could not
//     initialize Tensile library mapping";
//  4. lazy: Kernels.so-000-<proc>.hsaco ("hipModuleLoad failed") and the
//     placeholder sub-libraries (Deep), whose code object is <prefix>.co
//     only; non-lazy: every .co file of the folder holding <proc>
//     ("rocblaslt warning: No paths matched"), load errors ignored.
//
// This is the lookup of ROCm 7.0 and later; hipblaslt6.go has 5.5-6.4.
//
// Not modelled: hipblasltExtOpLibrary.dat + extop_<proc>.co (extension ops)
// and hipblasltTransform.hsaco, whose lookups were not confirmed upstream.

// hipblasltBases returns the base folders hipBLASLt tests, in order.
func hipblasltBases(dir string) []string {
	return []string{join(dir, "hipblaslt/library"), join(dir, "../Tensile/library"), join(dir, "library")}
}

var hipblasltText = tensileText{
	prefix: "rocblaslt error", quote: true, badIndexEffect: FailsLater,
	badIndexThen: "hipBLASLt then reports \"Could not initialize Tensile library\" and every matmul on this GPU fails",
}

// hipblasltAfter is what follows a missing index.
const hipblasltAfter = "hipBLASLt does not abort: every hipblasLt matmul on this GPU fails (PyTorch raises, or uses rocBLAS with TORCH_BLAS_PREFER_HIPBLASLT=0)"

func hipblasltLookup(fs *view, dc *deepCache, l *Lookup, agent targetid.ID) {
	if l.Site.Release == Release6 {
		hipblaslt6Lookup(fs, dc, l, agent)
		return
	}
	proc := agent.Processor
	s := l.Site
	lazy := s.lazy || !s.nonLazy
	name := "TensileLibrary_" + proc + s.ext()
	if lazy {
		name = "TensileLibrary_lazy_" + proc + s.ext()
	}
	if s.cwd {
		hipblasltFromCwd(l, name, lazy, s.BaseFrom != EnvHipBLASLt)
		return
	}
	dir := tensileDir(fs, l, proc)
	l.Dir = show(dir)
	p := join(dir, name)
	if idx, ok := findIndex(fs, l, p); ok {
		l.Index, l.Lazy = idx, lazy
	} else {
		m := newMiss(MissingIndex, []string{show(p)}, FailsLater, fmt.Sprintf(`rocblaslt error: Cannot read %s%s: %s / rocblaslt error: Could not load %s; %s`,
			hipblasltText.path(show(p)), zlibVariant(p), errnoText(fs, dir), hipblasltText.path(show(p)), hipblasltAfter)+archFolderHint(fs, l, agent))
		m.Tried = indexNames(p)
		l.Misses = append(l.Misses, m)
	}
	switch {
	case !lazy && l.Index != "":
		hipblasltGlob(fs, dc, l, dir, agent)
	case lazy:
		if l.Index != "" {
			checkMapping(fs, l, dir, proc)
		}
		// initializeLazyLoading runs whether or not the index loaded.
		checkHelper(fs, dc, l, dir, agent, "hipBLASLt (\"hipModuleLoad failed\")")
		if l.Index != "" {
			checkPlaceholders(fs, dc, l, dir, agent, hipblasltText)
		}
	}
}

// indexNames are the files hipBLASLt tries for an index at p: for
// MessagePack its .zlib form first (fileToMsgObject), then p.
func indexNames(p string) []string {
	if strings.HasSuffix(p, ".dat") {
		return []string{show(p + zlibExt), show(p)}
	}
	return []string{show(p)}
}

// findIndex looks for the index at p (indexNames); it records the probes
// and returns the file found.
func findIndex(fs *view, l *Lookup, p string) (string, bool) {
	for _, c := range indexNames(p) {
		if fs.isFile(c) {
			l.Steps = append(l.Steps, Step{Path: show(c), Found: true, Note: indexNote(strings.Contains(c, "TensileLibrary_lazy_"))})
			return show(c), true
		}
		l.Steps = append(l.Steps, Step{Path: show(c)})
	}
	return "", false
}

// zlibVariant is what hipBLASLt adds after a missing MessagePack index's
// name.
func zlibVariant(p string) string {
	if strings.HasSuffix(p, ".dat") {
		return " (or .zlib variant)"
	}
	return ""
}

// errnoText is strerror(errno) after the library's test of a file in dir:
// ENOTDIR when dir is a file, else ENOENT.
func errnoText(fs *view, dir string) string {
	if fs.isFile(dir) {
		return "Not a directory"
	}
	return "No such file or directory"
}

// hipblasltFromCwd is the lookup when hipBLASLt reads relative to the
// working directory: nothing there belongs to the inputs, so every file is
// missing from them.
func hipblasltFromCwd(l *Lookup, name string, lazy, noFolder bool) {
	l.Dir = cwdName
	why := "HIPBLASLT_TENSILE_LIBPATH is set but empty"
	if noFolder {
		why = "no hipblaslt/library, ../Tensile/library or library folder lies next to " + l.Site.Path
		l.Steps = append(l.Steps, Step{Path: "./" + l.Processor, Note: "relative to the working directory"})
	}
	p := "./" + name
	l.Steps = append(l.Steps, Step{Path: p, Note: "relative to the working directory"})
	m := newMiss(MissingIndex, []string{p}, FailsLater, fmt.Sprintf(`rocblaslt error: Cannot read %s%s: No such file or directory / rocblaslt error: Could not load %s; %s (the path is relative to the program's working directory: %s)`,
		hipblasltText.path(name), zlibVariant(name), hipblasltText.path(name), hipblasltAfter, why))
	m.Tried = []string{p}
	l.Misses = append(l.Misses, m)
	if lazy {
		h := "./" + helperName(l.Processor)
		l.Steps = append(l.Steps, Step{Path: h, Note: "relative to the working directory"})
		l.Misses = append(l.Misses, newMiss(MissingHelper, []string{h}, FailsLater,
			fmt.Sprintf("hipModuleLoad(%s) fails with hipErrorFileNotFound; hipBLASLt (\"hipModuleLoad failed\") prints the HIP error and goes on; calls that need Tensile's source kernels fail on this GPU", h)))
	}
}

// checkMapping simulates initLibraryMapping: the lazy index's mapping file
// in the index's folder (mappingNames says which names this hipBLASLt
// reads), its .zlib form first.
func checkMapping(fs *view, l *Lookup, dir, proc string) {
	names := mappingNames(fs, l.Site, proc)
	if len(names) == 0 {
		return
	}
	var tried []string
	for _, n := range names {
		for _, c := range []string{join(dir, n) + zlibExt, join(dir, n)} {
			if fs.isFile(c) {
				l.Steps = append(l.Steps, Step{Path: show(c), Found: true, Note: "library mapping"})
				return
			}
			l.Steps = append(l.Steps, Step{Path: show(c)})
			tried = append(tried, show(c))
		}
	}
	want := show(join(dir, names[0]))
	m := newMiss(MissingMapping, []string{want}, FailsLater, fmt.Sprintf(
		"No library mapping found at %s / rocblaslt error: Could not initialize Tensile library mapping; the index loads, but solutions looked up by index "+
			"before a query loaded their sub-library (hipblasLtExtGetAlgoByIndex, tuning override files, PyTorch TunableOp results) are not found on this GPU", want))
	m.Tried = tried
	l.Misses = append(l.Misses, m)
}

// Mapping-file names in hipBLASLt's read-only data: the per-arch form is
// built from "TensileLiteLibrary_lazy_" + arch + "_Mapping.dat"; older
// releases read the one shared file.
const (
	sharedMapping = "TensileLiteLibrary_lazy_Mapping.dat"
	mappingSuffix = "_Mapping.dat"
)

// mappingNames returns the mapping files this hipBLASLt reads for proc,
// in the order checked: from the library's read-only data the shared name
// (older releases) or the per-arch one; when the library names neither
// (not an ELF, stripped of the strings) and the inputs ship a mapping
// file, either name; nil when nothing says the build uses one.
func mappingNames(fs *view, s *Site, proc string) []string {
	perArch := "TensileLiteLibrary_lazy_" + proc + mappingSuffix
	if s.mapping == "" {
		s.mapping = "unknown"
		switch found := fs.rodata(fs.entry(s.Path), sharedMapping, mappingSuffix); {
		case found[0]:
			s.mapping = "shared"
		case found[1]:
			s.mapping = "per-arch"
		}
	}
	switch {
	case s.mapping == "shared":
		return []string{sharedMapping}
	case s.mapping == "per-arch":
		return []string{perArch}
	case s.mappings:
		return []string{perArch, sharedMapping}
	}
	return nil
}

func hipblasltGlob(fs *view, dc *deepCache, l *Lookup, dir string, agent targetid.ID) {
	files := codeObjectGlob(fs, dir, agent.Processor, "", true)
	l.Steps = append(l.Steps, Step{Path: l.Dir, Found: len(files) > 0, Note: fmt.Sprintf("%s for %s", plural(len(files), ".co file", ".co files"), agent.Processor)})
	if len(files) == 0 {
		l.Misses = append(l.Misses, newMiss(NoCodeObjects, []string{show(join(dir, "*"+agent.Processor+"*.co"))}, FailsLater,
			"rocblaslt warning: No paths matched "+hipblasltText.path(l.Dir)+". Make sure that HIPBLASLT_TENSILE_LIBPATH is set correctly.; "+
				"matmuls on this GPU fail"))
		return
	}
	if wrong := wrongGlobbed(dc, files, agent); len(wrong) > 0 {
		m := newMiss(WrongCodeObject, badPaths(wrong), FailsLater, fmt.Sprintf(
			"hipModuleLoad failed: %s; hipBLASLt ignores the error (loadCodeObjectFile's result is discarded): the kernels in %s are not found and the matmuls that select them fail",
			named(badTexts(wrong)), plural(len(wrong), "that code object", "those code objects")))
		m.Exist = true
		l.Misses = append(l.Misses, m)
	}
}

// mappingName is the per-arch lazy mapping file of proc.
func mappingName(proc string) string { return "TensileLiteLibrary_lazy_" + proc + mappingSuffix }

// tensileDir is the folder hipBLASLt reads its Tensile index from for
// processor proc: the site's base, or its <proc>/ subfolder when that
// exists, unless HIPBLASLT_TENSILE_LIBPATH set the base (then the base as
// given, TheRock#7976). It records the probe as a step of l.
func tensileDir(fs *view, l *Lookup, proc string) string {
	s := l.Site
	dir := s.Base
	if s.BaseFrom != EnvHipBLASLt {
		c := join(dir, proc)
		found := fs.exists(c)
		st := Step{Path: show(c), Found: found, Note: map[bool]string{true: "per-arch folder"}[found]}
		if found && s.HipBLASLtRow == HipBLASLt5354 && !fs.isFile(join(c, mappingName(proc))) {
			found = false
			st.Note = "not entered: no " + mappingName(proc) + " in it (rocm-libraries PR 5354 enters <proc>/ only with its mapping file; the uncompressed name, inferred from TheRock#7976)"
			l.guarded = show(c)
		}
		l.Steps = append(l.Steps, st)
		if found {
			dir, l.perArch = c, true
		}
	}
	return dir
}
