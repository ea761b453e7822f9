// Package targetid parses and compares LLVM AMDGPU target IDs
// ("gfx942:sramecc+:xnack-") and holds the AMDGPU processor table.
//
// The rules come from LLVM's AMDGPUUsage ("Target ID", "AMDGPU Processors",
// "AMDGPU ELF Header e_flags"), clang's TargetID.cpp (isCompatibleTargetID),
// the HSA runtime (ROCr Isa::IsCompatible) and rocm-kpack's loader (the order
// in which it tries compatible targets). See SPEC.md sections 3, 4.4 and 6.
//
// Everything here is pure: no I/O, no globals that change, and no panics on
// any input.
package targetid

import (
	"fmt"
	"strings"
)

// Feature names that may appear in a target ID (LLVM AMDGPUUsage "Target
// Features"). LLVM's canonical order is alphabetical: sramecc before xnack.
const (
	Sramecc = "sramecc"
	Xnack   = "xnack"
)

// TriplePrefix is the HSA triple an ISA name may carry in front of the target
// ID ("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"). Parse strips it, as the
// HSA runtime and rocm-kpack do.
const TriplePrefix = "amdgcn-amd-amdhsa--"

// canonicalFeatures lists the known features in LLVM's canonical order.
var canonicalFeatures = [...]string{Sramecc, Xnack}

// Feature is one explicit feature setting of a target ID: "xnack+" is
// {Name: "xnack", Enabled: true}, "sramecc-" is {Name: "sramecc"}. A feature
// absent from a target ID means "any" (LLVM AMDGPUUsage "Target ID").
type Feature struct {
	Name    string
	Enabled bool
}

// String returns the feature as written in a target ID: "xnack+" or "xnack-".
func (f Feature) String() string {
	if f.Enabled {
		return f.Name + "+"
	}
	return f.Name + "-"
}

// ID is a parsed target ID: a processor name ("gfx942", "gfx9-4-generic")
// and its explicit feature settings, kept in the order they were written.
// The zero ID has no processor and is not valid.
type ID struct {
	Processor string
	Features  []Feature
}

// Error is the error Parse returns. Input is the string handed to Parse
// (triple prefix included); Msg says what is wrong with it. Its message
// reads `invalid target ID "gfx1100:xnack+": processor gfx1100 does not
// support xnack`, the wording clang uses for the same mistakes.
type Error struct {
	Input string
	Msg   string
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("invalid target ID %q: %s", e.Input, e.Msg)
}

// Parse parses "[amdgcn-amd-amdhsa--]<processor>(:<feature>(+|-))*" into an
// ID, stripping the triple prefix. Features keep their written order (they
// need not be canonical; see IsCanonical).
//
// It returns a *Error when the input is empty, the processor is not in the
// processor table (names are case-sensitive, as in LLVM; a TheRock target
// family such as gfx94X-dcgpu is not one, and the message says so: see
// ExpandTarget where a family may stand for its processors), a feature is empty,
// lacks its trailing + or -, is not sramecc or xnack, is not supported by the
// processor (e.g. gfx1100:xnack+, gfx900:sramecc+), or is repeated
// (gfx908:xnack+:xnack+). These are the cases clang rejects as "invalid
// target ID" (clang/lib/Basic/TargetID.cpp, AMDGPUUsage "Target ID").
func Parse(s string) (ID, error) {
	body := strings.TrimPrefix(s, TriplePrefix)
	if body == "" {
		return ID{}, &Error{Input: s, Msg: "empty target ID"}
	}
	parts := strings.Split(body, ":")
	proc, ok := LookupProcessor(parts[0])
	if !ok {
		if f, fam := LookupFamily(parts[0]); fam {
			return ID{}, &Error{Input: s, Msg: familyMsg(f)}
		}
		return ID{}, &Error{Input: s, Msg: fmt.Sprintf("unknown processor %q", parts[0])}
	}
	id := ID{Processor: proc.Name}
	for _, part := range parts[1:] {
		f, msg := parseFeature(part, proc, id.Features)
		if msg != "" {
			return ID{}, &Error{Input: s, Msg: msg}
		}
		id.Features = append(id.Features, f)
	}
	return id, nil
}

// MustParse is Parse for target IDs known to be valid (constants, tests);
// it panics on an invalid one.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return id
}

// parseFeature parses one "<name>(+|-)" element for processor p, given the
// features already seen. It returns a non-empty message on error.
func parseFeature(part string, p Processor, seen []Feature) (Feature, string) {
	if part == "" {
		return Feature{}, "empty feature"
	}
	sign := part[len(part)-1]
	if sign != '+' && sign != '-' {
		return Feature{}, fmt.Sprintf("feature %q must end in + or -", part)
	}
	f := Feature{Name: part[:len(part)-1], Enabled: sign == '+'}
	if !isKnownFeature(f.Name) {
		return Feature{}, fmt.Sprintf("unknown feature %q", f.Name)
	}
	if !p.Supports(f.Name) {
		return Feature{}, fmt.Sprintf("processor %s does not support %s", p.Name, f.Name)
	}
	for _, prev := range seen {
		if prev.Name == f.Name {
			return Feature{}, fmt.Sprintf("feature %s is repeated", f.Name)
		}
	}
	return f, ""
}

// isKnownFeature reports whether name is sramecc or xnack.
func isKnownFeature(name string) bool {
	for _, k := range canonicalFeatures {
		if k == name {
			return true
		}
	}
	return false
}

// String returns the target ID with its features in written order and no
// triple prefix: "gfx90a:xnack-", "gfx942:xnack-:sramecc+".
func (id ID) String() string {
	return format(id.Processor, id.Features)
}

// Canonical returns the target ID with its features in LLVM's canonical
// order (sramecc before xnack, then any other names alphabetically), as
// clang's getCanonicalTargetID prints it: "gfx942:sramecc+:xnack-".
func (id ID) Canonical() string {
	return format(id.Processor, id.canonicalFeatures())
}

// IsCanonical reports whether id's features are already written in
// canonical order, i.e. String() == Canonical().
func (id ID) IsCanonical() bool {
	return id.String() == id.Canonical()
}

// Setting reports the value of feature name: specified is false when id does
// not name the feature (LLVM's "any"); enabled is then false too.
func (id ID) Setting(name string) (enabled, specified bool) {
	for _, f := range id.Features {
		if f.Name == name {
			return f.Enabled, true
		}
	}
	return false, false
}

// Equal reports whether id and other name the same processor with the same
// feature settings, ignoring the order the features were written in.
func (id ID) Equal(other ID) bool {
	return id.Canonical() == other.Canonical()
}

// canonicalFeatures returns a sorted copy of id.Features: known features in
// canonical order first, then unknown names in byte order.
func (id ID) canonicalFeatures() []Feature {
	out := make([]Feature, 0, len(id.Features))
	for _, name := range canonicalFeatures {
		for _, f := range id.Features {
			if f.Name == name {
				out = append(out, f)
			}
		}
	}
	var rest []Feature
	for _, f := range id.Features {
		if !isKnownFeature(f.Name) {
			rest = insertSorted(rest, f)
		}
	}
	return append(out, rest...)
}

// insertSorted inserts f into fs, keeping fs sorted by name (stable).
func insertSorted(fs []Feature, f Feature) []Feature {
	i := len(fs)
	for i > 0 && fs[i-1].Name > f.Name {
		i--
	}
	fs = append(fs, Feature{})
	copy(fs[i+1:], fs[i:])
	fs[i] = f
	return fs
}

// format joins a processor and features as "proc:f1±:f2±".
func format(proc string, fs []Feature) string {
	var b strings.Builder
	b.WriteString(proc)
	for _, f := range fs {
		b.WriteByte(':')
		b.WriteString(f.String())
	}
	return b.String()
}
