package kerneldb

import (
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// rocBLAS's lookup (rocm-libraries projects/rocblas/library/src/
// tensile_host.cpp, determine_tensile_base_path and TensileHost::
// initialize):
//
//  1. base: ROCBLAS_TENSILE_LIBPATH as given; else the folder of
//     librocblas.so (dl_iterate_phdr) and the first of ../../Tensile/library,
//     library, ../rocblas/library (ASAN's lib/asan), ../Tensile/library that
//     exists, else rocblas/library;
//  2. per-arch subfolder: <proc>-xnack± (the agent's xnack mode), else
//     <proc>, else the base itself (flat multi-arch layout);
//  3. index, first that exists: TensileLibrary_lazy_<proc>.dat (lazy
//     loading), TensileLibrary_<proc>.dat, TensileLibrary.dat (.yaml in
//     TENSILE_YAML builds). None: "rocBLAS error: Cannot read <dir>/
//     TensileLibrary.dat: No such file or directory for GPU arch : <proc>",
//     a listing of the folder's TensileLibrary_lazy* files, rocblas_abort();
//     when the folder itself is missing the listing throws and rocBLAS
//     reports "Could not initialize Tensile host" instead of aborting;
//  4. lazy: the helper Kernels.so-000-<proc>.hsaco (tensile.go) and the
//     placeholder sub-libraries the index names (Deep); non-lazy: every
//     "*<proc>*co" file of the folder except the other xnack mode's.

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
		m.Text += archFolderHint(fs, l.Site.Base, proc)
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

// rocblasArchDir probes <base>/<proc>-xnack±, then <base>/<proc>.
func rocblasArchDir(fs *view, l *Lookup, agent targetid.ID) string {
	base := l.Site.Base
	var cands []string
	if m := xnackMode(agent); m != "" {
		cands = append(cands, join(base, agent.Processor+"-"+m))
	}
	cands = append(cands, join(base, agent.Processor))
	for _, c := range cands {
		if fs.isDir(c) {
			l.Steps = append(l.Steps, Step{Path: show(c), Found: true, Note: "per-arch folder"})
			l.Dir = show(c)
			return c
		}
		l.Steps = append(l.Steps, Step{Path: show(c)})
	}
	l.Dir = show(base)
	return base
}

// rocblasNoIndex is what rocBLAS prints when no index exists.
func rocblasNoIndex(fs *view, dir, proc string, names []string) Miss {
	last := show(join(dir, names[len(names)-1]))
	tried := make([]string, len(names))
	for i, n := range names {
		tried[i] = show(join(dir, n))
	}
	head := fmt.Sprintf("rocBLAS error: Cannot read %s: No such file or directory for GPU arch : %s", last, proc)
	if !fs.isDir(dir) {
		return Miss{Kind: MissingFolder, Paths: []string{show(dir)}, Tried: tried, Effect: FailsLater,
			Text: head + fmt.Sprintf(" / rocBLAS error: Could not initialize Tensile host: filesystem error: directory iterator cannot open directory: No such file or directory [%s]; every Tensile-backed call (GEMM) on this GPU fails", show(dir))}
	}
	return Miss{Kind: MissingIndex, Paths: []string{last}, Tried: tried, Effect: Abort,
		Text: head + " / List of available TensileLibrary Files : " + lazyListing(fs, dir) +
			"; rocblas_abort() follows, at the first Tensile-backed call (GEMM) on this GPU"}
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
	switch {
	case len(names) == 0:
		return "(none)"
	case len(names) > 5:
		return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return strings.Join(names, ", ")
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
	l.Steps = append(l.Steps, Step{Path: pattern, Found: len(files) > 0, Note: fmt.Sprintf("%d code objects", len(files))})
	if len(files) == 0 {
		l.Misses = append(l.Misses, Miss{Kind: NoCodeObjects, Paths: []string{pattern}, Effect: FailsLater,
			Text: "rocBLAS warning: No paths matched " + pattern + ". Make sure that ROCBLAS_TENSILE_LIBPATH is set correctly.; " +
				"the Tensile kernels are not loaded and GEMMs on this GPU fail (hipErrorNotFound)"})
		return
	}
	checkGlobbed(dc, l, files, agent)
}
