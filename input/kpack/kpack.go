package kpack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"

	"github.com/rocm-tools/kpack-lint/internal/util/intern"
)

// Layout constants of format version 1 (rocm-kpack python/rocm_kpack/kpack.py).
const (
	// Magic is the 4-byte file signature at offset 0.
	Magic = "KPAK"
	// HeaderSize is the size in bytes of the header region; blob data starts here.
	HeaderSize = 64
	// Version is the only header version the runtime accepts.
	Version = 1
	// SchemeNone stores kernels uncompressed, addressed by the TOC "blobs" table.
	SchemeNone = "none"
	// SchemeZstd stores one zstd frame per kernel in a single blob at zstd_offset.
	SchemeZstd = "zstd-per-kernel"
)

// Runtime limits (rocm-systems shared/kpack/runtime/src/compression.cpp).
const (
	// MaxZstdBlobSize is the largest zstd_size kpack_open accepts (4 GiB).
	MaxZstdBlobSize = 4 << 30
	// MaxZstdFrames is the largest frame count kpack_open accepts.
	MaxZstdFrames = 1 << 20
	// MaxSaneKernelSize is the size (4 GiB) above which an original_size or
	// blob size is reported: no code object is that large, and the runtime
	// allocates the declared size before reading.
	MaxSaneKernelSize = 4 << 30
	// runtimeHeaderRead is how many header bytes kpack_open reads.
	runtimeHeaderRead = 16
)

// Default limits of this reader; see Options.
const (
	DefaultMaxTOCSize    = 256 << 20
	DefaultMaxKernelSize = 1 << 30
	DefaultMaxEntries    = 1 << 22
	DefaultMaxProblems   = 1000
)

// Options bounds the work and memory of Open, Fetch and Verify. Zero fields
// take the Default* values.
type Options struct {
	// MaxTOCSize is the largest TOC (file size minus toc_offset, in bytes)
	// Open reads; larger ones give an error wrapping ErrLimit.
	MaxTOCSize int64
	// MaxKernelSize is the largest kernel (original_size or blob size, in
	// bytes) Fetch and Verify allocate; larger ones fail with OutOfMemory.
	MaxKernelSize uint64
	// MaxEntries bounds the number of blobs and of toc entries (ErrLimit).
	MaxEntries int
	// MaxProblems bounds len(Archive.Problems); the rest are summarised.
	MaxProblems int
	// SkipFrameChain makes Open read the zstd blob's frame count but not
	// walk its chain of frame size prefixes (one 4-byte read per frame,
	// spread over the whole file, so a cold open would pull every page of
	// the archive from disk). Open then reads only the header, the TOC and
	// the frame count; a size prefix or frame that runs past zstd_size, and
	// zstd bytes after the last frame, go unseen until IndexFrames (which
	// Fetch and Verify call first).
	SkipFrameChain bool
	// Keys, when set, holds the kernel-key strings: archives opened with
	// one table share the bytes of the keys they have in common (the
	// archives of a kpack group hold the same keys for each target). Not
	// safe for concurrent use: one table per goroutine.
	Keys *intern.Table
	// Shared, when set, lets archives with the same TOC bytes share one
	// parsed TOC (see Shared); only with SkipFrameChain.
	Shared *Shared
}

func (o Options) withDefaults() Options {
	if o.MaxTOCSize <= 0 {
		o.MaxTOCSize = DefaultMaxTOCSize
	}
	if o.MaxKernelSize == 0 {
		o.MaxKernelSize = DefaultMaxKernelSize
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxProblems <= 0 {
		o.MaxProblems = DefaultMaxProblems
	}
	return o
}

// Entry is one toc[kernel key][arch] record: Ordinal indexes the blobs
// table (none) or the zstd frames, OriginalSize is the code object's size
// in bytes (0 when the TOC omits it). The entry's "type" (always "hsaco"
// from the writer; the loader does not read it) is checked at Open and
// not kept: a build has millions of entries.
type Entry struct {
	Ordinal uint32
	// Index numbers the archive's entries in TOC order, 0 to Entries-1
	// (a duplicate that replaces an entry keeps its number): a dense key
	// for what callers learn per entry.
	Index        uint32
	OriginalSize uint64
}

// ArchEntry is one TOC entry of a kernel key: the target ID it is filed
// under (toc[key][Arch]) and the entry.
type ArchEntry struct {
	Arch string
	Entry
}

// ArchTotal is what an archive's TOC holds for one arch (Archive.ArchTotals).
type ArchTotal struct {
	Arch    string
	Entries int
	Bytes   uint64
}

// Blob is one "blobs" table item of scheme none: an absolute file Offset and
// a Size, both in bytes.
type Blob struct {
	Offset, Size uint64
}

// frame is one zstd frame: absolute file offset and compressed size.
type frame struct {
	off  uint64
	size uint32
}

// Archive is an opened .kpack archive: header fields, the decoded TOC and,
// for zstd-per-kernel, the frame index. It holds no file data beyond that.
type Archive struct {
	Size          int64  // file size in bytes
	Version       uint32 // header version (always 1 after a successful Open)
	TOCOffset     uint64 // header toc_offset
	TOCSize       int64  // Size - TOCOffset: bytes the runtime reads as TOC
	FormatVersion int64  // TOC format_version (-1 if absent or not an integer)
	GroupName     string // TOC group_name, e.g. "blas_lib"
	ArchFamily    string // TOC gfx_arch_family, e.g. "gfx110X" (informational)
	// Arches is gfx_arches in file order (string items only, as the runtime
	// keeps them). The loader serves an arch from this archive only if listed.
	Arches []string
	// Scheme is the raw compression_scheme ("" if absent or not a string).
	// The runtime treats anything but SchemeZstd as SchemeNone.
	Scheme string
	// Kernels maps a kernel key ("<name>#<co_index>") to its entries, one
	// per arch, in TOC order (a duplicate arch keeps the last, as the
	// runtime does); only entries whose ordinal is a valid u32 are kept (see
	// Problems). A flat slice per key keeps a multi-million-entry TOC small.
	Kernels map[string][]ArchEntry
	// EntryArches lists the distinct arches of the entries in Kernels,
	// sorted.
	EntryArches []string
	// ArchTotals are, per EntryArches item and in that order, how many
	// entries Kernels holds for the arch (one per kernel key) and the sum
	// of their original_size, in bytes (modulo 2^64): what an inventory
	// of the archive needs without walking Kernels.
	ArchTotals []ArchTotal
	// Entries counts the entries in Kernels (see Entry.Index).
	Entries int
	// Blobs is the blobs table (scheme none; map items only, as the runtime).
	Blobs []Blob
	// ZstdOffset and ZstdSize locate the zstd blob (scheme zstd-per-kernel).
	ZstdOffset, ZstdSize uint64
	// FrameCount is the zstd blob's u32 frame count, read at open.
	FrameCount uint32
	// FrameChain is true once the zstd frame chain has been walked and
	// found to fit zstd_size (always for scheme none, for zstd after an
	// Open without Options.SkipFrameChain or a successful IndexFrames).
	FrameChain bool
	// Problems lists non-fatal structural defects, sorted by Offset then Field.
	Problems []Problem

	opt      Options
	parsed   *Archive // the Archive whose parse this one shares (Shared), nil for itself
	frames   []frame
	trailing uint64 // zstd blob bytes after the last frame
	problems int    // problems found, counting those over MaxProblems
}

// Open reads an archive the way the rocm-kpack runtime's kpack_open does:
// the header, the whole TOC (size minus toc_offset bytes, bounded by
// DefaultMaxTOCSize) and, for zstd-per-kernel, the u32 frame count and each
// frame's u32 size prefix (not with Options.SkipFrameChain). It never
// reads blob contents.
//
// It returns a *FormatError exactly where kpack_open fails (the loader then
// skips the archive):
//   - file shorter than 16 bytes, or magic not "KPAK": InvalidFormat, ErrBadMagic;
//   - header version not 1: UnsupportedVersion, ErrVersion;
//   - toc_offset at or past end of file: InvalidFormat, ErrTOCOffset;
//   - TOC not valid MessagePack, or its first object not a map:
//     MsgpackParseFailed, ErrTOCParse (bytes after the first object are ignored);
//   - a TOC value the runtime converts at open and cannot (zstd_offset,
//     zstd_size, a none blob's offset or size, an entry's original_size not
//     an unsigned integer; an ordinal not one or over 2^32-1):
//     MsgpackParseFailed, ErrTOCParse, with FormatError.LegacyAborts set
//     (the legacy runtime aborts the process instead);
//   - zstd blob past end of file: IOError; zstd_size over 4 GiB or under 4,
//     frame count over 2^20 or too large for its size prefixes to fit, a size
//     prefix or frame running past zstd_size: InvalidFormat; all ErrZstdIndex;
//   - a failed read: IOError, wrapping the reader's error.
//
// Everything else is a Problem on an archive that opens: absent keys, absent or unknown
// compression_scheme, a none archive without blobs table, ordinals outside
// the blob/frame table, none blobs past end of file, original_size or blob
// size over 4 GiB, toc arches missing from gfx_arches, gfx_arches without
// entries, toc_offset inside the 64-byte header, zstd bytes after the last
// frame, and suspicious arch strings (ProblemTarget). Duplicate ordinals are
// fine. Limits of this reader (Options) give an error wrapping ErrLimit.
func Open(r io.ReaderAt, size int64) (*Archive, error) {
	return OpenOptions(r, size, Options{})
}

// OpenOptions is Open with explicit limits.
func OpenOptions(r io.ReaderAt, size int64, opt Options) (*Archive, error) {
	a := &Archive{Size: size, FormatVersion: -1, opt: opt.withDefaults(),
		Kernels: map[string][]ArchEntry{}}
	if err := a.readHeader(r); err != nil {
		return nil, err
	}
	buf, err := a.readTOC(r)
	if err != nil {
		return nil, err
	}
	defer putTOCBuffer(buf)
	var key sharedKey
	share := opt.Shared != nil && opt.SkipFrameChain && a.TOCSize >= MinSharedTOC && opt.Shared.wants(a.Size)
	if share {
		var c *Archive
		if c, key = opt.Shared.lookup(r, a, buf); c != nil {
			return c, nil
		}
	}
	p := &tocParser{a: a, r: r, buf: buf, base: int64(a.TOCOffset)}
	if err := p.parse(); err != nil {
		return nil, err
	}

	if a.EffectiveScheme() == SchemeZstd {
		if p.countErr != nil {
			return nil, p.countErr
		}
		if !a.opt.SkipFrameChain {
			if err := a.walkFrames(r); err != nil {
				return nil, err
			}
		}
	} else {
		a.FrameChain = true
	}
	p.crossCheck()
	if a.TOCOffset < HeaderSize {
		p.problems = append(p.problems, Problem{Kind: ProblemMalformed, Field: "header.toc_offset", Offset: 8,
			Msg: fmt.Sprintf("toc_offset %d is inside the 64-byte header region", a.TOCOffset)})
	}
	a.finishProblems(p.problems, p.dropped)
	if share {
		a.parsed = a
		opt.Shared.store(key, a, buf)
	}
	return a, nil
}

func (a *Archive) readHeader(r io.ReaderAt) error {
	if a.Size < runtimeHeaderRead {
		return formatErr(InvalidFormat, ErrBadMagic, 0, "header",
			"file is %d bytes, shorter than the %d-byte header", a.Size, runtimeHeaderRead)
	}
	hdr := make([]byte, min(a.Size, HeaderSize))
	if err := readFull(r, hdr, 0, "header"); err != nil {
		return err
	}
	if string(hdr[:4]) != Magic {
		return formatErr(InvalidFormat, ErrBadMagic, 0, "header.magic", "magic %q, want %q", hdr[:4], Magic)
	}
	a.Version = binary.LittleEndian.Uint32(hdr[4:8])
	if a.Version != Version {
		return formatErr(UnsupportedVersion, ErrVersion, 4, "header.version", "version %d, want %d", a.Version, Version)
	}
	a.TOCOffset = binary.LittleEndian.Uint64(hdr[8:16])
	if a.TOCOffset >= uint64(a.Size) {
		return formatErr(InvalidFormat, ErrTOCOffset, 8, "header.toc_offset",
			"toc_offset %d is at or past end of file (%d bytes)", a.TOCOffset, a.Size)
	}
	return nil
}

func (a *Archive) readTOC(r io.ReaderAt) ([]byte, error) {
	a.TOCSize = a.Size - int64(a.TOCOffset)
	if a.TOCSize > a.opt.MaxTOCSize {
		return nil, fmt.Errorf("kpack: TOC is %d bytes, over the %d-byte limit: %w", a.TOCSize, a.opt.MaxTOCSize, ErrLimit)
	}
	buf := tocBuffer(a.TOCSize)
	if err := readFull(r, buf, int64(a.TOCOffset), "toc"); err != nil {
		putTOCBuffer(buf)
		return nil, err
	}
	return buf, nil
}

// tocBuffers recycles TOC read buffers of up to maxPooledTOC bytes: the
// parsed TOC keeps no reference to its buffer (strings are copied), and a
// build has hundreds of TOCs.
var tocBuffers sync.Pool

const maxPooledTOC = 4 << 20

func tocBuffer(n int64) []byte {
	if p, ok := tocBuffers.Get().(*[]byte); ok && int64(cap(*p)) >= n {
		return (*p)[:n]
	}
	return make([]byte, n)
}

func putTOCBuffer(b []byte) {
	if cap(b) <= maxPooledTOC {
		tocBuffers.Put(&b)
	}
}

// readFull reads len(p) bytes at off; a short read is a *FormatError IOError.
func readFull(r io.ReaderAt, p []byte, off int64, field string) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	return readErr(n, len(p), off, field, err)
}

// readErr is the IOError of a read of want bytes at off that returned n.
func readErr(n, want int, off int64, field string, err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &FormatError{Offset: off, Field: field, Code: IOError, Err: err,
		Msg: fmt.Sprintf("read %d of %d bytes: %v", n, want, err)}
}

// finishProblems sorts the problems and caps their number; dropped counts
// problems the parser did not record.
func (a *Archive) finishProblems(ps []Problem, dropped int) {
	sort.SliceStable(ps, func(i, j int) bool { return problemLess(ps[i], ps[j]) })
	a.problems = len(ps) + dropped
	if n := len(ps) + dropped; n > a.opt.MaxProblems {
		last := ps[a.opt.MaxProblems-1]
		ps = append(ps[:a.opt.MaxProblems-1], Problem{Kind: last.Kind, Field: "archive", Offset: last.Offset,
			Msg: fmt.Sprintf("%d more problems not listed", n-a.opt.MaxProblems+1)})
	}
	a.Problems = ps
}

func problemLess(p, q Problem) bool {
	if p.Offset != q.Offset {
		return p.Offset < q.Offset
	}
	return p.Field < q.Field
}

// addProblem inserts p into the sorted, capped Problems; once they are
// capped it only counts p in the closing summary.
func (a *Archive) addProblem(p Problem) {
	a.problems++
	if a.problems <= a.opt.MaxProblems {
		i := sort.Search(len(a.Problems), func(i int) bool { return problemLess(p, a.Problems[i]) })
		a.Problems = slices.Insert(a.Problems, i, p)
		return
	}
	if a.problems == a.opt.MaxProblems+1 {
		a.Problems = a.Problems[:a.opt.MaxProblems-1]
		last := a.Problems[len(a.Problems)-1]
		a.Problems = append(a.Problems, Problem{Kind: last.Kind, Field: "archive", Offset: last.Offset})
	}
	sum := &a.Problems[len(a.Problems)-1]
	sum.Msg = fmt.Sprintf("%d more problems not listed", a.problems-a.opt.MaxProblems+1)
}

// EffectiveScheme returns the scheme the runtime uses: SchemeZstd if Scheme
// is exactly "zstd-per-kernel", else SchemeNone.
func (a *Archive) EffectiveScheme() string {
	if a.Scheme == SchemeZstd {
		return SchemeZstd
	}
	return SchemeNone
}

// Lookup returns toc[key][arch], as kpack_get_kernel looks it up.
func (a *Archive) Lookup(key, arch string) (Entry, bool) { return EntryFor(a.Kernels[key], arch) }

// EntryFor returns the entry for arch among a kernel key's entries
// (Archive.Kernels[key]), as Lookup does.
func EntryFor(entries []ArchEntry, arch string) (Entry, bool) {
	for _, ae := range entries {
		if ae.Arch == arch {
			return ae.Entry, true
		}
	}
	return Entry{}, false
}

// KernelKeys returns the TOC's kernel keys, sorted.
func (a *Archive) KernelKeys() []string {
	keys := make([]string, 0, len(a.Kernels))
	for k := range a.Kernels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// KernelArches returns the arches with an entry for key, sorted.
func (a *Archive) KernelArches(key string) []string {
	arches := make([]string, 0, len(a.Kernels[key]))
	for _, ae := range a.Kernels[key] {
		arches = append(arches, ae.Arch)
	}
	slices.Sort(arches)
	return arches
}

// HasArch reports whether arch is listed in gfx_arches, which is what the
// loader checks before choosing this archive for arch.
func (a *Archive) HasArch(arch string) bool {
	return slices.Contains(a.Arches, arch)
}
