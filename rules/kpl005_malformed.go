package rules

import (
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
)

// maxListed bounds how many problems one message spells out.
const maxListed = 5

// checkMalformed is KPL005: an archive that fails to open (the loader skips
// it) or opens with structural defects. One finding per archive.
func checkMalformed(c *Context) []finding.Finding {
	var out []finding.Finding
	for _, a := range c.Build.Archives {
		if f, ok := malformedFinding(a); ok {
			out = append(out, f)
		}
	}
	return append(out, checkInputs(c)...)
}

func malformedFinding(a *model.Archive) (finding.Finding, bool) {
	var msg string
	var details []string
	switch {
	case a.Err != nil:
		msg = fmt.Sprintf("%s does not open: %v. The runtime skips it silently, so every kernel it should serve is missing.", a.Path, a.Err)
		if fe, ok := a.Err.(*kpack.FormatError); ok && fe.LegacyAborts {
			msg += " The legacy runtime (rocm-kpack, ROCm <= 7.14 wheels) throws instead: any load that opens it aborts the process."
		}
	case a.Info != nil:
		for _, p := range a.Info.Problems {
			if p.Kind == kpack.ProblemMalformed {
				details = append(details, p.String())
			}
		}
		if len(details) == 0 {
			return finding.Finding{}, false
		}
		msg = fmt.Sprintf("%s is malformed: %s.", a.Path, listProblems(details))
	default:
		return finding.Finding{}, false
	}
	msg += " Fix: rebuild the archive with the rocm-kpack writer."
	return finding.Finding{
		RuleID:     "KPL005",
		Message:    msg,
		Location:   ArchiveLocation(a),
		Group:      a.Group(),
		KpackError: openCode(a),
		Trace:      details,
		Subject:    subject(a.Group(), a.Path),
	}, true
}

func listProblems(ps []string) string {
	if len(ps) <= maxListed {
		return strings.Join(ps, "; ")
	}
	return strings.Join(ps[:maxListed], "; ") + fmt.Sprintf("; and %d more", len(ps)-maxListed)
}

func openCode(a *model.Archive) string {
	if fe, ok := a.Err.(*kpack.FormatError); ok {
		return fe.Code.String()
	}
	return ""
}
