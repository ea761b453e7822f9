package escape

import (
	"bytes"
	"io"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Lines returns s with nothing a CI runner reads as a workflow command:
//
//   - a line whose first characters after leading white space are "::"
//     (GitHub Actions' command syntax, ::error ..., ::add-mask::...) gets
//     its second ':' written as \x3a, so it starts ":\x3a";
//   - "##[" anywhere (the runner's older ##[command] syntax, which it
//     finds anywhere in a line) gets its '[' written as \x5b, and so does
//     "##vso[" (any case), Azure Pipelines' logging commands, which its
//     agent also finds anywhere in a line.
//
// The runner trims the Unicode white space .NET's String.TrimStart
// trims (Go's unicode.IsSpace: the same White_Space set) before it
// looks for "::", and ends lines at '\n' and '\r'; so does Lines.
// actions/runner src/Runner.Common/ActionCommand.cs TryParseV2
// (message.TrimStart(), StartsWith("::")) and TryParse
// (message.IndexOf("##[")); src/Runner.Worker/ActionCommandManager.cs
// TryProcessCommand tries both.
//
// Every writer of text for people (text report, explain, merge, rules,
// notes and errors on stderr) passes its output through Lines or
// NewLineWriter; only --format github writes the product's own
// commands. s is returned as it is (no allocation) when nothing changes.
func Lines(s string) string {
	var st lineState
	out, changed := st.apply(nil, unsafe.Slice(unsafe.StringData(s), len(s))) // read only: no copy of a large report
	if !changed {
		return s
	}
	return string(out)
}

// NewLineWriter returns a writer that passes what is written to w
// through the rules of Lines, line by line across Write calls (a line
// may come in several writes; nothing is held back). Each Write makes
// at most one Write to w and reports len(p) when w takes it all.
func NewLineWriter(w io.Writer) io.Writer { return &lineWriter{w: w} }

type lineWriter struct {
	w  io.Writer
	st lineState
}

func (l *lineWriter) Write(p []byte) (int, error) {
	out, changed := l.st.apply(nil, p)
	if !changed {
		out = p
	}
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the writer NewLineWriter wraps (a terminal check looks
// through it).
func (l *lineWriter) Unwrap() io.Writer { return l.w }

// lineState is where the bytes seen so far leave the current line: still
// in its leading white space (start), after that and one ':' (colon), or
// past them (body); rune holds a multi-byte character of the leading
// white space cut by the end of a Write; prev the last five bytes, for
// "##[" and "##vso[".
type lineState struct {
	at   int // start, colon or body
	rune []byte
	prev [5]byte
}

// push records byte c as the last one seen.
func (st *lineState) push(c byte) {
	st.prev = [5]byte{st.prev[1], st.prev[2], st.prev[3], st.prev[4], c}
}

// commandBracket reports whether a '[' now would open "##[" or "##vso["
// (any case).
func (st *lineState) commandBracket() bool {
	p := st.prev
	return p[3] == '#' && p[4] == '#' ||
		p[0] == '#' && p[1] == '#' && p[2]|0x20 == 'v' && p[3]|0x20 == 's' && p[4]|0x20 == 'o'
}

const (
	atStart = iota
	atColon
	atBody
)

// apply appends p, made inert, to dst; changed is false (and dst
// unused) when p needs no change. Past a line's start it skips to the
// next byte that matters ('\n', '\r' or '[') with bytes.IndexByte.
func (st *lineState) apply(dst, p []byte) ([]byte, bool) {
	changed := false
	for i := 0; i < len(p); {
		if st.at == atBody {
			j := i + bodyLen(p[i:])
			if changed {
				dst = append(dst, p[i:j]...)
			}
			if j-i >= len(st.prev) {
				copy(st.prev[:], p[j-len(st.prev):j])
			} else {
				for k := i; k < j; k++ {
					st.push(p[k])
				}
			}
			if i = j; i == len(p) {
				break
			}
		}
		c := p[i]
		rep := ""
		switch {
		case c == '\n' || c == '\r':
			st.at, st.rune = atStart, st.rune[:0]
		case c == '[' && st.commandBracket():
			rep, st.at = `\x5b`, atBody
		case st.at == atStart:
			st.start(c)
		case st.at == atColon:
			if c == ':' {
				rep = `\x3a`
			}
			st.at = atBody
		}
		st.push(c)
		switch {
		case rep != "" && !changed:
			dst, changed = append(append(dst, p[:i]...), rep...), true
		case rep != "":
			dst = append(dst, rep...)
		case changed:
			dst = append(dst, c)
		}
		i++
	}
	return dst, changed
}

// bodyLen is how many bytes of p (inside a line's body) go out as they
// are: up to the first '\n', '\r' or '['.
func bodyLen(p []byte) int {
	n := len(p)
	if j := bytes.IndexByte(p, '\n'); j >= 0 {
		n = j
	}
	if j := bytes.IndexByte(p[:n], '['); j >= 0 {
		n = j
	}
	if j := bytes.IndexByte(p[:n], '\r'); j >= 0 {
		n = j
	}
	return n
}

// start takes byte c of a line's leading white space: white space keeps
// the line there, one ':' moves it to colon, anything else to body.
func (st *lineState) start(c byte) {
	if c < utf8.RuneSelf && len(st.rune) == 0 {
		switch {
		case c == ':':
			st.at = atColon
		case !unicode.IsSpace(rune(c)):
			st.at = atBody
		}
		return
	}
	st.rune = append(st.rune, c)
	if !utf8.FullRune(st.rune) {
		return
	}
	r, _ := utf8.DecodeRune(st.rune)
	st.rune = st.rune[:0]
	if r == utf8.RuneError || !unicode.IsSpace(r) {
		st.at = atBody
	}
}
