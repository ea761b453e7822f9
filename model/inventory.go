package model

import (
	"cmp"
	"slices"
	"strings"
)

// InventoryItem is what a build ships for one kpack group and one target
// ID: the archives that declare or hold the target, the distinct kernel
// keys with a TOC entry for it, and the code object bytes those entries
// declare (original_size). The nightly gate compares these against an
// earlier build (KPL012, TheRock PR 6362: a stray 3-kernel
// blas_lib_gfx906 artifact overwrote the 646-kernel one).
type InventoryItem struct {
	Group    string       `json:"group"`
	Target   string       `json:"target"`
	Archives []ArchiveRef `json:"archives"`
	Kernels  int          `json:"kernels"`
	Bytes    uint64       `json:"bytes"`
	keys     map[string]bool
}

// ArchiveRef names an archive by its input (0-based, in command-line
// order) and its slash path inside that input.
type ArchiveRef struct {
	Input int    `json:"input"`
	Path  string `json:"path"`
}

// Inventory lists, sorted by group then target, what the build's archives
// hold per kpack group and target (gfx_arches entries and TOC arches).
// Archives that do not open or name no group are left out. keep, when not
// nil, selects the groups to list (a shard's).
func (b *Build) Inventory(keep func(group string) bool) []InventoryItem {
	items := map[[2]string]*InventoryItem{}
	get := func(g, t string) *InventoryItem {
		k := [2]string{g, t}
		it := items[k]
		if it == nil {
			it = &InventoryItem{Group: g, Target: t, keys: map[string]bool{}}
			items[k] = it
		}
		return it
	}
	for _, a := range b.Archives {
		g := a.Group()
		if a.Info == nil || g == "" || (keep != nil && !keep(g)) {
			continue
		}
		ref := ArchiveRef{Input: a.Entry.Input, Path: a.Path}
		for _, t := range a.Info.Arches {
			addRef(get(g, t), ref)
		}
		for key, entries := range a.Info.Kernels {
			for _, e := range entries {
				it := get(g, e.Arch)
				addRef(it, ref)
				if !it.keys[key] {
					it.keys[key] = true
					it.Kernels++
				}
				it.Bytes += e.OriginalSize
			}
		}
	}
	out := make([]InventoryItem, 0, len(items))
	for _, it := range items {
		it.keys = nil
		out = append(out, *it)
	}
	slices.SortFunc(out, func(x, y InventoryItem) int {
		return cmp.Or(strings.Compare(x.Group, y.Group), strings.Compare(x.Target, y.Target))
	})
	return out
}

func addRef(it *InventoryItem, ref ArchiveRef) {
	i, found := slices.BinarySearchFunc(it.Archives, ref, func(x, y ArchiveRef) int {
		return cmp.Or(cmp.Compare(x.Input, y.Input), strings.Compare(x.Path, y.Path))
	})
	if !found {
		it.Archives = slices.Insert(it.Archives, i, ref)
	}
}
