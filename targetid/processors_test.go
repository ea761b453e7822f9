package targetid

import (
	"reflect"
	"sort"
	"testing"
)

// TestSpecMachValues pins the EF_AMDGPU_MACH values SPEC section 6 lists.
func TestSpecMachValues(t *testing.T) {
	want := map[string]uint32{
		"gfx900": 0x02c, "gfx906": 0x02f, "gfx908": 0x030, "gfx90a": 0x03f,
		"gfx942": 0x04c, "gfx950": 0x04f, "gfx1030": 0x036, "gfx1100": 0x041,
		"gfx1101": 0x046, "gfx1102": 0x047, "gfx1151": 0x04a, "gfx1200": 0x048,
		"gfx1201": 0x04e, "gfx9-4-generic": 0x05f, "gfx11-generic": 0x054,
	}
	for name, mach := range want {
		p, ok := LookupProcessor(name)
		if !ok || p.Mach != mach {
			t.Errorf("LookupProcessor(%s) = %#v, %v; want mach %#03x", name, p, ok, mach)
		}
		q, ok := ProcessorByMach(mach)
		if !ok || q.Name != name {
			t.Errorf("ProcessorByMach(%#03x) = %s, %v; want %s", mach, q.Name, ok, name)
		}
	}
}

func TestFeatureSupport(t *testing.T) {
	tests := []struct {
		names          []string
		xnack, sramecc bool
	}{
		{[]string{"gfx90a", "gfx942", "gfx950", "gfx906", "gfx908", "gfx940", "gfx941", "gfx9-4-generic"}, true, true},
		{[]string{"gfx801", "gfx810", "gfx900", "gfx902", "gfx904", "gfx909", "gfx90c", "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx9-generic", "gfx10-1-generic"}, true, false},
		{[]string{"gfx600", "gfx803", "gfx1030", "gfx1036", "gfx1100", "gfx1151", "gfx1200", "gfx1201", "gfx11-generic", "gfx12-5-generic"}, false, false},
	}
	for _, tt := range tests {
		for _, name := range tt.names {
			p, ok := LookupProcessor(name)
			if !ok || p.Xnack != tt.xnack || p.Sramecc != tt.sramecc {
				t.Errorf("%s: %#v, %v; want xnack=%v sramecc=%v", name, p, ok, tt.xnack, tt.sramecc)
			}
		}
	}
}

func TestTableIsConsistent(t *testing.T) {
	names := map[string]bool{}
	machs := map[uint32]string{}
	for _, p := range processorTable {
		if names[p.Name] {
			t.Errorf("duplicate name %s", p.Name)
		}
		if other, dup := machs[p.Mach]; dup {
			t.Errorf("mach %#03x used by %s and %s", p.Mach, other, p.Name)
		}
		if p.Mach < 0x20 || p.Mach > 0xff {
			t.Errorf("%s: mach %#x outside AMDGCN range", p.Name, p.Mach)
		}
		if p.Family != "" && !GenericCovers(p.Family, p.Name) {
			t.Errorf("%s: family %s is not a generic processor", p.Name, p.Family)
		}
		if p.Generic != (p.GenericVersion > 0) {
			t.Errorf("%s: Generic %v but GenericVersion %d", p.Name, p.Generic, p.GenericVersion)
		}
		names[p.Name], machs[p.Mach] = true, p.Name
	}
}

func TestProcessorsSorted(t *testing.T) {
	ps := Processors()
	if len(ps) != len(processorTable) {
		t.Fatalf("Processors() has %d rows, table %d", len(ps), len(processorTable))
	}
	if !sort.SliceIsSorted(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name }) {
		t.Error("Processors() not sorted by name")
	}
	ps[0].Name = "mutated"
	if Processors()[0].Name == "mutated" {
		t.Error("Processors() shares the table")
	}
}

func TestLookupUnknown(t *testing.T) {
	for _, name := range []string{"", "gfx9999", "GFX942", "tahiti", "gfx942:xnack+"} {
		if p, ok := LookupProcessor(name); ok {
			t.Errorf("LookupProcessor(%q) = %#v", name, p)
		}
	}
	for _, mach := range []uint32{0, 0x001, 0x027, 0x04d, 0x056, 0x100} {
		if p, ok := ProcessorByMach(mach); ok {
			t.Errorf("ProcessorByMach(%#x) = %s", mach, p.Name)
		}
	}
}

func TestGenericCovers(t *testing.T) {
	tests := []struct {
		generic, p string
		want       bool
	}{
		{"gfx9-4-generic", "gfx942", true},
		{"gfx9-4-generic", "gfx950", true},
		{"gfx9-4-generic", "gfx90a", false},
		{"gfx9-generic", "gfx906", true},
		{"gfx9-generic", "gfx908", false},
		{"gfx9-generic", "gfx90a", false},
		{"gfx10-1-generic", "gfx1013", true},
		{"gfx10-3-generic", "gfx1036", true},
		{"gfx10-3-generic", "gfx1010", false},
		{"gfx11-generic", "gfx1100", true},
		{"gfx11-generic", "gfx1153", true},
		{"gfx11-generic", "gfx1200", false},
		{"gfx12-generic", "gfx1201", true},
		{"gfx12-5-generic", "gfx1250", true},
		{"gfx11-generic", "gfx11-generic", true},
		{"gfx942", "gfx942", false},
		{"nope-generic", "gfx942", false},
		{"gfx11-generic", "", false},
	}
	for _, tt := range tests {
		if got := GenericCovers(tt.generic, tt.p); got != tt.want {
			t.Errorf("GenericCovers(%s, %s) = %v, want %v", tt.generic, tt.p, got, tt.want)
		}
	}
}

func TestGenericMembers(t *testing.T) {
	tests := map[string][]string{
		"gfx11-generic":  {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"},
		"gfx9-4-generic": {"gfx940", "gfx941", "gfx942", "gfx950"},
		"gfx9-generic":   {"gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"},
		"gfx942":         nil,
	}
	for generic, want := range tests {
		if got := GenericMembers(generic); !reflect.DeepEqual(got, want) {
			t.Errorf("GenericMembers(%s) = %q, want %q", generic, got, want)
		}
	}
}
