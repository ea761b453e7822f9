package targetid

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
	fs := distinctFeatures(agent.Features)
	n := len(fs)
	out := make([]ID, 0, 1<<n)
	for mask := (1 << n) - 1; mask >= 0; mask-- {
		id := ID{Processor: agent.Processor}
		for i, f := range fs {
			if mask&(1<<(n-1-i)) != 0 {
				id.Features = append(id.Features, f)
			}
		}
		out = append(out, id)
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

// AgentISAs returns every fully specified ISA that a device of target's
// processor can report and that is compatible with target (SPEC 3: an HSA
// agent reports a value for every feature its processor supports). Features
// are in canonical order (sramecc, xnack). Order: sramecc varies slowest,
// and "+" comes before "-" for each feature:
//
//	gfx950:xnack+ => gfx950:sramecc+:xnack+, gfx950:sramecc-:xnack+
//	gfx942        => gfx942:sramecc+:xnack+, gfx942:sramecc+:xnack-,
//	                 gfx942:sramecc-:xnack+, gfx942:sramecc-:xnack-
//	gfx900        => gfx900:xnack+, gfx900:xnack-
//	gfx1100       => gfx1100
//
// It returns nil when the processor is unknown or generic (no device reports
// a generic ISA) or target sets a feature the processor does not support.
func AgentISAs(target ID) []ID {
	p, ok := LookupProcessor(target.Processor)
	if !ok || p.Generic || !featuresSupported(p, target) {
		return nil
	}
	out := []ID{{Processor: p.Name}}
	for _, name := range p.supportedFeatures() {
		out = expand(out, name, target)
	}
	return out
}

// featuresSupported reports whether p supports every feature target names.
func featuresSupported(p Processor, target ID) bool {
	for _, f := range target.Features {
		if !p.Supports(f.Name) {
			return false
		}
	}
	return true
}

// expand appends feature name to every ID in ids: the value target fixes,
// or both values ("+" first) when target leaves it unspecified.
func expand(ids []ID, name string, target ID) []ID {
	values := []bool{true, false}
	if enabled, specified := target.Setting(name); specified {
		values = []bool{enabled}
	}
	out := make([]ID, 0, len(ids)*len(values))
	for _, id := range ids {
		for _, v := range values {
			fs := append(append([]Feature(nil), id.Features...), Feature{Name: name, Enabled: v})
			out = append(out, ID{Processor: id.Processor, Features: fs})
		}
	}
	return out
}
