package rules

import (
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/build"
	"github.com/rocm-tools/kpack-lint/hostbin"
	"github.com/rocm-tools/kpack-lint/resolver"
)

// checkSearchPaths is KPL007: a host binary's kpack reference is invalid
// (the runtime's INVALID_METADATA, error 12), its HIPK wrappers and
// reference section do not come together, or a search path leaves the
// input root (error) or is absolute (warning: not relocatable).
func checkSearchPaths(c *Context) []Finding {
	var out []Finding
	for _, b := range c.Build.Binaries {
		if b.Info == nil {
			continue
		}
		if len(b.Info.Problems) > 0 {
			out = append(out, referenceFinding(b))
		}
		out = append(out, pathFindings(b)...)
	}
	return out
}

func referenceFinding(b *build.Binary) Finding {
	var details []string
	for _, p := range b.Info.Problems {
		details = append(details, p.String())
	}
	return Finding{
		RuleID: "KPL007",
		Message: fmt.Sprintf("%s has an invalid kpack reference: %s. The runtime fails with INVALID_METADATA (error 12) "+
			"or never loads its device code. Fix: re-run the kpack splitter on the binary.", b.Path, listProblems(details)),
		Location:   BinaryLocation(b),
		Group:      b.Group,
		KpackError: "KPACK_ERROR_INVALID_METADATA",
		Trace:      details,
		Subject:    subject(b.Path, "reference"),
	}
}

func pathFindings(b *build.Binary) []Finding {
	if b.Info.Ref == nil {
		return nil
	}
	var out []Finding
	for _, raw := range b.Info.Ref.SearchPaths {
		sp := hostbin.NormalizeSearchPath(raw, b.Info.Format)
		switch {
		case hostbin.IsAbs(raw, b.Info.Format):
			out = append(out, searchPathFinding(b, raw, LevelWarning,
				"is absolute: it names a file outside the package, so the package is not relocatable. Fix: use a path relative to the binary's directory."))
		case resolver.ResolvePath(b.Dir(), strings.ReplaceAll(sp, resolver.GfxArch, "x")) == "":
			out = append(out, searchPathFinding(b, raw, LevelError,
				"climbs out of the input root, so no archive of this build can satisfy it. Fix: ship the archives inside the package and point the path at them."))
		}
	}
	return out
}

func searchPathFinding(b *build.Binary, sp string, lvl Level, why string) Finding {
	return Finding{
		RuleID:   "KPL007",
		Level:    lvl,
		Message:  fmt.Sprintf("%s: kpack search path %q %s", b.Path, sp, why),
		Location: BinaryLocation(b),
		Group:    b.Group,
		Trace:    []string{sp},
		Subject:  subject(b.Path, sp),
	}
}
