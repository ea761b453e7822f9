package policy

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Errors is every error found in one policy or waiver file, in file order
// (by line; errors of one line, or without one, as they were found). A
// file with one error gives that *Error instead. Error puts each of the
// first MaxShownErrors on its own line, then one line counting the rest.
type Errors []*Error

// MaxShownErrors bounds the errors Errors.Error writes: a policy of
// 200,000 bad target IDs is 100 lines and "... and 199900 more errors in
// FILE" (every error is still in the slice).
const MaxShownErrors = 100

func (es Errors) Error() string {
	n := min(len(es), MaxShownErrors)
	lines := make([]string, n, n+1)
	for i, e := range es[:n] {
		lines[i] = strings.ReplaceAll(e.Error(), "\n", `\n`)
	}
	if more := len(es) - n; more > 0 {
		in := ""
		if f := es[n].File; f != "" {
			in = " in " + f
		}
		lines = append(lines, fmt.Sprintf("... and %d more errors%s", more, in))
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives the errors, so errors.As finds the first *Error.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// errList collects the errors of one file.
type errList struct{ list Errors }

// add records err: an *Error, Errors, or any other error as an *Error
// without line.
func (l *errList) add(err error) {
	var e *Error
	var es Errors
	switch {
	case err == nil:
	case errors.As(err, &es):
		l.list = append(l.list, es...)
	case errors.As(err, &e):
		l.list = append(l.list, e)
	default:
		l.list = append(l.list, &Error{Msg: err.Error()})
	}
}

// err returns the collected errors, each naming file when it names
// none: nil, the one *Error, or Errors in file order.
func (l *errList) err(file string) error {
	for _, e := range l.list {
		if e.File == "" {
			e.File = file
		}
	}
	switch len(l.list) {
	case 0:
		return nil
	case 1:
		return l.list[0]
	}
	slices.SortStableFunc(l.list, func(a, b *Error) int { return a.Line - b.Line })
	return l.list
}

// syntaxError is the YAML syntax error of data at the line where the
// document stops parsing. yaml.v3 reports the line where the enclosing
// block began (an indentation slip on line 11 of a mapping begun on line
// 2 is "line 2"), so the line is found again: the first line whose
// prefix of the document fails with the same problem (a binary search
// over prefixes cut at line ends, about 20 parses of at most MaxSize
// bytes).
func syntaxError(data []byte, err error) *Error {
	msg := oneLine(err).Error()
	problem := yamlProblem(msg)
	lines := bytes.SplitAfter(data, []byte("\n"))
	fails := func(n int) bool {
		var node yaml.Node
		e := yaml.Unmarshal(bytes.Join(lines[:n], nil), &node)
		return e != nil && yamlProblem(oneLine(e).Error()) == problem
	}
	if problem == "" || !fails(len(lines)) {
		return &Error{Msg: msg}
	}
	lo, hi := 0, len(lines) // prefix lo parses (or fails otherwise), prefix hi fails with problem
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return &Error{Line: hi, Msg: "YAML: " + problem + indentHint(problem)}
}

// yamlProblem is a yaml.v3 syntax error without its "yaml: line N: "
// prefix: "did not find expected key".
func yamlProblem(msg string) string {
	rest, ok := strings.CutPrefix(msg, "yaml: line ")
	if !ok {
		return ""
	}
	_, problem, ok := strings.Cut(rest, ": ")
	if !ok {
		return ""
	}
	return problem
}

// indentHint says what the usual cause of a block-structure error is.
func indentHint(problem string) string {
	switch problem {
	case "did not find expected key", "mapping values are not allowed in this context", "did not find expected '-' indicator":
		return " (check this line's indentation against the lines above it)"
	}
	return ""
}
