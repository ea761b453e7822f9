package targetid

import "testing"

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
