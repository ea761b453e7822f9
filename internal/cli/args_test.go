package cli

import (
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFlagsFirst(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, c := range []struct{ in, want string }{
		{"check dist --variant asan", "check --variant asan dist"},
		{"check dist -o r.sarif --deep other", "check -o r.sarif --deep dist other"},
		{"check --variant asan dist", "check --variant asan dist"},
		{"check dist --policy -odd.yaml", "check --policy -odd.yaml dist"}, // a value that looks like a flag
		{"check dist --env=A=1 --deep", "check --env=A=1 --deep dist"},
		{"check --deep -- -dist --variant", "check --deep -- -dist --variant"}, // after --, arguments
		{"check dist -- other", "check dist -- other"},
		{"merge s1.json --fail-on none s2.json", "merge --fail-on none s1.json s2.json"},
		{"explain bin/x#0 dist --agent gfx942:sramecc+:xnack-", "explain --agent gfx942:sramecc+:xnack- bin/x#0 dist"},
		{"--version", "--version"},
		{"help check --x", "help check --x"},
		{"nosuch a --b", "nosuch a --b"},
	} {
		args := append([]string{"kpack-lint"}, strings.Fields(c.in)...)
		got := strings.Join(flagsFirst(app, args)[1:], " ")
		if c.in == "check dist -- other" {
			if want := "check -- dist other"; got != want { // "--" kept before the arguments
				t.Errorf("%q: got %q, want %q", c.in, got, want)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

// Flags anywhere, did-you-mean for commands and flags.
func TestCLIConventions(t *testing.T) {
	ex := filepath.Join(testdata, "example")
	code, after, _ := run(t, "check", ex, "--policy", "../../policies.yaml", "--variant", "asan")
	_, before, _ := run(t, "check", "--policy", "../../policies.yaml", "--variant", "asan", ex)
	if code != ExitFindings || after != before {
		t.Errorf("flags after the input: exit %d, output differs:\n%s", code, after)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"chek", ex}, `kpack-lint: unknown command "chek" (did you mean check?) (see kpack-lint --help)` + "\n"},
		{[]string{"check", ex, "--varient", "asan"}, "kpack-lint: flag provided but not defined: -varient (did you mean --variant?) (see --help)\n"},
		{[]string{"merge", "--formt", "json", "x.json"}, "kpack-lint: flag provided but not defined: -formt (did you mean --format?) (see --help)\n"},
	} {
		if code, _, stderr := run(t, c.args...); code != ExitUsage || stderr != c.want {
			t.Errorf("%v: exit %d\n got %q\nwant %q", c.args, code, stderr, c.want)
		}
	}
	if !reflect.DeepEqual(flagsFirst(newApp(io.Discard, io.Discard), []string{"kpack-lint"}), []string{"kpack-lint"}) {
		t.Error("no arguments changed")
	}
}

// Every error of a policy file comes at once, one line each, in file
// order; a YAML slip is reported at its own line.
func TestPolicyErrorsAtOnce(t *testing.T) {
	dir := t.TempDir()
	pol := writeFile(t, filepath.Join(dir, "p.yaml"), "version: 1\nvariants:\n  asan:\n    targets: [gfx905]\nrules:\n  KPL099: {level: error}\n")
	code, _, stderr := run(t, "check", "--policy", pol, filepath.Join(testdata, "example"))
	want := "kpack-lint: " + pol + ":4: variants.asan.targets[0]: invalid target ID \"gfx905\": unknown processor \"gfx905\" (did you mean gfx904?)\n" +
		"kpack-lint: " + pol + ":6: rules.KPL099: no such rule (did you mean KPL009?) (see kpack-lint rules)\n"
	if code != ExitUsage || stderr != want {
		t.Errorf("exit %d\n got %q\nwant %q", code, stderr, want)
	}
	slip := writeFile(t, filepath.Join(dir, "slip.yaml"), "version: 1\nvariants:\n  release:\n    targets: [gfx942]\n asan:\n    targets: [gfx942]\n")
	if _, _, stderr := run(t, "check", "--policy", slip, filepath.Join(testdata, "example")); !strings.HasPrefix(stderr, "kpack-lint: "+slip+":5: YAML: did not find expected key") {
		t.Errorf("slip: %q", stderr)
	}
}

// --warn-expiring warns, in the report, about waivers close to their date.
func TestWarnExpiring(t *testing.T) {
	w := writeFile(t, filepath.Join(t.TempDir(), "w.yaml"), "- {rule: KPL003, group: fft_test, reason: known, expires: 2026-01-10}\n")
	args := []string{"check", "--policy", "../../policies.yaml", "--variant", "asan", "--waivers", w, "--today", "2026-01-01", filepath.Join(testdata, "example")}
	_, out, _ := run(t, args...)
	if strings.Contains(out, "expiring") || strings.Contains(out, "expires on") {
		t.Errorf("warned without --warn-expiring:\n%s", out)
	}
	_, out, _ = run(t, append(args, "--warn-expiring", "30")...)
	if !strings.Contains(out, "w.yaml:1: warning waiver (KPL003, group fft_test) expires on 2026-01-10, in 9 days (--warn-expiring 30)") {
		t.Errorf("no warning:\n%s", out)
	}
	if code, _, stderr := run(t, append(args, "--warn-expiring", "-1")...); code != ExitUsage || !strings.Contains(stderr, "--warn-expiring -1") {
		t.Errorf("negative days: exit %d %q", code, stderr)
	}
}
