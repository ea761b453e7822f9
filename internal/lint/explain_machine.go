package lint

import (
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/sim/hip"
)

// explainMachines is explain --machine (not yet).
func explainMachines(cfg *Config, b *model.Build, objs *fetched, rel hip.Release) error {
	return errs.Usagef("explain --machine: not yet")
}
