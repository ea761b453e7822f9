package targetid

import (
	"testing"

	"github.com/xrash/smetrics"
)

func TestSuggest(t *testing.T) {
	for in, want := range map[string]string{
		"gfx905":                        "gfx904", // nearest number among one-edit neighbours (gfx904, gfx906: lower first)
		"gfx1100:xnack+":                "gfx1100",
		"gfx90a:xnack":                  "gfx90a:xnack+",
		"gfx942:sramecc+:xnack+:xnack-": "gfx942:sramecc+:xnack+",
		"gfx9-4-generik":                "gfx9-4-generic",
		"banana":                        "",
		"gfx942":                        "",
	} {
		if got := Suggest(in); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
	for _, g := range []string{"gfx9-4-generic", "gfx11-generic", "gfx9-4-generic:xnack+"} {
		if _, err := Parse(g); err != nil {
			t.Errorf("generic target %s must stay valid: %v", g, err)
		}
	}
}

// BenchmarkSuggest suggests for an unknown processor, as a policy error
// does for each bad target ID.
func BenchmarkSuggest(b *testing.B) {
	for i := range b.N {
		Suggest("gfx" + string(rune('0'+i%10)) + "12z")
	}
}

// editsWithin agrees with smetrics.WagnerFischer up to its limit.
func TestEditsWithin(t *testing.T) {
	words := []string{"", "gfx", "gfx90a", "gfx90c", "gfx1100", "gfx110", "gfx11000", "xfg1100", "gfx9-4-generic", "gfx9-4-generik", "banana", "gfx1z",
		"gfx123456789012345678901234567890123", "gfx123456789012345678901234567890124"}
	for _, a := range words {
		for _, b := range words {
			want := smetrics.WagnerFischer(a, b, 1, 1, 1)
			for limit := 0; limit <= 3; limit++ {
				if got := editsWithin(a, b, limit); got != min(want, limit+1) {
					t.Errorf("editsWithin(%q, %q, %d) = %d, want %d", a, b, limit, got, min(want, limit+1))
				}
			}
		}
	}
}
