package targetid

import (
	"reflect"
	"testing"
)

func TestCompatibleTargets(t *testing.T) {
	tests := []struct {
		agent string
		want  []string
	}{
		// SPEC 4.4 example, exactly.
		{"gfx942:sramecc+:xnack-", []string{"gfx942:sramecc+:xnack-", "gfx942:sramecc+", "gfx942:xnack-", "gfx942"}},
		// Written order is kept: the right-most feature is dropped first.
		{"gfx942:xnack-:sramecc+", []string{"gfx942:xnack-:sramecc+", "gfx942:xnack-", "gfx942:sramecc+", "gfx942"}},
		{"gfx950:sramecc+:xnack+", []string{"gfx950:sramecc+:xnack+", "gfx950:sramecc+", "gfx950:xnack+", "gfx950"}},
		{"gfx90a:xnack-", []string{"gfx90a:xnack-", "gfx90a"}},
		{"gfx900:xnack+", []string{"gfx900:xnack+", "gfx900"}},
		{"gfx1100", []string{"gfx1100"}},
		{"amdgcn-amd-amdhsa--gfx1151", []string{"gfx1151"}},
	}
	for _, tt := range tests {
		got := strs(CompatibleTargets(mustParse(t, tt.agent)))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("CompatibleTargets(%s) = %q, want %q", tt.agent, got, tt.want)
		}
	}
}

func TestCompatibleTargetsHandBuilt(t *testing.T) {
	dup := ID{Processor: "gfx90a", Features: []Feature{{Xnack, true}, {Xnack, false}}}
	if got, want := strs(CompatibleTargets(dup)), []string{"gfx90a:xnack+", "gfx90a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("duplicate features: got %q, want %q", got, want)
	}
	many := ID{Processor: "p"}
	for i := 0; i < 70; i++ {
		many.Features = append(many.Features, Feature{Name: string(rune('a'+i%26)) + string(rune('a'+i/26)), Enabled: true})
	}
	if got := len(CompatibleTargets(many)); got != 1<<maxPowerSetFeatures {
		t.Errorf("70 features: %d targets, want %d", got, 1<<maxPowerSetFeatures)
	}
	if got := strs(CompatibleTargets(ID{})); !reflect.DeepEqual(got, []string{""}) {
		t.Errorf("zero ID: got %q", got)
	}
}

func TestCompatible(t *testing.T) {
	tests := []struct {
		code, agent string
		want        bool
	}{
		{"gfx942", "gfx942:sramecc+:xnack-", true},
		{"gfx942:sramecc+", "gfx942:sramecc+:xnack-", true},
		{"gfx942:xnack-", "gfx942:sramecc+:xnack-", true},
		{"gfx942:xnack-:sramecc+", "gfx942:sramecc+:xnack-", true},
		{"gfx942:xnack+", "gfx942:sramecc+:xnack-", false},
		{"gfx942:sramecc-", "gfx942:sramecc+:xnack-", false},
		{"gfx950", "gfx950:sramecc+:xnack+", true},
		{"gfx950:xnack+", "gfx950:sramecc+:xnack+", true},
		{"gfx950:xnack-", "gfx950:sramecc+:xnack+", false},
		{"gfx90a:xnack+", "gfx90a:sramecc-:xnack-", false},
		{"gfx942", "gfx950:sramecc+:xnack-", false},
		{"gfx1100", "gfx1101", false},
		{"gfx1100", "gfx1100", true},
		// Agent says "any" (not fully specified): LLVM rejects a specific code object.
		{"gfx942:xnack-", "gfx942", false},
		// Generic code objects never match by Compatible.
		{"gfx9-4-generic", "gfx942:sramecc+:xnack-", false},
	}
	for _, tt := range tests {
		if got := Compatible(mustParse(t, tt.code), mustParse(t, tt.agent)); got != tt.want {
			t.Errorf("Compatible(%s, %s) = %v, want %v", tt.code, tt.agent, got, tt.want)
		}
	}
}

func TestCompatibleOrGeneric(t *testing.T) {
	tests := []struct {
		code, agent string
		want        bool
	}{
		{"gfx9-4-generic", "gfx942:sramecc+:xnack-", true},
		{"gfx9-4-generic:xnack+", "gfx950:sramecc+:xnack+", true},
		{"gfx9-4-generic:xnack+", "gfx950:sramecc+:xnack-", false},
		{"gfx9-4-generic", "gfx90a:sramecc+:xnack-", false},
		{"gfx11-generic", "gfx1151", true},
		{"gfx11-generic", "gfx1201", false},
		{"gfx942", "gfx942:sramecc+:xnack-", true},
	}
	for _, tt := range tests {
		if got := CompatibleOrGeneric(mustParse(t, tt.code), mustParse(t, tt.agent)); got != tt.want {
			t.Errorf("CompatibleOrGeneric(%s, %s) = %v, want %v", tt.code, tt.agent, got, tt.want)
		}
	}
}

// TestCompatibleTargetStrings follows the runtime's string-level expansion:
// entries HIP builds that are not valid target IDs still expand.
func TestCompatibleTargetStrings(t *testing.T) {
	tests := map[string][]string{
		"gfx942:sramecc+:xnack-":                   {"gfx942:sramecc+:xnack-", "gfx942:sramecc+", "gfx942:xnack-", "gfx942"},
		"amdgcn-amd-amdhsa--gfx1100":               {"gfx1100"},
		"gfx9-generic:sramecc+:xnack-":             {"gfx9-generic:sramecc+:xnack-", "gfx9-generic:sramecc+", "gfx9-generic:xnack-", "gfx9-generic"},
		"amdgcn-amd-amdhsa--gfx9-4-generic:xnack+": {"gfx9-4-generic:xnack+", "gfx9-4-generic"},
		"gfx900::xnack+":                           {"gfx900:xnack+", "gfx900"},
		"":                                         nil,
		":xnack+":                                  nil,
	}
	for in, want := range tests {
		if got := CompatibleTargetStrings(in); !reflect.DeepEqual(got, want) {
			t.Errorf("CompatibleTargetStrings(%q) = %q, want %q", in, got, want)
		}
	}
}
