package cli

import (
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/suggest"
	"github.com/rocm-tools/kpack-lint/report"
)

// The values of the command line's keyword flags, in the order help and
// errors list them.
var (
	failOnLevels = []string{"error", "warning", "note", "none"}
	colorModes   = []string{"auto", "always", "never"}
	loaderNames  = []string{string(finding.Fallthrough), string(finding.Legacy)}
	textOrJSON   = []string{"text", "json"}
	shellNames   = []string{"bash", "zsh", "fish"}
)

// choiceAliases are words people type for a value under another name:
// a level's plural or short form (a format's file extension, md, txt,
// is one too: report.FormatFromPath).
var choiceAliases = map[string]string{
	"gh":     "github",
	"errors": "error", "err": "error", "warnings": "warning", "warn": "warning", "notes": "note", "off": "none",
	"fall-through": "fallthrough", "fallthru": "fallthrough", "new": "fallthrough", "old": "legacy",
	"yes": "always", "no": "never", "on": "always",
}

// badChoice is the usage error for a keyword flag given a value that is
// none of choices: `--fail-on "errors": want error, warning, note or
// none (did you mean error?)`. The suggestion is the value an alias
// names (choiceAliases, or a format's file extension), the choice that equals the value but for case,
// or the closest by edit distance (suggest.DidYouMean); none when nothing
// is close.
func badChoice(flag, value string, choices []string) error {
	return errs.Usagef("%s %q: want %s%s", flag, value, orList(choices), suggestChoice(value, choices))
}

// suggestChoice is " (did you mean X?)" for the choice value most likely
// means, "" when none is close.
func suggestChoice(value string, choices []string) string {
	lower := strings.ToLower(strings.TrimSpace(value))
	for _, c := range choices {
		if lower == c && value != c {
			return " (did you mean " + c + "?)"
		}
	}
	if a, ok := choiceAliases[lower]; ok && slices.Contains(choices, a) {
		return " (did you mean " + a + "?)"
	}
	if a, ok := report.FormatFromPath("x." + lower); ok && slices.Contains(choices, a) {
		return " (did you mean " + a + "?)"
	}
	return suggest.DidYouMean(lower, choices)
}

// orList joins choices as "a, b or c".
func orList(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

// checkFormat reads --format of check and merge: "" (unset) or one of
// report.Formats.
func checkFormat(format string) error {
	if format != "" && !slices.Contains(report.Formats(), format) {
		return badChoice("--format", format, report.Formats())
	}
	return nil
}

// failOnLevel reads --fail-on.
func failOnLevel(s string) (finding.Level, error) {
	if !slices.Contains(failOnLevels, s) {
		return "", badChoice("--fail-on", s, failOnLevels)
	}
	return finding.Level(s), nil
}
