package hip

// What a kernel launch makes of a module that failed, per release: the
// launch asks StatCO for the device's function (getStatFunc, GetFunc),
// which digests the module or finds it failed, and ihipLaunchKernel
// (hipamd/src/hip_platform.cpp) turns that error into what the launch
// returns. hipGetFuncBySymbol (hipamd/src/hip_module.cpp), which libraries
// that look their kernels up before launching them call (RCCL's
// enqueue.cc, XLA), turns every error into hipErrorInvalidDeviceFunction,
// "invalid device function": what users of those libraries report.

// LaunchRule is how a release's ihipLaunchKernel treats an error of the
// function lookup (GetFunc): which errors it returns as they are, and what
// it does with the others.
type LaunchRule int

// The launch rules, oldest first.
const (
	// LaunchAllDeviceFunction: every error is returned as
	// hipErrorInvalidDeviceFunction (hipamd src/hip_platform.cpp:659-661
	// @rocm-5.2.3).
	LaunchAllDeviceFunction LaunchRule = iota
	// LaunchKeepSharedObject: hipErrorSharedObjectInitFailed is returned
	// as it is, every other error as hipErrorInvalidDeviceFunction
	// (hipamd src/hip_platform.cpp:616-622@rocm-5.4.0, :560-566@rocm-5.6.0;
	// clr hipamd/src/hip_platform.cpp:568-574@rocm-5.7.0 and @rocm-6.0.0).
	LaunchKeepSharedObject
	// LaunchKeepNoBinary: hipErrorNoBinaryForGpu is returned as it is,
	// every other error as hipErrorInvalidDeviceFunction (clr
	// hipamd/src/hip_platform.cpp:599-605@rocm-6.1.0, :611-617@rocm-6.2.0
	// and @release/rocm-rel-6.3.0.1).
	LaunchKeepNoBinary
	// LaunchCast: any error makes ihipLaunchKernel take the host pointer
	// for a hipFunction_t, and the launch crashes (rocm-systems#2805,
	// ROCm 7.1.1 and 7.2.0).
	LaunchCast
	// LaunchKeepThree: hipErrorInvalidKernelFile,
	// hipErrorInvalidDeviceFunction and hipErrorInvalidImage are returned
	// as they are, any other error casts the host pointer (a crash): the
	// code rocm-systems PR 8501's description (2026-07-13) and PR 10150's
	// diff (2026-08-13) show on develop.
	LaunchKeepThree
	// LaunchKeepAll: every error but hipErrorInvalidSymbol is returned as
	// it is (rocm-systems PRs 10150 and 8501).
	LaunchKeepAll
)

// String words the rule for the docs and explain.
func (l LaunchRule) String() string {
	switch l {
	case LaunchAllDeviceFunction:
		return "every lookup error is returned as hipErrorInvalidDeviceFunction"
	case LaunchKeepSharedObject:
		return "hipErrorSharedObjectInitFailed is returned as it is, every other error as hipErrorInvalidDeviceFunction"
	case LaunchKeepNoBinary:
		return "hipErrorNoBinaryForGpu is returned as it is, every other error as hipErrorInvalidDeviceFunction"
	case LaunchCast:
		return "any lookup error makes the launch treat the host pointer as a function: it crashes"
	case LaunchKeepThree:
		return "hipErrorInvalidKernelFile, hipErrorInvalidDeviceFunction and hipErrorInvalidImage are returned as they are; other errors crash the launch"
	}
	return "every lookup error but hipErrorInvalidSymbol is returned as it is"
}

// ErrSharedObjectInitFailed is the 5.x launch's pass-through error.
const ErrSharedObjectInitFailed = "hipErrorSharedObjectInitFailed"

// errorStrings are what hipGetErrorString prints for the errors the
// release table uses (clr hipamd/src/hip_error.cpp:242-326@rocm-6.2.0,
// ihipGetErrorString): the words users paste into bug reports.
var errorStrings = map[string]string{
	ErrInvalidDeviceFunction:  "invalid device function",
	ErrInvalidImage:           "device kernel image is invalid",
	ErrNoBinaryForGpu:         "no kernel image is available for execution on the device",
	ErrInvalidKernelFile:      "invalid kernel file",
	ErrSharedObjectInitFailed: "shared object initialization failed",
	ErrNotSupported:           "operation not supported",
}

// ErrorString returns what hipGetErrorString prints for a HIP error name
// ("device kernel image is invalid" for hipErrorInvalidImage), "" for a
// name the table does not use.
func ErrorString(name string) string { return errorStrings[name] }

// withLookup sets, in every symptom of a release with hipGetFuncBySymbol
// (FuncBySymbol), what that lookup returns on the device: every failure
// of the module or of the device's code is hipErrorInvalidDeviceFunction
// (clr hipamd/src/hip_module.cpp:655-662@rocm-6.2.0, :664-671
// @release/rocm-rel-6.3.0.1; the same in 2026's hip_module.cpp). A
// symptom of a device that runs, or of a process that aborts, is left
// alone.
func withLookup(r *Release) {
	if !r.FuncBySymbol.Value {
		return
	}
	for _, c := range []*Cell[Symptom]{&r.KpackUnsupported, &r.KpackFailed, &r.KpackNoCode, &r.KpackNoneLoaded,
		&r.KpackForeign, &r.KpackRejected, &r.FatFailed, &r.FatNoCode} {
		s := c.Value
		if s == (Symptom{}) || s.Registration == Aborted || s.Launch == Aborted {
			continue
		}
		c.Value.Lookup = ErrInvalidDeviceFunction
	}
}

func init() {
	for i := range releases {
		withLookup(&releases[i])
	}
}
