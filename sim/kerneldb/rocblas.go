package kerneldb

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// rocBLAS's lookup (library/src/tensile_host.cpp, TensileHost::initialize
// and get_library_and_adapter; rocblas_release.go has what changed per
// release, each cell citing file:line@tag):
//
//  1. base: ROCBLAS_TENSILE_LIBPATH as given (only if(env) is tested: an
//     empty value is used, and "/<proc>" then names the file-system root);
//     else the folder of librocblas.so as dl_iterate_phdr names it
//     (symlinks not resolved; on Windows GetModuleFileNameA of rocblas.dll,
//     a folder name ending in a separator) and the first of the row's
//     base folders that exists, else the row's default (rocblas/library).
//     Distributions add folders the library's read-only data names
//     (Debian: "<libdir>/rocblas/<version>/library", tried first);
//  2. per-arch subfolder: <proc>-xnack± (the agent's xnack mode; newest
//     only), else <proc>, else the base itself (flat multi-arch layout);
//     before 6.1 only when the base came from the library's location;
//  3. index, first that exists: TensileLibrary_lazy_<proc>.dat (5.3 and
//     later), TensileLibrary_<proc>.dat, TensileLibrary.dat (.yaml in
//     TENSILE_YAML builds; no .zlib form: TestPath checks the .dat). None:
//     "rocBLAS error: Cannot read <dir>/TensileLibrary.dat: No such file or
//     directory" (5.7 and later add " for GPU arch : <proc>" and a listing
//     of the folder's TensileLibrary_lazy* files), rocblas_abort(). When
//     the folder itself is missing the listing's fs::directory_iterator
//     throws; get_library_and_adapter catches it, prints "rocBLAS error:
//     Could not initialize Tensile host:" and calls rocblas_abort() too;
//  4. lazy: the helper Kernels.so-000-<proc>.hsaco (tensile.go,
//     PRINT_IF_HIP_ERROR: not fatal) and the placeholder sub-libraries the
//     index names (Deep); non-lazy: every "*<proc>*co" file of the folder
//     (5.6 and later: except the other xnack mode's and "Experimental"),
//     each through adapter.loadCodeObjectFile: a file that does not load
//     leaves its kernels missing on that GPU (its result discarded, up to
//     the 7.x row), or throws into the same catch and aborts (newest).

// rocblasBases returns the base folders the row tests next to the library
// folder dir, in order, and the default when none exists; a versioned
// folder the library names (Debian) comes first. Windows folders end in a
// separator, so the glued "library" candidate is a real one there.
func rocblasBases(dir string, row RocBLASRow, versioned string, windows bool) (cands []candidate, def string) {
	if versioned != "" {
		cands = append(cands, candidate{Path: join(dir, versioned), Note: "Debian's versioned folder, named in the library's read-only data"})
	}
	b := row.Bases.Value
	for _, rel := range b[:len(b)-1] {
		p := candidate{Path: join(dir, rel)}
		if rel == "library" && row.GluedLibrary.Value && !windows {
			glued := strings.TrimSuffix(dir, "/") + "library"
			if dir == "." {
				glued = "library"
			}
			p.Test = glued
			p.Note = "tested as the library folder + \"library\" with no '/' (" + row.GluedLibrary.Source + ")"
		}
		cands = append(cands, p)
	}
	return cands, join(dir, b[len(b)-1])
}

var rocblasText = tensileText{
	prefix: "rocBLAS error", badIndexEffect: Abort,
	badIndexThen: "rocBLAS then reports \"Could not initialize Tensile library\" and aborts",
}

// rocblasAbort is what follows rocBLAS's error messages.
const rocblasAbort = "rocblas_abort() follows, at the first Tensile-backed call (GEMM) on this GPU"

func rocblasLookup(fs *view, dc *deepCache, l *Lookup, agent targetid.ID) {
	proc, row := agent.Processor, l.Site.rocblas
	text := rocblasText
	text.arch = " for architecture: " + proc
	dir := rocblasArchDir(fs, l, agent)
	ext := l.Site.ext()
	names := []string{"TensileLibrary_" + proc + ext, "TensileLibrary" + ext}
	if row.LazyIndex.Value {
		names = append([]string{"TensileLibrary_lazy_" + proc + ext}, names...)
	}
	for _, n := range names {
		p := join(dir, n)
		if !fs.isFile(p) {
			l.Steps = append(l.Steps, Step{Path: show(p)})
			continue
		}
		l.Index, l.Lazy = show(p), strings.HasPrefix(n, "TensileLibrary_lazy_")
		l.Steps = append(l.Steps, Step{Path: show(p), Found: true, Note: indexNote(l.Lazy)})
		break
	}
	if l.Index == "" {
		m := rocblasNoIndex(fs, dir, proc, names, row)
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

// rocblasArchDir probes <base>/<proc>-xnack± (rows with XnackDir), then
// <base>/<proc> (TestPath: a file of that name counts too); rows without
// ArchWithEnv skip both when ROCBLAS_TENSILE_LIBPATH set the base.
func rocblasArchDir(fs *view, l *Lookup, agent targetid.ID) string {
	s := l.Site
	base, row := s.Base, s.rocblas
	l.Dir = show(base)
	if s.BaseFrom == EnvRocBLAS && !row.ArchWithEnv.Value {
		l.Steps = append(l.Steps, Step{Path: show(join(base, agent.Processor)),
			Note: "not probed: this rocBLAS looks for <proc>/ only when " + EnvRocBLAS + " is unset (" + row.ArchWithEnv.Source + ")"})
		return base
	}
	var cands []string
	if m := xnackMode(agent); m != "" && row.XnackDir.Value {
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
	return base
}

// rocblasNoIndex is what rocBLAS prints when no index exists (the row
// says whether it adds the arch and a listing of the folder, whose
// fs::directory_iterator throws when the folder is missing: the exception
// get_library_and_adapter catches). Every release aborts.
func rocblasNoIndex(fs *view, dir, proc string, names []string, row RocBLASRow) Miss {
	last := show(join(dir, names[len(names)-1]))
	tried := make([]string, len(names))
	for i, n := range names {
		tried[i] = show(join(dir, n))
	}
	errno := errnoText(fs, dir)
	head := fmt.Sprintf("rocBLAS error: Cannot read %s: %s", last, errno)
	if !row.ArchText.Value {
		kind, paths := MissingIndex, []string{last}
		if !fs.isDir(dir) {
			kind, paths = MissingFolder, []string{show(dir)}
		}
		m := newMiss(kind, paths, Abort, head+"; "+rocblasAbort)
		m.Tried = tried
		return m
	}
	head += " for GPU arch : " + proc
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

// rocblasGlob is the non-lazy load of every "*<proc>*co" file (rows with
// SkipOther: not the other xnack mode's, not "Experimental"). A file that
// does not load aborts (newest) or leaves its kernels missing on that GPU;
// in the second case a file of the other xnack mode whose sibling loads
// costs nothing (the same kernels load from the sibling).
func rocblasGlob(fs *view, dc *deepCache, l *Lookup, dir string, agent targetid.ID) {
	row := l.Site.rocblas
	skip := ""
	switch xnackMode(agent) {
	case "xnack+":
		skip = "xnack-"
	case "xnack-":
		skip = "xnack+"
	}
	if !row.SkipOther.Value {
		skip = ""
	}
	files := codeObjectGlob(fs, dir, agent.Processor, skip, false)
	if !row.SkipOther.Value {
		files = append(files, experimental(fs, dir, agent.Processor)...)
		slices.Sort(files)
	}
	pattern := show(join(dir, "*"+agent.Processor+"*co"))
	l.Steps = append(l.Steps, Step{Path: pattern, Found: len(files) > 0, Note: plural(len(files), "code object", "code objects")})
	if len(files) == 0 {
		l.Misses = append(l.Misses, newMiss(NoCodeObjects, []string{pattern}, FailsLater,
			"rocBLAS warning: No paths matched "+pattern+". Make sure that ROCBLAS_TENSILE_LIBPATH is set correctly.; "+
				"the Tensile kernels are not loaded and GEMMs on this GPU fail (hipErrorNotFound)"))
		return
	}
	wrong := wrongGlobbed(dc, files, agent)
	if row.LoadFails.Value == Abort {
		if len(wrong) > 0 {
			m := newMiss(WrongCodeObject, badPaths(wrong), Abort, fmt.Sprintf(
				"rocBLAS error: Could not initialize Tensile host: loading code object: %s: hipModuleLoad fails on these agents; %s (%s)",
				wrong[0].path, rocblasAbort, plural(len(wrong), "code object does not load", "code objects do not load")+": "+named(badTexts(wrong))))
			m.Exist = true
			l.Misses = append(l.Misses, m)
		}
		return
	}
	if wrong = withoutLoadedSiblings(files, wrong); len(wrong) > 0 {
		what := "the kernels in " + plural(len(wrong), "that code object are", "those code objects are")
		if len(wrong) == len(files) {
			what = "no Tensile kernel is loaded"
		}
		m := newMiss(WrongCodeObject, badPaths(wrong), FailsLater, fmt.Sprintf(
			"hipModuleLoadData fails for %s; this rocBLAS discards the error (%s): %s missing and the GEMMs that select them fail on this GPU",
			named(badTexts(wrong)), row.LoadFails.Source, what))
		m.Exist = true
		l.Misses = append(l.Misses, m)
	}
}

// experimental lists the glob's "Experimental" names, which codeObjectGlob
// leaves out and releases before 5.6 load too.
func experimental(fs *view, dir, proc string) []string {
	var out []string
	for _, n := range fs.list(dir) {
		if strings.Contains(n, "Experimental") && strings.Contains(n, proc) && strings.HasSuffix(n, "co") && !strings.HasPrefix(n, ".") {
			out = append(out, join(dir, n))
		}
	}
	return out
}

// withoutLoadedSiblings drops the files of wrong whose name, without its
// -xnack+/-xnack- infix, is that of a globbed file that loads.
func withoutLoadedSiblings(files []string, wrong []badObject) []badObject {
	bad := map[string]bool{}
	for _, w := range wrong {
		bad[w.path] = true
	}
	loads := map[string]bool{}
	for _, f := range files {
		if !bad[show(f)] {
			loads[xnackless(f)] = true
		}
	}
	var out []badObject
	for _, w := range wrong {
		if !loads[xnackless(w.path)] {
			out = append(out, w)
		}
	}
	return out
}

func xnackless(p string) string {
	return strings.NewReplacer("-xnack+", "", "-xnack-", "").Replace(show(p))
}
