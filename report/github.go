package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// MaxAnnotations is how many workflow annotations WriteGitHub emits per
// level: GitHub shows at most 10 error and 10 warning annotations of a step.
const MaxAnnotations = 10

// WriteGitHub writes GitHub Actions workflow commands, one annotation per
// finding that counts for the exit code (see Gating), in report order:
//
//	::error file=bin/rocfft-test,title=KPL003 stripped-feature-flags::<message> (kpack-lint explain ...)
//
// error, warning and note map to ::error, ::warning and ::notice; the file
// is the finding's path with Run.PathPrefix before it. At most
// MaxAnnotations per level are written; a final ::notice says how many
// were left out, a ::notice per simulated machine with failing binaries
// gives its verdict (at most MaxAnnotations), and a plain last line gives
// the counts.
func WriteGitHub(w io.Writer, r Run) error {
	r = Sanitize(r)
	entries, c, err := prepare(r)
	if err != nil {
		return err
	}
	var b strings.Builder
	written := map[finding.Level]int{}
	left := 0
	for _, e := range entries {
		if !e.gating {
			continue
		}
		if written[e.level] == MaxAnnotations {
			left++
			continue
		}
		written[e.level]++
		writeAnnotation(&b, r, e)
	}
	if left > 0 {
		fmt.Fprintf(&b, "::notice title=kpack-lint::%s\n", escapeData(fmt.Sprintf(
			"%d more findings are not annotated (at most %d per level); see the job summary, the code scanning alerts or the report", left, MaxAnnotations)))
	}
	writeGitHubMachines(&b, r)
	if k := r.Checked; k != nil {
		fmt.Fprintf(&b, "kpack-lint: checked %s with %s\n", strings.Join(k.Inputs, " + "), policyWords(k))
	}
	fmt.Fprintf(&b, "kpack-lint: %s\n", summaryLine(c, r, entries))
	_, err = io.WriteString(w, b.String())
	return err
}

func writeAnnotation(b *strings.Builder, r Run, e entry) {
	cmd := map[finding.Level]string{finding.LevelError: "error", finding.LevelWarning: "warning"}[e.level]
	if cmd == "" {
		cmd = "notice"
	}
	file := annotationPath(r, e.f.Location)
	msg := escape.String(e.f.Message)
	if e.rule.Explains(e.f) {
		msg += "\nMore: " + Hint(r, e.f)
	}
	fmt.Fprintf(b, "::%s file=%s,title=%s::%s\n", cmd, escapeProperty(escape.String(file)),
		escapeProperty(e.f.RuleID+" "+e.rule.Name), escapeData(msg))
}

// annotationPath names l's file as the repository does: with
// Run.PathPrefix before it, except for the policy file.
func annotationPath(r Run, l finding.Location) string {
	if l.Input != finding.PolicyInput && r.PathPrefix != "" {
		return strings.TrimSuffix(r.PathPrefix, "/") + "/" + l.Path
	}
	return l.Path
}

// escapeData escapes a workflow command's message (actions/toolkit
// command.ts escapeData).
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value
// (actions/toolkit command.ts escapeProperty).
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
