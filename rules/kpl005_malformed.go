package rules

import (
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
)

// malformedArchive is KPL005: a .kpack archive is malformed. Its findings
// take their ID from it (Run); explain shows nothing of it: the archive, not
// a load, is at fault (KPL001 reports the loads).
var malformedArchive = Rule{
	Rule: finding.Rule{
		ID: "KPL005", Name: "malformed-archive", Level: finding.LevelError,
		Title: "A .kpack archive is malformed",
		Text: "The archive's header, TOC or blob table breaks the kpack format (version 1): the runtime skips it, " +
			"fails on fetch, or aborts the process that loads it.",
		Help: "Rebuild the archive with the rocm-kpack writer; do not edit archives by hand.",
	},
	Checks: []Check{checkMalformed, checkDeepProblems},
}

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
		Message:    msg,
		Location:   sim.ArchiveLocation(a),
		Group:      a.Group(),
		KpackError: openCode(a),
		Trace:      details,
		Subject:    subject(a.Group(), a.Path),
	}, true
}

// checkDeepProblems adds to KPL005 (with --deep) one finding per archive
// whose data fails where the TOC looked fine: frames that do not
// decompress, blobs that cannot be read, sizes that differ from
// original_size.
func checkDeepProblems(c *Context) []finding.Finding {
	if c.Deep == nil {
		return nil
	}
	var out []finding.Finding
	for _, p := range sortedKeys(c.Deep.Problems) {
		a := c.Build.ArchiveAt(p)
		ps := c.Deep.Problems[p]
		if a == nil || len(ps) == 0 {
			continue
		}
		out = append(out, deepProblemFinding(a, ps))
	}
	return out
}

func deepProblemFinding(a *model.Archive, ps []kpack.Problem) finding.Finding {
	details := make([]string, len(ps))
	code := ""
	for i, p := range ps {
		details[i] = p.String()
		switch {
		case strings.Contains(p.Msg, kpack.DecompressionFailed.Short()):
			code = kpack.DecompressionFailed.String()
		case code == "" && strings.Contains(p.Msg, kpack.IOError.Short()):
			code = kpack.IOError.String()
		}
	}
	// Size mismatches of scheme none blobs do not make loads fail: the
	// runtime ignores original_size there and serves the stored bytes.
	effect := "Loads of these kernels still succeed (the runtime serves the stored bytes), but the TOC does not describe the data."
	if code != "" {
		effect = "Loads of the affected kernels fail with " + code + " even though the TOC is valid."
	}
	return finding.Finding{
		Message: fmt.Sprintf("%s has damaged kernel data (found by --deep): %s. %s "+
			"Fix: rebuild the archive with the rocm-kpack writer.", a.Path, listProblems(details), effect),
		Location:   sim.ArchiveLocation(a),
		Group:      a.Group(),
		KpackError: code,
		Trace:      details,
		Subject:    subject(a.Group(), a.Path, "deep"),
	}
}

func listProblems(ps []string) string {
	return finding.CapList(ps, finding.MaxListed, "; ")
}

func openCode(a *model.Archive) string {
	if fe, ok := a.Err.(*kpack.FormatError); ok {
		return fe.Code.String()
	}
	return ""
}
