package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// EmbeddedLoad is explain's answer for an embedded wrapper
// ("<binary>[embedded]#<n>", a HIPF wrapper of a binary that was not
// kpack-transformed) on one agent: the wrapper's offload bundle, its
// entries, which one HIP picks for the agent and why, and, when the
// entry was decoded, its code object's target and HIP's verdict. Its JSON
// form is explain's output for such a key.
type EmbeddedLoad struct {
	Kernel  string `json:"kernel"`
	Agent   string `json:"agent"`
	Binary  string `json:"binary"`
	Wrapper int    `json:"wrapper"`
	// BundleOffset is the bundle's file offset (-1: none); Compressed is
	// set for a CCOB bundle; BundleError says why it does not read.
	BundleOffset int64  `json:"bundle_offset"`
	Compressed   bool   `json:"compressed,omitempty"`
	BundleError  string `json:"bundle_error,omitempty"`
	// Entries are the bundle's entries in table order.
	Entries []EmbeddedEntry `json:"entries"`
	// Picked is the index of the entry HIP loads on the agent (-1: none);
	// Why says why: native, generic, SPIR-V or none (hip.PickNative ...).
	Picked int    `json:"picked"`
	Why    string `json:"why"`
	// CodeObject is the picked entry's ELF target, "none (why)" when its
	// bytes are no AMDGPU code object; HIP is hipSuccess or the HIP error
	// the agent gets, HIPEffect says it in words.
	CodeObject string `json:"code_object_target,omitempty"`
	HIP        string `json:"hip"`
	HIPEffect  string `json:"hip_effect,omitempty"`
	// Note explains more (a code object only its ELF header was decoded of).
	Note string `json:"note,omitempty"`
}

// EmbeddedEntry is one entry of an offload bundle: its ID, its target
// (for a HIP entry), how it relates to the agent (native, generic,
// SPIR-V, or "" when it does not fit), and, for a HIP entry decoded, its
// code object's target.
type EmbeddedEntry struct {
	Index      int    `json:"index"`
	ID         string `json:"id"`
	Fits       string `json:"fits,omitempty"`
	CodeObject string `json:"code_object_target,omitempty"`
}

// MarshalJSON writes an explanation of an embedded wrapper as its
// EmbeddedLoad, any other as itself.
func (ex Explanation) MarshalJSON() ([]byte, error) {
	if ex.Embedded != nil {
		return json.Marshal(ex.Embedded)
	}
	type plain Explanation
	return json.Marshal(plain(ex))
}

func writeEmbeddedText(w io.Writer, e *EmbeddedLoad) {
	fmt.Fprintf(w, "hip: load %s on agent %s: embedded device code of %s (HIPF wrapper %d, not kpack)\n", e.Kernel, e.Agent, e.Binary, e.Wrapper)
	if e.BundleError != "" {
		fmt.Fprintf(w, "hip: its offload bundle does not read: %s\n", e.BundleError)
		fmt.Fprintf(w, "hip: %s\n", e.HIPEffect)
		return
	}
	kind := "uncompressed"
	if e.Compressed {
		kind = "compressed (CCOB)"
	}
	fmt.Fprintf(w, "hip: offload bundle at offset %d, %s, %d entries\n", e.BundleOffset, kind, len(e.Entries))
	for _, en := range e.Entries {
		fits := "does not fit " + e.Agent
		if en.Fits != "" {
			fits = "fits (" + en.Fits + ")"
		}
		co := ""
		if en.CodeObject != "" {
			co = ", code object " + en.CodeObject
		}
		fmt.Fprintf(w, "hip:   entry %d %s: %s%s\n", en.Index, en.ID, fits, co)
	}
	if e.Picked < 0 {
		fmt.Fprintf(w, "hip: no entry fits %s (no native, generic or SPIR-V entry): %s\n", e.Agent, e.HIPEffect)
		return
	}
	fmt.Fprintf(w, "hip: HIP picks entry %d %s (%s)\n", e.Picked, e.Entries[e.Picked].ID, pickWords[e.Why])
	if e.CodeObject != "" {
		fmt.Fprintf(w, "hip: code object target %s, agent %s: %s\n", e.CodeObject, e.Agent, e.HIP)
		if e.HIPEffect != "" {
			fmt.Fprintf(w, "hip: %s\n", e.HIPEffect)
		}
	}
	if e.Note != "" {
		fmt.Fprintf(w, "note: %s\n", e.Note)
	}
}

// pickWords says why HIP picks an entry.
var pickWords = map[string]string{
	"native":  "native: its target is compatible with the agent",
	"generic": "generic: no native entry, and its generic target covers the agent",
	"SPIR-V":  "SPIR-V: no native or generic entry; HIP compiles it for the device at load time",
}
