package finding

import (
	"errors"

	"github.com/rocm-tools/kpack-lint/internal/util/errs"
)

// Loader names the candidate policy of kpack_load_code_object a run judges
// by: the policy's loader:, check and explain --loader, Finding.Loader,
// the report's loader. Both loaders are always simulated.
type Loader string

const (
	// Legacy takes the first candidate only and returns its error on a miss
	// (rocm-kpack up to the ROCM-31644 fix, ROCm <= 7.14 wheels).
	Legacy Loader = "legacy"
	// Fallthrough tries every candidate in order, remembering the last
	// error (rocm-systems #9953 and the ROCM-31644 follow-up).
	Fallthrough Loader = "fallthrough"
)

// Loaders lists the loader names, the default first.
func Loaders() []string { return []string{string(Fallthrough), string(Legacy)} }

// errLoader is what is wrong with a loader name that is none.
var errLoader = errors.New("want fallthrough or legacy")

// ParseLoader reads a loader name; "" is the default, Fallthrough. Another
// name is an *errs.OptionError for option "loader".
func ParseLoader(s string) (Loader, error) {
	switch Loader(s) {
	case "", Fallthrough:
		return Fallthrough, nil
	case Legacy:
		return Legacy, nil
	}
	return "", &errs.OptionError{Option: "loader", Value: s, Err: errLoader}
}
