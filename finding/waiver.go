package finding

// DateLayout is the form of a waiver's expires date and of the day it is
// judged on (YYYY-MM-DD).
const DateLayout = "2006-01-02"

// Waiver accepts known findings, as lintian overrides and staticcheck's
// ignore directives do. A finding is waived when every selector the waiver
// sets matches it: Rule (a rule ID), Path (a glob of the finding's file),
// Group (a glob of its kpack group), Kernel (a glob every kernel key of the
// finding must match) and Fingerprint (its fingerprint); globs are
// MatchGlob's. At least one of Path, Group, Kernel and Fingerprint is
// required, and so is Reason (SARIF suppression justification). From the
// day after Expires (YYYY-MM-DD) the waiver no longer waives and the
// report says so. The yaml keys are those of a policy's waivers: list.
type Waiver struct {
	Rule        string `yaml:"rule"`
	Path        string `yaml:"path"`
	Group       string `yaml:"group"`
	Kernel      string `yaml:"kernel"`
	Fingerprint string `yaml:"fingerprint"`
	Reason      string `yaml:"reason"`
	Expires     string `yaml:"expires"`
	// Owner is who answers for the waiver (a person, a team, an issue
	// tracker's queue); optional. policy-diff names it next to the reason
	// of a waiver a change adds, widens or extends.
	Owner string `yaml:"owner"`

	// Source is where the waiver is written: "policies.yaml:31".
	Source string `yaml:"-"`
}

// Expired reports whether the waiver no longer applies on today
// (YYYY-MM-DD): it is still in force on its expires date.
func (w Waiver) Expired(today string) bool {
	return w.Expires != "" && today > w.Expires
}
