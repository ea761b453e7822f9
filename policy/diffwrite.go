package policy

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// Text words c on one line for a terminal or log: "policies.yaml:31:
// waiver added: (group *), never expires, reason tracked elsewhere";
// every part passes escape.String (no control character, no line break).
func (c Change) Text() string {
	var b strings.Builder
	if c.Source != "" {
		b.WriteString(escape.String(c.Source) + ": ")
	}
	b.WriteString(c.Kind + ": ")
	for _, p := range c.Parts {
		b.WriteString(escape.String(p.S))
	}
	return b.String()
}

// Markdown words c as one list item: the kind in bold, the source and
// every Data part in code spans (mdCode), the rest escaped (mdText).
func (c Change) Markdown() string {
	var b strings.Builder
	b.WriteString("- **" + mdText(c.Kind) + "**")
	if c.Source != "" {
		b.WriteString(" at " + mdCode(c.Source))
	}
	b.WriteString(": ")
	for _, p := range c.Parts {
		if p.Data {
			b.WriteString(mdCode(p.S))
		} else {
			b.WriteString(mdText(p.S))
		}
	}
	return b.String()
}

// WriteDiffText writes a count line, as a heading, then the changes one
// a line (no line a CI runner reads as a workflow command: escape.Lines):
// "2 changes to policies.yaml can let more through the gate than
// policies.yaml@abc1234:".
func WriteDiffText(w io.Writer, changes []Change, baseName, headName string) error {
	var b strings.Builder
	b.WriteString(countWords(changes, escape.String(baseName), escape.String(headName)) + "\n")
	for _, c := range changes {
		b.WriteString(c.Text() + "\n")
	}
	_, err := io.WriteString(w, escape.Lines(b.String())) // a file named ::error... starts a line
	return err
}

// Caps of the job summary's "Policy changes" section, so that a pull
// request's policy of a million waivers (or one 400 KB reason) cannot
// push the job summary past the 1 MiB GitHub shows: at most
// MaxDiffItems list items, each value of a change cut at MaxDiffValue
// bytes, the section at most MaxDiffBytes; what is cut is said, and the
// text form (policy-diff without --format) lists everything.
const (
	MaxDiffItems = 100
	MaxDiffValue = 256
	MaxDiffBytes = 64 << 10
)

// WriteDiffMarkdown writes a "### Policy changes" section for a job
// summary: the count, then one list item per change, within the caps
// above (a last item says how many changes are left out). Everything
// read from a policy, and the names, is escaped for Markdown.
func WriteDiffMarkdown(w io.Writer, changes []Change, baseName, headName string) error {
	var b strings.Builder
	b.WriteString("### Policy changes\n\n")
	b.WriteString(countWords(changes, mdCode(cutValue(baseName)), mdCode(cutValue(headName))))
	b.WriteString("\n")
	if len(changes) > 0 {
		b.WriteString("\n")
	}
	for i, c := range changes {
		item := cutChange(c).Markdown() + "\n"
		if i == MaxDiffItems || b.Len()+len(item) > MaxDiffBytes {
			fmt.Fprintf(&b, "- ... and %d more changes, left out to keep the job summary small: run kpack-lint policy-diff on the two policies for all of them\n", len(changes)-i)
			break
		}
		b.WriteString(item)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cutChange is c with its source and every part cut at MaxDiffValue bytes.
func cutChange(c Change) Change {
	c.Source = cutValue(c.Source)
	parts := make([]Part, len(c.Parts))
	for i, p := range c.Parts {
		parts[i] = Part{S: cutValue(p.S), Data: p.Data}
	}
	c.Parts = parts
	return c
}

// cutValue is s cut at MaxDiffValue bytes (at a character), "..." added.
func cutValue(s string) string {
	if len(s) <= MaxDiffValue {
		return s
	}
	cut := MaxDiffValue
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// countWords says how many changes there are; base and head are the
// names as already escaped for the output.
func countWords(changes []Change, base, head string) string {
	switch len(changes) {
	case 0:
		return fmt.Sprintf("No change to %s lets more through the gate than %s.", head, base)
	case 1:
		return fmt.Sprintf("1 change to %s can let more through the gate than %s:", head, base)
	}
	return fmt.Sprintf("%d changes to %s can let more through the gate than %s:", len(changes), head, base)
}

// mdText escapes s for Markdown text: every ASCII punctuation character
// gets a backslash (CommonMark lets any of them be escaped), so no
// emphasis, link, HTML tag, entity, autolink or table cell can start;
// control characters and line breaks are escaped first (escape.String).
func mdText(s string) string {
	s = escape.String(s)
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode puts s in a code span: no backtick (shown as '), no line break
// (escape.String); nothing in a code span is markup. An empty s is
// "(empty)".
func mdCode(s string) string {
	if s == "" {
		return "(empty)"
	}
	return "`" + strings.ReplaceAll(escape.String(s), "`", "'") + "`"
}
