package suggest

import "testing"

func TestDidYouMean(t *testing.T) {
	for _, c := range []struct {
		s       string
		choices []string
		want    string
	}{
		{"varaint", []string{"variant", "policy", "target"}, " (did you mean variant?)"},
		{"chek", []string{"check", "explain"}, " (did you mean check?)"},
		{"xyz", []string{"check", "explain"}, ""},
		{"check", []string{"check"}, ""},                    // never itself
		{"ab", []string{"ax", "ay"}, " (did you mean ax?)"}, // a tie: the first in order
		{"warn", []string{"error", "warning", "note", "off"}, " (did you mean warning?)"},
		{"wa", []string{"warning"}, ""},                           // too short to be a prefix hint
		{"no", []string{"note", "none"}, " (did you mean none?)"}, // by distance first
		{"gfx1", []string{"gfx1100", "gfx1151"}, ""},              // prefix of two: no hint
	} {
		if got := DidYouMean(c.s, c.choices); got != c.want {
			t.Errorf("DidYouMean(%q, %q) = %q, want %q", c.s, c.choices, got, c.want)
		}
	}
}
