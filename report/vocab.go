package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
)

// The report fields that have a vocabulary, with every value kpack-lint
// writes there: Read refuses another (a baseline or shard whose field
// was edited), and the writers refuse to write one, so no string of an
// input reaches a SARIF enum (result.level, result.baselineState,
// notification.level) or the summary's markup through them. SARIF 2.1.0
// allows more (baselineState "updated", level "none"); check writes
// neither. A state added to the gate (gate.Compare) is added here too.
var (
	// findingLevels are the levels of a finding in a report (a rule the
	// policy turns off, level none, writes no finding).
	findingLevels = []finding.Level{finding.LevelError, finding.LevelWarning, finding.LevelNote}
	// baselineStates are the states gate.Compare gives ("" without a
	// baseline).
	baselineStates = []string{finding.BaselineNew, finding.BaselineUnchanged, finding.BaselineAbsent}
	// notificationLevels and notificationKinds are those of the
	// configuration notifications (gate.Waive, gate.Expiring,
	// gate.BaselineMismatch, gate.CoverageUnknown, lint's broad waivers, lint's inputs not read in place).
	notificationLevels = []finding.Level{finding.LevelWarning, finding.LevelNote}
	notificationKinds  = []string{"unused-waiver", "expired-waiver", "expiring-waiver", "broad-waiver", "baseline-mismatch", "baseline-coverage-unknown", "input-streamed", "inferred-targets"}
	// loaders are the loaders a finding names ("" when none applies).
	loaders = []string{string(finding.Fallthrough), string(finding.Legacy)}
)

// checkVocabulary fails for a finding whose level, baseline state, loader
// or fingerprint (64 lowercase hex digits, "" for one to compute) is none
// kpack-lint writes; the error names the field and the values allowed.
func checkVocabulary(f finding.Finding) error {
	switch {
	case !slices.Contains(findingLevels, f.Level):
		return vocabError("level", string(f.Level), levelWords(findingLevels))
	case f.Baseline != "" && !slices.Contains(baselineStates, f.Baseline):
		return vocabError("baselineState", f.Baseline, baselineStates)
	case f.Loader != "" && !slices.Contains(loaders, f.Loader):
		return vocabError("loader", f.Loader, loaders)
	case f.Fingerprint != "" && !isFingerprint(f.Fingerprint):
		return fmt.Errorf("fingerprint %q: want 64 lowercase hex digits (a SHA-256, what check writes)", f.Fingerprint)
	}
	return nil
}

// checkNotification fails for a notification whose level or kind is none
// kpack-lint writes.
func checkNotification(n Notification) error {
	switch {
	case !slices.Contains(notificationLevels, n.Level):
		return vocabError("level", string(n.Level), levelWords(notificationLevels))
	case !slices.Contains(notificationKinds, n.Kind):
		return vocabError("kind", n.Kind, notificationKinds)
	}
	return nil
}

func vocabError(field, value string, want []string) error {
	return fmt.Errorf("%s %q: want %s (what check writes)", field, value, orWords(want))
}

func levelWords(ls []finding.Level) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = string(l)
	}
	return out
}

// orWords is "a, b or c".
func orWords(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1]
}

func isFingerprint(s string) bool {
	return len(s) == 64 && !strings.ContainsFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') })
}
