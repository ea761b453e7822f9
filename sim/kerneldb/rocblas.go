package kerneldb

import (
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// rocBLAS's lookup (rocm-libraries projects/rocblas/library/src/
// tensile_host.cpp, determine_tensile_base_path, TensileHost::initialize
// and get_library_and_adapter):
//
//  1. base: ROCBLAS_TENSILE_LIBPATH as given (only if(env) is tested: an
//     empty value is used, and "/<proc>" then names the file-system root);
//     else the folder of librocblas.so as dl_iterate_phdr names it
//     (symlinks not resolved) and the first of ../../Tensile/library,
//     library, ../rocblas/library (ASAN's lib/asan), ../Tensile/library
//     that exists, else rocblas/library;
//  2. per-arch subfolder: <proc>-xnack± (the agent's xnack mode), else
//     <proc>, else the base itself (flat multi-arch layout);
//  3. index, first that exists: TensileLibrary_lazy_<proc>.dat (lazy
//     loading), TensileLibrary_<proc>.dat, TensileLibrary.dat (.yaml in
//     TENSILE_YAML builds; no .zlib form: TestPath checks the .dat). None:
//     "rocBLAS error: Cannot read <dir>/TensileLibrary.dat: No such file or
//     directory for GPU arch : <proc>", a listing of the folder's
//     TensileLibrary_lazy* files, rocblas_abort(). When the folder itself
//     is missing the listing's fs::directory_iterator throws;
//     get_library_and_adapter catches it, prints "rocBLAS error: Could not
//     initialize Tensile host:" and calls rocblas_abort() too;
//  4. lazy: the helper Kernels.so-000-<proc>.hsaco (tensile.go,
//     PRINT_IF_HIP_ERROR: not fatal) and the placeholder sub-libraries the
//     index names (Deep); non-lazy: every "*<proc>*co" file of the folder
//     except the other xnack mode's, each through THROW_IF_HIP_ERROR_MESSAGE
//     (adapter.loadCodeObjectFile): one that does not load throws into the
//     same catch, and rocBLAS aborts.

// rocblasBases returns the base folders rocBLAS tests, in order, and the
// default when none exists.
func rocblasBases(dir string) ([]string, string) {
	return []string{
		join(dir, "../../Tensile/library"),
		join(dir, "library"),
		join(dir, "../rocblas/library"),
		join(dir, "../Tensile/library"),
	}, join(dir, "rocblas/library")
}

var rocblasText = tensileText{
	prefix: "rocBLAS error", badIndexEffect: Abort,
	badIndexThen: "rocBLAS then reports \"Could not initialize Tensile library\" and aborts",
}

// rocblasAbort is what follows rocBLAS's error messages.
const rocblasAbort = "rocblas_abort() follows, at the first Tensile-backed call (GEMM) on this GPU"

func rocblasLookup(fs *view, dc *deepCache, l *Lookup, agent targetid.ID) {
	proc := agent.Processor
	text := rocblasText
	text.arch = " for architecture: " + proc
	dir := rocblasArchDir(fs, l, agent)
	ext := l.Site.ext()
	names := []string{"TensileLibrary_lazy_" + proc + ext, "TensileLibrary_" + proc + ext, "TensileLibrary" + ext}
	for i, n := range names {
		p := join(dir, n)
		if !fs.isFile(p) {
			l.Steps = append(l.Steps, Step{Path: show(p)})
			continue
		}
		l.Index, l.Lazy = show(p), i == 0
		l.Steps = append(l.Steps, Step{Path: show(p), Found: true, Note: indexNote(l.Lazy)})
		break
	}
	if l.Index == "" {
		m := rocblasNoIndex(fs, dir, proc, names)
		m.Text += archFolderHint(fs, l, agent)
		l.Misses = append(l.Misses, m)
		return
	}
	if !l.Lazy {
		rocblasGlob(fs, dc, l, dir, agent)
		return
	}
	checkHelper(fs, dc, l, dir, agent, "rocBLAS")
	checkPlaceholders(fs, dc, l, dir, agent, text)
}

func indexNote(lazy bool) string {
	if lazy {
		return "lazy index"
	}
	return "index"
}

// rocblasArchDir probes <base>/<proc>-xnack±, then <base>/<proc> (TestPath:
// a file of that name counts too).
func rocblasArchDir(fs *view, l *Lookup, agent targetid.ID) string {
	base := l.Site.Base
	var cands []string
	if m := xnackMode(agent); m != "" {
		cands = append(cands, join(base, agent.Processor+"-"+m))
	}
	cands = append(cands, join(base, agent.Processor))
	for _, c := range cands {
		if fs.exists(c) {
			l.Steps = append(l.Steps, Step{Path: show(c), Found: true, Note: "per-arch folder"})
			l.Dir, l.perArch = show(c), true
			return c
		}
		l.Steps = append(l.Steps, Step{Path: show(c)})
	}
	l.Dir = show(base)
	return base
}

// rocblasNoIndex is what rocBLAS prints when no index exists: the listing
// of the folder, or, when the folder cannot be listed, the exception
// get_library_and_adapter catches. Both abort.
func rocblasNoIndex(fs *view, dir, proc string, names []string) Miss {
	last := show(join(dir, names[len(names)-1]))
	tried := make([]string, len(names))
	for i, n := range names {
		tried[i] = show(join(dir, n))
	}
	errno := errnoText(fs, dir)
	head := fmt.Sprintf("rocBLAS error: Cannot read %s: %s for GPU arch : %s", last, errno, proc)
	if !fs.isDir(dir) {
		m := newMiss(MissingFolder, []string{show(dir)}, Abort,
			head+fmt.Sprintf(" / List of available TensileLibrary Files : / rocBLAS error: Could not initialize Tensile host: filesystem error: directory iterator cannot open directory: %s [%s]; %s",
				errno, show(dir), rocblasAbort))
		m.Tried = tried
		return m
	}
	m := newMiss(MissingIndex, []string{last}, Abort, head+" / List of available TensileLibrary Files : "+lazyListing(fs, dir)+"; "+rocblasAbort)
	m.Tried = tried
	return m
}

// lazyListing is rocBLAS's listing of the folder's TensileLibrary_lazy*
// files, shortened to five names.
func lazyListing(fs *view, dir string) string {
	var names []string
	for _, n := range fs.list(dir) {
		if strings.HasPrefix(n, "TensileLibrary_lazy") {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "(none)"
	}
	return named(names)
}

// rocblasGlob is the non-lazy load of every "*<proc>*co" file.
func rocblasGlob(fs *view, dc *deepCache, l *Lookup, dir string, agent targetid.ID) {
	skip := ""
	switch xnackMode(agent) {
	case "xnack+":
		skip = "xnack-"
	case "xnack-":
		skip = "xnack+"
	}
	files := codeObjectGlob(fs, dir, agent.Processor, skip, false)
	pattern := show(join(dir, "*"+agent.Processor+"*co"))
	l.Steps = append(l.Steps, Step{Path: pattern, Found: len(files) > 0, Note: plural(len(files), "code object", "code objects")})
	if len(files) == 0 {
		l.Misses = append(l.Misses, newMiss(NoCodeObjects, []string{pattern}, FailsLater,
			"rocBLAS warning: No paths matched "+pattern+". Make sure that ROCBLAS_TENSILE_LIBPATH is set correctly.; "+
				"the Tensile kernels are not loaded and GEMMs on this GPU fail (hipErrorNotFound)"))
		return
	}
	if wrong := wrongGlobbed(dc, files, agent); len(wrong) > 0 {
		m := newMiss(WrongCodeObject, badPaths(wrong), Abort, fmt.Sprintf(
			"rocBLAS error: Could not initialize Tensile host: loading code object: %s: hipModuleLoad fails on these agents; %s (%s)",
			wrong[0].path, rocblasAbort, plural(len(wrong), "code object does not load", "code objects do not load")+": "+named(badTexts(wrong))))
		m.Exist = true
		l.Misses = append(l.Misses, m)
	}
}
