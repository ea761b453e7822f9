package rules

import (
	"fmt"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
)

// TestKeyIndexManyPlaces: a group with more than 64 places (archive x
// arch) widens every key's bit set and still answers per kernel.
func TestKeyIndexManyPlaces(t *testing.T) {
	g := &model.Group{Name: "g"}
	for i := range 70 {
		info := &kpack.Archive{Kernels: map[string][]kpack.ArchEntry{"k#0": {{Arch: "gfx942"}}}, EntryArches: []string{"gfx942"}}
		if i == 69 {
			info.Kernels["k#1"] = []kpack.ArchEntry{{Arch: "gfx942:xnack+"}, {Arch: "not a target"}}
			info.EntryArches = []string{"gfx942", "gfx942:xnack+", "not a target"}
		}
		g.Archives = append(g.Archives, &model.Archive{Path: fmt.Sprintf("a%02d.kpack", i), Info: info})
	}
	idx := newKeyIndex(g)
	if idx.words != 2 || len(idx.places) != 71 {
		t.Fatalf("words %d, places %d; want 2, 71", idx.words, len(idx.places))
	}
	all := tagsFor(idx, &project{Kernels: []string{"k#0"}})
	if got := len(all.byProc["gfx942"]["gfx942"]); got != 70 || all.byProc["gfx942"]["gfx942"][0].Path != "a00.kpack" {
		t.Errorf("k#0 stored in %d archives (first %v), want 70 from a00.kpack", got, all.byProc["gfx942"]["gfx942"])
	}
	one := tagsFor(idx, &project{Kernels: []string{"k#1"}})
	if list := one.byProc["gfx942"]["gfx942:xnack+"]; len(list) != 1 || list[0].Path != "a69.kpack" || len(one.byProc["gfx942"]) != 1 {
		t.Errorf("k#1 tags = %v, want gfx942:xnack+ in a69.kpack only", one)
	}
}

// TestArchBits: an arch's bit is found by a scan of a few arches and
// through a map past maxArchScan, the same either way.
func TestArchBits(t *testing.T) {
	var ab archBits
	for i := range 3 * maxArchScan {
		ab.add(fmt.Sprintf("gfx%d", 900+i), i-1) // gfx900 is not a target ID here: -1
		for j := 0; j <= i; j++ {
			if b := ab.bitOf(fmt.Sprintf("gfx%d", 900+j)); b != j-1 {
				t.Fatalf("%d arches: bit of gfx%d = %d, want %d", i+1, 900+j, b, j-1)
			}
		}
		if ab.has("gfx1100") || ab.bitOf("gfx1100") != -1 {
			t.Fatalf("%d arches: an arch never added is found", i+1)
		}
	}
	if ab.m == nil || !ab.has("gfx900") {
		t.Errorf("no map past %d arches", maxArchScan)
	}
}
