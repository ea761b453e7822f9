package machine

import (
	"reflect"
	"testing"
)

// TestOtherGeneration: ROCm 6.4 (the 7.2 row), an RX 9060 (gfx1200) and an
// RX 6600 (gfx1032) with the global HSA_OVERRIDE_GFX_VERSION=10.3.0
// (ROCm/legacy-rocm-build#5069): before rocm-systems PR 5686 libhsakmt
// applies it to every GPU, so the gfx1200 reports gfx1030 and is served
// gfx10 code; the fix is the per-node variable for the gfx1032 alone
// (KFD node 2: one CPU node first). 10.0 and newest refuse the
// cross-major override; 6.2 has no per-node variable, so the fix runs the
// gfx1032 in its own process.
func TestOtherGeneration(t *testing.T) {
	env := map[string]string{EnvOverride: "10.3.0"}
	tests := []struct {
		release string
		want    []bool
		fix     Fix
	}{
		{"7.2", []bool{true, false}, Fix{Kind: Override, Env: "HSA_OVERRIDE_GFX_VERSION_2=10.3.0", Unset: []string{EnvOverride}}},
		{"6.4", []bool{true, false}, Fix{Kind: Override, Env: "HSA_OVERRIDE_GFX_VERSION_2=10.3.0", Unset: []string{EnvOverride}}},
		{"7.13", []bool{true, false}, Fix{Kind: Override, Env: "HSA_OVERRIDE_GFX_VERSION_2=10.3.0", Unset: []string{EnvOverride}}},
		{"6.2", []bool{true, false}, Fix{Kind: HideDevice, Env: "ROCR_VISIBLE_DEVICES=1"}},
		{"10.0", []bool{false, false}, Fix{}},
		{"newest", []bool{false, false}, Fix{}},
	}
	for _, tt := range tests {
		m := newMachine(t, tt.release, env, "gfx1200", "gfx1032")
		p, err := NewPlan([]Machine{m})
		if err != nil {
			t.Fatal(err)
		}
		v := p.View(0, false)
		var got []bool
		for _, d := range v.Devices {
			got = append(got, d.OtherGeneration())
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: other generation %v, want %v (devices %q)", tt.release, got, tt.want, reported(*v))
		}
		if v.Devices[1].ISA.Processor != "gfx1030" {
			t.Errorf("%s: device 1 reports %s, want gfx1030", tt.release, v.Devices[1].ISA)
		}
		fixes := p.GenerationFixes(0, 0)
		if tt.fix.Kind == 0 && tt.fix.Env == "" {
			if fixes != nil {
				t.Errorf("%s: fixes %+v for a device that keeps its ISA", tt.release, fixes)
			}
			continue
		}
		if len(fixes) != 1 || fixes[0].Kind != tt.fix.Kind || fixes[0].Env != tt.fix.Env || !reflect.DeepEqual(fixes[0].Unset, tt.fix.Unset) || fixes[0].Text == "" {
			t.Errorf("%s: fixes %+v, want %+v", tt.release, fixes, tt.fix)
			continue
		}
		// the fix applied: no device of another generation, the gfx1032 still gfx1030
		m2, ok := applyFix(m, fixes[0])
		if !ok {
			t.Fatalf("%s: the fix does not apply", tt.release)
		}
		after := m2.View(false)
		for _, d := range after.Devices {
			if d.OtherGeneration() || (d.Real.Processor == "gfx1032" && d.ISA.Processor != "gfx1030") {
				t.Errorf("%s: after the fix %s reports %s", tt.release, d.Real, d.ISA)
			}
		}
	}
	// an override meant for no device of the process: unset it
	m := newMachine(t, "7.2", env, "gfx1200")
	p, _ := NewPlan([]Machine{m})
	if fixes := p.GenerationFixes(0, 0); len(fixes) != 1 || !reflect.DeepEqual(fixes[0].Unset, []string{EnvOverride}) || fixes[0].Env != "" {
		t.Errorf("lone gfx1200: %+v", fixes)
	}
	// a same-generation override (pytorch/pytorch#164346) is no finding
	m = newMachine(t, "7.2", map[string]string{EnvOverride: "11.0.0"}, "gfx1151")
	if v := m.View(false); v.Devices[0].OtherGeneration() {
		t.Errorf("gfx1151 -> gfx1100 counted as another generation")
	}
}
