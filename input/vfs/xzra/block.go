package xzra

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync/atomic"

	"github.com/xi2/xz"
)

// Filter IDs (section 5.3 of the format; 0x0a ARM64 and 0x0b RISC-V are
// newer than the decoder and refused).
const (
	filterDelta    = 0x03
	filterX86      = 0x04
	filterPowerPC  = 0x05
	filterIA64     = 0x06
	filterARM      = 0x07
	filterARMThumb = 0x08
	filterSPARC    = 0x09
	filterLZMA2    = 0x21
)

var filterNames = map[uint64]string{
	filterDelta: "delta", filterX86: "x86 BCJ", filterPowerPC: "PowerPC BCJ", filterIA64: "IA-64 BCJ",
	filterARM: "ARM BCJ", filterARMThumb: "ARM-Thumb BCJ", filterSPARC: "SPARC BCJ", filterLZMA2: "LZMA2",
	0x0a: "ARM64 BCJ", 0x0b: "RISC-V BCJ",
}

// MaxDict bounds the LZMA2 dictionary a block needs: 64 MiB, what xz -9
// uses (and the decoder's default). A block needs no more dictionary
// than its own size (LZMA2 resets the dictionary at each block, so no
// match reaches further back), so its decoder gets the smaller of the
// two; a block needing more than MaxDict is refused with an error naming
// its size.
const MaxDict = 64 << 20

// maxHeader is the largest block header (section 3.1.1: (255+1)*4).
const maxHeader = 1024

// blockHeader is what a block header says (section 3.1).
type blockHeader struct {
	size     int64    // header bytes
	filters  []uint64 // filter IDs, LZMA2 last
	dict     int64    // LZMA2 dictionary size in bytes, at most the block's size
	declared int64    // the dictionary size the header declares
	raw      []byte   // the header as decoded: its dictionary size so lowered, CRC32 redone
	props    int64    // offset of the LZMA2 properties byte in raw
	usize    int64    // the block's uncompressed size
}

// readBlockHeader reads and checks the header of block i against the
// index: CRC32, reserved bits, sizes, filters.
func (ix *Index) readBlockHeader(r io.ReaderAt, i int) (blockHeader, error) {
	return ix.parseBlockHeader(r, i, false)
}

// DeclaredDict returns the LZMA2 dictionary size (bytes) that block i's
// header declares: what a decoder that does not lower it to the block's
// size allocates (github.com/ulikunitz/xz streaming a file). Errors: a
// *FormatError where the header does not parse or its filters are not
// ones the Go decoders read.
func (ix *Index) DeclaredDict(r io.ReaderAt, i int) (int64, error) {
	h, err := ix.parseBlockHeader(r, i, true)
	return h.declared, err
}

// parseBlockHeader is readBlockHeader; declaredOnly stops after parsing.
func (ix *Index) parseBlockHeader(r io.ReaderAt, i int, declaredOnly bool) (blockHeader, error) {
	b := ix.Blocks[i]
	check := ix.Streams[b.Stream].Check.Size()
	buf := make([]byte, min(maxHeader+1, b.Unpadded-check)) // the header and one byte of data
	if err := readAt(r, buf[:1], b.Off); err != nil {
		return blockHeader{}, err
	}
	if buf[0] == 0 {
		return blockHeader{}, formatErr(b.Off, "block %d: an index indicator where the index says a block starts", i+1)
	}
	h := blockHeader{size: (int64(buf[0]) + 1) * 4}
	if h.size >= int64(len(buf)) {
		return blockHeader{}, formatErr(b.Off, "block %d: a %d-byte header in a block of %d bytes (unpadded)", i+1, h.size, b.Unpadded)
	}
	p := buf[:h.size]
	if err := readAt(r, p, b.Off); err != nil {
		return blockHeader{}, err
	}
	if got, want := crc32.ChecksumIEEE(p[:h.size-4]), binary.LittleEndian.Uint32(p[h.size-4:]); got != want {
		return blockHeader{}, formatErr(b.Off, "block %d: header CRC32 %08x, computed %08x", i+1, want, got)
	}
	h.usize = b.USize
	if err := h.parse(p[1:h.size-4], b, h.size+check); err != nil {
		return blockHeader{}, formatErr(b.Off, "block %d: %v", i+1, err)
	}
	if declaredOnly {
		return h, nil
	}
	if h.dict > MaxDict {
		return blockHeader{}, formatErr(b.Off, "block %d: needs an LZMA2 dictionary of %d MiB, more than %d MiB (xzra.MaxDict, what xz -9 uses)", i+1, h.dict>>20, MaxDict>>20)
	}
	p[h.props] = dictBits(h.dict)
	binary.LittleEndian.PutUint32(p[h.size-4:], crc32.ChecksumIEEE(p[:h.size-4]))
	h.raw = p
	return h, nil
}

// parse reads the flags, sizes and filters of a header (p without the
// size byte and CRC32). over is what the block holds besides its
// compressed data.
func (h *blockHeader) parse(p []byte, b Block, over int64) error {
	flags := p[0]
	p = p[1:]
	if flags&0x3c != 0 {
		return fmt.Errorf("header flags %#02x have reserved bits set", flags)
	}
	if flags&0x40 != 0 {
		v, n, err := varint(p)
		if err != nil {
			return fmt.Errorf("compressed size: %v", err)
		}
		if int64(v) != b.Unpadded-over {
			return fmt.Errorf("the header says %d compressed bytes, the index %d", v, b.Unpadded-over)
		}
		p = p[n:]
	}
	if flags&0x80 != 0 {
		v, n, err := varint(p)
		if err != nil {
			return fmt.Errorf("uncompressed size: %v", err)
		}
		if int64(v) != b.USize {
			return fmt.Errorf("the header says %d uncompressed bytes, the index %d", v, b.USize)
		}
		p = p[n:]
	}
	rest, err := h.parseFilters(p, int(flags&3)+1)
	if err != nil {
		return err
	}
	if !allZero(rest) {
		return fmt.Errorf("header padding is not zero")
	}
	return nil
}

// parseFilters reads count filter flags (section 3.1.5): any of the
// filters the decoder knows, LZMA2 last and only last.
func (h *blockHeader) parseFilters(p []byte, count int) ([]byte, error) {
	for i := range count {
		id, n, err := varint(p)
		if err != nil {
			return nil, fmt.Errorf("filter %d ID: %v", i+1, err)
		}
		p = p[n:]
		psize, n, err := varint(p)
		if err != nil || psize > uint64(len(p)-n) {
			return nil, fmt.Errorf("filter %d (%s): properties size past the header", i+1, filterName(id))
		}
		props := p[n : n+int(psize)]
		p = p[n+int(psize):]
		last := i == count-1
		switch {
		case id == filterLZMA2 && last:
			if len(props) != 1 || props[0] > 40 {
				return nil, fmt.Errorf("LZMA2 properties % x are not a dictionary size", props)
			}
			h.declared = lzma2Dict(props[0])
			h.dict = min(h.declared, max(h.usize, 4096))
			h.props = h.size - 4 - int64(len(p)) - 1 // offset of the properties byte in the header
		case id == filterLZMA2 || last:
			return nil, fmt.Errorf("filter chain %s is not one the decoder reads (LZMA2 comes last, and only last)", chain(append(h.filters, id)))
		case filterNames[id] == "" || id == 0x0a || id == 0x0b:
			return nil, fmt.Errorf("filter %s is not read in place (LZMA2, delta and the x86, PowerPC, IA-64, ARM, ARM-Thumb and SPARC BCJ filters are)", filterName(id))
		}
		h.filters = append(h.filters, id)
	}
	return p, nil
}

// dictBits is the smallest LZMA2 properties byte naming a dictionary of
// at least n bytes (n at most 1.5 GiB; section 5.3.1).
func dictBits(n int64) byte {
	for bits := byte(0); bits < 40; bits++ {
		if lzma2Dict(bits) >= n {
			return bits
		}
	}
	return 40
}

// lzma2Dict is the dictionary size an LZMA2 properties byte (at most 40)
// names (section 5.3.1).
func lzma2Dict(bits byte) int64 {
	if bits == 40 {
		return 1<<32 - 1
	}
	return int64(2|bits&1) << (bits/2 + 11)
}

func filterName(id uint64) string {
	if n := filterNames[id]; n != "" {
		return fmt.Sprintf("%#02x (%s)", id, n)
	}
	return fmt.Sprintf("%#x", id)
}

func chain(ids []uint64) string {
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += " + "
		}
		s += filterName(id)
	}
	return s
}

// soloStream returns block i wrapped as a stream of its own: the real
// stream header, the block header h (its dictionary lowered to the
// block's size), the rest of the block from the file, and an index of one
// record with the sizes the real index gives, then a footer. Decoding it
// verifies the block's check and that the block has exactly the sizes
// the index says.
func (ix *Index) soloStream(r io.ReaderAt, i int, h blockHeader) io.Reader {
	b := ix.Blocks[i]
	s := ix.Streams[b.Stream]
	var tail []byte
	tail = append(tail, 0x00)
	tail = putVarint(tail, 1)
	tail = putVarint(tail, uint64(b.Unpadded))
	tail = putVarint(tail, uint64(b.USize))
	for len(tail)%4 != 0 {
		tail = append(tail, 0)
	}
	tail = binary.LittleEndian.AppendUint32(tail, crc32.ChecksumIEEE(tail))
	var foot [footerLen]byte
	binary.LittleEndian.PutUint32(foot[4:8], uint32(len(tail)/4-1))
	copy(foot[8:10], s.header[6:8])
	copy(foot[10:12], footerMagic)
	binary.LittleEndian.PutUint32(foot[0:4], crc32.ChecksumIEEE(foot[4:10]))
	tail = append(tail, foot[:]...)
	return io.MultiReader(bytes.NewReader(s.header[:]), bytes.NewReader(h.raw),
		io.NewSectionReader(r, b.Off+h.size, b.Total()-h.size), bytes.NewReader(tail))
}

// isDecoderErr reports the decoder's own errors, as opposed to those of
// reading the file.
func isDecoderErr(err error) bool {
	var ee *externalErr
	if errors.As(err, &ee) {
		return true
	}
	for _, e := range []error{xz.ErrData, xz.ErrBuf, xz.ErrFormat, xz.ErrOptions, xz.ErrMemlimit, xz.ErrUnsupportedCheck, io.ErrUnexpectedEOF} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func putVarint(p []byte, v uint64) []byte {
	for v >= 0x80 {
		p = append(p, byte(v)|0x80)
		v >>= 7
	}
	return append(p, byte(v))
}

// decoder decodes one block at a time: XZ Embedded's decoder as ported
// to Go by github.com/xi2/xz, which takes about 1.5x liblzma's CPU where
// github.com/ulikunitz/xz takes 1.9x (see the package benchmarks). It
// keeps its dictionary between blocks.
type decoder struct {
	z    io.Reader  // the block's bytes
	g    *xz.Reader // the Go decoder, or nil
	br   *bufio.Reader
	lib  *lzmaStream // or liblzma, loaded into the process (liblzma_cgo.go)
	proc *xzProc     // or the xz process (external.go)
	dict int64       // bytes of the dictionary it holds (charged to the budget)
	full int64       // for an xz process, dict once its dictionary is full
}

// close stops an xz process and frees liblzma's decoder; a Go decoder
// needs nothing.
func (d *decoder) close() {
	switch {
	case d == nil:
	case d.proc != nil:
		d.proc.close()
	case d.lib != nil:
		d.lib.close()
	}
}

// decoderInput is the read size from the file (one pread per 256 KiB).
const decoderInput = 256 << 10

// liveLzma counts the liblzma decoders allocated and not freed (the
// tests check that Close frees them all).
var liveLzma atomic.Int64

// lzmaBuffers is what a liblzma decoder holds besides its dictionary: its
// input buffer (lzmaInput) and liblzma's own state.
const lzmaBuffers = 256 << 10

// startLib points d (nil: a new decoder) at block i with liblzma: a
// decoder re-used keeps its dictionary when the block's is the same size.
func (ix *Index) startLib(d *decoder, r io.ReaderAt, i int, h blockHeader) (*decoder, error) {
	if d == nil {
		l, err := newLzma()
		if err != nil {
			return nil, err
		}
		d = &decoder{z: l, lib: l}
	}
	if err := d.lib.reset(ix.soloStream(r, i, h), h.dict); err != nil {
		d.close()
		return nil, ix.decodeErr(i, err)
	}
	d.dict = max(d.dict, h.dict+lzmaBuffers)
	return d, nil
}

// start points d (nil: a new decoder) at block i, whose header says h.
func (ix *Index) start(d *decoder, r io.ReaderAt, i int, h blockHeader) (*decoder, error) {
	src := ix.soloStream(r, i, h)
	if d == nil {
		d = &decoder{br: bufio.NewReaderSize(src, decoderInput)}
		z, err := xz.NewReader(d.br, MaxDict)
		if err != nil {
			return nil, ix.decodeErr(i, err)
		}
		d.z, d.g = z, z
	} else {
		d.br.Reset(src)
		if err := d.g.Reset(d.br); err != nil {
			return nil, ix.decodeErr(i, err)
		}
	}
	d.g.Multistream(false)
	d.dict = max(d.dict, h.dict)
	return d, nil
}

// decodeErr names block i in a decoder error. The decoder's errors are
// terse ("xz: data is corrupt"): a wrong check, compressed data that does
// not decode, or sizes unlike the index's.
func (ix *Index) decodeErr(i int, err error) error {
	b := ix.Blocks[i]
	var fe *FormatError
	if errors.As(err, &fe) || !isDecoderErr(err) {
		return err
	}
	return formatErr(b.Off, "block %d (%d bytes at uncompressed offset %d, %s check): %v", i+1, b.USize, b.UOff, ix.Streams[b.Stream].Check, err)
}
