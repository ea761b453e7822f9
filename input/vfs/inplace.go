package vfs

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/rocm-tools/kpack-lint/input/vfs/xzra"
)

// An xz stream cut into blocks (xz -T0, dpkg-deb) is read in place through
// its block index (package xzra): the tar or cpio headers are found by
// skipping from one to the next in uncompressed space (512 bytes plus the
// member's data rounded up to 512 for tar, the newc header, name and data
// each padded to 4 for cpio), so that listing decodes the blocks holding
// headers, each only up to its last header, and a member reader decodes
// only the blocks its reads touch. The decoded blocks are cached within
// Options.BlockMemory. A stream of one block, or of a block larger than
// half of Options.BlockMemory, is streamed as before; when it is large
// (xzra.LargeOneBlock and more) Input.Streamed says why.

// largeOneBlock is the size from which a stream that cannot be read in
// place is named in Input.Streamed (a variable for the tests).
var largeOneBlock int64 = xzra.LargeOneBlock

// inPlace opens the xz stream of b through its block index. It returns nil
// when the stream must be streamed instead: a corrupt index (streaming
// reports it), too few blocks (b.streamed says why when the stream is
// large), and when charging the stream's size to the budget fails (then
// err is the *inflate.LimitError, and nothing more is read).
func (b *tarBackend) inPlace() (*xzra.Reader, error) {
	ix, err := xzra.ReadIndex(b.sec, b.size)
	if err != nil {
		var fe *xzra.FormatError
		if errors.As(err, &fe) && !fe.Limit {
			b.indexErr = err
		}
		return nil, nil
	}
	what := fmt.Sprintf("%s (its %s stream)", b.name, b.kind)
	budget := b.t.opt.Budget
	liblzma, xzPath := b.t.opt.xzDecoder()
	x, err := xzra.NewReader(b.sec, ix, xzra.Options{
		MemoryBudget: b.t.opt.BlockMemory,
		Prepaid:      true,
		XZ:           xzPath,
		Liblzma:      liblzma,
		Charge:       func(n int64) error { return budget.Charge(n, what) },
	})
	if errors.Is(err, xzra.ErrFewBlocks) {
		if ix.Size >= largeOneBlock {
			b.streamed = streamedWhy(ix, err)
		}
		if !liblzma {
			return nil, declaredDicts(ix, b.sec, streamDictLimit(b.t.opt.BlockMemory))
		}
		return nil, nil
	}
	if err != nil {
		return nil, nil
	}
	// What a front-to-back decode of the stream would cost: the
	// Reader charges only what it decodes again past that.
	if err := budget.Charge(ix.Size, what); err != nil {
		x.Close()
		return nil, err
	}
	return x, nil
}

// maxDictChecks bounds the block headers declaredDicts reads.
const maxDictChecks = 4096

// declaredDicts refuses a stream to be decompressed front to back by
// github.com/ulikunitz/xz, which allocates the dictionary each block
// header declares, when one declares more than limit bytes: liblzma is
// held to the same limit (streamDictLimit). Headers that do not parse are
// left to the decoder.
func declaredDicts(ix *xzra.Index, r io.ReaderAt, limit int64) error {
	for i := range min(len(ix.Blocks), maxDictChecks) {
		if d, err := ix.DeclaredDict(r, i); err == nil && d > limit {
			return fmt.Errorf("block %d declares an LZMA2 dictionary of %d MiB, more than the %d MiB of memory allowed (--deep-memory)", i+1, d>>20, limit>>20)
		}
	}
	return nil
}

// streamedWhy words Input.Streamed for a stream xzra refused with err.
func streamedWhy(ix *xzra.Index, err error) string {
	blocks := 0
	for _, bl := range ix.Blocks {
		if bl.USize > 0 {
			blocks++
		}
	}
	if blocks < 2 {
		return fmt.Sprintf("its xz stream is one block of %d MiB, as single-threaded xz writes it, so it was decompressed front to back; "+
			"compressed with xz -T0 (or --block-size), as dpkg-deb does by default, it is read in place", ix.Size>>20)
	}
	return err.Error()
}

// readInPlace indexes the stream through x: a tar's headers are found by
// archive/tar seeking over member data, a cpio's by cpioHeaders.
func (b *tarBackend) readInPlace(x *xzra.Reader, c *collector) error {
	b.xz = x
	if b.isCPIO() {
		return b.indexCPIOInPlace(c)
	}
	sr := io.NewSectionReader(x, 0, x.Size())
	b.pos = sr
	return b.index(sr, c)
}

// inXZOffset is the uncompressed offset of the data of the member whose
// header the tar reader over b.pos just read.
func (b *tarBackend) inXZOffset() (int64, error) {
	return b.pos.Seek(0, io.SeekCurrent)
}

// xzMember is a member served from the block index: reads decode the
// blocks they touch, and Close tells the Reader that the blocks lying
// wholly inside the span this handle read may go first. Only that span:
// --deep reads one large binary through a handle per offload bundle on
// every core, and a handle closing after its bundle must not mark the
// blocks another handle is reading (or that were decoded ahead for it)
// as done, or they are dropped and decoded again.
type xzMember struct {
	x         *xzra.Reader
	off, size int64

	mu     sync.Mutex
	lo, hi int64 // member offsets of the span read; hi == 0 before any read
}

func (m *xzMember) Size() int64 { return m.size }

func (m *xzMember) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("vfs: negative offset")
	}
	if off >= m.size {
		return 0, io.EOF
	}
	short := int64(len(p)) > m.size-off
	if short {
		p = p[:m.size-off]
	}
	m.mu.Lock()
	if m.hi == 0 || off < m.lo {
		m.lo = off
	}
	m.hi = max(m.hi, off+int64(len(p)))
	m.mu.Unlock()
	n, err := m.x.ReadAt(p, m.off+off)
	if err == nil && short {
		err = io.EOF
	}
	return n, err
}

// Prefetch tells the member's Reader that the n bytes at off will be read
// soon: the blocks holding them are decoded on the background workers
// (within Options.BlockMemory), ahead of the reads.
func (m *xzMember) Prefetch(off, n int64) {
	if off < 0 || off >= m.size || n <= 0 {
		return
	}
	m.x.Prefetch(xzra.Range{Off: m.off + off, Len: min(n, m.size-off)})
}

func (m *xzMember) Close() error {
	m.mu.Lock()
	lo, hi := m.lo, m.hi
	m.mu.Unlock()
	if hi > lo {
		m.x.Release(xzra.Range{Off: m.off + lo, Len: hi - lo})
	}
	return nil
}

// Prefetcher is implemented by the readers Entry.Open returns for members
// read in place through an xz block index: a reader that knows which
// ranges it will read (the offload bundles of a host binary, found in its
// section headers) passes them, and the blocks holding them are decoded
// on every core ahead of its reads. Other readers need no hint.
type Prefetcher interface {
	Prefetch(off, n int64)
}

// tarHeaderInPlace is the member place gives a regular, non-sparse
// member of a stream read in place.
func (b *tarBackend) tarHeaderInPlace(hdr *tar.Header) (tarMember, error) {
	off, err := b.inXZOffset()
	if err != nil || off+hdr.Size > b.xz.Size() {
		return tarMember{}, streamError{fmt.Errorf("member data past the end of the stream")}
	}
	return b.memberInPlace(off, hdr.Size)
}

// memberInPlace is the member of size bytes at offset off of the stream
// read in place, with its first headLen bytes, which the index pass
// decodes anyway (they follow the header), recorded for Entry.Head.
func (b *tarBackend) memberInPlace(off, size int64) (tarMember, error) {
	head := make([]byte, min(headLen, size))
	if _, err := b.xz.ReadAt(head, off); err != nil {
		return tarMember{}, streamError{err}
	}
	return tarMember{where: inXZ, off: off, head: head}, nil
}
