package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/rules"
)

// WriteText writes r for people, one block per finding in the style of
// golangci-lint:
//
//	.kpack/fft_test_gfx950:xnack+.kpack: error KPL003 kernel-not-found: <message>
//	  kernels: bin/rocfft-test#0-2
//	  agents: gfx950:sramecc+:xnack+
//
// followed by indented group, loader, kpack error, library, effect, missing
// files, related files and trace lines when present, and a final summary line ("3 findings: 2 errors,
// 1 warning, 0 notes" or "no findings"). With several inputs the path is
// followed by "(input N)", N counting from 1.
func WriteText(w io.Writer, r Run) error {
	entries, c, err := prepare(r)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, e := range entries {
		writeTextEntry(&b, e, len(r.Inputs))
	}
	b.WriteString(summaryLine(c))
	b.WriteByte('\n')
	_, err = io.WriteString(w, b.String())
	return err
}

func writeTextEntry(b *strings.Builder, e entry, nInputs int) {
	f := e.f
	fmt.Fprintf(b, "%s: %s %s %s: %s\n", clean(textPath(f.Location, nInputs)), e.level, f.RuleID, e.rule.Name, clean(f.Message))
	detail := func(key, value string) {
		if value != "" {
			fmt.Fprintf(b, "  %s: %s\n", key, clean(value))
		}
	}
	detail("kernels", rules.CompactKernels(f.Kernels))
	detail("agents", strings.Join(f.Agents, " "))
	detail("group", f.Group)
	detail("loader", f.Loader)
	detail("kpack error", f.KpackError)
	detail("hip", f.HIPError)
	detail("library", f.Library)
	detail("effect", f.Effect)
	for _, m := range f.Missing {
		detail("missing", m)
	}
	for _, rel := range f.Related {
		detail("related", textPath(rel, nInputs))
	}
	if len(f.Trace) > 0 {
		b.WriteString("  trace:\n")
		for _, line := range f.Trace {
			fmt.Fprintf(b, "    %s\n", clean(line))
		}
	}
}

// textPath names a file for the text format: its path inside its input,
// with a byte range when one applies and the input number when there are
// several inputs.
func textPath(l rules.Location, nInputs int) string {
	s := l.Path
	if l.Region != nil {
		s += fmt.Sprintf("[%d+%d]", l.Region.Offset, l.Region.Length)
	}
	if l.Input == rules.PolicyInput {
		s += " (policy)"
	} else if nInputs > 1 {
		s += fmt.Sprintf(" (input %d)", l.Input+1)
	}
	return s
}

// summaryLine is e.g. "3 findings: 2 errors, 1 warning, 0 notes".
func summaryLine(c counts) string {
	if c.total() == 0 {
		return "no findings"
	}
	return fmt.Sprintf("%s: %s, %s, %s", plural(c.total(), "finding"),
		plural(c.Error, "error"), plural(c.Warning, "warning"), plural(c.Note, "note"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// clean escapes control characters (ESC, NUL, newlines, DEL) that names
// read from an input could carry, so the text report never drives the
// terminal or splits a line: each becomes \xNN.
func clean(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }
