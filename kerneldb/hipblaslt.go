package kerneldb

import (
	"fmt"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// hipBLASLt's lookup (rocm-libraries projects/hipblaslt/library/src/
// amd_detail/rocblaslt/src/tensile_host.cpp, TensileHost::initialize, and
// rocblaslt_find_library_relative_path in rocblaslt_auxiliary.cpp):
//
//  1. HIPBLASLT_TENSILE_LIBPATH as given, with no per-arch subfolder added;
//     else the folder of libhipblaslt.so and the first of
//     hipblaslt/library, ../Tensile/library, library that exists, then
//     <proc>/ when that subfolder exists;
//  2. index: TensileLibrary_lazy_<proc>.dat in lazy builds (the default,
//     ROCBLASLT_TENSILE_LAZY_LOAD), TensileLibrary_<proc>.dat otherwise
//     (.yaml in TENSILE_YAML builds). Missing: "rocblaslt error: Cannot read
//     <path>: No such file or directory" and "Could not load <path>"; no
//     abort (rocblaslt_abort is commented out), every Tensile-backed call on
//     that GPU fails later;
//  3. lazy: Kernels.so-000-<proc>.hsaco ("hipModuleLoad failed") and the
//     placeholder sub-libraries (Deep); non-lazy: every .co file of the
//     folder holding <proc> ("rocblaslt warning: No paths matched").
//
// Not modelled: hipblasltExtOpLibrary.dat + extop_<proc>.co (extension ops)
// and hipblasltTransform.hsaco, whose lookups were not confirmed upstream.

// hipblasltBases returns the base folders hipBLASLt tests, in order, and
// the default when none exists.
func hipblasltBases(dir string) ([]string, string) {
	first := join(dir, "hipblaslt/library")
	return []string{first, join(dir, "../Tensile/library"), join(dir, "library")}, first
}

var hipblasltText = tensileText{
	prefix: "rocblaslt error", badIndexEffect: FailsLater,
	badIndexThen: "hipBLASLt then reports \"Could not initialize Tensile library\" and every matmul on this GPU fails",
}

func hipblasltLookup(fs *view, dc *deepCache, l *Lookup, agent targetid.ID) {
	proc := agent.Processor
	dir := l.Site.Base
	if l.Site.BaseFrom != EnvHipBLASLt {
		c := join(dir, proc)
		found := fs.isDir(c)
		l.Steps = append(l.Steps, Step{Path: show(c), Found: found, Note: map[bool]string{true: "per-arch folder"}[found]})
		if found {
			dir = c
		}
	}
	l.Dir = show(dir)
	lazy := l.Site.lazy || !l.Site.nonLazy
	name := "TensileLibrary_" + proc + l.Site.ext()
	if lazy {
		name = "TensileLibrary_lazy_" + proc + l.Site.ext()
	}
	p := join(dir, name)
	if fs.isFile(p) {
		l.Index, l.Lazy = show(p), lazy
		l.Steps = append(l.Steps, Step{Path: show(p), Found: true, Note: indexNote(lazy)})
	} else {
		l.Steps = append(l.Steps, Step{Path: show(p)})
		l.Misses = append(l.Misses, Miss{Kind: MissingIndex, Paths: []string{show(p)}, Tried: []string{show(p)}, Effect: FailsLater,
			Text: fmt.Sprintf("rocblaslt error: Cannot read %s: No such file or directory / rocblaslt error: Could not load %s; "+
				"hipBLASLt does not abort: every hipblasLt matmul on this GPU fails (PyTorch raises, or uses rocBLAS with TORCH_BLAS_PREFER_HIPBLASLT=0)",
				show(p), show(p)) + archFolderHint(fs, l.Site.Base, proc)})
	}
	switch {
	case !lazy && l.Index != "":
		hipblasltGlob(fs, dc, l, dir, agent)
	case lazy:
		// initializeLazyLoading runs whether or not the index loaded.
		checkHelper(fs, dc, l, dir, agent, "hipBLASLt (\"hipModuleLoad failed\")")
		if l.Index != "" {
			checkPlaceholders(fs, dc, l, dir, agent, hipblasltText)
		}
	}
}

func hipblasltGlob(fs *view, dc *deepCache, l *Lookup, dir string, agent targetid.ID) {
	files := codeObjectGlob(fs, dir, agent.Processor, "", true)
	l.Steps = append(l.Steps, Step{Path: l.Dir, Found: len(files) > 0, Note: fmt.Sprintf("%d .co files for %s", len(files), agent.Processor)})
	if len(files) == 0 {
		l.Misses = append(l.Misses, Miss{Kind: NoCodeObjects, Paths: []string{l.Dir + "/*" + agent.Processor + "*.co"}, Effect: FailsLater,
			Text: "rocblaslt warning: No paths matched " + l.Dir + ". Make sure that HIPBLASLT_TENSILE_LIBPATH is set correctly.; " +
				"matmuls on this GPU fail"})
		return
	}
	checkGlobbed(dc, l, files, agent)
}
