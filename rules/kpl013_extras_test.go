package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
)

func extrasContext(targets []string, present []string, extras ...kerneldb.Extra) *Context {
	return &Context{Targets: targets, TargetSource: "--target", Databases: &kerneldb.Result{
		Extras:        []kerneldb.WheelExtras{{Wheel: "rocm", Metadata: "rocm-1.dist-info/METADATA", Extras: extras}},
		Distributions: present,
	}}
}

// A family extra is judged on the family's processors the run targets;
// a family wheel covers its processors; a generic target is covered by a
// member's wheel; a wheel among the inputs is said to be.
func TestCheckExtras(t *testing.T) {
	fam := kerneldb.Extra{Name: "device-gfx110x-all", Declared: true, Requires: []string{"rocm-sdk-device-gfx1100", "rocm-sdk-device-gfx1101", "rocm-sdk-core"}}
	fs := checkExtras(extrasContext([]string{"gfx942", "gfx1102", "gfx1101"}, nil, fam))
	if len(fs) != 1 || strings.Join(fs[0].Targets, ",") != "gfx1102" || strings.Join(fs[0].Missing, ",") != "rocm-sdk-device-gfx1102" ||
		!strings.Contains(fs[0].Message, "extra device-gfx110x-all (rocm-1.dist-info/METADATA), meant for TheRock family gfx110X-all (gfx1100, gfx1101, gfx1102, gfx1103), requires no rocm-sdk-device-gfx1102") ||
		!strings.Contains(fs[0].Message, "It provides no extra device-gfx1102 either") {
		t.Errorf("family extra: %+v", fs)
	}

	libs := kerneldb.Extra{Name: "libraries-all", Requires: []string{"rocm-sdk-libraries-gfx94X-dcgpu", "rocm-sdk-libraries-gfx120X-all"}}
	if fs := checkExtras(extrasContext([]string{"gfx942:xnack+", "gfx1201"}, nil, libs)); len(fs) != 0 {
		t.Errorf("family wheels cover gfx942 and gfx1201: %+v", fs)
	}
	fs = checkExtras(extrasContext([]string{"gfx942:xnack+", "gfx950"}, []string{"rocm-sdk-libraries-gfx950"}, libs))
	if len(fs) != 1 || strings.Join(fs[0].Missing, ",") != "rocm-sdk-libraries-gfx950" ||
		!strings.Contains(fs[0].Message, "The inputs hold them, so this run checked their code") {
		t.Errorf("gfx950: %+v", fs)
	}

	all := kerneldb.Extra{Name: "device-all", Requires: []string{"rocm-sdk-device-gfx1100", "rocm-sdk-device-gfx1151"}}
	if fs := checkExtras(extrasContext([]string{"gfx11-generic", "gfx1151"}, nil, all)); len(fs) != 0 {
		t.Errorf("gfx11-generic: %+v", fs)
	}
	// Extras that name no target or hold no device wheel say nothing.
	for _, e := range []kerneldb.Extra{{Name: "libraries", Requires: []string{"rocm-sdk-libraries"}}, {Name: "devel-all", Requires: []string{"rocm-sdk-devel"}},
		{Name: "device-gfx942", Requires: []string{"rocm-sdk-device-gfx942"}}} {
		if fs := checkExtras(extrasContext([]string{"gfx950"}, nil, e)); len(fs) != 0 {
			t.Errorf("%s: %+v", e.Name, fs)
		}
	}
}

func TestDeviceWheelName(t *testing.T) {
	for in, want := range map[string]string{
		"rocm-sdk-device-gfx942":          "rocm-sdk-device-|gfx942",
		"Rocm_SDK_Device_GFX942":          "rocm-sdk-device-|gfx942",
		"rocm-sdk-libraries-gfx94X-dcgpu": "rocm-sdk-libraries-|gfx94x-dcgpu",
		"amd-torch-device-gfx11-generic":  "amd-torch-device-|gfx11-generic",
		"rocm-sdk-device-dcgpu-all":       "rocm-sdk-device-|dcgpu-all",
		"rocm-sdk-core":                   "",
		"rocm-sdk-device-gfx9999":         "",
		"gfx942":                          "",
	} {
		p, s, ok := deviceWheel(in)
		if got := p + "|" + s; ok != (want != "") || ok && got != want {
			t.Errorf("deviceWheel(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	for in, want := range map[string]string{"device-all": "device|all", "device-gfx94x-dcgpu": "device|gfx94X-dcgpu", "libraries-dcgpu-all": "libraries|dcgpu-all",
		"device-gfx110x-all": "device|gfx110X-all", "-all": "", "device": "", "device-gfx942": ""} {
		kind, fam, ok := extraScope(in)
		got := ""
		if ok {
			got = kind + "|all"
			if fam != nil {
				got = kind + "|" + fam.Name
			}
		}
		if got != want {
			t.Errorf("extraScope(%q) = %q, want %q", in, got, want)
		}
	}
}

// A METADATA naming thousands of -all extras gives at most
// MaxFindingsPerFile+1 findings (capPerFile merges the last).
func TestCheckExtrasCap(t *testing.T) {
	var extras []kerneldb.Extra
	for i := range 4096 {
		extras = append(extras, kerneldb.Extra{Name: fmt.Sprintf("k%04d-all", i), Requires: []string{"rocm-sdk-device-gfx1100"}})
	}
	if fs := checkExtras(extrasContext([]string{"gfx942"}, nil, extras...)); len(fs) != MaxFindingsPerFile+1 {
		t.Errorf("%d findings", len(fs))
	}
}
