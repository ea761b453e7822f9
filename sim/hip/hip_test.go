package hip

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// TestArchList follows ExtractKpackBinary (rocm-systems clr hip_fatbin.cpp).
func TestArchList(t *testing.T) {
	tests := map[string][]string{
		"gfx942:sramecc+:xnack-": {"gfx942:sramecc+:xnack-", "gfx9-4-generic:sramecc+:xnack-"},
		"gfx90a:sramecc+:xnack-": {"gfx90a:sramecc+:xnack-"},
		"gfx1030":                {"gfx1030", "gfx10-3-generic"},
		"gfx1201":                {"gfx1201", "gfx12-generic"},
		"gfx90c":                 {"gfx90c", "gfx9-generic"},
		"gfx906:sramecc+:xnack-": {"gfx906:sramecc+:xnack-", "gfx9-generic:sramecc+:xnack-"},
	}
	for agent, want := range tests {
		if got := ArchList(targetid.MustParse(agent)); !reflect.DeepEqual(got, want) {
			t.Errorf("ArchList(%s) = %q, want %q", agent, got, want)
		}
	}
}

// TestLoadEffect follows rocm-systems PR 9167.
func TestLoadEffect(t *testing.T) {
	tests := map[kpack.Code]string{
		kpack.Success:             "",
		kpack.ArchiveNotFound:     ErrNoBinaryForGpu,
		kpack.ArchNotFound:        ErrNoBinaryForGpu,
		kpack.KernelNotFound:      ErrInvalidImage,
		kpack.DecompressionFailed: ErrInvalidImage,
		kpack.NotImplemented:      ErrInvalidImage,
		kpack.Abort:               Aborted,
	}
	for c, want := range tests {
		e := LoadEffect(c)
		if e.Error != want || (want != "") != (e.Text != "") {
			t.Errorf("LoadEffect(%v) = %+v, want error %q", c, e, want)
		}
	}
}

func TestSelectEntry(t *testing.T) {
	entries := []string{
		"host-x86_64-unknown-linux-gnu-",
		"hipv4-amdgcn-amd-amdhsa--gfx9-4-generic:xnack-",
		"hipv4-amdgcn-amd-amdhsa--gfx942:xnack+",
		"hipv4-amdgcn-amd-amdhsa--gfx942",
		"hipv4-amdgcn-amd-amdhsa--gfx1100",
	}
	tests := []struct {
		agent string
		want  int
		ok    bool
	}{
		{"gfx942:sramecc+:xnack+", 2, true},
		{"gfx942:sramecc+:xnack-", 3, true}, // own processor before generic
		{"gfx950:sramecc+:xnack-", 1, true}, // generic member
		{"gfx950:sramecc+:xnack+", -1, false},
		{"gfx1100", 4, true},
		{"gfx1030", -1, false},
	}
	for _, tt := range tests {
		got, ok := SelectEntry(entries, targetid.MustParse(tt.agent))
		if got != tt.want || ok != tt.ok {
			t.Errorf("SelectEntry(%s) = %d, %v; want %d, %v", tt.agent, got, ok, tt.want, tt.ok)
		}
	}
	// SPIR-V loads on any device, after native code.
	withSPIRV := append(entries, "hipv4-spirv64-amd-amdhsa--amdgcnspirv")
	if got, ok := SelectEntry(withSPIRV, targetid.MustParse("gfx1030")); !ok || got != 5 {
		t.Errorf("SPIR-V on gfx1030: %d, %v", got, ok)
	}
	if got, _ := SelectEntry(withSPIRV, targetid.MustParse("gfx1100")); got != 4 {
		t.Errorf("native before SPIR-V on gfx1100: %d", got)
	}
	long := BundleEntryPrefix + strings.Repeat("x", 1024)
	if _, ok := EntryTarget(long); ok {
		t.Error("a 1 KiB entry target parsed")
	}
}

func TestEntryPick(t *testing.T) {
	ids := []string{"host-x86_64-unknown-linux-gnu-", BundleEntryPrefix + "gfx11-generic", BundleEntryPrefix + "gfx1100", spirvEntries[0]}
	for _, tc := range []struct {
		agent string
		ids   []string
		i     int
		why   string
	}{
		{"gfx1100", ids, 2, PickNative},
		{"gfx1101", ids, 1, PickGeneric},
		{"gfx942:sramecc+:xnack-", ids, 3, PickSPIRV},
		{"gfx942:sramecc+:xnack-", ids[:3], -1, PickNone},
	} {
		a, _ := targetid.Parse(tc.agent)
		if i, why := EntryPick(tc.ids, a); i != tc.i || why != tc.why {
			t.Errorf("%s: %d %s, want %d %s", tc.agent, i, why, tc.i, tc.why)
		}
	}
}
