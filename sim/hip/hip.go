// Package hip models what the HIP runtime (rocm-systems projects/clr,
// hipamd/src/hip_fatbin.cpp and hip_code_object.cpp) does around the kpack
// loader, release by release (Release, the release table): the arch_list
// it passes for a device, what it makes of the loader's result, how it
// picks a code object from an embedded clang offload bundle when a binary
// was not kpack-transformed, and what the user sees (Symptom) (SPEC 4.6,
// 4b, 4c).
package hip

import (
	"strings"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// The HIP errors a user sees after a module load (hip_runtime_api.h names).
const (
	// ErrNoBinaryForGpu is what HIP up to 6.3 logs when a device has no
	// code object in a fat binary.
	ErrNoBinaryForGpu = "hipErrorNoBinaryForGpu"
	ErrInvalidImage   = "hipErrorInvalidImage"
	// Aborted is not a HIP error: the process dies (HIP 5.x's
	// guarantee(false, ...), or inside the loader).
	Aborted = "process abort"
)

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
