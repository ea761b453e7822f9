package sim

import (
	"strconv"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/model"
)

// EmbeddedName is how findings name an embedded wrapper of a binary:
// "<path>[embedded]#<wrapper index>".
func EmbeddedName(bin *model.Binary, bd hostbin.Bundle) string {
	return bin.Path + finding.EmbeddedMark + strconv.Itoa(bd.Wrapper)
}
