package hip

import "github.com/rocm-tools/kpack-lint/targetid"

// Why HIP picks (or finds no) bundle entry for a device (Release.SelectEntry's
// order): a native entry (its target compatible with the agent ISA), one
// for a generic target covering the agent, SPIR-V (compiled for any
// device), or none.
const (
	PickNative  = "native"
	PickGeneric = "generic"
	PickSPIRV   = "SPIR-V"
	PickNone    = "none"
)

// EntryPick is r.SelectEntry with the reason for its pick: the entry
// index (-1 for none) and PickNative, PickGeneric, PickSPIRV or PickNone.
func (r Release) EntryPick(entryIDs []string, agent targetid.ID) (int, string) {
	i, ok := r.SelectEntry(entryIDs, agent)
	if !ok {
		return -1, PickNone
	}
	id, isTarget := EntryTarget(entryIDs[i])
	switch {
	case !isTarget:
		return i, PickSPIRV
	case targetid.Compatible(id, agent):
		return i, PickNative
	}
	return i, PickGeneric
}
