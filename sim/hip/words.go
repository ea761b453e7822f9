package hip

import (
	"strings"
	"sync"
	"sync/atomic"
)

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
// differ), then what hipGetFuncBySymbol gives where it differs from the
// launch; each error is named once with the words hipGetErrorString
// prints for it, which are what users search for:
//
//	{InvalidImage, InvalidImage, InvalidKernelFile, InvalidDeviceFunction}: "the module load fails with
//	    hipErrorInvalidImage ("device kernel image is invalid"), and the first kernel launch returns
//	    hipErrorInvalidImage, later ones hipErrorInvalidKernelFile ("invalid kernel file"); libraries that
//	    look kernels up with hipGetFuncBySymbol (RCCL, XLA) get hipErrorInvalidDeviceFunction ("invalid
//	    device function")"
//	{"", InvalidKernelFile}: "the module loads, but a kernel launch on the device returns
//	    hipErrorInvalidKernelFile ("invalid kernel file")"
//	{Aborted, Aborted}: "the process aborts"
func (s Symptom) Text() string {
	if t, ok := texts.Load(s); ok {
		return t.(string)
	}
	t := s.text()
	if textsKept.Add(1) <= maxTexts {
		texts.Store(s, t)
	}
	return t
}

// texts caches Text per symptom: the release table has a few dozen, and
// every machine finding words one or two.
var (
	texts     sync.Map
	textsKept atomic.Int64
)

// maxTexts bounds the cache (symptoms made outside the table included).
const maxTexts = 1024

// text is Text, uncached.
func (s Symptom) text() string {
	if s.Registration == Aborted {
		return "the process aborts"
	}
	w := &errWords{}
	var load string
	switch s.Registration {
	case "":
		if s.Launch == "" {
			return "the module loads and its kernels run"
		}
		return "the module loads, but " + launchText(s, "a kernel launch on the device", w) + lookupText(s, w)
	case NotRegistered:
		load = "HIP does not register the module (\"Cannot Register fat binary\", a null module)"
	default:
		load = "the module load fails with " + w.name(s.Registration)
	}
	if s.Launch == "" {
		return load + lookupText(s, w)
	}
	return load + ", and " + launchText(s, "a kernel launch", w) + lookupText(s, w)
}

// errWords names errors in a text: the first mention of an error with the
// words HIP prints for it, later ones by name alone.
type errWords struct{ said []string }

// name is e, with its hipGetErrorString words the first time.
func (w *errWords) name(e string) string {
	for _, d := range w.said {
		if d == e {
			return e
		}
	}
	w.said = append(w.said, e)
	if str := ErrorString(e); str != "" {
		return e + " (\"" + str + "\")"
	}
	return e
}

// lookupText words what hipGetFuncBySymbol gives when it differs from
// the launch, "" otherwise.
func lookupText(s Symptom, w *errWords) string {
	if s.Lookup == "" || s.Lookup == s.Launch && s.Then == "" {
		return ""
	}
	return "; libraries that look kernels up with hipGetFuncBySymbol (RCCL, XLA) get " + w.name(s.Lookup)
}

// launchText words s's launch, its subject a launch ("a kernel launch"):
// the first and later launches when they differ.
func launchText(s Symptom, subject string, w *errWords) string {
	if s.Then != "" {
		return "the first kernel launch " + launchVerb(s.Launch, w) + ", later ones " + launchObject(s.Then, w)
	}
	return subject + " " + launchVerb(s.Launch, w)
}

// launchVerb words what a launch gives: "returns hipErrorX", "crashes
// (...)", "aborts the process".
func launchVerb(l string, w *errWords) string {
	switch l {
	case Crash:
		return "crashes (a segmentation fault; an access violation, 0xC0000005, on Windows)"
	case Aborted:
		return "aborts the process"
	}
	return "returns " + launchObject(l, w)
}

// launchObject names what a launch gives.
func launchObject(l string, w *errWords) string {
	if l == Crash {
		return "crash"
	}
	return w.name(l)
}
