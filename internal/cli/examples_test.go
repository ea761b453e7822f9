package cli

import (
	"io"
	"os"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"
)

// Every --help ends with examples; each example names only flags of its
// command, and those that need no file of their own run from the
// repository root without a usage error.
func TestHelpExamples(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, c := range append(app.Commands, nil) {
		name, args := "", []string{"--help"}
		if c != nil {
			if c.Hidden || c.Name == "help" {
				continue
			}
			name, args = c.Name, []string{c.Name, "--help"}
		}
		_, out, _ := run(t, args...)
		if !strings.Contains(out, "Examples:\n") || len(examples[name]) == 0 {
			t.Errorf("kpack-lint %s --help has no examples:\n%s", name, out)
		}
		for _, ex := range examples[name] {
			if !strings.Contains(out, ex) {
				t.Errorf("%s --help lacks %q", name, ex)
			}
		}
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir("../..")
	for name, exs := range examples {
		for _, ex := range exs {
			line := ex
			if i := strings.Index(line, "  #"); i >= 0 { // a comment
				line = line[:i]
			}
			words := strings.Fields(line)
			if words[0] != "kpack-lint" {
				continue // a shell line (source <(...))
			}
			cmd := app.Command(words[1])
			if cmd == nil {
				t.Errorf("%q: no command %s", ex, words[1])
				continue
			}
			for _, w := range words[2:] {
				if f := strings.TrimLeft(strings.SplitN(w, "=", 2)[0], "-"); strings.HasPrefix(w, "-") && !hasFlag(cmd.Flags, f) {
					t.Errorf("%q: %s has no flag %s", ex, cmd.Name, w)
				}
			}
			if strings.ContainsAny(ex, ">$~") || strings.Contains(ex, "dist") || strings.Contains(ex, "shard") || strings.Contains(ex, " -o ") {
				continue // needs files or writes them
			}
			if code, _, stderr := run(t, words[1:]...); code == ExitUsage {
				t.Errorf("%s example %q: exit 2: %s", name, ex, stderr)
			}
		}
	}
}

func hasFlag(flags []ucli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
