package kpack

import (
	"bytes"
	"hash/maphash"
	"io"
	"slices"
	"sync"
)

// MinSharedTOC is the smallest TOC (in bytes) Shared looks up: smaller
// ones parse in less time than the lookup saves.
const MinSharedTOC = 64 << 10

// Shared lets the archives of a build whose bytes Open reads are equal (the
// same size, toc_offset and TOC bytes, and for a zstd archive the same
// frame count) share one parsed TOC: copies of an archive under other
// names or in other folders parse once, and their Kernels, Blobs and
// problems are the same values. Each archive opened through it is its own
// *Archive (IndexFrames, ScanFrames and Fetch read that file's bytes).
// Only archives opened with SkipFrameChain and TOCs of MinSharedTOC bytes
// or more are shared. Safe for concurrent use.
type Shared struct {
	// Sizes, when set, says which archive sizes (in bytes) another
	// archive of the build may have too: only those are looked up and
	// kept (a copy of the TOC bytes each), so a build of distinct
	// archives keeps none.
	Sizes func(size int64) bool

	mu   sync.Mutex
	seed maphash.Seed
	m    map[sharedKey][]*sharedTOC
}

// wants reports whether an archive of size bytes may share its TOC.
func (s *Shared) wants(size int64) bool { return s.Sizes == nil || s.Sizes(size) }

type sharedKey struct {
	size, tocOffset int64
	sum             uint64
}

// sharedTOC is one parsed TOC and what it was parsed from: the Archive
// as Open returned it (a copy: a later IndexFrames changes the original).
type sharedTOC struct {
	toc   []byte
	count [4]byte // the zstd frame count bytes (zstd archives)
	a     Archive
}

// lookup returns a copy of an archive parsed from the same bytes as a
// (whose header and TOC are read: toc), or nil.
func (s *Shared) lookup(r io.ReaderAt, a *Archive, toc []byte) (*Archive, sharedKey) {
	s.mu.Lock()
	if s.m == nil {
		s.seed, s.m = maphash.MakeSeed(), map[sharedKey][]*sharedTOC{}
	}
	k := sharedKey{size: a.Size, tocOffset: int64(a.TOCOffset), sum: maphash.Bytes(s.seed, toc)}
	cands := slices.Clone(s.m[k])
	s.mu.Unlock()
	for _, c := range cands {
		if !bytes.Equal(c.toc, toc) {
			continue
		}
		if c.a.EffectiveScheme() == SchemeZstd {
			var b [4]byte
			if n, _ := r.ReadAt(b[:], int64(c.a.ZstdOffset)); n != 4 || b != c.count {
				continue
			}
		}
		return c.a.copyParsed(), k
	}
	return nil, k
}

// store files a, parsed from toc, under k.
func (s *Shared) store(k sharedKey, a *Archive, toc []byte) {
	c := &sharedTOC{toc: bytes.Clone(toc), a: *a}
	if a.EffectiveScheme() == SchemeZstd {
		c.count[0], c.count[1], c.count[2], c.count[3] = byte(a.FrameCount), byte(a.FrameCount>>8), byte(a.FrameCount>>16), byte(a.FrameCount>>24)
	}
	s.mu.Lock()
	if s.m != nil { // nil: released since the lookup that made k
		s.m[k] = append(s.m[k], c)
	}
	s.mu.Unlock()
}

// Release drops the TOCs s holds: a loader calls it once every archive
// of a build is open, so the copies of the TOC bytes (kept to compare
// with) are freed for the rest of the run. Archives opened through s
// before keep what they hold; a later Open through s parses its TOC and
// shares it afresh.
func (s *Shared) Release() {
	s.mu.Lock()
	s.m = nil
	s.mu.Unlock()
}

// copyParsed is a new Archive holding what parsing a's TOC gave (the
// parsed values are shared, read only); a is as Open returned it, with no
// frame chain read.
func (a *Archive) copyParsed() *Archive {
	c := *a
	c.Problems = slices.Clip(c.Problems) // an append by IndexFrames copies
	return &c
}

// TOCID identifies the parsed TOC an Archive holds: archives opened from
// the same bytes through one Shared (or the same Archive) have equal
// TOCIDs, so a caller walking every archive's Kernels can walk each TOC
// once.
type TOCID struct{ a *Archive }

// TOCID returns a's TOC identity.
func (a *Archive) TOCID() TOCID {
	if a.parsed != nil {
		return TOCID{a.parsed}
	}
	return TOCID{a}
}
