package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An indentation slip is reported at its own line, not where the
// enclosing block began (yaml.v3 says line 2 for the repository's
// policies.yaml with line 11 indented by one space).
func TestYAMLSyntaxErrorLine(t *testing.T) {
	data, err := os.ReadFile("../policies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if lines[10] != "  asan:" {
		t.Fatalf("line 11 of policies.yaml is %q", lines[10])
	}
	for slip, want := range map[string]int{" asan:": 11, "   asan:": 11, "  asan:\n   targets: [gfx90a]": 13} {
		bad := append(append([]string(nil), lines[:10]...), append([]string{slip}, lines[11:]...)...)
		_, err := Parse([]byte(strings.Join(bad, "\n")))
		var pe *Error
		if !errors.As(err, &pe) || pe.Line != want || !strings.Contains(pe.Msg, "YAML: did not find expected key (check this line's indentation") {
			t.Errorf("slip %q: %v, want an error at line %d", slip, err, want)
		}
	}
	// A syntax error yaml.v3 places right keeps its line.
	if _, err := Parse([]byte("version: 1\nvariants: {a: [\n")); err == nil || !strings.HasPrefix(err.Error(), "line ") {
		t.Errorf("unclosed flow: %v", err)
	}
}

// Every error of a policy is reported at once, in file order, schema and
// values alike; the waivers of a --waivers file too.
func TestAllErrorsInFileOrder(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "p.yaml")
	os.WriteFile(pol, []byte("version: 1\nvariants:\n  release:\n    targest: [gfx942]\n  asan:\n    targets: [gfx905, gfx942]\n"+
		"rules:\n  KPL099: {level: error}\n  KPL002: {level: loud}\nwaivers:\n  - {group: g}\n  - {rule: KPL03, group: g, reason: r, expires: 2026-13-01}\n"), 0o644)
	_, err := LoadWith(pol, Options{RuleIDs: []string{"KPL002", "KPL003", "KPL009"}})
	want := []string{
		pol + ":4: variants.release.targest: unknown key",
		pol + ":6: variants.asan.targets[0]: invalid target ID \"gfx905\"",
		pol + ":8: rules.KPL099: no such rule (did you mean KPL009?)",
		pol + ":9: rules.KPL002.level: want error, warning, note or off",
		pol + ":11: waivers[0]: reason is required",
		pol + ":12: waivers[1].rule: no such rule \"KPL03\" (did you mean KPL003?)",
		pol + ":12: waivers[1].expires: want a date YYYY-MM-DD",
	}
	checkLines(t, err, want)
	w := filepath.Join(dir, "w.yaml")
	os.WriteFile(w, []byte("- {group: g}\n- {rule: KPL03, path: p, reason: r}\n- {groups: g, reason: r}\n"), 0o644)
	_, err = LoadWaiversWith(w, Options{RuleIDs: []string{"KPL003"}})
	checkLines(t, err, []string{
		w + ":1: waivers[0]: reason is required",
		w + ":2: waivers[1].rule: no such rule \"KPL03\"",
		w + ":3: waivers[2].groups: unknown key",
		w + ":3: waivers[2]: a waiver needs at least one of path, group, kernel or fingerprint",
	})
}

// Options.Machine's errors join the policy's own in file order, for the
// machines that pass the policy's own checks.
func TestMachineErrorsInFileOrder(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "p.yaml")
	os.WriteFile(pol, []byte("variants:\n  release:\n    targets: [gfx11000]\nmachines:\n  m1:\n    devices: [gfx1100]\n    hip: \"9.9\"\n"+
		"  m2:\n    devices: [gfx1100]\n    kpack: maybe\n  m3:\n    devices: [gfx11000]\nrules:\n  KPL099: {level: error}\n"), 0o644)
	var asked []string
	check := func(p *Policy, name string) []error {
		asked = append(asked, name)
		m := p.Machines[name]
		if m.HIP != "" {
			return []error{p.Errorf("machines."+name+".hip", "bad release")}
		}
		return []error{p.Errorf("machines."+name+".devices[0]", "bad ISA %s", m.Devices[0].ISA)}
	}
	_, err := LoadWith(pol, Options{RuleIDs: []string{"KPL009"}, Machine: check})
	checkLines(t, err, []string{
		pol + ":3: variants.release.targets[0]: invalid target ID \"gfx11000\"",
		pol + ":7: machines.m1.hip: bad release",
		pol + ":10: machines.m2.kpack: want on or off",
		pol + ":12: machines.m3.devices[0]: bad ISA gfx11000",
		pol + ":14: rules.KPL099: no such rule",
	})
	if strings.Join(asked, ",") != "m1,m3" {
		t.Errorf("Options.Machine asked for %v, want m1 and m3 (m2 fails the policy's own check)", asked)
	}
}

func checkLines(t *testing.T, err error, want []string) {
	t.Helper()
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("err = %v, want Errors", err)
	}
	got := strings.Split(err.Error(), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d errors, want %d:\n%s", len(got), len(want), err)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d\n got %s\nwant %s...", i+1, got[i], want[i])
		}
	}
}

// TestManyErrorsCapped: a policy of 1,000 bad target IDs keeps every
// error, and Error writes the first MaxShownErrors in file order and a
// line counting the rest.
func TestManyErrorsCapped(t *testing.T) {
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = fmt.Sprintf("gfx%dz", i)
	}
	p := filepath.Join(t.TempDir(), "many.yaml")
	if err := os.WriteFile(p, []byte("version: 1\nvariants:\n  release:\n    targets:\n      - "+strings.Join(ids, "\n      - ")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadWith(p, Options{})
	var es Errors
	if !errors.As(err, &es) || len(es) != 1000 {
		t.Fatalf("errors: %d (%v)", len(es), err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != MaxShownErrors+1 {
		t.Fatalf("%d lines", len(lines))
	}
	if want := p + `:5: variants.release.targets[0]: invalid target ID "gfx0z": unknown processor "gfx0z" (did you mean gfx600?)`; lines[0] != want {
		t.Errorf("first line %q\nwant %q", lines[0], want)
	}
	if want := p + `:104: variants.release.targets[99]: invalid target ID "gfx99z": unknown processor "gfx99z" (did you mean gfx900?)`; lines[99] != want {
		t.Errorf("line 100 %q\nwant %q", lines[99], want)
	}
	if want := "... and 900 more errors in " + p; lines[100] != want {
		t.Errorf("last line %q, want %q", lines[100], want)
	}
	if got := Errors(es[:MaxShownErrors]).Error(); strings.Count(got, "\n") != MaxShownErrors-1 {
		t.Errorf("exactly MaxShownErrors errors: %d lines", strings.Count(got, "\n")+1)
	}
}

// BenchmarkManyErrors loads a policy of 20,000 bad target IDs (each gets
// a did-you-mean).
func BenchmarkManyErrors(b *testing.B) {
	ids := make([]string, 20000)
	for i := range ids {
		ids[i] = fmt.Sprintf("gfx%dz", i)
	}
	data := []byte("version: 1\nvariants:\n  release: {targets: [" + strings.Join(ids, ", ") + "]}\n")
	for range b.N {
		if _, err := Parse(data); err == nil {
			b.Fatal("no error")
		}
	}
}
