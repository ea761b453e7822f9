package rules

import (
	"slices"

	"github.com/rocm-tools/kpack-lint/finding"
)

// otherLevels are, per rule, the levels its findings may carry besides
// the rule's own (finding.Rule.Level), when the policy sets none:
// KPL004's duplicate kernel keys are notes (kpl004_duplicates.go),
// KPL005's absolute symlinks warnings (kpl005_inputs.go linkProblem),
// KPL010's "nothing was simulated" and a machine without a device errors
// (kpl010_target.go, kpl010_machines.go), KPL013's lookups that only slow
// a program down notes and its unchecked libraries warnings
// (kpl013_kerneldb.go, kpl013_wheels.go, machine_databases.go). A rule
// not listed writes only its own level.
var otherLevels = map[string][]finding.Level{
	"KPL004": {finding.LevelNote},
	"KPL005": {finding.LevelWarning},
	"KPL010": {finding.LevelError},
	"KPL013": {finding.LevelWarning, finding.LevelNote},
}

// Levels returns the levels a finding of rule id may have under a
// policy whose level for the rule is policyLevel (policy.RuleLevel: ""
// when it sets none, "none" when the rule is off): that level alone, or
// none when off, else the rule's own level and those its findings set
// themselves. nil for a rule kpack-lint does not have. merge refuses a
// shard's finding at another level: a shard cannot turn an error into a
// note.
func Levels(id string, policyLevel string) []finding.Level {
	r, ok := ByID(id)
	switch {
	case !ok:
		return nil
	case policyLevel == string(finding.LevelNone):
		return []finding.Level{}
	case policyLevel != "":
		return []finding.Level{finding.Level(policyLevel)}
	}
	return append([]finding.Level{r.DefaultLevel()}, slices.Clone(otherLevels[id])...)
}
