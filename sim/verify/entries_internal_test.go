package verify

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack"
)

// TestNewEntriesOrder: entries come sorted by ordinal, then key and arch,
// whether the TOC order is already ordinal order (no sort), shares
// frames, runs backwards, or has indexes that are not a permutation.
func TestNewEntriesOrder(t *testing.T) {
	e := func(arch string, index, ordinal uint32) kpack.ArchEntry {
		return kpack.ArchEntry{Arch: arch, Entry: kpack.Entry{Index: index, Ordinal: ordinal}}
	}
	for name, kernels := range map[string]map[string][]kpack.ArchEntry{
		"in order":  {"a#0": {e("gfx942", 0, 0), e("gfx950", 1, 1)}, "b#0": {e("gfx942", 2, 2)}},
		"backwards": {"a#0": {e("gfx942", 0, 2)}, "b#0": {e("gfx942", 1, 1)}, "c#0": {e("gfx942", 2, 0)}},
		"shared":    {"b#0": {e("gfx942", 0, 0)}, "a#0": {e("gfx942", 1, 0)}, "c#0": {e("gfx942", 2, 1)}},
		"bad index": {"a#0": {e("gfx942", 0, 1)}, "b#0": {e("gfx942", 0, 0)}, "c#0": {e("gfx942", 7, 2)}},
		"empty key": {"": {e("gfx942", 0, 1)}, "b#0": {e("gfx942", 1, 0)}},
	} {
		n := 0
		var want []ref
		for key, list := range kernels {
			for _, ae := range list {
				want = append(want, ref{key, ae.Arch, ae.Entry})
				n++
			}
		}
		slices.SortFunc(want, func(a, b ref) int {
			return cmp.Or(cmp.Compare(a.e.Ordinal, b.e.Ordinal), strings.Compare(a.kernel, b.kernel), strings.Compare(a.arch, b.arch))
		})
		got := newEntries(&kpack.Archive{Kernels: kernels, Entries: n}).refs
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
