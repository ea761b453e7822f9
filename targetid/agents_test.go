package targetid

import (
	"reflect"
	"testing"
)

func TestAgentISAs(t *testing.T) {
	tests := []struct {
		target string
		want   []string
	}{
		{"gfx950:xnack+", []string{"gfx950:sramecc+:xnack+", "gfx950:sramecc-:xnack+"}},
		{"gfx1100", []string{"gfx1100"}},
		{"gfx900", []string{"gfx900:xnack+", "gfx900:xnack-"}},
		{"gfx942", []string{"gfx942:sramecc+:xnack+", "gfx942:sramecc+:xnack-", "gfx942:sramecc-:xnack+", "gfx942:sramecc-:xnack-"}},
		{"gfx942:xnack-:sramecc+", []string{"gfx942:sramecc+:xnack-"}},
		{"gfx90a:sramecc-", []string{"gfx90a:sramecc-:xnack+", "gfx90a:sramecc-:xnack-"}},
		{"gfx1250", []string{"gfx1250:sramecc+", "gfx1250:sramecc-"}},
		// APUs that report the bare ISA (rocm-libraries PR 11211, rocm-systems PRs 2669, 8237).
		{"gfx90c", []string{"gfx90c"}},
		{"gfx902", []string{"gfx902"}},
		{"gfx909", []string{"gfx909"}},
		// Generic targets expand to their current members (gfx940/gfx941 are retired).
		{"gfx12-generic", []string{"gfx1200", "gfx1201"}},
		{"gfx10-3-generic", []string{"gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"}},
		{"gfx9-4-generic:xnack+", []string{"gfx942:sramecc+:xnack+", "gfx942:sramecc-:xnack+", "gfx950:sramecc+:xnack+", "gfx950:sramecc-:xnack+"}},
		// Bare-ISA members accept no xnack- code object, so they drop out.
		{"gfx9-generic:xnack-", []string{"gfx900:xnack-", "gfx904:xnack-", "gfx906:sramecc+:xnack-", "gfx906:sramecc-:xnack-"}},
		{"gfx9-generic", []string{"gfx900:xnack+", "gfx900:xnack-", "gfx902", "gfx904:xnack+", "gfx904:xnack-", "gfx906:sramecc+:xnack+", "gfx906:sramecc+:xnack-", "gfx906:sramecc-:xnack+", "gfx906:sramecc-:xnack-", "gfx909", "gfx90c"}},
	}
	for _, tt := range tests {
		target := mustParse(t, tt.target)
		isas := AgentISAs(target)
		if got := strs(isas); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("AgentISAs(%s) = %q, want %q", tt.target, got, tt.want)
		}
		for _, isa := range isas {
			if !isa.IsCanonical() {
				t.Errorf("AgentISAs(%s) gave %s: not canonical", tt.target, isa)
			}
		}
	}
}

func TestAgentISAsNil(t *testing.T) {
	for _, id := range []ID{
		{},
		{Processor: "gfx9999"},
		{Processor: "gfx1100", Features: []Feature{{Xnack, true}}},
		// A gfx90c device reports the bare ISA: no agent accepts xnack+ code.
		{Processor: "gfx90c", Features: []Feature{{Xnack, true}}},
	} {
		if got := AgentISAs(id); got != nil {
			t.Errorf("AgentISAs(%#v) = %q, want nil", id, strs(got))
		}
	}
}

func TestReportsBareISA(t *testing.T) {
	for proc, want := range map[string]bool{"gfx90c": true, "gfx902": true, "gfx909": true, "gfx900": false, "gfx942": false, "gfx9-generic": false} {
		src, ok := ReportsBareISA(proc)
		if ok != want || ok && src == "" {
			t.Errorf("ReportsBareISA(%s) = %q, %v; want %v with a source", proc, src, ok, want)
		}
	}
}

// TestGenericTarget follows HIP's TargetToGeneric (clr hip_fatbin.cpp): the
// family's generic processor with the agent's settings re-appended.
func TestGenericTarget(t *testing.T) {
	tests := map[string]string{
		"gfx942:sramecc+:xnack-": "gfx9-4-generic:sramecc+:xnack-",
		"gfx950:sramecc+:xnack+": "gfx9-4-generic:sramecc+:xnack+",
		"gfx906:sramecc-:xnack+": "gfx9-generic:sramecc-:xnack+", // HIP re-appends sramecc even so
		"gfx90c":                 "gfx9-generic",
		"gfx900:xnack-":          "gfx9-generic:xnack-",
		"gfx1030":                "gfx10-3-generic",
		"gfx1151":                "gfx11-generic",
		"gfx1201":                "gfx12-generic",
		"gfx1250:sramecc+":       "", // not in HIP's TargetGenericMap
		"gfx940:sramecc+:xnack-": "",
		"gfx90a:sramecc+:xnack-": "",
		"gfx908:sramecc+:xnack-": "",
		"gfx11-generic":          "",
	}
	for agent, want := range tests {
		g, ok := GenericTarget(mustParse(t, agent))
		if got := g.String(); ok != (want != "") || ok && got != want {
			t.Errorf("GenericTarget(%s) = %q, %v; want %q", agent, got, ok, want)
		}
	}
}

func TestIsDeviceISA(t *testing.T) {
	tests := map[string]bool{
		"gfx942:sramecc+:xnack-":         true,
		"gfx942:xnack-:sramecc+":         true, // order does not matter
		"gfx942":                         false,
		"gfx942:xnack+":                  false,
		"gfx1100":                        true,
		"gfx90c":                         true,
		"gfx90c:xnack+":                  false,
		"gfx900:xnack-":                  true,
		"gfx11-generic":                  false,
		"gfx9-4-generic:sramecc+:xnack+": false,
	}
	for s, want := range tests {
		if got := IsDeviceISA(mustParse(t, s)); got != want {
			t.Errorf("IsDeviceISA(%s) = %v, want %v", s, got, want)
		}
	}
}
