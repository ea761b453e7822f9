package hostbin

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// Embedded device code of binaries that were not kpack-transformed: each
// HIPF wrapper points at a clang offload bundle in the .hip_fatbin section
// (clang OffloadBundler; HIP reads it in hip_fatbin.cpp).

// Section names of the offload bundles (clang CGCUDANV: ".hip_fatbin";
// PE/COFF names are at most 8 bytes).
const (
	BundleSectionELF = ".hip_fatbin"
	BundleSectionPE  = ".hip_fat"
)

// Offload bundle magics: an uncompressed bundle starts with
// "__CLANG_OFFLOAD_BUNDLE__", a compressed one with "CCOB".
const (
	bundleMagic           = "__CLANG_OFFLOAD_BUNDLE__"
	compressedBundleMagic = "CCOB"
)

// Bounds on what Read takes from a bundle: entries per bundle, bytes per
// entry ID, and bytes decompressed from a compressed bundle to read its
// entry table (the code objects themselves are never decompressed).
const (
	MaxBundleEntries = 4096
	maxEntryIDSize   = 256
	maxBundleHeader  = 4 << 20
)

// Bundle is the offload bundle one HIPF wrapper points to.
type Bundle struct {
	// Wrapper is the wrapper's index in Binary.Wrappers.
	Wrapper int
	// Offset is the bundle's file offset, -1 when the binary has no
	// bundle section (Binary.BundleSection nil: no device code at all) or
	// the wrapper's pointer could not be resolved into it (Err set).
	Offset int64
	// Compressed is set for a "CCOB" bundle (clang --offload-compress).
	Compressed bool
	// Entries are the bundle entry IDs in file order, e.g.
	// "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" and the host entry
	// "host-x86_64-unknown-linux-gnu-".
	Entries []string
	// Err says why the bundle could not be read; "" when it was.
	Err string
}

// Embedded reports whether the binary carries wrappers HIP loads as
// embedded fat binaries (Wrapper.Embedded).
func (b *Binary) Embedded() bool {
	return len(b.Bundles) > 0
}

// Bounds per binary: embedded wrappers examined, and bundle entry IDs read
// across its distinct bundles. Real binaries have one wrapper per
// translation unit and a handful of entries per bundle.
const (
	MaxEmbeddedWrappers  = 1 << 16
	MaxEntriesPerBinary  = 1 << 16
	entryBudgetExhausted = "the binary's offload bundles hold more than 65,536 entries in all (this reader's limit); the rest were not read"
	// MaxBundleInflate bounds the bytes decompressed from a binary's
	// compressed bundles to read their entry tables, in all (each bundle
	// at most maxBundleHeader).
	MaxBundleInflate     = 256 << 20
	inflateBudgetExhaust = "the binary's compressed offload bundles took more than 256 MiB to decompress up to their entry tables (hostbin.MaxBundleInflate); the rest were not read"
)

// bundleReader reads the bundles of one binary: each distinct pointer once
// (wrappers sharing a bundle share its entries), within MaxEntriesPerBinary.
type bundleReader struct {
	r io.ReaderAt
	c *container
	b *Binary
	// relocs are the dynamic relocations of the wrapper pointers, read at
	// the first embedded wrapper (nil before, or without c.relocs).
	relocs *relocTable
	byPtr  map[uint64]Bundle
	budget int
	// inflate is what is left of MaxBundleInflate.
	inflate int64
	// meter counts what the bundles decompress against the run's budget.
	meter *inflate.Meter
	// hook is Hooks.Bundle, or nil.
	hook func(*Binary, Bundle)
}

// decodeBundles reads the offload bundle of every embedded wrapper (at most
// MaxEmbeddedWrappers) and reports HIPK wrappers of another version than 1.
// What compressed bundles decompress is counted with m.
func decodeBundles(r io.ReaderAt, c *container, b *Binary, m *inflate.Meter, h Hooks) {
	br := &bundleReader{r: r, c: c, b: b, byPtr: map[uint64]Bundle{}, budget: MaxEntriesPerBinary, inflate: MaxBundleInflate, meter: m, hook: h.Bundle}
	if h.Bundle == nil {
		br.prefetch()
	}
	for i, w := range b.Wrappers {
		if !w.Embedded() {
			continue
		}
		if len(b.Bundles) == MaxEmbeddedWrappers {
			b.Problems = append(b.Problems, Problem{Kind: EmbeddedTooMany, Section: b.FatBinSection.Name,
				Offset: b.FatBinSection.Offset + int64(i)*WrapperSize,
				Msg:    fmt.Sprintf("more than %d embedded wrappers; the rest were not read (this reader's limit)", MaxEmbeddedWrappers)})
			return
		}
		if w.Magic == MagicHIPK {
			b.Problems = append(b.Problems, Problem{Kind: HIPKBadVersion, Section: b.FatBinSection.Name,
				Offset: b.FatBinSection.Offset + int64(i)*WrapperSize,
				Msg: fmt.Sprintf("HIPK wrapper %d has version %d; HIP loads only version 1 through kpack and reads this one "+
					"as an embedded fat binary, which it is not", i, w.Version)})
		}
		b.Bundles = append(b.Bundles, br.bundle(i, w))
	}
}

// Prefetcher is implemented by readers that can fetch ranges ahead of the
// reads (a member of a package read in place through its xz block index,
// vfs.Prefetcher): the blocks holding them are then decoded on every core.
type Prefetcher interface {
	Prefetch(off, n int64)
}

// prefetchLen is how much of each bundle prefetch asks for: its entry
// table (a bundle of 20 entries with 40-byte IDs takes about 1.5 KiB).
const prefetchLen = 4096

// prefetch passes the reader, when it is a Prefetcher, the start of the
// bundle of every embedded wrapper decodeBundles will read, in file order,
// so that they are fetched (decompressed) in parallel ahead of the reads.
func (br *bundleReader) prefetch() {
	pf, ok := br.r.(Prefetcher)
	s := br.c.bundles
	if !ok || s == nil {
		return
	}
	var offs []int64
	for i, w := range br.b.Wrappers {
		if !w.Embedded() || len(offs) == MaxEmbeddedWrappers {
			continue
		}
		ptr, _, why := br.pointer(i, w)
		if why == "" && ptr >= s.Addr && ptr-s.Addr < uint64(s.FileSize) {
			offs = append(offs, s.Offset+int64(ptr-s.Addr))
		}
	}
	slices.Sort(offs)
	for i, off := range offs {
		if i == 0 || off != offs[i-1] {
			pf.Prefetch(off, prefetchLen)
		}
	}
}

// bundle returns the bundle wrapper i points to. Without a bundle section
// there is no device code: no entries and no error.
func (br *bundleReader) bundle(i int, w Wrapper) Bundle {
	if br.c.bundles == nil {
		return Bundle{Wrapper: i, Offset: -1}
	}
	ptr, via, why := br.pointer(i, w)
	if why != "" {
		return Bundle{Wrapper: i, Offset: -1, Err: why}
	}
	if bd, ok := br.byPtr[ptr]; ok {
		bd.Wrapper = i
		return bd
	}
	bd := Bundle{Wrapper: i, Offset: -1}
	switch {
	case br.budget <= 0:
		bd.Err = entryBudgetExhausted
	case br.inflate <= 0:
		bd.Err = inflateBudgetExhaust
	default:
		readBundle(br.r, br.c.bundles, ptr, via, &bd, &br.inflate, br.meter)
		br.budget -= len(bd.Entries)
		if br.hook != nil && bd.Err == "" && bd.Offset >= 0 {
			br.hook(br.b, bd)
		}
	}
	br.byPtr[ptr] = bd
	return bd
}

// examined marks the wrappers decodeBundles reads a bundle for: the
// embedded ones, at most MaxEmbeddedWrappers (one byte per wrapper, at
// most 2.8 million: MaxFatBinSectionSize).
func (br *bundleReader) examined() []bool {
	want := make([]bool, len(br.b.Wrappers))
	n := 0
	for i, w := range br.b.Wrappers {
		if w.Embedded() && n < MaxEmbeddedWrappers {
			want[i] = true
			n++
		}
	}
	return want
}

// pointer returns the address wrapper i points to once loaded: the
// pointer the last dynamic relocation of its pointer word sets (via is
// that relocation; its zero value for none), else the stored one; why says why it cannot be known from the
// file (a relocation against a symbol another module defines, or a
// stored 0 with relocation tables that did not read to their end). The
// relocation tables' own problems join the binary's.
func (br *bundleReader) pointer(i int, w Wrapper) (ptr uint64, via slotReloc, why string) {
	if br.c.relocs == nil {
		return w.Binary, via, ""
	}
	if br.relocs == nil {
		t := br.c.relocs(br.examined())
		br.relocs = &t
		br.b.Problems = append(br.b.Problems, t.problems...)
	}
	if s, ok := br.relocs.slots[br.b.FatBinSection.Addr+uint64(i)*WrapperSize+8]; ok {
		p, ok := s.pointer(w.Binary)
		if !ok {
			return 0, via, s.why
		}
		return p, s, ""
	}
	if w.Binary == 0 && br.relocs.incomplete() != "" {
		return 0, via, "the wrapper's pointer is 0 and the relocations that set it were not all read: " + br.relocs.incomplete()
	}
	return w.Binary, via, ""
}

// BundleSection returns the offload-bundle section name of the format.
func (f Format) BundleSection() string {
	if f == FormatPE {
		return BundleSectionPE
	}
	return BundleSectionELF
}

// readBundle locates the bundle at address ptr inside section s and reads
// its entry IDs into bd, decompressing at most *left bytes (less what it
// decompressed), counted with m. via is the relocation that set ptr (its
// zero value for a stored pointer).
func readBundle(r io.ReaderAt, s *Section, ptr uint64, via slotReloc, bd *Bundle, left *int64, m *inflate.Meter) {
	if ptr < s.Addr || ptr-s.Addr >= uint64(s.FileSize) {
		how := ""
		if via.name != "" {
			how = " (set at load time by relocation " + via.String() + ")"
		}
		bd.Err = fmt.Sprintf("the wrapper's pointer %#x%s is outside the %s section", ptr, how, s.Name)
		return
	}
	bd.Offset = s.Offset + int64(ptr-s.Addr)
	sr := io.NewSectionReader(r, bd.Offset, s.FileSize-int64(ptr-s.Addr))
	entries, compressed, err := readBundleEntries(sr, left, m)
	bd.Entries, bd.Compressed = entries, compressed
	if err != nil {
		bd.Err = err.Error()
	}
}

// ReadBundleEntries reads the entry IDs of the clang offload bundle at the
// start of r (uncompressed "__CLANG_OFFLOAD_BUNDLE__", or compressed "CCOB"
// versions 1-3, whose zlib or zstd payload is decompressed only as far as
// the entry table). It reads at most MaxBundleEntries entries of at most
// 256 bytes each and never allocates from a size the input declares. What
// it decompresses is counted with m, the run's budget of decompressed
// bytes (nil: not counted); past the budget the error is its
// *inflate.LimitError.
func ReadBundleEntries(r io.Reader, m *inflate.Meter) (entries []string, compressed bool, err error) {
	budget := int64(maxBundleHeader)
	return readBundleEntries(r, &budget, m)
}

// readBundleEntries is ReadBundleEntries decompressing at most
// min(maxBundleHeader, *left) bytes, taken from *left.
func readBundleEntries(r io.Reader, left *int64, m *inflate.Meter) (entries []string, compressed bool, err error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(len(bundleMagic))
	switch {
	case bytes.HasPrefix(head, []byte(compressedBundleMagic)):
		payload, err := compressedPayload(br)
		if err != nil {
			return nil, true, err
		}
		defer payload.Close()
		if err := m.Check(); err != nil {
			return nil, true, err
		}
		lr := &io.LimitedReader{R: m.Reader(payload), N: min(maxBundleHeader, *left)}
		entries, err := readEntryTable(bufio.NewReader(lr))
		*left -= min(maxBundleHeader, *left) - lr.N
		return entries, true, err
	case string(head) == bundleMagic:
		entries, err := readEntryTable(br)
		return entries, false, err
	}
	return nil, false, errors.New("no clang offload bundle at the wrapper's pointer")
}

// readEntryTable reads an uncompressed bundle's header (readEntrySpans)
// and returns the entry IDs.
func readEntryTable(r *bufio.Reader) ([]string, error) {
	spans, err := readEntrySpans(r)
	out := make([]string, len(spans))
	for i, e := range spans {
		out[i] = e.ID
	}
	if len(spans) == 0 {
		out = nil
	}
	return out, err
}

// readEntrySpans reads an uncompressed bundle's header: the magic, a u64
// entry count, then per entry u64 offset, u64 size, u64 ID length and the
// ID (little-endian). On an error it returns the entries read before it.
func readEntrySpans(r *bufio.Reader) ([]BundleEntry, error) {
	magic := make([]byte, len(bundleMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != bundleMagic {
		return nil, errors.New("offload bundle: bad magic")
	}
	var n uint64
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return nil, fmt.Errorf("offload bundle: truncated entry count: %w", err)
	}
	if n > MaxBundleEntries {
		return nil, fmt.Errorf("offload bundle: %d entries, more than %d", n, MaxBundleEntries)
	}
	var out []BundleEntry
	for i := range n {
		var hdr [3]uint64 // offset, size, ID length
		if err := binary.Read(r, binary.LittleEndian, &hdr); err != nil {
			return out, fmt.Errorf("offload bundle: entry %d truncated: %w", i, err)
		}
		if hdr[2] > maxEntryIDSize {
			return out, fmt.Errorf("offload bundle: entry %d ID is %d bytes, more than %d", i, hdr[2], maxEntryIDSize)
		}
		id := make([]byte, hdr[2])
		if _, err := io.ReadFull(r, id); err != nil {
			return out, fmt.Errorf("offload bundle: entry %d ID truncated: %w", i, err)
		}
		out = append(out, BundleEntry{ID: string(id), Offset: hdr[0], Size: hdr[1]})
	}
	return out, nil
}

// zstdDecoders holds the decoders of compressed bundles, reused from
// bundle to bundle: a decoder holds buffers for its window, so a fresh one
// per bundle costs a window per bundle, even for an empty entry table.
// Frames declaring a window over 16 MiB are refused.
var zstdDecoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxBundleHeader*4),
		zstd.WithDecoderMaxWindow(maxBundleHeader*4))
	if err != nil {
		panic(err) // the options are constant and valid
	}
	return d
}}

// pooledDecoder reads a bundle's payload and puts its decoder back in the
// pool on Close.
type pooledDecoder struct{ d *zstd.Decoder }

func (p pooledDecoder) Read(b []byte) (int, error) { return p.d.Read(b) }

func (p pooledDecoder) Close() error {
	_ = p.d.Reset(nil)
	zstdDecoders.Put(p.d)
	return nil
}

// compressedPayload skips a "CCOB" header (version 1: 20 bytes, 2: 24, 3:
// 32) and returns a decompressor over the payload, chosen from its own
// magic (zstd or zlib).
func compressedPayload(r *bufio.Reader) (io.ReadCloser, error) {
	var fixed [8]byte // magic, u16 version, u16 method
	if _, err := io.ReadFull(r, fixed[:]); err != nil {
		return nil, fmt.Errorf("compressed offload bundle: truncated header: %w", err)
	}
	rest := map[uint16]int{1: 12, 2: 16, 3: 24}[binary.LittleEndian.Uint16(fixed[4:])]
	if rest == 0 {
		return nil, fmt.Errorf("compressed offload bundle: unknown version %d", binary.LittleEndian.Uint16(fixed[4:]))
	}
	if _, err := r.Discard(rest); err != nil {
		return nil, fmt.Errorf("compressed offload bundle: truncated header: %w", err)
	}
	magic, _ := r.Peek(4)
	switch {
	case bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		d := zstdDecoders.Get().(*zstd.Decoder)
		if err := d.Reset(r); err != nil {
			zstdDecoders.Put(d)
			return nil, err
		}
		return pooledDecoder{d}, nil
	case len(magic) > 0 && magic[0]&0x0f == 8: // zlib CMF: deflate
		return zlib.NewReader(r)
	}
	return nil, errors.New("compressed offload bundle: payload is neither zstd nor zlib")
}
