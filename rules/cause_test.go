package rules

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim"
)

// causeContext is a matrix of three processors, one or two agents each.
func causeContext() *Context {
	return &Context{
		Targets: []string{"gfx90a:xnack+", "gfx942:xnack+", "gfx950:xnack+"},
		Result: sim.Result{Agents: []*sim.Agent{
			{ISA: "gfx90a:sramecc+:xnack+", Targets: []string{"gfx90a:xnack+"}},
			{ISA: "gfx90a:sramecc-:xnack+", Targets: []string{"gfx90a:xnack+"}},
			{ISA: "gfx942:sramecc+:xnack+", Targets: []string{"gfx942:xnack+"}},
			{ISA: "gfx950:sramecc+:xnack+", Targets: []string{"gfx950:xnack+"}},
		}},
	}
}

// part is one processor's finding of a made-up rule whose message names
// the processor, its archive and its agents.
func causePart(proc string, agents ...string) finding.Finding {
	return finding.Finding{
		RuleID: "KPL099", Level: finding.LevelError, Group: "g",
		Message:  "bin/x#0-2 on " + strings.Join(agents, ", ") + ": lib/.kpack/g_" + proc + ".kpack (target " + proc + ":xnack+) lacks them.",
		Location: finding.Location{Path: "bin/x"},
		Related:  []finding.Location{{Path: "lib/.kpack/g_" + proc + ".kpack"}},
		Kernels:  []string{"bin/x#0", "bin/x#1", "bin/x#2"},
		Agents:   agents,
		Subject:  "g|bin/x|" + maskProcessors(proc+":xnack+"),
	}
}

// TestOneCauseOnce: the parts of one cause on three processors become one
// finding listing every target, agent, kernel and archive, worded slot
// by slot; the fingerprint names the cause, not a processor.
func TestOneCauseOnce(t *testing.T) {
	c := causeContext()
	parts := []finding.Finding{
		causePart("gfx950", "gfx950:sramecc+:xnack+"),
		causePart("gfx90a", "gfx90a:sramecc+:xnack+", "gfx90a:sramecc-:xnack+"),
		causePart("gfx942", "gfx942:sramecc+:xnack+"),
	}
	out := mergeCauses(c, parts, func(f finding.Finding) string { return f.Subject })
	if len(out) != 1 {
		t.Fatalf("%d findings, want 1: %+v", len(out), out)
	}
	m := out[0]
	wantMsg := "bin/x#0-2 on gfx90a:sramecc+:xnack+, gfx90a:sramecc-:xnack+, gfx942:sramecc+:xnack+, gfx950:sramecc+:xnack+: " +
		"lib/.kpack/g_gfx90a.kpack, lib/.kpack/g_gfx942.kpack, lib/.kpack/g_gfx950.kpack (target gfx90a:xnack+, gfx942:xnack+, gfx950:xnack+) lacks them."
	if m.Message != wantMsg {
		t.Errorf("message\n got %s\nwant %s", m.Message, wantMsg)
	}
	if want := []string{"gfx90a:xnack+", "gfx942:xnack+", "gfx950:xnack+"}; !reflect.DeepEqual(m.Targets, want) {
		t.Errorf("targets %v, want %v", m.Targets, want)
	}
	if len(m.Agents) != 4 || len(m.Kernels) != 3 {
		t.Errorf("agents %v kernels %v", m.Agents, m.Kernels)
	}
	var related []string
	for _, l := range m.Related {
		related = append(related, l.Path)
	}
	if want := []string{"lib/.kpack/g_gfx90a.kpack", "lib/.kpack/g_gfx942.kpack", "lib/.kpack/g_gfx950.kpack"}; !reflect.DeepEqual(related, want) {
		t.Errorf("related %v, want %v", related, want)
	}
	if m.Subject != "g|bin/x|gfx*:xnack+" {
		t.Errorf("subject %q", m.Subject)
	}
	// gfx942 alone has the same fingerprint: the cause's.
	alone := mergeCauses(c, []finding.Finding{causePart("gfx942", "gfx942:sramecc+:xnack+")}, func(f finding.Finding) string { return f.Subject })
	if finding.Fingerprint(alone[0]) != finding.Fingerprint(m) {
		t.Errorf("fingerprint of one part %s, of the cause %s", finding.Fingerprint(alone[0]), finding.Fingerprint(m))
	}
	if want := []string{"gfx942:xnack+"}; !reflect.DeepEqual(alone[0].Targets, want) {
		t.Errorf("targets of one part %v", alone[0].Targets)
	}
}

// TestCausesStayApart: another level, another cause key, or an empty key
// keeps findings apart; a rule's Cause replaces the Subject as the key.
func TestCausesStayApart(t *testing.T) {
	c := causeContext()
	a, b := causePart("gfx90a", "gfx90a:sramecc+:xnack+"), causePart("gfx942", "gfx942:sramecc+:xnack+")
	bySubject := func(f finding.Finding) string { return f.Subject }
	warn := b
	warn.Level = finding.LevelWarning
	if out := mergeCauses(c, []finding.Finding{a, warn}, bySubject); len(out) != 2 {
		t.Errorf("levels merged: %d findings", len(out))
	}
	other := b
	other.Subject = "g|bin/x|gfx*:xnack-"
	if out := mergeCauses(c, []finding.Finding{a, other}, bySubject); len(out) != 2 {
		t.Errorf("causes merged: %d findings", len(out))
	}
	none := func(finding.Finding) string { return "" }
	if out := mergeCauses(c, []finding.Finding{a, b}, none); len(out) != 2 {
		t.Errorf("empty cause merged: %d findings", len(out))
	}
	r := Rule{Cause: func(f finding.Finding) string { return f.Group }}
	if r.CauseOf(a) != "g" || (&Rule{}).CauseOf(a) != a.Subject {
		t.Errorf("CauseOf: %q, %q", r.CauseOf(a), (&Rule{}).CauseOf(a))
	}
	if out := mergeCauses(c, []finding.Finding{a, other}, r.CauseOf); len(out) != 1 {
		t.Errorf("a rule's cause key: %d findings, want 1", len(out))
	}
}

// TestMergeWordsFallback: messages that differ outside the processor
// words keep the first and name what the others add.
func TestMergeWordsFallback(t *testing.T) {
	a := finding.Finding{Message: "3 kernels for gfx90a are stripped.", Targets: []string{"gfx90a"}}
	b := finding.Finding{Message: "4 kernels for gfx942 are stripped.", Targets: []string{"gfx942"}}
	if got, want := mergeWords([]finding.Finding{a, b}), "3 kernels for gfx90a are stripped. The same cause also affects gfx942."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Many processors: the lists are capped.
	var parts []finding.Finding
	for _, p := range []string{"gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950", "gfx1100", "gfx1101"} {
		parts = append(parts, finding.Finding{Message: "kernels for " + p + " lack it."})
	}
	if got, want := mergeWords(parts), "kernels for gfx900, gfx906, gfx908, gfx90a, gfx940, gfx941, gfx942, gfx950 ... and 2 more lack it."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestMaskProcessors(t *testing.T) {
	for in, want := range map[string]string{
		"lib/.kpack/fft_test_gfx950:xnack+.kpack": "lib/.kpack/fft_test_gfx*:xnack+.kpack",
		"gfx9-4-generic:sramecc+":                 "gfx*:sramecc+",
		"gfx1151":                                 "gfx*",
		"fft_test":                                "fft_test",
	} {
		if got := maskProcessors(in); got != want {
			t.Errorf("maskProcessors(%q) = %q, want %q", in, got, want)
		}
	}
}
