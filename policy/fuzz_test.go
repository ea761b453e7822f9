package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse runs the policy reader on arbitrary YAML: it returns a policy
// or an *Error, never panics, and refuses alias expansion past
// MaxAliasExpansion before walking. Seeded from the repository's
// policies.yaml files and alias cases.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "policies.yaml"))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "*", "*", "policies.yaml"))
	for _, p := range append(files, more...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("variants:\n  v0:\n    targets: &t [gfx942, gfx950]\n    agents: &a {k0: *t, k1: *t}\n  v1: {targets: [gfx942], agents: *a}\n"))
	f.Add([]byte("variants:\n  a: &a\n    targets: [gfx942, *a]\n"))
	f.Add([]byte("waivers:\n  - {rule: KPL003, group: g, reason: r, expires: 2999-01-01}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		var pe *Error
		switch {
		case err == nil && p == nil:
			t.Fatal("nil policy without error")
		case err != nil && !errors.As(err, &pe):
			t.Fatalf("error %T: %v", err, err)
		}
		var es Errors
		if errors.As(err, &es) {
			for _, e := range es {
				if strings.Contains(e.Error(), "\n") {
					t.Fatalf("multi-line error %q", e)
				}
			}
		} else if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
	})
}
