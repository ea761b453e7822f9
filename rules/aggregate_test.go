package rules

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim"
)

// TestClustersSplitByAgentSet: one cause, kernels with different agent
// sets become separate parts so each part's kernel x agent product is
// exactly what failed.
func TestClustersSplitByAgentSet(t *testing.T) {
	a1, a2 := &sim.Agent{ISA: "gfx942:sramecc+:xnack-"}, &sim.Agent{ISA: "gfx942:sramecc-:xnack-"}
	cs := newClusters()
	for _, o := range []*sim.Outcome{
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
		a := &sim.Agent{ISA: fmt.Sprintf("gfx%04d", i)}
		all = append(all, a.ISA)
		cs.add(causeKey{}, func() string { return "cause" }, &sim.Outcome{Key: "k#0", Agent: a})
		if i == 69 {
			cs.add(causeKey{}, func() string { return "cause" }, &sim.Outcome{Key: "k#1", Agent: a})
		}
	}
	parts := cs.parts()
	if len(parts) != 2 || !reflect.DeepEqual(parts[0].agents, all) || !reflect.DeepEqual(parts[0].kernels, []string{"k#0"}) ||
		!reflect.DeepEqual(parts[1].agents, []string{"gfx0069"}) || !reflect.DeepEqual(parts[1].kernels, []string{"k#1"}) {
		t.Errorf("parts = %+v", parts)
	}
}
