package hostbin

import (
	"encoding/binary"
	"io"
	"math"

	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// container is what a format reader hands to decode: the two kpack sections
// (nil when absent) and the byte order of the wrappers.
type container struct {
	format  Format
	order   binary.ByteOrder
	ref     *Section
	fatBin  *Section
	bundles *Section // .hip_fatbin (PE: .hip_fat), nil when absent
	// relocs, when set, returns the dynamic relocations that set wrapper
	// pointer words of the fat-binary segment at load time (reloc.go). A
	// position-independent binary stores 0 in a wrapper's pointer and
	// leaves the address to such a relocation. It is called once, for the
	// first embedded wrapper, with the wrappers whose pointers are wanted
	// (want[i] for wrapper i): only theirs are kept.
	relocs func(want []bool) relocTable
}

// checkSection rejects a section whose stored bytes lie outside the file.
func checkSection(s *Section, fileSize int64) error {
	if s.Offset < 0 || s.FileSize < 0 || s.Size < s.FileSize {
		return formatErr(nil, "section %s has invalid offset or size", s.Name)
	}
	if s.FileSize > 0 && (s.Offset > fileSize || s.FileSize > fileSize-s.Offset) {
		return formatErr(nil, "section %s (offset %d, %d bytes) extends past end of file (%d bytes)",
			s.Name, s.Offset, s.FileSize, fileSize)
	}
	return nil
}

// toInt64 converts a header field, failing when it does not fit.
func toInt64(v uint64, what, name string) (int64, error) {
	if v > math.MaxInt64 {
		return 0, formatErr(nil, "section %s: %s %d out of range", name, what, v)
	}
	return int64(v), nil
}

// readSection returns the first n bytes of s (n <= s.Size) as loaded in
// memory: bytes past s.FileSize are zero. Callers bound n: by a fixed limit
// (RuntimeRefLimit) or by the stored bytes (storedSpan), never by a size
// the headers alone declare.
func readSection(r io.ReaderAt, s *Section, n int64) ([]byte, error) {
	buf := make([]byte, n)
	stored := min(n, s.FileSize)
	if _, err := io.ReadFull(io.NewSectionReader(r, s.Offset, stored), buf[:stored]); err != nil {
		return nil, formatErr(err, "reading section %s", s.Name)
	}
	return buf, nil
}

// storedSpan is how much of s to read as records of unit bytes: its
// stored bytes rounded up to a whole record, at most s.Size. The zero-filled
// tail of a SHT_NOBITS section or of a PE section whose VirtualSize exceeds
// its raw data is never materialised: a section header can declare any size
// for a file of a few hundred bytes (64 MiB NOBITS .hipFatBinSegment in a
// 480-byte ELF file), and those records are all zero.
func storedSpan(s *Section, unit int64) int64 {
	n := s.FileSize
	if rem := n % unit; rem != 0 {
		n += unit - rem
	}
	return min(n, s.Size)
}

// decode reads the sections located in c and builds the Binary.
func decode(r io.ReaderAt, c *container, m *inflate.Meter, h Hooks) (*Binary, error) {
	b := &Binary{Format: c.format, RefSection: c.ref, FatBinSection: c.fatBin, BundleSection: c.bundles}
	if err := decodeRef(r, b); err != nil {
		return nil, err
	}
	if err := decodeWrappers(r, c.order, b); err != nil {
		return nil, err
	}
	decodeBundles(r, c, b, m, h)
	b.Problems = append(b.Problems, crossCheck(b)...)
	return b, nil
}

// decodeRef parses the reference section the way the runtime sees it: at
// most RuntimeRefLimit bytes.
func decodeRef(r io.ReaderAt, b *Binary) error {
	s := b.RefSection
	if s == nil {
		return nil
	}
	data, err := readSection(r, s, min(s.Size, RuntimeRefLimit))
	if err != nil {
		return err
	}
	ref, probs := ParseRef(data)
	for i := range probs {
		probs[i].Section = s.Name
		probs[i].Offset += s.Offset
	}
	b.Ref, b.Problems = ref, append(b.Problems, probs...)
	return nil
}

// decodeWrappers reads the 24-byte wrappers stored in the fat-binary
// segment (see storedSpan: the all-zero wrappers of a zero-filled tail,
// which the runtime ignores, are not listed).
func decodeWrappers(r io.ReaderAt, order binary.ByteOrder, b *Binary) error {
	s := b.FatBinSection
	if s == nil {
		return nil
	}
	if s.Size > MaxFatBinSectionSize {
		b.Problems = append(b.Problems, Problem{Kind: FatBinTooLarge, Section: s.Name, Offset: s.Offset,
			Msg: sizeMsg(s, MaxFatBinSectionSize)})
		return nil
	}
	data, err := readSection(r, s, storedSpan(s, WrapperSize))
	if err != nil {
		return err
	}
	b.Wrappers = ParseWrappers(data, order)
	if rem := s.Size % WrapperSize; rem != 0 {
		b.Problems = append(b.Problems, Problem{Kind: FatBinBadSize, Section: s.Name,
			Offset: s.Offset + s.Size - rem, Msg: badSizeMsg(int(s.Size))})
	}
	return nil
}

// crossCheck reports a reference without HIPK wrappers and HIPK wrappers
// without a reference. It says nothing when the wrappers were not read.
func crossCheck(b *Binary) []Problem {
	if b.FatBinSection != nil && b.FatBinSection.Size > MaxFatBinSectionSize {
		return nil
	}
	hipk := len(b.COIndexes())
	switch {
	case hipk > 0 && b.RefSection == nil:
		return []Problem{{Kind: HIPKWithoutRef, Section: b.FatBinSection.Name,
			Offset: b.FatBinSection.Offset, Msg: hipkWithoutRefMsg(hipk, b.Format)}}
	case hipk == 0 && b.RefSection != nil:
		return []Problem{{Kind: RefWithoutHIPK, Section: b.RefSection.Name,
			Offset: b.RefSection.Offset, Msg: refWithoutHIPKMsg(b)}}
	}
	return nil
}
