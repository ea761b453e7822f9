package kerneldb

import (
	"fmt"
	"path"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// The Tensile host shared by rocBLAS and hipBLASLt (rocm-libraries
// shared/tensile Tensile/Source/lib: hip/HipSolutionAdapter.cpp,
// PlaceholderLibrary.hpp, Serialization/PlaceholderLibrary.hpp; hipBLASLt's
// TensileLite copy in projects/hipblaslt/tensilelite).

// xnackVariants are the infixes SolutionAdapter tries, in order, before a
// code object's extension when it loads one (initializeLazyLoading and
// FindCodeObject: "", "-xnack-", "-xnack+"; the same in TensileLite).
var xnackVariants = []string{"", "-xnack-", "-xnack+"}

// withVariant inserts an xnack variant before name's last '.'.
func withVariant(name, variant string) string {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return name + variant
	}
	return name[:i] + variant + name[i:]
}

// helperName is the lazy-loading helper code object initializeLazyLoading
// loads for a processor: Tensile's source kernels.
func helperName(proc string) string { return "Kernels.so-000-" + proc + ".hsaco" }

// xnackMode is rocblas_internal_get_xnack_mode: "xnack+" or "xnack-" when
// the agent ISA sets xnack, else "".
func xnackMode(agent targetid.ID) string {
	on, set := agent.Setting(targetid.Xnack)
	switch {
	case !set:
		return ""
	case on:
		return "xnack+"
	}
	return "xnack-"
}

// badObject is a code object that exists but does not load on an agent.
type badObject struct {
	path, why string
}

func (b badObject) String() string { return b.path + " (" + b.why + ")" }

func badPaths(bs []badObject) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.path
	}
	return out
}

func badTexts(bs []badObject) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.String()
	}
	return out
}

// loadVariants finds the first xnack variant of name in dir that exists
// and, with Deep, is a code object the agent can load (hipModuleLoad fails
// on the others and the adapter tries the next). It records each probe
// and returns the variant used ("" when none) and the variants that exist
// but do not fit.
func loadVariants(fs *view, dc *deepCache, l *Lookup, dir, name string, agent targetid.ID) (used string, wrong []badObject) {
	for _, v := range xnackVariants {
		p := join(dir, withVariant(name, v))
		if !dc.isFile(p) {
			l.Steps = append(l.Steps, Step{Path: show(p)})
			continue
		}
		if why := dc.misfit(p, agent); why != "" {
			l.Steps = append(l.Steps, Step{Path: show(p), Found: true, Note: why})
			wrong = append(wrong, badObject{show(p), why})
			continue
		}
		l.Steps = append(l.Steps, Step{Path: show(p), Found: true, Note: "loaded"})
		return show(p), nil
	}
	return "", wrong
}

// checkHelper simulates initializeLazyLoading: Kernels.so-000-<proc>.hsaco
// and its xnack variants. Its failure is printed, not fatal (rocBLAS
// PRINT_IF_HIP_ERROR, hipBLASLt ignores the result); the calls that need
// Tensile's source kernels fail later.
func checkHelper(fs *view, dc *deepCache, l *Lookup, dir string, agent targetid.ID, prefix string) {
	name := helperName(agent.Processor)
	used, wrong := loadVariants(fs, dc, l, dir, name, agent)
	if used != "" {
		return
	}
	first := show(join(dir, name))
	var tried []string
	for _, v := range xnackVariants {
		tried = append(tried, show(join(dir, withVariant(name, v))))
	}
	if len(wrong) > 0 {
		m := newMiss(WrongCodeObject, badPaths(wrong), FailsLater,
			fmt.Sprintf("hipModuleLoad rejects %s on these agents; %s prints the HIP error and goes on; calls that need Tensile's source kernels fail on this GPU",
				strings.Join(badTexts(wrong), ", "), prefix))
		m.Exist, m.Tried = true, tried
		l.Misses = append(l.Misses, m)
		return
	}
	m := newMiss(MissingHelper, []string{first}, FailsLater,
		fmt.Sprintf("hipModuleLoad(%s) fails with hipErrorFileNotFound (no -xnack-/-xnack+ variant either); %s prints the HIP error and goes on; calls that need Tensile's source kernels fail on this GPU",
			first, prefix))
	m.Tried = tried
	l.Misses = append(l.Misses, m)
}

// codeObjectGlob lists the non-lazy code objects of dir for proc: rocBLAS
// globs "*<proc>*co" (.co and .hsaco; glob skips names starting with '.')
// without names holding skip (the other xnack mode) or "Experimental";
// hipBLASLt (coOnly) takes names holding proc with extension .co.
func codeObjectGlob(fs *view, dir, proc, skip string, coOnly bool) []string {
	var out []string
	for _, n := range fs.list(dir) {
		ok := strings.Contains(n, proc) && strings.HasSuffix(n, "co") && !strings.HasPrefix(n, ".")
		if coOnly {
			ok = strings.Contains(n, proc) && path.Ext(n) == ".co"
		}
		if ok && (skip == "" || !strings.Contains(n, skip)) && !strings.Contains(n, "Experimental") {
			out = append(out, join(dir, n))
		}
	}
	return out
}

// wrongGlobbed returns, with Deep, the non-lazy code objects that do not
// load on the agent.
func wrongGlobbed(dc *deepCache, files []string, agent targetid.ID) []badObject {
	var wrong []badObject
	for _, f := range files {
		if why := dc.misfit(f, agent); why != "" {
			wrong = append(wrong, badObject{show(f), why})
		}
	}
	return wrong
}

// placeholderCodeObjects are the code objects a sub-library's solutions
// name. rocBLAS's Tensile (PlaceholderLibrary::getCodeObjectFileName):
// <prefix>.co for assembly kernels, <prefix>.hsaco for source kernels, or
// <prefix>_<proc>.hsaco when the prefix holds "fallback". hipBLASLt's
// TensileLite: <prefix>.co only.
func placeholderCodeObjects(lib Library, prefix, proc string) []string {
	if lib == HipBLASLt {
		return []string{prefix + ".co"}
	}
	src := prefix + ".hsaco"
	if strings.Contains(prefix, "fallback") {
		src = prefix + "_" + proc + ".hsaco"
	}
	return []string{prefix + ".co", src}
}

// subLibraryExts are the files a placeholder's sub-library may be, in the
// order the library opens them: <prefix><ext of the index>, and for
// hipBLASLt's MessagePack its .zlib form first (fileToMsgObject).
func subLibraryExts(lib Library, indexExt string) []string {
	if lib == HipBLASLt && indexExt == ".dat" {
		return []string{".dat" + zlibExt, ".dat"}
	}
	return []string{indexExt}
}

// maxNamed is how many paths a miss's text names before "... and N more":
// finding.MaxListed, as every list in messages.
const maxNamed = finding.MaxListed

// named joins up to maxNamed items: "a, b, c ... and 997 more".
func named(items []string) string {
	if len(items) <= maxNamed {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:maxNamed], ", ") + fmt.Sprintf(" ... and %d more", len(items)-maxNamed)
}

// checkPlaceholders (Deep) reads the lazy index and checks each
// Placeholder sub-library it names: <prefix><ext> next to the index (a
// missing one is a null dereference in loadPlaceholderLibrary, TheRock#7790)
// and at least one of its code objects, in a variant the agent loads. A
// prefix is used as Tensile uses it, libraryDirectory + "/" + prefix +
// suffix, so one holding "/" names a file in a subfolder.
func checkPlaceholders(fs *view, dc *deepCache, l *Lookup, dir string, agent targetid.ID, t tensileText) {
	if !dc.on {
		return
	}
	prefixes, err := dc.placeholders(l.Index)
	if err != nil {
		l.Misses = append(l.Misses, indexMiss(l, err, t))
		return
	}
	lib := l.Site.Library
	ext := indexExt(l.Index)
	var noLib, noCO []string
	var wrong []badObject
	for _, pre := range prefixes {
		if !dc.anyFile(dir, pre, subLibraryExts(lib, ext)) {
			noLib = append(noLib, show(join(dir, pre+ext)))
			continue
		}
		ok, bad := placeholderLoads(dc, dir, lib, pre, agent)
		switch {
		case ok:
		case len(bad) > 0:
			wrong = append(wrong, bad...)
		case lib == HipBLASLt:
			noCO = append(noCO, show(join(dir, pre))+".co")
		default:
			noCO = append(noCO, show(join(dir, pre))+".{co,hsaco}")
		}
	}
	l.Steps = append(l.Steps, Step{Path: l.Index, Found: true,
		Note: fmt.Sprintf("names %s: %d missing, %d without a loadable code object", plural(len(prefixes), "sub-library", "sub-libraries"), len(noLib), len(noCO)+len(wrong))})
	if len(noLib) > 0 {
		l.Misses = append(l.Misses, newMiss(MissingPlaceholder, noLib, Crash, fmt.Sprintf(
			"%s names %s that %s missing (%s); the first call that needs one crashes (SIGSEGV in Tensile loadPlaceholderLibrary, TheRock#7790)",
			l.Index, plural(len(noLib), "sub-library", "sub-libraries"), isAre(len(noLib)), named(noLib))))
	}
	if len(noCO) > 0 {
		l.Misses = append(l.Misses, newMiss(MissingCodeObject, noCO, FailsLater, fmt.Sprintf(
			"code objects of %s %s names are missing (%s): hipModuleLoad fails (hipErrorFileNotFound) and the calls that select their kernels fail on this GPU",
			plural(len(noCO), "sub-library", "sub-libraries"), l.Index, named(noCO))))
	}
	if len(wrong) > 0 {
		m := newMiss(WrongCodeObject, badPaths(wrong), FailsLater, fmt.Sprintf(
			"%s of sub-libraries %s names do not load on these agents (%s): hipModuleLoad rejects them and the calls that select their kernels fail",
			plural(len(wrong), "code object", "code objects"), l.Index, named(badTexts(wrong))))
		m.Exist = true
		l.Misses = append(l.Misses, m)
	}
}

// indexMiss is the miss for an index Deep could not read: over a limit
// (LimitHit, NotChecked) or not parsable (BadIndex, the library's
// effect).
func indexMiss(l *Lookup, err error, t tensileText) Miss {
	var m Miss
	if le, ok := err.(*LimitError); ok {
		m = newMiss(LimitHit, []string{l.Index}, NotChecked, fmt.Sprintf(
			"%s: %s, so kpack-lint read no further and its sub-libraries and code objects are unchecked (the library itself still reads it)", l.Index, le))
	} else {
		m = newMiss(BadIndex, []string{l.Index}, t.badIndexEffect, fmt.Sprintf("%s (%v); %s", t.couldNotLoad(l.Index), err, t.badIndexThen))
	}
	m.Exist = true
	return m
}

// indexExt is the Tensile extension of an index file: ".dat" (also for
// ".dat.zlib") or ".yaml".
func indexExt(p string) string {
	return path.Ext(strings.TrimSuffix(p, zlibExt))
}

// placeholderLoads reports whether some code object of the sub-library
// loads on the agent, and the ones that exist but do not fit.
func placeholderLoads(dc *deepCache, dir string, lib Library, prefix string, agent targetid.ID) (bool, []badObject) {
	var bad []badObject
	for _, name := range placeholderCodeObjects(lib, prefix, agent.Processor) {
		for _, v := range xnackVariants {
			p := join(dir, withVariant(name, v))
			if !dc.isFile(p) {
				continue
			}
			why := dc.misfit(p, agent)
			if why == "" {
				return true, nil
			}
			bad = append(bad, badObject{show(p), why})
		}
	}
	return false, bad
}

// plural is "1 thing" or "n things".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// tensileText holds the wording and effects that differ between rocBLAS
// and hipBLASLt.
type tensileText struct {
	prefix         string // "rocBLAS error" or "rocblaslt error"
	arch           string // rocBLAS adds " for architecture: <proc>"
	quote          bool   // hipBLASLt prints std::filesystem::path values quoted
	badIndexEffect Effect
	badIndexThen   string
}

func (t tensileText) path(p string) string {
	if t.quote {
		return `"` + p + `"`
	}
	return p
}

func (t tensileText) couldNotLoad(p string) string {
	return t.prefix + ": Could not load " + t.path(p) + t.arch
}

// maxHintFolders is how many per-arch folders a hint names.
const maxHintFolders = finding.MaxListed

// archFolderHint explains a missing index from the per-arch folders of
// the site's Base: the variable set at the base folder (hipBLASLt uses it
// as given), a per-arch folder that is used but holds no index, folders
// the library does not look in (the other xnack mode; xnack folders for
// hipBLASLt), or folders for other processors only (TheRock's splitter
// drops files whose arch it does not recognise, rocm-systems#7645). Only
// folders named for a known processor count. "" for the flat layout.
func archFolderHint(fs *view, l *Lookup, agent targetid.ID) string {
	s, proc := l.Site, agent.Processor
	if s.cwd {
		return ""
	}
	if l.perArch {
		return fmt.Sprintf(" (the per-arch folder %s is used but holds no index for %s: an incomplete %s package)", l.Dir, proc, proc)
	}
	if l.guarded != "" {
		return fmt.Sprintf(" (%s holds the files for %s, but this hipBLASLt enters a per-arch folder only when %s is in it, uncompressed "+
			"(rocm-libraries PR 5354; which name it tests is inferred from TheRock#7976); set %s=%s, or ship the mapping file as .dat)",
			l.guarded, proc, mappingName(proc), EnvHipBLASLt, l.guarded)
	}
	var all, own []string
	for _, n := range fs.list(s.Base) {
		m := tensileArchDir.FindStringSubmatch(n)
		if m == nil || !knownProcessor(m[1]) || !fs.isDir(join(s.Base, n)) {
			continue
		}
		all = append(all, n+"/")
		if m[1] == proc {
			own = append(own, n+"/")
		}
	}
	base := s.Folder()
	switch {
	case len(own) > 0 && s.Library == HipBLASLt && s.BaseFrom == EnvHipBLASLt:
		return fmt.Sprintf(" (%s is set, so hipBLASLt uses it as given: it looks in a <proc>/ subfolder only when the variable is unset, "+
			"and the files for %s are in %s/%s (TheRock#7976); point the variable at %s/%s or unset it)",
			EnvHipBLASLt, proc, base, own[0], base, strings.TrimSuffix(own[0], "/"))
	case len(own) > 0 && s.Library == HipBLASLt:
		return fmt.Sprintf(" (%s has %s, but hipBLASLt looks only in %s/, not in xnack folders)", base, strings.Join(own, ", "), proc)
	case len(own) > 0:
		return fmt.Sprintf(" (%s has only %s for %s: rocBLAS looks in %s-%s/, then %s/; a folder for the other xnack mode is not used)",
			base, strings.Join(own, ", "), proc, proc, orNone(xnackMode(agent)), proc)
	case len(all) > 0:
		listed := all
		if len(all) > maxHintFolders {
			listed = append(all[:maxHintFolders:maxHintFolders], fmt.Sprintf("... and %d more", len(all)-maxHintFolders))
		}
		return fmt.Sprintf(" (%s has per-arch folders %s but none for %s; TheRock's splitter drops files whose arch it does not recognise, rocm-systems#7645)",
			base, strings.Join(listed, ", "), proc)
	}
	return ""
}

func orNone(mode string) string {
	if mode == "" {
		return "<xnack mode>"
	}
	return mode
}
