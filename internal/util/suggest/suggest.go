// Package suggest finds the word a user likely meant: the closest of a
// list of choices by edit distance (Wagner-Fischer, xrash/smetrics), for
// "did you mean" hints on flags, commands, policy keys and values.
package suggest

import (
	"sort"
	"strings"

	"github.com/xrash/smetrics"
)

// DidYouMean returns " (did you mean X?)" for the choice closest to s
// (at most a third of its length in edits, at least 2), or "". Ties go to
// the choice first in sort order; s itself is never suggested. Without
// a close choice, the one choice that s (3 letters or more) begins is
// suggested ("warn" -> warning).
func DidYouMean(s string, choices []string) string {
	best, bestD := "", max(2, len(s)/3)+1
	sorted := append([]string(nil), choices...)
	sort.Strings(sorted)
	for _, c := range sorted {
		if d := smetrics.WagnerFischer(s, c, 1, 1, 1); d < bestD && c != s {
			best, bestD = c, d
		}
	}
	if best == "" {
		best = onlyPrefixed(s, sorted)
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// onlyPrefixed returns the one choice that begins with s (s of 3 letters
// or more, not a choice itself), or "".
func onlyPrefixed(s string, choices []string) string {
	found := ""
	for _, c := range choices {
		if len(s) < 3 || c == s {
			return ""
		}
		if strings.HasPrefix(c, s) {
			if found != "" {
				return ""
			}
			found = c
		}
	}
	return found
}
