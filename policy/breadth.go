package policy

import (
	"fmt"
	"strings"
	"time"

	"github.com/rocm-tools/kpack-lint/finding"
)

// DefaultMaxWaiverDays is how far ahead a waiver may expire before it is
// reported as too broad (check --max-waiver-days): a year, so that every
// accepted finding is looked at again at least once a year.
const DefaultMaxWaiverDays = 365

// Broad is a waiver that accepts more than one known problem, as
// BroadWaivers finds it.
type Broad struct {
	// Waiver is the waiver; its Source says where it is written
	// ("policies.yaml:12").
	Waiver finding.Waiver
	// Why lists what is too broad, each a phrase: `it names no rule (it
	// waives every rule's findings)`, `group "*" matches every kpack
	// group`, `it expires on 9999-12-31, 2914000 days ahead (more than
	// 365)`, `it has no expires date ...`.
	Why []string
	// Selectors and Expiry say which kind of problem Why holds; MaxDays
	// is the limit the expiry was held to.
	Selectors, Expiry bool
	MaxDays           int
}

// BroadWaivers returns the waivers of ws that match (nearly) everything
// or stay in force too long, in the order given:
//   - a waiver that names no rule and no fingerprint waives the findings
//     of every rule;
//   - a path or kernel selector made of wildcards only ("*", "*/*",
//     "?*", "*/**") matches every file or kernel key at its depth (a star
//     does not cross "/"; a final "/**" matches everything below), and a
//     group selector of wildcards ("*", "*/**") every kpack group;
//   - with maxDays > 0, a waiver without an expires date, or one that
//     expires more than maxDays days after today (YYYY-MM-DD), is in force
//     for longer than a review cycle.
//
// A fingerprint names one finding, so a waiver with one is never too
// broad for its selectors. Expired waivers are left to the gate (they
// waive nothing). An unparsable today skips the expiry check.
func BroadWaivers(ws []finding.Waiver, today string, maxDays int) []Broad {
	now, dateErr := time.Parse(finding.DateLayout, today)
	var out []Broad
	for _, w := range ws {
		if w.Expired(today) {
			continue
		}
		b := Broad{Waiver: w, Why: selectorBreadth(w), MaxDays: maxDays}
		b.Selectors = len(b.Why) > 0
		if maxDays > 0 && dateErr == nil {
			if e := expiryBreadth(w, now, maxDays); e != "" {
				b.Why, b.Expiry = append(b.Why, e), true
			}
		}
		if len(b.Why) > 0 {
			out = append(out, b)
		}
	}
	return out
}

// selectorBreadth says which selectors of w match everything.
func selectorBreadth(w finding.Waiver) []string {
	if w.Fingerprint != "" {
		return nil
	}
	var why []string
	if w.Rule == "" {
		why = append(why, "it names no rule (it waives every rule's findings)")
	}
	for _, s := range []struct{ key, glob, what string }{
		{"path", w.Path, "every file"},
		{"group", w.Group, "every kpack group"},
		{"kernel", w.Kernel, "every kernel key"},
	} {
		if s.glob == "" || !WildcardOnly(s.glob) {
			continue
		}
		min, open := globDepth(s.glob)
		switch {
		case s.key == "group" && min > 0:
			continue // group names hold no "/": "*/*" matches none
		case s.key != "group":
			s.what += depth(min, open)
		}
		why = append(why, fmt.Sprintf("%s %q matches %s", s.key, s.glob, s.what))
	}
	return why
}

// globDepth says at which depth a glob's names lie (finding.MatchGlob):
// "/"s counted; open when a final "/**" also matches everything below
// (and the prefix's own depth).
func globDepth(glob string) (min int, open bool) {
	if prefix, ok := strings.CutSuffix(glob, "/**"); ok {
		return strings.Count(prefix, "/"), true
	}
	return strings.Count(glob, "/"), false
}

// depth words where a wildcard-only glob matches: "" for everywhere
// ("*/**"), " at the top of the input" ("*", "**": a star never crosses
// "/"), " 2 folders deep" ("*/*/*"), " 1 or more folders deep"
// ("*/*/**").
func depth(min int, open bool) string {
	switch {
	case open && min == 0:
		return ""
	case open:
		return fmt.Sprintf(" %d or more folders deep", min)
	case min == 0:
		return " at the top of the input"
	case min == 1:
		return " 1 folder deep"
	}
	return fmt.Sprintf(" %d folders deep", min)
}

// expiryBreadth says, when w stays in force more than maxDays days after
// now, how long; "" when it does not.
func expiryBreadth(w finding.Waiver, now time.Time, maxDays int) string {
	if w.Expires == "" {
		return "it has no expires date (it waives for ever)"
	}
	end, err := time.Parse(finding.DateLayout, w.Expires)
	if err != nil {
		return ""
	}
	days := int((end.Unix() - now.Unix()) / 86400) // not end.Sub: a Duration ends 292 years ahead
	if days <= maxDays {
		return ""
	}
	return fmt.Sprintf("it expires on %s, %d days ahead (more than %d)", w.Expires, days, maxDays)
}

// WildcardOnly reports whether every "/"-separated element of glob is
// made of "*" and "?" only, so that it matches every name at its depth
// ("*", "*/*", "**", "?*"; finding.MatchGlob).
func WildcardOnly(glob string) bool {
	for _, el := range strings.Split(glob, "/") {
		if el == "" || strings.Trim(el, "*?") != "" {
			return false
		}
	}
	return true
}

// Message words b for reports: the waiver's selectors, what is too broad
// and the fix.
func (b Broad) Message() string {
	var fix []string
	if b.Selectors {
		fix = append(fix, "name the rule and the exact path, group or kernel (or the fingerprint) of the findings it accepts")
	}
	if b.Expiry {
		fix = append(fix, fmt.Sprintf("give an expires date at most %d days ahead and renew it when it comes", b.MaxDays))
	}
	return fmt.Sprintf("waiver %s is too broad: %s. Fix: %s", Describe(b.Waiver), strings.Join(b.Why, "; "), strings.Join(fix, ", and "))
}

// Describe names a waiver by its selectors: "(KPL003, path bin/x, group
// fft_test)", as the gate's notifications do.
func Describe(w finding.Waiver) string {
	var parts []string
	for _, s := range [][2]string{{"", w.Rule}, {"path ", w.Path}, {"group ", w.Group}, {"kernel ", w.Kernel}, {"fingerprint ", w.Fingerprint}} {
		if s[1] != "" {
			parts = append(parts, s[0]+s[1])
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
