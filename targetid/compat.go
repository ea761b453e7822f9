package targetid

import "strings"

// maxPowerSetFeatures caps how many distinct features CompatibleTargets
// expands, so a hand-built ID with many features cannot ask for 2^n IDs.
// Parse never yields more than two.
const maxPowerSetFeatures = 8

// CompatibleTargets returns the targets rocm-kpack tries for an agent ISA,
// most specific first (SPEC 4.4, rocm-kpack loader): the power set of the
// agent's features in the order written, by descending bitmask where bit
// (n-1-i) stands for feature i, so the right-most feature is dropped first.
//
//	gfx942:sramecc+:xnack- => gfx942:sramecc+:xnack-, gfx942:sramecc+, gfx942:xnack-, gfx942
//	gfx1100                => gfx1100
//
// The result always has 2^n entries, the first equal to the agent and the
// last the bare processor. A repeated feature name counts once (first
// setting wins) and only the first 8 distinct features are expanded.
func CompatibleTargets(agent ID) []ID {
	subsets := powerSet(distinctFeatures(agent.Features))
	out := make([]ID, 0, len(subsets))
	for _, fs := range subsets {
		out = append(out, ID{Processor: agent.Processor, Features: fs})
	}
	return out
}

// powerSet returns every subset of items, keeping their order inside each
// subset, by descending bitmask where bit (n-1-i) stands for items[i]: the
// full set first, the empty set last, right-most items dropped first
// (rocm-kpack for_each_compatible_target). len(items) must be at most
// maxPowerSetFeatures.
func powerSet[T any](items []T) [][]T {
	n := len(items)
	out := make([][]T, 0, 1<<n)
	for mask := (1 << n) - 1; mask >= 0; mask-- {
		var sub []T
		for i, it := range items {
			if mask&(1<<(n-1-i)) != 0 {
				sub = append(sub, it)
			}
		}
		out = append(out, sub)
	}
	return out
}

// distinctFeatures drops repeated names (keeping the first) and caps the
// count at maxPowerSetFeatures.
func distinctFeatures(fs []Feature) []Feature {
	var out []Feature
	for _, f := range fs {
		if len(out) == maxPowerSetFeatures {
			break
		}
		if !hasFeature(out, f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// hasFeature reports whether fs names feature name.
func hasFeature(fs []Feature, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}

// Compatible reports whether a code object built for codeObject can run on
// an agent reporting agent (LLVM/clang isCompatibleTargetID, HSA ROCr
// Isa::IsCompatible): the processors are equal, and every feature the code
// object specifies is specified by the agent with the same value. A feature
// the code object leaves unspecified ("any") matches anything. Generic code
// objects are not matched here; see CompatibleOrGeneric.
//
//	Compatible(gfx942, gfx942:sramecc+:xnack-)        == true
//	Compatible(gfx942:xnack+, gfx942:sramecc+:xnack-) == false
//	Compatible(gfx942:xnack-, gfx942)                 == false (agent says "any")
func Compatible(codeObject, agent ID) bool {
	if codeObject.Processor != agent.Processor {
		return false
	}
	return featuresMatch(codeObject, agent)
}

// CompatibleOrGeneric is Compatible extended to generic code objects (ROCr
// Isa::IsCompatible): a code object for a generic processor runs on an agent
// whose processor it covers (GenericCovers) when the feature settings match
// as in Compatible. The generic version check on e_flags is the caller's.
func CompatibleOrGeneric(codeObject, agent ID) bool {
	if Compatible(codeObject, agent) {
		return true
	}
	return GenericCovers(codeObject.Processor, agent.Processor) && featuresMatch(codeObject, agent)
}

// featuresMatch reports whether every feature codeObject specifies has the
// same value in agent.
func featuresMatch(codeObject, agent ID) bool {
	for _, f := range codeObject.Features {
		enabled, specified := agent.Setting(f.Name)
		if !specified || enabled != f.Enabled {
			return false
		}
	}
	return true
}

// CompatibleTargetStrings is CompatibleTargets worked on the string, as the
// rocm-kpack loader does (for_each_compatible_target, isa_target_match.h):
// the "amdgcn-amd-amdhsa--" prefix is stripped, the text before the first
// ':' is the processor and every non-empty ':'-separated part after it is a
// feature, valid or not; the power set of the features follows, most
// specific first. An entry with no processor gives nil. At most 8 features
// are expanded (as CompatibleTargets).
//
//	gfx9-generic:sramecc+:xnack- => gfx9-generic:sramecc+:xnack-, gfx9-generic:sramecc+,
//	                                gfx9-generic:xnack-, gfx9-generic
func CompatibleTargetStrings(arch string) []string {
	parts := strings.Split(strings.TrimPrefix(arch, TriplePrefix), ":")
	if parts[0] == "" {
		return nil
	}
	var features []string
	for _, f := range parts[1:] {
		if f != "" && len(features) < maxPowerSetFeatures {
			features = append(features, f)
		}
	}
	subsets := powerSet(features)
	out := make([]string, 0, len(subsets))
	for _, fs := range subsets {
		out = append(out, strings.Join(append([]string{parts[0]}, fs...), ":"))
	}
	return out
}
