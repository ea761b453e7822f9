// Package rules holds kpack-lint's rules: each rule file (kpl001_*.go ...)
// declares one Rule value, its documentation and the checks that turn a
// simulated build into its findings, and the registry is built from those
// values. The CLI, the README rule table and SARIF tool.driver.rules read
// the same documentation (All).
package rules

import (
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
)

// DocsURI is where the rule reference lives; each rule links to its anchor.
const DocsURI = "https://github.com/rocm-tools/kpack-lint/blob/main/README.md"

func helpURI(id string) string { return DocsURI + "#" + strings.ToLower(id) }

// Rule is one rule: its documentation (ID, name, default level, title,
// text, fix, what explain shows of it), which the reporters, `kpack-lint
// rules` and the README table read, and the checks that produce its
// findings. Each rule file declares one; the registry lists them all.
type Rule struct {
	finding.Rule
	// Checks produce the rule's findings from a simulated build; Run gives
	// them the rule's ID and level. The --deep parts return nothing
	// without Context.Deep.
	Checks []Check
	// Cause, when set, is the cause key of a finding of the rule: what
	// the defect is, without the processors, agents, kernels and archives
	// it hits. Findings of the rule and one level with the same key are
	// one root cause, reported as one finding (CauseOf; nil: the
	// finding's Subject, so a rule whose Subject leaves out the processor
	// aggregates across processors without declaring anything).
	Cause func(f finding.Finding) string
}

// Check produces findings of one rule from a simulated build.
type Check func(*Context) []finding.Finding

// registry holds every rule, sorted by ID. TestEveryRuleRegistered fails
// on a rule declared and not listed here, TestRegistry on a duplicated ID.
var registry = []*Rule{
	&unreachableKernel,
	&legacyLoaderShadowing,
	&strippedFeatureFlags,
	&groupCollision,
	&malformedArchive,
	&missingArchive,
	&badSearchPath,
	&orphanKernel,
	&codeObjectMismatch,
	&invalidTarget,
	&untransformedBinary,
	&inventoryRegression,
	&missingKernelDatabase,
	&crossDeviceFailure,
}

func init() {
	for _, r := range registry {
		r.HelpURI = helpURI(r.ID)
	}
	sort.Slice(registry, func(i, j int) bool { return registry[i].ID < registry[j].ID })
}

// All returns every rule's documentation, sorted by ID. The slice is a
// copy.
func All() []finding.Rule {
	out := make([]finding.Rule, len(registry))
	for i, r := range registry {
		out[i] = r.Rule
	}
	return out
}

// ByID returns the documentation of the rule with the given ID ("KPL001").
func ByID(id string) (finding.Rule, bool) {
	for _, r := range registry {
		if r.ID == id {
			return r.Rule, true
		}
	}
	return finding.Rule{}, false
}
