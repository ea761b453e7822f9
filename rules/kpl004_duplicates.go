package rules

import (
	"cmp"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/verify"
)

// storedAt is one fetched copy of a kernel: its archive and TOC arch.
type storedAt struct {
	archive *model.Archive
	arch    string
	obj     verify.Object
}

// checkDuplicates adds to KPL004 (with --deep): within one kpack group, the
// same kernel key under the same TOC arch in several archives with
// different bytes (which one loads depends on search order: an error), and
// identical bytes stored separately under several tags (a note giving the
// bytes wasted).
func checkDuplicates(c *Context) []finding.Finding {
	if c.Deep == nil {
		return nil
	}
	var out []finding.Finding
	for _, g := range c.Build.Groups {
		copies := groupCopies(c.Deep, g)
		out = append(out, conflictingCopies(g, copies)...)
		if f, ok := wastedCopies(g, copies); ok {
			out = append(out, f)
		}
	}
	return out
}

// groupCopies maps kernel key -> fetched copies in the group's archives
// that may be compared, in archive path then arch order: copies filed
// under an arch several archives of the group hold (possible conflicts),
// and copies deep hashed (another copy of the key has their size). Keys
// left with one copy are dropped.
func groupCopies(res *verify.Result, g *model.Group) map[string][]storedAt {
	holders := map[string]int{} // arch -> archives of the group with entries for it
	for _, a := range g.Archives {
		if a.Info != nil {
			for _, arch := range a.Info.EntryArches {
				holders[arch]++
			}
		}
	}
	out := map[string][]storedAt{}
	for _, a := range g.Archives {
		if a.Info == nil {
			continue
		}
		for key, list := range a.Info.Kernels {
			for _, ae := range list {
				if holders[ae.Arch] < 2 && !res.Hashed(a, ae.Index) {
					continue
				}
				if o, ok := res.ObjectAt(a, ae.Index); ok && o.Code == verify.Success {
					out[key] = append(out[key], storedAt{a, ae.Arch, o})
				}
			}
		}
	}
	for key, list := range out {
		if len(list) < 2 {
			delete(out, key)
			continue
		}
		slices.SortFunc(list, func(x, y storedAt) int {
			return cmp.Or(strings.Compare(x.archive.Path, y.archive.Path), strings.Compare(x.arch, y.arch))
		})
	}
	return out
}

// conflictingCopies reports keys stored under one arch in several archives
// with different bytes; one finding per (arch, archive set).
func conflictingCopies(g *model.Group, copies map[string][]storedAt) []finding.Finding {
	type conflict struct {
		arch     string
		archives []*model.Archive
		kernels  []string
	}
	byID := map[string]*conflict{}
	for _, key := range sortedKeys(copies) {
		if !repeatsArch(copies[key]) {
			continue // each arch stored once: nothing to compare
		}
		byArch := map[string][]storedAt{}
		for _, s := range copies[key] {
			byArch[s.arch] = append(byArch[s.arch], s)
		}
		for _, arch := range sortedKeys(byArch) {
			list := byArch[arch]
			if len(list) < 2 || allSameSum(list) {
				continue
			}
			var paths []string
			for _, s := range list {
				paths = append(paths, s.archive.Path)
			}
			id := arch + "\x00" + strings.Join(paths, "\x00")
			if byID[id] == nil {
				byID[id] = &conflict{arch: arch}
				for _, s := range list {
					byID[id].archives = append(byID[id].archives, s.archive)
				}
			}
			byID[id].kernels = append(byID[id].kernels, key)
		}
	}
	var out []finding.Finding
	for _, id := range sortedKeys(byID) {
		cf := byID[id]
		out = append(out, conflictFinding(g, cf.arch, cf.archives, cf.kernels))
	}
	return out
}

// repeatsArch reports whether two copies are filed under one arch.
func repeatsArch(list []storedAt) bool {
	for i := range list {
		for j := range i {
			if list[i].arch == list[j].arch {
				return true
			}
		}
	}
	return false
}

// allSameSum reports whether the copies hold the same bytes: same size
// and digest (deep hashes every object whose key and size another copy
// shares; see verify.Object.Sum).
func allSameSum(list []storedAt) bool {
	for _, s := range list[1:] {
		if s.obj.Size != list[0].obj.Size || s.obj.Sum != list[0].obj.Sum {
			return false
		}
	}
	return true
}

func conflictFinding(g *model.Group, arch string, archives []*model.Archive, kernels []string) finding.Finding {
	finding.SortKernels(kernels)
	var paths []string
	var related []finding.Location
	for _, a := range archives[1:] {
		related = append(related, sim.ArchiveLocation(a))
	}
	for _, a := range archives {
		paths = append(paths, a.Path)
	}
	return finding.Finding{
		Message: fmt.Sprintf("Kpack group %s stores %s under %s in %s with different bytes; which copy loads depends on the "+
			"search order. Fix: ship each kernel for each target from exactly one archive.",
			g.Name, finding.ShortKernels(kernels), arch, strings.Join(paths, " and ")),
		Location: sim.ArchiveLocation(archives[0]),
		Related:  related,
		Kernels:  kernels,
		Group:    g.Name,
		Subject:  subject(g.Name, "different-bytes", arch, strings.Join(paths, ",")),
	}
}

// wastedCopies reports code objects whose identical bytes are stored more
// than once under different tags; one note per group. Entries of one
// archive sharing an ordinal share storage and count once.
func wastedCopies(g *model.Group, copies map[string][]storedAt) (finding.Finding, bool) {
	var kernels, trace []string
	var wasted uint64
	for _, key := range sortedKeys(copies) {
		bySum := map[[32]byte][]storedAt{}
		for _, s := range copies[key] {
			if s.obj.Hashed { // an object no other copy's size matches is unique
				bySum[s.obj.Sum] = append(bySum[s.obj.Sum], s)
			}
		}
		for _, sum := range sortedSums(bySum) {
			list := bySum[sum]
			units, tags := storage(list)
			if units < 2 || len(tags) < 2 {
				continue
			}
			wasted += uint64(units-1) * list[0].obj.Size
			kernels = append(kernels, key)
			trace = append(trace, fmt.Sprintf("%s: %d identical copies (%d bytes each, sha256 %s) under %s",
				key, units, list[0].obj.Size, hex.EncodeToString(sum[:6]), strings.Join(tags, ", ")))
		}
	}
	if len(kernels) == 0 {
		return finding.Finding{}, false
	}
	finding.SortKernels(kernels)
	return finding.Finding{
		Level: finding.LevelNote,
		Message: fmt.Sprintf("Kpack group %s stores identical code objects under several target tags: %s; %d decompressed bytes are stored more than once. "+
			"Fix: file one copy under the least specific tag that serves every agent.", g.Name, finding.ShortKernels(kernels), wasted),
		Location: sim.ArchiveLocation(list0(copies, kernels[0]).archive),
		Kernels:  kernels,
		Group:    g.Name,
		Trace:    trace,
		Subject:  subject(g.Name, "identical-bytes"),
	}, true
}

func list0(copies map[string][]storedAt, key string) storedAt { return copies[key][0] }

// storage counts distinct (archive, ordinal) copies and the distinct tags.
func storage(list []storedAt) (int, []string) {
	units := map[string]bool{}
	tags := map[string]bool{}
	for _, s := range list {
		units[fmt.Sprintf("%s\x00%d", s.archive.Path, s.obj.Ordinal)] = true
		tags[s.arch] = true
	}
	return len(units), sortedKeys(tags)
}

func sortedSums(m map[[32]byte][]storedAt) [][32]byte {
	out := make([][32]byte, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return string(out[i][:]) < string(out[j][:]) })
	return out
}
