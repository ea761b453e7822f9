package report

import (
	"regexp"

	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// EscapeNote is the line a text output (the text report, merge's,
// explain's and explain-db's) ends with when it shows a name escaped, so
// that a reader knows "\x1b" or ":\x3a" is not the name as it is on disk.
const EscapeNote = `note: names are shown with their control characters, bidi controls and CI workflow-command syntax escaped (\xNN, \uNNNN); ` +
	`a command above that names such a file needs its name as it is`

// escapedMark finds what escape.String and escape.Lines write.
var escapedMark = regexp.MustCompile(`\\x[0-9a-f]{2}|\\u[0-9a-f]{4}`)

// inertText is s with no line a CI runner takes for a workflow command
// (escape.Lines), and EscapeNote as its last line when s shows anything
// escaped (a name that really holds a backslash and hex digits gets the
// note too).
func inertText(s string) string {
	t := escape.Lines(s)
	if len(t) == len(s) && !escapedMark.MatchString(s) {
		return s
	}
	return t + EscapeNote + "\n"
}
