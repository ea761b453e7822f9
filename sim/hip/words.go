package hip

import "strings"

// Error is the one error name that stands for s in reports (a finding's
// hipError): the launch's when it is a HIP error, else the module load's
// when that is one, else the launch's or the module load's word (Crash,
// Aborted, NotRegistered); "" when the device runs its code.
func (s Symptom) Error() string {
	switch {
	case isHIPError(s.Launch):
		return s.Launch
	case isHIPError(s.Registration):
		return s.Registration
	case s.Launch != "":
		return s.Launch
	}
	return s.Registration
}

// isHIPError reports whether s is a hip_runtime_api.h error name.
func isHIPError(s string) bool { return strings.HasPrefix(s, "hipError") }

// Text says s in words, for messages: what the module load does, then
// what a kernel launch on the device gives (and later launches, when they
// differ):
//
//	{InvalidImage, InvalidImage, InvalidKernelFile}: "the module load fails with hipErrorInvalidImage,
//	    and the first kernel launch returns hipErrorInvalidImage, later ones hipErrorInvalidKernelFile"
//	{"", InvalidKernelFile}: "the module loads, but a kernel launch on the device returns hipErrorInvalidKernelFile"
//	{Aborted, Aborted}: "the process aborts"
func (s Symptom) Text() string {
	if s.Registration == Aborted {
		return "the process aborts"
	}
	var load string
	switch s.Registration {
	case "":
		if s.Launch == "" {
			return "the module loads and its kernels run"
		}
		return "the module loads, but " + launchText(s, "a kernel launch on the device")
	case NotRegistered:
		load = "HIP does not register the module (\"Cannot Register fat binary\", a null module)"
	default:
		load = "the module load fails with " + s.Registration
	}
	if s.Launch == "" {
		return load
	}
	return load + ", and " + launchText(s, "a kernel launch")
}

// launchText words s's launch, its subject a launch ("a kernel launch"):
// the first and later launches when they differ.
func launchText(s Symptom, subject string) string {
	if s.Then != "" {
		return "the first kernel launch " + launchVerb(s.Launch) + ", later ones " + launchObject(s.Then)
	}
	return subject + " " + launchVerb(s.Launch)
}

// launchVerb words what a launch gives: "returns hipErrorX", "crashes
// (...)", "aborts the process".
func launchVerb(l string) string {
	switch l {
	case Crash:
		return "crashes (a segmentation fault; an access violation, 0xC0000005, on Windows)"
	case Aborted:
		return "aborts the process"
	}
	return "returns " + launchObject(l)
}

// launchObject names an error, with the text HIP prints for 98.
func launchObject(l string) string {
	switch l {
	case ErrInvalidDeviceFunction:
		return l + " (\"invalid device function\")"
	case Crash:
		return "crash"
	}
	return l
}
