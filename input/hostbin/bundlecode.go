package hostbin

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"

	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// BundleEntry is one entry of a clang offload bundle's table (clang
// OffloadBundler.cpp, "__CLANG_OFFLOAD_BUNDLE__" header): its ID and the
// bytes it holds, Size bytes from Offset, both counted from the start of
// the uncompressed bundle (for a "CCOB" bundle, of its decompressed
// payload).
type BundleEntry struct {
	ID           string
	Offset, Size uint64
}

// MaxEmbeddedInflate bounds the bytes --deep decompresses from one
// binary's compressed offload bundles (CCOB) to reach and read their
// entries' code objects, in all: a real library's device code is a few
// hundred MB to a few GB; a bundle whose entries lie further out, or a
// hostile one declaring entries a decompression bomb away, stops there
// and its remaining entries are reported as not verified.
const MaxEmbeddedInflate = 8 << 30

// ErrInflateLimit is BundleCode.ReadEntry's error once the binary's
// MaxEmbeddedInflate budget is spent.
var ErrInflateLimit = errors.New("the binary's compressed offload bundles took more than 8 GiB to decompress up to this entry (hostbin.MaxEmbeddedInflate); it was not verified")

// BundleCode reads the code objects of one offload bundle (check --deep):
// the entry table, then each entry's bytes. An uncompressed bundle is read
// in place from the file; a compressed one ("CCOB", zstd or zlib) is
// decompressed as a stream (pooled zstd decoders, windows of at most 16
// MiB as for Read) once, front to back, when the entries are read in
// Order; reading an entry that lies before one already read starts the
// stream again. Nothing is allocated from a size the bundle declares.
type BundleCode struct {
	// Entries is the bundle's table, in file order.
	Entries []BundleEntry
	// Compressed is set for a CCOB bundle.
	Compressed bool

	r   io.ReaderAt // the file
	off int64       // the bundle's file offset
	end int64       // the end of its section's stored bytes

	z       io.ReadCloser // compressed: the payload stream, at pos
	br      *bufio.Reader // over z
	pos     uint64
	inflate *atomic.Int64 // what is left of the binary's MaxEmbeddedInflate
	meter   *inflate.Meter
}

// NewInflateBudget returns a fresh MaxEmbeddedInflate budget for one
// binary's bundles, shared by every BundleCode of that binary.
func NewInflateBudget() *atomic.Int64 {
	var n atomic.Int64
	n.Store(MaxEmbeddedInflate)
	return &n
}

// OpenBundleCode reads the entry table of the bundle bd of binary b (read
// from r) and returns a reader of its entries' bytes; left is the
// binary's budget of decompressed bytes (NewInflateBudget) and m counts
// them against the run's (nil: not counted; past it, reads fail with its
// *inflate.LimitError). A bundle that does not read (bd.Err, no bundle
// section) is an error.
func OpenBundleCode(r io.ReaderAt, b *Binary, bd Bundle, left *atomic.Int64, m *inflate.Meter) (*BundleCode, error) {
	s := b.BundleSection
	if bd.Err != "" || bd.Offset < 0 || s == nil {
		return nil, errors.New("the offload bundle does not read")
	}
	end := s.Offset + s.FileSize
	if bd.Offset >= end {
		return nil, fmt.Errorf("the offload bundle at %d lies past the %s section", bd.Offset, s.Name)
	}
	c := &BundleCode{Compressed: bd.Compressed, r: r, off: bd.Offset, end: end, inflate: left, meter: m}
	var err error
	if c.Compressed {
		if err = c.restart(); err != nil {
			return nil, err
		}
		c.Entries, err = readEntrySpans(c.br)
		c.pos = uint64(c.headerRead())
	} else {
		c.Entries, err = readEntrySpans(bufio.NewReader(io.NewSectionReader(r, c.off, end-c.off)))
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// headerRead is how far into the payload the table took the stream.
func (c *BundleCode) headerRead() int {
	n := 24 + 8
	for _, e := range c.Entries {
		n += 24 + len(e.ID)
	}
	return n
}

// restart opens the compressed payload again, at its first byte.
func (c *BundleCode) restart() error {
	if c.z != nil {
		c.z.Close()
	}
	if err := c.meter.Check(); err != nil {
		c.z = nil
		return err
	}
	z, err := compressedPayload(bufio.NewReader(io.NewSectionReader(c.r, c.off, c.end-c.off)))
	if err != nil {
		c.z = nil
		return err
	}
	c.z = c.meter.Reader(z)
	c.br, c.pos = bufio.NewReaderSize(c.z, 64<<10), 0
	return nil
}

// Order returns the entry indexes by offset (then index): the order that
// reads a compressed bundle in one pass.
func (c *BundleCode) Order() []int {
	out := make([]int, len(c.Entries))
	for i := range out {
		out[i] = i
	}
	slices.SortStableFunc(out, func(a, b int) int {
		switch x, y := c.Entries[a].Offset, c.Entries[b].Offset; {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return out
}

// ReadEntry reads the first len(buf) bytes of entry i (at most its Size)
// into buf and returns how many it read. Fewer than asked, with an error,
// means the entry runs past the end of the bundle (its section, or the
// decompressed payload); ErrInflateLimit means the binary's budget of
// decompressed bytes is spent.
func (c *BundleCode) ReadEntry(i int, buf []byte) (int, error) {
	e := c.Entries[i]
	want := uint64(len(buf))
	if want > e.Size {
		want = e.Size
	}
	buf = buf[:want]
	if !c.Compressed {
		avail := uint64(c.end - c.off)
		if e.Offset > avail || want > avail-e.Offset {
			n := 0
			if e.Offset < avail {
				n, _ = c.r.ReadAt(buf[:avail-e.Offset], c.off+int64(e.Offset))
			}
			return n, fmt.Errorf("entry %d (%d bytes at offset %d) runs past the end of the %d-byte offload bundle", i, e.Size, e.Offset, avail)
		}
		n, err := c.r.ReadAt(buf, c.off+int64(e.Offset))
		if n == len(buf) {
			err = nil
		}
		return n, err
	}
	if e.Offset < c.pos {
		if err := c.restart(); err != nil {
			return 0, err
		}
	}
	if e.Offset-c.pos > MaxEmbeddedInflate { // no sum below can wrap
		c.inflate.Store(-1)
		return 0, ErrInflateLimit
	}
	if err := c.take(e.Offset - c.pos + want); err != nil {
		return 0, err
	}
	if skip := e.Offset - c.pos; skip > 0 {
		k, err := io.CopyN(io.Discard, c.br, int64(skip))
		c.pos += uint64(k)
		if err != nil {
			return 0, c.short(i, e, err)
		}
	}
	n, err := io.ReadFull(c.br, buf)
	c.pos += uint64(n)
	if err != nil {
		return n, c.short(i, e, err)
	}
	return n, nil
}

// take spends n bytes of the inflate budget.
func (c *BundleCode) take(n uint64) error {
	if n > MaxEmbeddedInflate || c.inflate.Add(-int64(n)) < 0 {
		c.inflate.Store(-1)
		return ErrInflateLimit
	}
	return nil
}

// short is the error of an entry the decompressed payload ends inside.
func (c *BundleCode) short(i int, e BundleEntry, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("entry %d (%d bytes at offset %d) runs past the end of the compressed offload bundle's payload (%d bytes)", i, e.Size, e.Offset, c.pos)
	}
	return fmt.Errorf("compressed offload bundle: %w", err)
}

// Close releases the decompressor.
func (c *BundleCode) Close() {
	if c.z != nil {
		c.z.Close()
		c.z = nil
	}
}
