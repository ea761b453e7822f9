// Command kpack-lint checks ROCm kpack packaging: it simulates the kpack
// loader for every kernel x agent of a build and reports what would fail on
// hardware. See README.md.
package main

import (
	"os"

	"github.com/rocm-tools/kpack-lint/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args, os.Stdout, os.Stderr, os.Exit))
}
