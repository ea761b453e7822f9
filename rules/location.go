package rules

import (
	"sort"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
)

// WrapperLocation points at a host binary's fat-binary segment
// (.hipFatBinSegment, .hipFatB), where its wrappers are; with none, at the
// whole file.
func WrapperLocation(b *model.Binary) finding.Location {
	loc := finding.Location{Input: b.Entry.Input, Path: b.Path}
	if b.Info != nil && b.Info.FatBinSection != nil && b.Info.FatBinSection.FileSize > 0 {
		s := b.Info.FatBinSection
		loc.Region = &finding.Region{Offset: s.Offset, Length: s.FileSize}
	}
	return loc
}

// archiveLocations sorts archives by path (in place) and returns their
// paths and locations, for messages and related locations.
func archiveLocations(archives []*model.Archive) ([]string, []finding.Location) {
	sort.Slice(archives, func(i, j int) bool { return archives[i].Path < archives[j].Path })
	paths := make([]string, 0, len(archives))
	locs := make([]finding.Location, 0, len(archives))
	for _, a := range archives {
		paths = append(paths, a.Path)
		locs = append(locs, sim.ArchiveLocation(a))
	}
	return paths, locs
}
