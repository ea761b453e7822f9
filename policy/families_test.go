package policy

import (
	"slices"
	"strings"
	"testing"
)

// A TheRock family in targets: stands for its processors before the
// transforms run; a family agents: key gives each processor the agents
// that are its own; a transform that breaks a member is reported on it.
func TestVariantFamilies(t *testing.T) {
	p, err := Parse([]byte(`version: 1
variants:
  asan:
    targets: [gfx94X-all, gfx950-dcgpu, gfx1100]
    transform:
      - {match: "^(gfx942|gfx950)$", replace: "${1}:xnack+"}
    agents:
      gfx94X-all: [gfx942:sramecc+:xnack+]
`))
	if err != nil {
		t.Fatal(err)
	}
	v := p.Variants["asan"]
	if got := v.Apply(v.Targets); !slices.Equal(got, []string{"gfx942:xnack+", "gfx950:xnack+", "gfx1100"}) {
		t.Errorf("Apply = %v", got)
	}
	if got := v.AgentsFor("gfx942:xnack+"); !slices.Equal(got, []string{"gfx942:sramecc+:xnack+"}) {
		t.Errorf("AgentsFor(gfx942:xnack+) = %v", got)
	}
	if got := v.AgentsFor("gfx950:xnack+"); got != nil {
		t.Errorf("AgentsFor(gfx950:xnack+) = %v", got)
	}
	_, err = Parse([]byte("version: 1\nvariants:\n  r:\n    targets: [gfx110X-dgpu]\n    transform:\n      - {match: \"^gfx1102$\", replace: \"gfx1102:xnack+\"}\n"))
	if err == nil || !strings.Contains(err.Error(), `variants.r.transform[0]: turns target gfx1102 into "gfx1102:xnack+", which is not a valid target ID (processor gfx1102 does not support xnack)`) {
		t.Errorf("broken member: %v", err)
	}
}
