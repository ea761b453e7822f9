package finding

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// Fingerprint identifies a finding across runs: the lowercase hex SHA-256 of
// RuleID, a NUL byte and Subject (the logical subject: group, kernel key,
// agent...). It never depends on positions, paths or the message, so moving
// or rewording a finding keeps its fingerprint (osv-scanner's SARIF
// fingerprints work the same way). Findings of one rule with an empty
// Subject all share one fingerprint. A finding read back from a report
// keeps the fingerprint written there (f.Fingerprint).
func Fingerprint(f Finding) string {
	if f.Fingerprint != "" {
		return f.Fingerprint
	}
	sum := sha256.Sum256([]byte(f.RuleID + "\x00" + f.Subject))
	return hex.EncodeToString(sum[:])
}

// Sort puts findings in report order: rule ID, path, message, then input,
// fingerprint and baseline state. The order is total, so the rules, the
// gate and a merge of shards all sort exactly like one run. The sort is
// stable and hashes a fingerprint only to order findings that tie on
// everything before it.
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, Compare)
}

// Compare orders two findings as Sort does.
func Compare(a, b Finding) int {
	if c := cmp.Or(strings.Compare(a.RuleID, b.RuleID), strings.Compare(a.Location.Path, b.Location.Path),
		strings.Compare(a.Message, b.Message), cmp.Compare(a.Location.Input, b.Location.Input)); c != 0 {
		return c
	}
	return cmp.Or(strings.Compare(Fingerprint(a), Fingerprint(b)), strings.Compare(a.Baseline, b.Baseline))
}
