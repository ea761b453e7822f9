package targetid

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestFamiliesFromTheRock checks the generated table against the lines of
// ROCm/TheRock cmake/therock_amdgpu_targets.cmake at therock-7.14
// (418cd5f63abb7a604bad5874cd7b2e29334e640f) that declare the processors
// (line numbers of that file; the table was generated from it).
func TestFamiliesFromTheRock(t *testing.T) {
	if TheRockRef != "therock-7.14" || TheRockCommit != "418cd5f63abb7a604bad5874cd7b2e29334e640f" {
		t.Fatalf("table regenerated (%s %s): update the expectations below from the new file's lines", TheRockRef, TheRockCommit)
	}
	for _, tc := range []struct {
		family string
		procs  []string
		lines  []int
	}{
		// line 93: therock_add_amdgpu_target(gfx942 "MI300A/MI300X CDNA" FAMILY dcgpu-all gfx94X-all gfx94X-dcgpu)
		{"gfx94X-dcgpu", []string{"gfx942"}, []int{93}},
		{"gfx94X-all", []string{"gfx942"}, []int{93}},
		// line 96: therock_add_amdgpu_target(gfx950 "MI350X/MI355X CDNA" FAMILY dcgpu-all gfx950-all gfx950-dcgpu)
		{"gfx950-dcgpu", []string{"gfx950"}, []int{96}},
		{"dcgpu-all", []string{"gfx908", "gfx90a", "gfx942", "gfx950", "gfx1250"}, []int{81, 87, 93, 96, 260}},
		// lines 194-209: gfx1100, gfx1101, gfx1102 (dgpu), gfx1103 (igpu)
		{"gfx110X-all", []string{"gfx1100", "gfx1101", "gfx1102", "gfx1103"}, []int{194, 199, 204, 209}},
		{"gfx110X-dgpu", []string{"gfx1100", "gfx1101", "gfx1102"}, []int{194, 199, 204}},
		{"gfx110X-igpu", []string{"gfx1103"}, []int{209}},
		// lines 220-239: gfx1150 .. gfx1153
		{"gfx115X-igpu", []string{"gfx1150", "gfx1151", "gfx1152", "gfx1153"}, []int{220, 227, 232, 239}},
		// lines 248, 253: FAMILY dgpu-all gfx120X-all (no gfx120X-dgpu)
		{"gfx120X-all", []string{"gfx1200", "gfx1201"}, []int{248, 253}},
		{"gfx103X-dgpu", []string{"gfx1030", "gfx1031", "gfx1032", "gfx1034"}, []int{129, 138, 147, 165}},
		{"gfx103X-igpu", []string{"gfx1033", "gfx1035", "gfx1036"}, []int{156, 174, 183}},
		{"igpu-all", []string{"gfx90c", "gfx1033", "gfx1035", "gfx1036", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"},
			[]int{59, 156, 174, 183, 209, 220, 227, 232, 239}},
		{"gfx125X-dcgpu", []string{"gfx1250"}, []int{260}},
	} {
		f, ok := LookupFamily(tc.family)
		if !ok {
			t.Errorf("no family %s", tc.family)
			continue
		}
		if !slices.Equal(f.Processors, tc.procs) || !slices.Equal(f.Lines, tc.lines) {
			t.Errorf("%s = %v at lines %v, want %v at %v", tc.family, f.Processors, f.Lines, tc.procs, tc.lines)
		}
	}
	var names []string
	for _, f := range Families() {
		names = append(names, f.Name)
	}
	want := []string{"dcgpu-all", "dgpu-all", "gfx101X-all", "gfx101X-dgpu", "gfx103X-all", "gfx103X-dgpu", "gfx103X-igpu",
		"gfx110X-all", "gfx110X-dgpu", "gfx110X-igpu", "gfx115X-all", "gfx115X-igpu", "gfx120X-all", "gfx125X-all", "gfx125X-dcgpu",
		"gfx900-dgpu", "gfx906-dgpu", "gfx908-dcgpu", "gfx90a-dcgpu", "gfx90c-igpu", "gfx94X-all", "gfx94X-dcgpu",
		"gfx950-all", "gfx950-dcgpu", "igpu-all"}
	if !slices.Equal(names, want) {
		t.Errorf("families %v\nwant %v", names, want)
	}
	if p, ok := TheRockProduct("gfx942"); !ok || p != "MI300A/MI300X CDNA" {
		t.Errorf("gfx942 product %q %v", p, ok)
	}
	if _, ok := TheRockProduct("gfx1013"); ok {
		t.Error("TheRock declares no gfx1013")
	}
	for _, name := range []string{"gfx94x-dcgpu", "gfx942", "GFX94X-DCGPU", ""} {
		if _, ok := LookupFamily(name); ok {
			t.Errorf("LookupFamily(%q) found one", name)
		}
	}
}

// Every processor TheRock declares is a current, non-generic processor of
// LLVM's table, and no family name is a target ID.
func TestFamiliesAreProcessors(t *testing.T) {
	for _, tr := range theRockTargets {
		p, ok := LookupProcessor(tr.Processor)
		if !ok || p.Generic || p.Retired {
			t.Errorf("TheRock's %s (line %d) is not a current processor of the table", tr.Processor, tr.Line)
		}
	}
	for _, f := range Families() {
		if _, err := Parse(f.Name); err == nil {
			t.Errorf("family %s parses as a target ID", f.Name)
		}
	}
	// Families returns copies.
	Families()[0].Processors[0] = "x"
	if f, _ := LookupFamily("dcgpu-all"); f.Processors[0] != "gfx908" {
		t.Error("Families leaked its table")
	}
}

func TestExpandTarget(t *testing.T) {
	ids, fam, err := ExpandTarget("gfx110X-all")
	if err != nil || fam == nil || fam.Name != "gfx110X-all" || len(ids) != 4 || ids[3].String() != "gfx1103" {
		t.Fatalf("gfx110X-all: %v %v %v", ids, fam, err)
	}
	if fam.String() != "gfx110X-all (gfx1100, gfx1101, gfx1102, gfx1103)" {
		t.Errorf("String %q", fam.String())
	}
	ids, fam, err = ExpandTarget("gfx942:xnack+")
	if err != nil || fam != nil || len(ids) != 1 || ids[0].String() != "gfx942:xnack+" {
		t.Errorf("gfx942:xnack+: %v %v %v", ids, fam, err)
	}
	_, _, err = ExpandTarget("gfx94X-dcgpu:xnack+")
	var e *Error
	if !errors.As(err, &e) || e.Error() != `invalid target ID "gfx94X-dcgpu:xnack+": gfx94X-dcgpu is a TheRock target family (gfx942), `+
		`which takes no triple or feature settings: name its processors with the settings (e.g. gfx942:xnack+)` {
		t.Errorf("family with features: %v", err)
	}
	if _, _, err := ExpandTarget("gfx94X-dcgpux"); err == nil || !strings.Contains(err.Error(), `unknown processor "gfx94X-dcgpux"`) {
		t.Errorf("unknown: %v", err)
	}
	out, used := ExpandTargets([]string{"gfx942", "gfx94X-dcgpu", "gfx120X-all", "bogus", "gfx120X-all"})
	if !slices.Equal(out, []string{"gfx942", "gfx1200", "gfx1201", "bogus"}) || len(used) != 2 || used[0].Name != "gfx94X-dcgpu" || used[1].Name != "gfx120X-all" {
		t.Errorf("ExpandTargets: %v %v", out, used)
	}
}

// Parse names a family where one processor is wanted (an agent, a
// machine's device).
func TestParseFamily(t *testing.T) {
	for in, want := range map[string]string{
		"gfx94X-dcgpu": `invalid target ID "gfx94X-dcgpu": gfx94X-dcgpu is a TheRock target family (a set of processors: gfx942), not one processor's target ID: write gfx942 here, with its feature settings`,
		"gfx120X-all":  `invalid target ID "gfx120X-all": gfx120X-all is a TheRock target family (a set of processors: gfx1200, gfx1201), not one processor's target ID: write one of them here, with its feature settings`,
	} {
		if _, err := Parse(in); err == nil || err.Error() != want {
			t.Errorf("Parse(%q) = %v\nwant %s", in, err, want)
		}
	}
}

func TestSuggestFamily(t *testing.T) {
	for in, want := range map[string]string{
		"gfx94x-dcgpu":   "gfx94X-dcgpu", // another case
		"gfx942-dcgpu":   "gfx94X-dcgpu", // one edit
		"gfx94X-dgpu":    "gfx94X-dcgpu",
		"gfx120X-dgpu":   "gfx120X-all", // TheRock has no gfx120X-dgpu: the family with that head
		"gfx1151-igpu":   "gfx115X-igpu",
		"gfx94X":         "gfx94X-all", // written like a family, not gfx940
		"dcgpu-al":       "dcgpu-all",
		"gfx94X-dcgpu":   "", // a family is valid where targets are
		"gfx9-4-generik": "gfx9-4-generic",
		"gfx1101":        "",
		"gfx1151":        "",
	} {
		if got := Suggest(in); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
}
