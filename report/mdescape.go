package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// How the Markdown summary shows strings read from inputs, policies and
// reports: as text that renders as written and makes no markup. The rules
// follow CommonMark 0.31.2 and GitHub Flavored Markdown 0.29 (GitHub's
// renderer, cmark-gfm):
//
//   - prose (mdEscape): every ASCII punctuation character CommonMark or
//     GFM gives a meaning inside a line (\ ` * _ { } [ ] < > ( ) # | ! ~
//     & $) gets a backslash (CommonMark §2.4), so no emphasis, link,
//     image, raw HTML, autolink <x@y>, entity, table cell break,
//     strikethrough or math comes from it. GFM's extended autolinks need
//     more: "https://" and the other schemes are found at the ':' before
//     "//", so that ':' is escaped; "www." at the 'w', so its '.' is; an
//     e-mail address (x@y.z, also after mailto: or xmpp:) is found in the
//     text after backslash escapes are resolved (cmark-gfm
//     extensions/autolink.c postprocess_text runs on consolidated text
//     nodes, from an '@' with an address character on both sides), so
//     such an '@' is written as the code span `@`, which ends the text
//     node;
//   - names, paths and values (mdCode, mdCellCode): a code span, whose
//     content CommonMark takes literally (§6.1), opened and closed by a
//     backtick run longer than any in the string, padded with a space
//     when the string starts or ends with a backtick or a space; in a
//     table cell '|' is escaped as GFM tables require (§4.10);
//   - ready-to-run commands (mdFence): a fenced code block whose fence is
//     longer than any backtick run of the command (§4.5).
//
// Every string is passed through escape.String first (no control
// character, no newline) and, as a name or value, cut at maxMarkdownField
// bytes (the full value is in the JSON, SARIF and text reports).

// mdSpecial are the characters mdEscape backslash-escapes everywhere.
const mdSpecial = "\\`*_{}[]<>()#|!~&$"

// maxMarkdownField caps a name, path or value the summary shows, in bytes
// before escaping; a cut one ends with "…".
const maxMarkdownField = 256

// mdEscape escapes s for Markdown prose and table cells (see above).
func mdEscape(s string) string {
	s = escape.String(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '@' && i > 0 && i+1 < len(s) && isLocalPart(s[i-1]) && (isLocalPart(s[i+1]) && s[i+1] != '+' || s[i+1] == '@'):
			b.WriteString("`@`")
			continue
		case strings.IndexByte(mdSpecial, c) >= 0,
			c == ':' && strings.HasPrefix(s[i+1:], "//"),
			c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// mdCode is s as a code span in prose, cut at maxMarkdownField bytes.
func mdCode(s string) string {
	s, cut := cutField(escape.String(s), maxMarkdownField)
	return codeSpan(s) + cut
}

// mdCellCode is s as a code span in a GFM table cell: '|' escaped.
func mdCellCode(s string) string {
	s, cut := cutField(escape.String(s), maxMarkdownField)
	return strings.ReplaceAll(codeSpan(s), "|", `\|`) + cut
}

// mdCut is s cut at maxMarkdownField bytes and escaped as prose.
func mdCut(s string) string {
	s, cut := cutField(escape.String(s), maxMarkdownField)
	return mdEscape(s) + cut
}

// codeSpan wraps s (no newline) in a code span that holds it exactly.
func codeSpan(s string) string {
	if s == "" {
		return "` `"
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' || s[len(s)-1] == ' ' {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdFence writes cmd as a fenced code block of language sh, indented by
// indent (inside a list item), whose fence no backtick run of cmd closes.
func mdFence(b *strings.Builder, indent, cmd string) {
	cmd = escape.String(cmd)
	fence := strings.Repeat("`", max(3, longestRun(cmd, '`')+1))
	fmt.Fprintf(b, "%s%ssh\n%s%s\n%s%s\n", indent, fence, indent, cmd, indent, fence)
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// cutField cuts s to at most n bytes at a UTF-8 boundary; cut is "…"
// when it did, else "".
func cutField(s string, n int) (string, string) {
	if len(s) <= n {
		return s, ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], "…"
}

// mdLink is the product's own link (a rule's help page): text and uri
// are the product's, never an input's.
func mdLink(text, uri string) string {
	if uri == "" {
		return text
	}
	return "[" + text + "](" + uri + ")"
}

// isLocalPart reports the characters GFM takes into an e-mail address's
// local part (cmark-gfm extensions/autolink.c postprocess_text).
func isLocalPart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(".+-_", c) >= 0
}
