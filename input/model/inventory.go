package model

import (
	"cmp"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
)

// Inventory lists, sorted by group then target, what the build's archives
// hold per kpack group and target (gfx_arches entries and TOC arches).
// Archives that do not open or name no group are left out. keep, when not
// nil, selects the groups to list (a shard's).
//
// Keys are counted without a set while one archive alone holds a group x
// target (from the archive's kpack.Archive.ArchTotals, without walking its
// TOC); a set is built only when a second archive adds to it.
func (b *Build) Inventory(keep func(group string) bool) []finding.InventoryItem {
	items := map[[2]string]*inventoryItem{}
	get := func(g, t string) *inventoryItem {
		k := [2]string{g, t}
		it := items[k]
		if it == nil {
			it = &inventoryItem{InventoryItem: finding.InventoryItem{Group: g, Target: t}}
			items[k] = it
		}
		return it
	}
	// An archive reachable by several paths (hard links) or copied (one
	// parsed TOC: kpack.TOCID) adds its refs and bytes again but no new
	// key: its TOC is walked once per group.
	type shared struct {
		toc   kpack.TOCID
		group string
	}
	seen := map[shared]map[*inventoryItem]uint64{}
	for _, a := range b.Archives {
		g := a.Group()
		if a.Info == nil || g == "" || (keep != nil && !keep(g)) {
			continue
		}
		ref := finding.ArchiveRef{Input: a.Entry.Input, Path: a.Path}
		for _, t := range a.Info.Arches {
			addRef(get(g, t), ref)
		}
		if bytes, ok := seen[shared{a.Info.TOCID(), g}]; ok {
			for it, n := range bytes {
				addRef(it, ref)
				it.Bytes += n
			}
			continue
		}
		bytes := map[*inventoryItem]uint64{}
		seen[shared{a.Info.TOCID(), g}] = bytes
		var sets map[string]*inventoryItem // the archive's targets counted by key set
		for _, t := range a.Info.ArchTotals {
			it := get(g, t.Arch)
			it.from(a, ref)
			if it.keys == nil {
				it.Kernels += t.Entries // a key has one entry per arch in one archive
			} else {
				if sets == nil {
					sets = map[string]*inventoryItem{}
				}
				sets[t.Arch] = it
			}
			it.Bytes += t.Bytes
			bytes[it] += t.Bytes
		}
		if sets != nil {
			addKeys(a, sets)
		}
	}
	out := make([]finding.InventoryItem, 0, len(items))
	for _, it := range items {
		out = append(out, it.InventoryItem)
	}
	slices.SortFunc(out, func(x, y finding.InventoryItem) int {
		return cmp.Or(strings.Compare(x.Group, y.Group), strings.Compare(x.Target, y.Target))
	})
	return out
}

// addKeys counts a's keys into the key sets of the items by target.
func addKeys(a *Archive, items map[string]*inventoryItem) {
	for key, entries := range a.Info.Kernels {
		for _, e := range entries {
			if it := items[e.Arch]; it != nil && !it.keys[key] {
				it.keys[key] = true
				it.Kernels++
			}
		}
	}
}

// inventoryItem is an item while Inventory counts it: keys holds the keys
// counted once a second archive holds the target, only the one archive
// holding the target's keys so far.
type inventoryItem struct {
	finding.InventoryItem
	keys map[string]bool
	only *Archive
}

// from notes that archive a (named ref) holds entries for the item. The
// first such archive's keys are counted without a set; when a second one
// comes, the set is built from the first's entries for the target.
func (it *inventoryItem) from(a *Archive, ref finding.ArchiveRef) {
	addRef(it, ref)
	switch {
	case it.keys != nil || it.only == a:
	case it.only == nil:
		it.only = a
	default:
		it.keys = map[string]bool{}
		for key, entries := range it.only.Info.Kernels {
			for _, e := range entries {
				if e.Arch == it.Target {
					it.keys[key] = true
				}
			}
		}
		it.only = nil
	}
}

func addRef(it *inventoryItem, ref finding.ArchiveRef) {
	i, found := slices.BinarySearchFunc(it.Archives, ref, func(x, y finding.ArchiveRef) int {
		return cmp.Or(cmp.Compare(x.Input, y.Input), strings.Compare(x.Path, y.Path))
	})
	if !found {
		it.Archives = slices.Insert(it.Archives, i, ref)
	}
}
