package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/policy"
)

// A policy of 5,000 bad target IDs prints policy.MaxShownErrors lines and
// one counting the rest, naming the file.
func TestPolicyErrorsCapped(t *testing.T) {
	ids := make([]string, 5000)
	for i := range ids {
		ids[i] = fmt.Sprintf("gfx%dz", i)
	}
	pol := writeFile(t, filepath.Join(t.TempDir(), "p.yaml"), "version: 1\nvariants:\n  release: {targets: ["+strings.Join(ids, ", ")+"]}\n")
	code, _, stderr := run(t, "check", "--policy", pol, filepath.Join(testdata, "example"))
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if code != ExitUsage || len(lines) != policy.MaxShownErrors+1 {
		t.Fatalf("exit %d, %d lines", code, len(lines))
	}
	if want := "kpack-lint: " + pol + `:3: variants.release.targets[0]: invalid target ID "gfx0z": unknown processor "gfx0z" (did you mean gfx600?)`; lines[0] != want {
		t.Errorf("first line %q", lines[0])
	}
	if want := "kpack-lint: ... and 4900 more errors in " + pol; lines[100] != want {
		t.Errorf("last line %q, want %q", lines[100], want)
	}
}
