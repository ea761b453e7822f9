package sim

import (
	"errors"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
)

// ArchiveLocation points at an archive's TOC, or at the header (or the
// failing offset) when it does not open.
func ArchiveLocation(a *model.Archive) finding.Location {
	loc := finding.Location{Input: a.Entry.Input, Path: a.Path}
	switch {
	case a.Info != nil && a.Info.TOCSize > 0:
		loc.Region = &finding.Region{Offset: int64(a.Info.TOCOffset), Length: a.Info.TOCSize}
	case a.Entry.Size > 0:
		loc.Region = &finding.Region{Offset: 0, Length: min(a.Entry.Size, kpack.HeaderSize)}
		var fe *kpack.FormatError
		if errors.As(a.Err, &fe) && fe.Offset > 0 && fe.Offset < a.Entry.Size {
			loc.Region = &finding.Region{Offset: fe.Offset, Length: 1}
		}
	}
	return loc
}

// BinaryLocation points at a host binary's .rocm_kpack_ref (or .kpackrf)
// section, or, for a binary without one, at its fat-binary segment
// (.hipFatBinSegment, .hipFatB); with neither, at the whole file.
func BinaryLocation(b *model.Binary) finding.Location {
	loc := finding.Location{Input: b.Entry.Input, Path: b.Path}
	if b.Info == nil {
		return loc
	}
	for _, s := range []*hostbin.Section{b.Info.RefSection, b.Info.FatBinSection} {
		if s != nil && s.FileSize > 0 {
			loc.Region = &finding.Region{Offset: s.Offset, Length: s.FileSize}
			return loc
		}
	}
	return loc
}
