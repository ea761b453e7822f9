// Package hip models what the HIP runtime (rocm-systems projects/clr,
// hipamd/src/hip_fatbin.cpp and hip_code_object.cpp) does around the kpack
// loader: the arch_list it passes for a device, what it makes of the
// loader's result on that device, and how it picks a code object from an
// embedded clang offload bundle when a binary was not kpack-transformed
// (SPEC 4.6, 4b).
package hip

import (
	"strings"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// ArchList is Release.ArchList of the "10.0" row, whose TargetGenericMap
// (29 entries) leaves gfx1250 out: the arch_list kpack-lint has simulated
// for every agent so far, kept for the callers that do not yet take a
// release (the pipeline passes the machine's release once machines are
// integrated; Newest maps gfx1250 -> gfx12-5-generic).
//
//	gfx942:sramecc+:xnack- => [gfx942:sramecc+:xnack-, gfx9-4-generic:sramecc+:xnack-]
//	gfx90a:sramecc+:xnack- => [gfx90a:sramecc+:xnack-]
func ArchList(agent targetid.ID) []string {
	return release100.ArchList(agent)
}

// release100 is the "10.0" row.
var release100, _ = row("10.0")

// The HIP errors a user sees after a kpack load (hip_runtime_api.h names).
const (
	ErrNoBinaryForGpu = "hipErrorNoBinaryForGpu" // "invalid device function" at launch
	ErrInvalidImage   = "hipErrorInvalidImage"
	// Aborted is not a HIP error: the process dies inside the loader.
	Aborted = "process abort"
)

// Effect is what HIP does with a kpack load's result on one device.
type Effect struct {
	// Error is ErrNoBinaryForGpu, ErrInvalidImage or Aborted; "" on success.
	Error string
	// Text says it in words, for messages.
	Text string
}

// noCode is a device left without code.
var noCode = Effect{Error: ErrNoBinaryForGpu, Text: "HIP warns and leaves the device without code: a kernel launch there fails with " +
	"\"invalid device function\" (hipErrorNoBinaryForGpu)"}

// MissingCodeObject is what HIP does on a device for which an embedded fat
// binary holds no compatible code object (ExtractFatBinaryUsingCOMGR): the
// device gets no program, as after ARCH_NOT_FOUND.
func MissingCodeObject() Effect { return noCode }

// LoadEffect maps the loader's result to what the user sees, as HIP loads
// kpack code objects per device since rocm-systems PR 9167
// (ExtractKpackBinary): ARCHIVE_NOT_FOUND (13) and ARCH_NOT_FOUND (14)
// only warn and leave that device without code, so a launch there fails
// later ("invalid device function", hipErrorNoBinaryForGpu); any other
// error fails the module load on every device (hipErrorInvalidImage);
// kpack.Abort ends the process.
func LoadEffect(c kpack.Code) Effect {
	switch c {
	case kpack.Success:
		return Effect{}
	case kpack.ArchiveNotFound, kpack.ArchNotFound:
		return noCode
	case kpack.Abort:
		return Effect{Error: Aborted, Text: "the process aborts inside the loader (an uncaught C++ exception)"}
	}
	return invalidImage
}

// invalidImage is a module load that fails on every device.
var invalidImage = Effect{Error: ErrInvalidImage, Text: "HIP fails the module load on every device with hipErrorInvalidImage"}

// UnreadableFatBinary is what HIP does with an embedded fat binary whose
// offload bundle does not read (ExtractFatBinaryUsingCOMGR: "The code
// object has invalid header"): the module load fails on every device.
func UnreadableFatBinary() Effect { return invalidImage }

// BundleEntryPrefix starts the ID of a HIP device code object in a clang
// offload bundle: "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-".
const BundleEntryPrefix = "hipv4-" + targetid.TriplePrefix

// maxTargetIDLen bounds the target ID of a bundle entry: the longest real
// one ("gfx10-1-generic:xnack+", "gfx9-4-generic:sramecc+:xnack+") is far
// shorter; longer IDs are not parsed.
const maxTargetIDLen = 64

// EntryTarget returns the target ID of an offload-bundle entry ID, and
// false for entries that are not HIP device code for one target (the host
// entry "host-x86_64-unknown-linux-gnu-", SPIR-V, other offload kinds) or
// whose target does not parse.
func EntryTarget(entryID string) (targetid.ID, bool) {
	rest, ok := strings.CutPrefix(entryID, BundleEntryPrefix)
	if !ok || len(rest) > maxTargetIDLen {
		return targetid.ID{}, false
	}
	id, err := targetid.Parse(rest)
	return id, err == nil
}

// SPIR-V bundle entry IDs: HIP also looks these up for every device and
// compiles the SPIR-V for it at load time (clr hip_fatbin.cpp; LLVM PR
// 139112 keeps the IDs loadable).
var spirvEntries = []string{"hipv4-spirv64-amd-amdhsa--amdgcnspirv", "hipv4-spirv64-amd-amdhsa-unknown-amdgcnspirv"}

// IsSPIRVEntry reports whether a bundle entry holds AMDGCN-flavoured
// SPIR-V, which HIP compiles for any device.
func IsSPIRVEntry(entryID string) bool {
	for _, s := range spirvEntries {
		if entryID == s {
			return true
		}
	}
	return false
}

// SelectEntry returns the index of the bundle entry HIP loads on a device
// reporting agent: the first HIP entry whose target is compatible with the
// agent (comgr's code-object lookup, isCompatibleIsaName), else one built
// for a generic target covering it in LLVM's table, else SPIR-V
// (IsSPIRVEntry), which HIP compiles for the device. ok is false when no
// entry fits: HIP leaves the device without code. It is what the pipeline
// has used so far; Release.SelectEntry is the per-release lookup, which
// takes a generic entry only through the release's TargetGenericMap (so
// newest differs for gfx1251 alone, which HIP's map lacks).
func SelectEntry(entryIDs []string, agent targetid.ID) (int, bool) {
	generic, spirv := -1, -1
	for i, e := range entryIDs {
		id, ok := EntryTarget(e)
		switch {
		case !ok:
			if spirv < 0 && IsSPIRVEntry(e) {
				spirv = i
			}
		case targetid.Compatible(id, agent):
			return i, true
		case generic < 0 && targetid.CompatibleOrGeneric(id, agent):
			generic = i
		}
	}
	if generic >= 0 {
		return generic, true
	}
	return spirv, spirv >= 0
}
