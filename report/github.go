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
// MaxAnnotations per level are written; the notifications about the
// configuration (waivers, baseline) follow as ::warning or ::notice
// within the same per-level cap; a final ::notice says how many of either
// were left out, a ::notice per simulated machine with failing binaries
// gives its verdict (at most MaxAnnotations), and a plain last line gives
// what fails and the counts (summaryLine).
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
	leftNotes := 0
	for _, n := range r.Notifications {
		level := n.Level
		if level != finding.LevelWarning {
			level = finding.LevelNote
		}
		if written[level] == MaxAnnotations {
			leftNotes++
			continue
		}
		written[level]++
		writeNotificationAnnotation(&b, level, n)
	}
	if left > 0 || leftNotes > 0 {
		fmt.Fprintf(&b, "::notice title=kpack-lint::%s\n", escapeData(fmt.Sprintf(
			"%s not annotated (at most %d per level); see the job summary, the code scanning alerts or the report", moreNotAnnotated(left, leftNotes), MaxAnnotations)))
	}
	writeGitHubMachines(&b, r)
	// The plain lines are not commands: escape.Lines keeps a "##[" of an
	// input name from being one.
	if k := r.Checked; k != nil {
		b.WriteString(escape.Lines(fmt.Sprintf("kpack-lint: checked %s with %s\n", strings.Join(k.Inputs, " + "), policyWords(k))))
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
	if g := grownNote(e.f); g != "" {
		msg += "\n" + g
	}
	msg += "\nMore: " + Hint(r, e.f) // explain's command, or the rule's page where explain shows nothing of the finding
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

// writeNotificationAnnotation writes a notification about the run's
// configuration (an expiring, expired or unused waiver, a baseline that
// checked another matrix) as ::warning or ::notice, titled with its kind
// and, when its source is FILE:LINE, at that line:
//
//	::warning file=policies.yaml,line=31,title=kpack-lint expired-waiver::waiver (KPL003, group fft_test) expired on ...
func writeNotificationAnnotation(b *strings.Builder, level finding.Level, n Notification) {
	cmd := "notice"
	if level == finding.LevelWarning {
		cmd = "warning"
	}
	var props []string
	if n.Source != "" {
		file, line := n.Source, ""
		if i := strings.LastIndexByte(file, ':'); i > 0 && isDigits(file[i+1:]) {
			file, line = file[:i], file[i+1:]
		}
		props = append(props, "file="+escapeProperty(escape.String(file)))
		if line != "" {
			props = append(props, "line="+line)
		}
	}
	props = append(props, "title="+escapeProperty("kpack-lint "+escape.String(n.Kind)))
	fmt.Fprintf(b, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(escape.String(n.Message)))
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
}

// moreNotAnnotated counts what the annotation cap left out: "1 more
// finding is", "N more findings and 1 more configuration notification
// are".
func moreNotAnnotated(findings, notes int) string {
	var parts []string
	if findings > 0 {
		parts = append(parts, fmt.Sprintf("%d more %s", findings, pluralWord(findings, "finding")))
	}
	if notes > 0 {
		parts = append(parts, fmt.Sprintf("%d more configuration %s", notes, pluralWord(notes, "notification")))
	}
	verb := " are"
	if findings+notes == 1 {
		verb = " is"
	}
	return strings.Join(parts, " and ") + verb
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
