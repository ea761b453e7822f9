package rules

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// TestClustersSplitByAgentSet: one cause, kernels with different agent
// sets become separate parts so each part's kernel x agent product is
// exactly what failed.
func TestClustersSplitByAgentSet(t *testing.T) {
	a1, a2 := &Agent{ISA: "gfx942:sramecc+:xnack-"}, &Agent{ISA: "gfx942:sramecc-:xnack-"}
	cs := newClusters()
	for _, o := range []*Outcome{
		{Key: "k#0", Agent: a1}, {Key: "k#0", Agent: a2},
		{Key: "k#1", Agent: a1}, {Key: "k#1", Agent: a2},
		{Key: "k#2", Agent: a1},
	} {
		cs.add(causeKey{}, func() string { return "cause" }, o)
	}
	parts := cs.parts()
	if len(parts) != 2 {
		t.Fatalf("got %d parts, want 2", len(parts))
	}
	got := map[string][]string{}
	for _, p := range parts {
		got[finding.CompactKernels(p.kernels)] = p.agents
	}
	want := map[string][]string{
		"k#0-1": {"gfx942:sramecc+:xnack-", "gfx942:sramecc-:xnack-"},
		"k#2":   {"gfx942:sramecc+:xnack-"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parts = %v, want %v", got, want)
	}
}

// TestClustersManyAgents: agent sets past 64 agents (several words per
// kernel, widened as agents appear) split and list like small ones.
func TestClustersManyAgents(t *testing.T) {
	cs := newClusters()
	var all []string
	for i := range 70 {
		a := &Agent{ISA: fmt.Sprintf("gfx%04d", i)}
		all = append(all, a.ISA)
		cs.add(causeKey{}, func() string { return "cause" }, &Outcome{Key: "k#0", Agent: a})
		if i == 69 {
			cs.add(causeKey{}, func() string { return "cause" }, &Outcome{Key: "k#1", Agent: a})
		}
	}
	parts := cs.parts()
	if len(parts) != 2 || !reflect.DeepEqual(parts[0].agents, all) || !reflect.DeepEqual(parts[0].kernels, []string{"k#0"}) ||
		!reflect.DeepEqual(parts[1].agents, []string{"gfx0069"}) || !reflect.DeepEqual(parts[1].kernels, []string{"k#1"}) {
		t.Errorf("parts = %+v", parts)
	}
}

func TestRegistry(t *testing.T) {
	all := All()
	if len(all) < 13 || all[0].ID != "KPL001" || all[10].ID != "KPL011" || all[11].ID != "KPL012" || all[len(all)-1].ID != "KPL013" {
		t.Fatalf("registry: %d rules, from %s to %s", len(all), all[0].ID, all[len(all)-1].ID)
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].ID >= all[i].ID {
			t.Errorf("registry not sorted at %s", all[i].ID)
		}
	}
	seen := map[string]bool{}
	for _, r := range all {
		if r.Name == "" || r.Title == "" || r.Text == "" || r.Help == "" || r.HelpURI == "" || r.Level.Rank() == 0 {
			t.Errorf("%s: incomplete documentation", r.ID)
		}
		if seen[r.Name] {
			t.Errorf("%s: duplicate name %s", r.ID, r.Name)
		}
		seen[r.Name] = true
	}
	if r, ok := ByID("KPL002"); !ok || r.Level != finding.LevelWarning || r.Name != "legacy-loader-shadowing" {
		t.Errorf("ByID(KPL002) = %+v", r)
	}
}
