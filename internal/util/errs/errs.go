// Package errs holds the kinds of error a kpack-lint run can end with and
// the structured error for a bad option value. Libraries return these (or
// wrap them with %w); the command line maps a kind to an exit code in one
// place and words an OptionError with the name of its flag, so no library
// message names a command-line flag.
package errs

import (
	"errors"
	"fmt"
	"strconv"
)

// Kind says what went wrong with a run.
type Kind int

const (
	// Internal is a failure of kpack-lint or of its environment, such as a
	// report that cannot be written. It is the kind of an error with none.
	Internal Kind = iota
	// Usage is a request that cannot be carried out: a bad argument or
	// option value, a policy that does not fit the build.
	Usage
	// Input is an input, policy, baseline or report that cannot be read.
	Input
)

// Error is an error of a Kind. Its text is the wrapped error's.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.Err }

// Usagef returns a Usage error formatted as fmt.Errorf does (%w wraps).
func Usagef(format string, args ...any) error {
	return &Error{Kind: Usage, Err: fmt.Errorf(format, args...)}
}

// AsUsage returns err as a Usage error; nil stays nil.
func AsUsage(err error) error { return as(Usage, err) }

// AsInput returns err as an Input error; nil stays nil.
func AsInput(err error) error { return as(Input, err) }

func as(k Kind, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: k, Err: err}
}

// KindOf returns the kind of err: that of the first Error in its chain,
// Usage for an OptionError, else Internal.
func KindOf(err error) Kind {
	var e *Error
	var o *OptionError
	switch {
	case errors.As(err, &e):
		return e.Kind
	case errors.As(err, &o):
		return Usage
	}
	return Internal
}

// OptionError is a value of one option of a run that cannot be used.
// Option is the option's name as a policy key and a command-line flag share
// it, without dashes ("loader", "target", "agent", "variant", "shard");
// Value is the value as given; Err says what is wrong with it. Its text
// names the option as a key (`loader "newest": want fallthrough or
// legacy`); the command line words it with its flag instead.
type OptionError struct {
	Option string
	Value  string
	Err    error
}

func (e *OptionError) Error() string {
	return e.Option + " " + strconv.Quote(e.Value) + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *OptionError) Unwrap() error { return e.Err }
