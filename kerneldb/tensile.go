package kerneldb

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// The Tensile host shared by rocBLAS and hipBLASLt (rocm-libraries
// shared/tensile Tensile/Source/lib: hip/HipSolutionAdapter.cpp,
// PlaceholderLibrary.hpp, Serialization/PlaceholderLibrary.hpp).

// xnackVariants are the infixes SolutionAdapter tries, in order, before a
// code object's extension when it loads one (initializeLazyLoading and
// launchKernel: "", "-xnack-", "-xnack+").
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

// loadVariants finds the first xnack variant of name in dir that exists
// and, with Deep, is a code object the agent can load (hipModuleLoad fails
// on the others and the adapter tries the next). It records each probe
// and returns the variant used ("" when none), the variants that exist
// but do not fit (with why).
func loadVariants(fs *view, dc *deepCache, l *Lookup, dir, name string, agent targetid.ID) (used string, wrong []string) {
	for _, v := range xnackVariants {
		p := join(dir, withVariant(name, v))
		if !fs.isFile(p) {
			l.Steps = append(l.Steps, Step{Path: show(p)})
			continue
		}
		if why := dc.misfit(p, agent); why != "" {
			l.Steps = append(l.Steps, Step{Path: show(p), Found: true, Note: why})
			wrong = append(wrong, show(p)+" ("+why+")")
			continue
		}
		l.Steps = append(l.Steps, Step{Path: show(p), Found: true, Note: "loaded"})
		return show(p), nil
	}
	return "", wrong
}

// checkHelper simulates initializeLazyLoading: Kernels.so-000-<proc>.hsaco
// and its xnack variants. Its failure is printed, not fatal; the calls
// that need Tensile's source kernels fail later.
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
		l.Misses = append(l.Misses, Miss{Kind: WrongCodeObject, Paths: wrong, Tried: tried, Effect: FailsLater,
			Text: fmt.Sprintf("hipModuleLoad rejects %s on %s; %s prints the HIP error and goes on; calls that need Tensile's source kernels fail on this GPU",
				strings.Join(wrong, ", "), l.Agent, prefix)})
		return
	}
	l.Misses = append(l.Misses, Miss{Kind: MissingHelper, Paths: []string{first}, Tried: tried, Effect: FailsLater,
		Text: fmt.Sprintf("hipModuleLoad(%s) fails with hipErrorFileNotFound (no -xnack-/-xnack+ variant either); %s prints the HIP error and goes on; calls that need Tensile's source kernels fail on this GPU",
			first, prefix)})
}

// codeObjectGlob lists the non-lazy code objects of dir for proc: rocBLAS
// globs "*<proc>*co" (.co and .hsaco) without names holding skip (the other
// xnack mode) or "Experimental"; hipBLASLt (coOnly) takes names holding
// proc with extension .co.
func codeObjectGlob(fs *view, dir, proc, skip string, coOnly bool) []string {
	var out []string
	for _, n := range fs.list(dir) {
		ok := strings.Contains(n, proc) && strings.HasSuffix(n, "co")
		if coOnly {
			ok = strings.Contains(n, proc) && path.Ext(n) == ".co"
		}
		if ok && (skip == "" || !strings.Contains(n, skip)) && !strings.Contains(n, "Experimental") {
			out = append(out, join(dir, n))
		}
	}
	return out
}

// checkGlobbed checks, with Deep, that the code objects a non-lazy library
// loads are for the agent.
func checkGlobbed(dc *deepCache, l *Lookup, files []string, agent targetid.ID) {
	var wrong []string
	for _, f := range files {
		if why := dc.misfit(f, agent); why != "" {
			wrong = append(wrong, show(f)+" ("+why+")")
		}
	}
	if len(wrong) > 0 {
		l.Misses = append(l.Misses, Miss{Kind: WrongCodeObject, Paths: wrong, Effect: FailsLater,
			Text: fmt.Sprintf("hipModuleLoad rejects %d code objects on %s (hipErrorNoBinaryForGpu); the kernels in them cannot run on this GPU", len(wrong), l.Agent)})
	}
}

// placeholderCodeObjects are the code objects PlaceholderLibrary::
// getCodeObjectFileName names for a sub-library: <prefix>.co (assembly
// kernels) and <prefix>.hsaco, or <prefix>_<proc>.hsaco when the prefix
// holds "fallback" (source kernels).
func placeholderCodeObjects(prefix, proc string) []string {
	src := prefix + ".hsaco"
	if strings.Contains(prefix, "fallback") {
		src = prefix + "_" + proc + ".hsaco"
	}
	return []string{prefix + ".co", src}
}

// checkPlaceholders (Deep) reads the lazy index and checks each
// Placeholder sub-library it names: <prefix><ext> next to the index (a
// missing one is a null dereference in loadPlaceholderLibrary, TheRock#7790)
// and at least one of its code objects, in a variant the agent loads.
func checkPlaceholders(fs *view, dc *deepCache, l *Lookup, dir string, agent targetid.ID, t tensileText) {
	if !dc.on {
		return
	}
	prefixes, err := dc.placeholders(join(dir, path.Base(l.Index)))
	if err != nil {
		l.Misses = append(l.Misses, Miss{Kind: BadIndex, Paths: []string{l.Index}, Effect: t.badIndexEffect,
			Text: fmt.Sprintf("%s (%v); %s", t.couldNotLoad(l.Index), err, t.badIndexThen)})
		return
	}
	var noLib, noCO, wrong []string
	for _, pre := range prefixes {
		lib := join(dir, pre+path.Ext(l.Index))
		if !fs.isFile(lib) {
			noLib = append(noLib, show(lib))
			continue
		}
		if ok, bad := placeholderLoads(fs, dc, dir, pre, agent); !ok {
			if len(bad) > 0 {
				wrong = append(wrong, bad...)
			} else {
				noCO = append(noCO, show(join(dir, pre))+".{co,hsaco}")
			}
		}
	}
	l.Steps = append(l.Steps, Step{Path: l.Index, Found: true,
		Note: fmt.Sprintf("names %d sub-libraries: %d missing, %d without a loadable code object", len(prefixes), len(noLib), len(noCO)+len(wrong))})
	addSorted(l, MissingPlaceholder, noLib, Crash, fmt.Sprintf(
		"%s names sub-libraries that are missing; the first call that needs one crashes (SIGSEGV in Tensile loadPlaceholderLibrary, TheRock#7790)", l.Index))
	addSorted(l, MissingCodeObject, noCO, FailsLater, fmt.Sprintf(
		"code objects of sub-libraries %s names are missing: hipModuleLoad fails (hipErrorFileNotFound) and the calls that select their kernels fail on this GPU", l.Index))
	addSorted(l, WrongCodeObject, wrong, FailsLater, fmt.Sprintf(
		"code objects of sub-libraries %s names are not for %s: hipModuleLoad rejects them and the calls that select their kernels fail", l.Index, l.Agent))
}

// placeholderLoads reports whether some code object of the sub-library
// loads on the agent, and the ones that exist but do not fit.
func placeholderLoads(fs *view, dc *deepCache, dir, prefix string, agent targetid.ID) (bool, []string) {
	var bad []string
	for _, name := range placeholderCodeObjects(prefix, agent.Processor) {
		for _, v := range xnackVariants {
			p := join(dir, withVariant(name, v))
			if !fs.isFile(p) {
				continue
			}
			why := dc.misfit(p, agent)
			if why == "" {
				return true, nil
			}
			bad = append(bad, show(p)+" ("+why+")")
		}
	}
	return false, bad
}

func addSorted(l *Lookup, k Kind, paths []string, e Effect, text string) {
	if len(paths) == 0 {
		return
	}
	sort.Strings(paths)
	l.Misses = append(l.Misses, Miss{Kind: k, Paths: paths, Effect: e, Text: text})
}

// tensileText holds the wording and effects that differ between rocBLAS
// and hipBLASLt.
type tensileText struct {
	prefix         string // "rocBLAS error" or "rocblaslt error"
	arch           string // rocBLAS adds " for architecture: <proc>"
	badIndexEffect Effect
	badIndexThen   string
}

func (t tensileText) couldNotLoad(p string) string {
	return t.prefix + ": Could not load " + p + t.arch
}

// archFolderHint explains a missing index when the base folder uses the
// per-arch layout: it names the per-arch folders there are (TheRock's
// splitter drops files whose arch it does not recognise, so a processor
// can lose its folder, rocm-systems#7645). "" for the flat layout.
func archFolderHint(fs *view, base, proc string) string {
	var all, own []string
	for _, n := range fs.list(base) {
		m := tensileArchDir.FindStringSubmatch(n)
		if m == nil || !fs.isDir(join(base, n)) {
			continue
		}
		all = append(all, n+"/")
		if m[1] == proc {
			own = append(own, n+"/")
		}
	}
	switch {
	case len(own) > 0:
		return fmt.Sprintf(" (%s has only %s for %s: a device in the other xnack mode does not use it)", show(base), strings.Join(own, ", "), proc)
	case len(all) > 0:
		return fmt.Sprintf(" (%s has per-arch folders %s but none for %s; TheRock's splitter drops files whose arch it does not recognise, rocm-systems#7645)",
			show(base), strings.Join(all, ", "), proc)
	}
	return ""
}
