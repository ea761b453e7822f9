package finding

// Open reports whether f is a current finding no waiver in force covers
// (not "absent" from a baseline, not suppressed).
func Open(f Finding) bool {
	return f.Baseline != BaselineAbsent && !f.Suppressed()
}

// Gating reports whether f counts for the exit code: open, and new since
// the baseline unless failOnBaseline (without a baseline every open
// finding is new).
func Gating(f Finding, failOnBaseline bool) bool {
	return Open(f) && (f.Baseline != BaselineUnchanged || failOnBaseline)
}

// Failing counts the findings that fail a gate at failOn: gating (see
// Gating) at a level (Rule.LevelOf; rules names every rule a finding may
// name) at or above failOn. Findings at level none, and findings of rules
// not in rules, never count; failOn "none" never fails.
func Failing(fs []Finding, rules []Rule, failOn Level, failOnBaseline bool) int {
	if failOn == LevelNone {
		return 0
	}
	byID := make(map[string]Rule, len(rules))
	for _, r := range rules {
		byID[r.ID] = r
	}
	n := 0
	for _, f := range fs {
		r, ok := byID[f.RuleID]
		if ok && Gating(f, failOnBaseline) && r.LevelOf(f).Rank() >= failOn.Rank() {
			n++
		}
	}
	return n
}
