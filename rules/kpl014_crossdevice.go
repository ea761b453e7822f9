package rules

import "github.com/rocm-tools/kpack-lint/finding"

// crossDeviceFailure is KPL014: on a simulated machine, a device that has
// its own code in a module does not run it because of another device of
// the same process. Its findings take their ID from it (Run); explain
// --machine shows the per-device trace.
var crossDeviceFailure = Rule{
	Rule: finding.Rule{
		ID: "KPL014", Name: "cross-device-failure", Level: finding.LevelError,
		Title: "A device fails because of another device of the same process",
		Text: "One process loads every module for every visible device, as its HIP release does. A device whose code is in the module " +
			"gets none because another device lacks code or made the module fail (HIP before rocm-systems PR 9498 stops the fat-binary " +
			"loop at the first device without code, TheRock#5543; PR 2622 makes one kpack load for every device; PR 9167 rolls the module " +
			"back on a fatal error), or runs the code object built for another device's ISA (PR 2622 registers one code object on every " +
			"device; a launch crashes); or a library with a kernel database (rocBLAS) aborts the process on another device that lacks its " +
			"files (rocm-jax#389).",
		Help: "Build for the other device too, hide it from the process (HIP_VISIBLE_DEVICES), run one GPU type per process, or use a " +
			"HIP release that loads per device (--hip newest: PRs 9167, 9498). `kpack-lint explain --machine NAME KEY INPUT` shows what each device gets.",
	},
	Checks: []Check{checkCrossDevice, checkMachineDatabaseAborts},
}
