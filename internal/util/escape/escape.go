// Package escape makes strings read from inputs and policies safe to show:
// the one function every writer (text and JSON/SARIF reports, explain,
// one-line errors and notes on stderr, progress lines) passes such strings
// through, so that no file name, search path, policy key or kernel name
// can drive a terminal (ESC sequences, carriage returns), split a line, or
// reorder what a reader sees (Unicode bidi controls, "Trojan Source").
package escape

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// String returns s with every character that could act on a terminal or on
// the reading order replaced by a visible escape:
//   - C0 controls (including tab, newline, carriage return, ESC), DEL and C1
//     controls (U+0080-U+009F) become \xNN;
//   - bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069)
//     become \uNNNN;
//   - bytes that are not UTF-8 become \xNN.
//
// Other text, including printable non-ASCII, is kept. s is returned
// unchanged (no allocation) when nothing needs escaping.
func String(s string) string {
	if !needs(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case isControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case isBidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needs(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // ASCII: only C0 and DEL need escaping
			if c < 0x20 || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || isControl(r) || isBidi(r) {
			return true
		}
		i += n
	}
	return false
}

// isControl reports C0, DEL and C1 controls.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// isBidi reports the Unicode bidirectional formatting characters.
func isBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
