package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim/hip"
)

// TestReadmeRuleTable keeps the README's rule table in step with the
// registry that SARIF and `kpack-lint rules` read.
func TestReadmeRuleTable(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	for _, r := range rules.All() {
		row := "| " + r.ID + " | " + r.Name + " | " + string(r.Level) + " |"
		anchor := `<a id="` + strings.ToLower(r.ID) + `"></a>`
		if !strings.Contains(readme, anchor+row[2:]) && !strings.Contains(readme, "| "+anchor+r.ID+" | "+r.Name+" | "+string(r.Level)+" |") {
			t.Errorf("README lacks the row %q (with anchor %s)", row, anchor)
		}
	}
}

func TestRulesCommandListsRegistry(t *testing.T) {
	code, out, _ := run(t, "rules")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, r := range rules.All() {
		if !strings.Contains(out, r.ID+"  "+r.Name) {
			t.Errorf("rules output lacks %s %s", r.ID, r.Name)
		}
	}
}

// TestReadmeHIPTable: the README's --hip table has one row per release of
// the table in sim/hip, in its order, and no other.
func TestReadmeHIPTable(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "| `--hip` |"):
			in = true
		case in && strings.HasPrefix(line, "| `"):
			rows = append(rows, strings.SplitN(line, "`", 3)[1])
		case in && !strings.HasPrefix(line, "|"):
			in = false
		}
	}
	if want := hip.Names(); !slices.Equal(rows, want) {
		t.Errorf("README --hip rows %v, want %v", rows, want)
	}
}

// TestReadmeMachineOutput: the outputs the README shows for machines and
// explain are what the commands print (the lines that do not name the
// input folder, which the test reaches from another working directory).
func TestReadmeMachineOutput(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	tree := func(name string) string { return filepath.Join(scenario(name), "tree") }
	for _, tc := range []struct {
		args []string
		keep func(line string) bool
	}{
		{[]string{"explain", "--agent", "gfx950:sramecc+:xnack+", "--loader", "legacy", "bin/rocfft-test#0", tree("seed-fft-asan")}, nil},
		{[]string{"explain", "--no-policy", "--machine", "gfx1036,gfx1100", "--hip", "10.0", "torch/lib/libc10_hip.so[embedded]#0", tree("therock-5543-igpu-first")}, nil},
		{[]string{"check", "--no-policy", "--machine", "gfx1036,gfx1100", "--hip", "10.0", tree("therock-5543-igpu-first")},
			func(l string) bool {
				return strings.HasPrefix(l, "  simulated: ") || strings.HasPrefix(l, "  machine gfx1036")
			}},
		{[]string{"check", "--no-policy", "--machine", "gfx1151", "--env", "HSA_OVERRIDE_GFX_VERSION=11.0", tree("pytorch-164346-gfx1151-override")},
			func(l string) bool { return strings.Contains(l, " error KPL010 ") }},
	} {
		_, out, _ := run(t, tc.args...)
		n := 0
		for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if tc.keep != nil && !tc.keep(line) {
				continue
			}
			n++
			if !strings.Contains(readme, line+"\n") {
				t.Errorf("%v: README lacks the line\n%s", tc.args, line)
			}
		}
		if n == 0 {
			t.Errorf("%v: no line compared:\n%s", tc.args, out)
		}
	}
}
