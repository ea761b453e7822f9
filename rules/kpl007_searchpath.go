package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim"
)

// badSearchPath is KPL007: a host binary's kpack reference is invalid or not
// relocatable. Its findings take their ID from it (Run); explain shows
// nothing of it: the reference, not a load, is at fault.
var badSearchPath = Rule{
	Rule: finding.Rule{
		ID: "KPL007", Name: "bad-search-path", Level: finding.LevelError,
		Title: "A host binary's kpack reference is invalid or not relocatable",
		Text: "The .rocm_kpack_ref section is not valid MessagePack, lacks kernel_name or kpack_search_paths (INVALID_METADATA, " +
			"error 12), a search path leaves the package, or HIPK wrappers and the reference section do not come together.",
		Help: "Re-run the kpack splitter on the binary; use search paths relative to the binary's directory.",
	},
	Checks: []Check{checkSearchPaths},
}

// checkSearchPaths is KPL007: a host binary's kpack reference is invalid
// (the runtime's INVALID_METADATA, error 12), its HIPK wrappers and
// reference section do not come together, or a search path leaves the
// input root (error) or is absolute (warning: not relocatable).
func checkSearchPaths(c *Context) []finding.Finding {
	var out []finding.Finding
	for _, b := range c.Build.Binaries {
		if b.Err != nil {
			out = append(out, unreadableBinaryFinding(b))
			continue
		}
		if b.Info == nil {
			continue
		}
		out = append(out, problemFindings(b)...)
		out = append(out, pathFindings(c, b)...)
	}
	for _, s := range c.Sites {
		if s.Dropped > 0 {
			out = append(out, finding.Finding{
				Message: fmt.Sprintf("%s has %d distinct HIPK co_indexes; only the first %d were simulated and %d were not checked "+
					"(this checker simulates at most %d co_indexes and %d MiB of kernel keys per binary, %d MiB in all). "+
					"No real library has that many translation units or that long a kernel_name: the fat-binary or reference section is probably corrupt. Fix: re-run the kpack splitter on the binary.",
					s.Path, len(s.Kernels)+s.Dropped, len(s.Kernels), s.Dropped, sim.MaxSiteKernels, sim.MaxSiteKeyBytes>>20, sim.MaxTotalKeyBytes>>20),
				Location: s.Location,
				Group:    s.Group,
				Subject:  subject(s.Path, "too-many-kernels"),
			})
		}
	}
	for _, fe := range c.Build.Unreadable {
		// An error: a file that was not read may be a kpack'd binary, and
		// an input that was not read must never pass the gate.
		out = append(out, finding.Finding{
			Level:    finding.LevelError,
			Message:  fmt.Sprintf("%s could not be read (%v), so any kpack reference it carries was not checked. Fix: make the file readable.", fe.Entry.Path, fe.Err),
			Location: finding.Location{Input: fe.Entry.Input, Path: fe.Entry.Path},
			Subject:  subject(fe.Entry.Path, "unreadable"),
		})
	}
	return out
}

// unreadableBinaryFinding reports a file that starts like ELF or PE but
// does not parse. It is an error either way: a broken binary in a package
// is a defect, and a kpack'd one hides every kernel it should load.
func unreadableBinaryFinding(b *model.Binary) finding.Finding {
	why := "any kpack reference it carries was not checked"
	if kpackSectionError(b.Err.Error()) {
		why = "the loader cannot read its kpack reference"
	}
	return finding.Finding{
		Level: finding.LevelError,
		Message: fmt.Sprintf("%s looks like a host binary but cannot be parsed (%v): %s. "+
			"Fix: ship an intact binary (a truncated copy or a broken strip step is the usual cause).", b.Path, b.Err, why),
		Location: finding.Location{Input: b.Entry.Input, Path: b.Path},
		Subject:  subject(b.Path, "unparsable"),
	}
}

func kpackSectionError(msg string) bool {
	for _, s := range []string{hostbin.RefSectionELF, hostbin.FatBinSectionELF, hostbin.RefSectionPE, hostbin.FatBinSectionPE} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// problemFindings reports a binary's problems: those of its kpack
// sections in one finding (referenceFinding), those of its dynamic
// relocation tables (hostbin.RelocUnread) in another.
func problemFindings(b *model.Binary) []finding.Finding {
	var kpack, relocs []hostbin.Problem
	for _, p := range b.Info.Problems {
		if p.Kind == hostbin.RelocUnread {
			relocs = append(relocs, p)
		} else {
			kpack = append(kpack, p)
		}
	}
	var out []finding.Finding
	if len(kpack) > 0 {
		out = append(out, referenceFinding(b, kpack))
	}
	if len(relocs) > 0 {
		out = append(out, relocationFinding(b, relocs))
	}
	return out
}

// relocationFinding reports dynamic relocation tables that did not read
// to their end: the wrapper pointers they set may be unknown (a wrapper
// left with pointer 0 is reported by KPL001 as not reading).
func relocationFinding(b *model.Binary, probs []hostbin.Problem) finding.Finding {
	var details []string
	for _, p := range probs {
		details = append(details, p.String())
	}
	return finding.Finding{
		Message: fmt.Sprintf("%s has dynamic relocation tables that do not read to their end: %s. The dynamic loader applies the same tables; "+
			"the fat-binary wrapper pointers they set were read only as far as the tables go. Fix: ship an intact binary (a truncated copy or a broken strip step is the usual cause).",
			b.Path, listProblems(details)),
		Location: sim.BinaryLocation(b),
		Group:    b.Group,
		Trace:    details,
		Subject:  subject(b.Path, "relocations"),
	}
}

// referenceFinding reports the problems of a binary's kpack sections;
// only those the runtime rejects (hostbin.ProblemKind.Invalid) are named
// as INVALID_METADATA.
func referenceFinding(b *model.Binary, probs []hostbin.Problem) finding.Finding {
	var details []string
	invalid := false
	for _, p := range probs {
		details = append(details, p.String())
		invalid = invalid || p.Kind.Invalid()
	}
	what, effect, code := "defective kpack sections", "Each problem says what HIP and the loader make of it", ""
	if invalid {
		what, effect, code = "an invalid kpack reference", "The runtime fails with INVALID_METADATA (error 12)", "KPACK_ERROR_INVALID_METADATA"
	}
	return finding.Finding{
		Message: fmt.Sprintf("%s has %s: %s. %s. Fix: re-run the kpack splitter on the binary.",
			b.Path, what, listProblems(details), effect),
		Location:   sim.BinaryLocation(b),
		Group:      b.Group,
		KpackError: code,
		Trace:      details,
		Subject:    subject(b.Path, "reference"),
	}
}

func pathFindings(c *Context, b *model.Binary) []finding.Finding {
	if b.Info.Ref == nil {
		return nil
	}
	var out []finding.Finding
	for _, raw := range b.Info.Ref.SearchPaths {
		sp := hostbin.NormalizeSearchPath(raw, b.Info.Format)
		switch {
		case hostbin.IsAbs(raw, b.Info.Format):
			out = append(out, searchPathFinding(b, raw, finding.LevelWarning,
				"is absolute: it names a file outside the package, so the package is not relocatable. Fix: use a path relative to the binary's directory."))
		case climbsOut(b, sp):
			fix := "ship the archives inside the package and point the path at them."
			if in, pass, ok := rootAdvice(c.Inputs, b, sp); ok {
				fix = fmt.Sprintf("if %s is a subdirectory of an install tree, pass %s instead; else %s", in, pass, fix)
			}
			out = append(out, searchPathFinding(b, raw, finding.LevelError,
				"climbs out of the input root, so no archive of this build can satisfy it. Fix: "+fix))
		}
	}
	return out
}

func searchPathFinding(b *model.Binary, sp string, lvl finding.Level, why string) finding.Finding {
	return finding.Finding{
		Level:    lvl,
		Message:  fmt.Sprintf("%s: kpack search path %q %s", b.Path, sp, why),
		Location: sim.BinaryLocation(b),
		Group:    b.Group,
		Trace:    []string{sp},
		Subject:  subject(b.Path, sp),
	}
}

// climbsOut reports whether the (normalised) search path sp of b leaves
// the input root.
func climbsOut(b *model.Binary, sp string) bool {
	return resolver.ResolvePath(b.Dir(), strings.ReplaceAll(sp, kpack.GfxArch, "x")) == ""
}

// rootAdvice says which folder to pass instead when the input holding b
// looks like a subdirectory of an install tree: sp climbs k levels above
// the input root, so the tree's root is k levels up. It returns the
// input's name and "its root (kpack-lint check dist)" for a folder given
// by a relative path, else (an absolute path, which reports never name,
// or a wheel or tarball) "its parent folder" or "the folder k levels up";
// ok is false when sp does not climb out.
func rootAdvice(inputs []string, b *model.Binary, sp string) (input, pass string, ok bool) {
	rel := path.Join(b.Dir(), strings.ReplaceAll(sp, kpack.GfxArch, "x"))
	k := 0
	for rel == ".." || strings.HasPrefix(rel, "../") {
		k++
		rel = strings.TrimPrefix(strings.TrimPrefix(rel, ".."), "/")
	}
	in := b.Entry.Input
	if k == 0 || in < 0 || in >= len(inputs) {
		return "", "", false
	}
	name := strings.ReplaceAll(inputs[in], `\`, "/")
	if strings.HasPrefix(name, "/") || strings.Contains(name, ":") || isArchiveInput(name) {
		base := path.Base(name)
		if k == 1 {
			return base, "its parent folder", true
		}
		return base, fmt.Sprintf("the folder %d levels up", k), true
	}
	return name, fmt.Sprintf("its root (kpack-lint check %s)", path.Clean(name+strings.Repeat("/..", k))), true
}

// SubdirectoryHint says, when an input looks like a subdirectory of an
// install tree (a kpack'd binary's relative search path climbs out of
// it), which folder to pass instead: "dist/bin looks like a subdirectory
// of an install tree (bin/rocfft-test searches ../lib/.kpack/...): pass
// its root (kpack-lint check dist)". "" when no search path climbs out.
// inputs are the inputs as given.
func SubdirectoryHint(inputs []string, bins []*model.Binary) string {
	for _, b := range bins {
		if b.Info == nil || b.Info.Ref == nil {
			continue
		}
		for _, raw := range b.Info.Ref.SearchPaths {
			sp := hostbin.NormalizeSearchPath(raw, b.Info.Format)
			if hostbin.IsAbs(raw, b.Info.Format) || !climbsOut(b, sp) {
				continue
			}
			if in, pass, ok := rootAdvice(inputs, b, sp); ok {
				return fmt.Sprintf("%s looks like a subdirectory of an install tree (%s searches %s, outside it): pass %s", in, b.Path, raw, pass)
			}
		}
	}
	return ""
}

// isArchiveInput reports a wheel or tarball input, which has no parent
// folder to pass instead.
func isArchiveInput(name string) bool {
	for _, ext := range []string{".whl", ".zip", ".tar", ".tgz", ".gz", ".zst", ".xz"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}
