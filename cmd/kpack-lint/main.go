// Command kpack-lint checks ROCm kpack packaging: it simulates the kpack
// loader for every kernel x agent of a build and reports what would fail on
// hardware. See README.md.
package main

import (
	"context"
	"os"
	"runtime/debug"

	"github.com/rocm-tools/kpack-lint/internal/cli"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// Most of the heap (TOCs, the model) is built once and kept: a
		// collection target of three times the live heap, not twice,
		// saves about a tenth of the CPU for a few MiB (docs/performance.md).
		debug.SetGCPercent(200)
	}
	os.Exit(cli.Run(context.Background(), os.Args, os.Stdout, os.Stderr))
}
