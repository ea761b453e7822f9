// Package xzra reads an xz file at random: it parses the index at the end
// of each stream (The .xz File Format, version 1.2.1, sections 2 and 4:
// https://tukaani.org/xz/xz-file-format.txt) and serves the uncompressed
// bytes through an io.ReaderAt that decodes only the blocks holding the
// bytes asked for, each only as far as asked. Multi-threaded xz (xz -T0,
// and dpkg-deb, which compresses data.tar.xz that way) cuts its output
// into independent blocks of 3 x the dictionary size (24 MiB at the
// default preset), so a reader that needs a tar member's headers decodes
// a few blocks, not the whole stream, and blocks can be decoded on
// several cores.
//
// A stream written as one block (single-threaded xz, the default of xz
// before 5.4 and of many scripts) has nothing to seek to: Open refuses it
// with ErrFewBlocks, and the caller streams it as before.
package xzra

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Fixed sizes and magic bytes of the format (sections 2.1.1, 2.1.2).
const (
	headerLen   = 12 // stream header: magic, flags, CRC32
	footerLen   = 12 // stream footer: CRC32, backward size, flags, magic
	maxVarint   = 9  // bytes of a multibyte integer (section 1.2)
	maxInt63    = 1<<63 - 1
	maxUnpadded = maxInt63 &^ 3 // the largest Unpadded Size (liblzma UNPADDED_SIZE_MAX)
)

var (
	headerMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	footerMagic = []byte{'Y', 'Z'}
)

// Bounds on what one file may declare before anything is allocated from
// it. A real package has one stream; a 100 GB tarball cut into 1 MiB
// blocks has about 100,000 blocks and a 1 MiB index.
const (
	// MaxStreams bounds the concatenated streams of one file.
	MaxStreams = 1 << 16
	// MaxBlocks bounds the blocks of one file, all streams together.
	MaxBlocks = 1 << 20
	// MaxIndexBytes bounds the index of one stream (at least 2 bytes per
	// block, so MaxBlocks fit in 20 MiB).
	MaxIndexBytes = 32 << 20
)

// ErrFewBlocks is wrapped by Open when the file holds fewer than two
// blocks with data, or a block larger than Options.MaxBlockSize: reading
// it in place would mean decoding it from its start for every read, so
// the caller should stream it instead. The message names the block size
// and the fix (compress with xz -T0, or let dpkg-deb choose).
var ErrFewBlocks = errors.New("xz stream not cut into blocks small enough to read in place")

// FormatError is a stream, block or index that breaks the format: a bad
// magic or CRC32, a truncated footer, an index that disagrees with the
// stream. Off is the offset in the compressed file where it was found.
type FormatError struct {
	Off int64
	Msg string
	// Limit marks a file that passes one of this package's bounds
	// (MaxStreams, MaxBlocks, MaxIndexBytes) rather than the format: it
	// may be a valid file, to be read front to back instead.
	Limit bool
}

func (e *FormatError) Error() string { return fmt.Sprintf("xz: offset %d: %s", e.Off, e.Msg) }

func formatErr(off int64, format string, args ...any) error {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, args...)}
}

// limitErr is a FormatError for a file past one of the package's bounds.
func limitErr(off int64, format string, args ...any) error {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, args...), Limit: true}
}

// Check is the integrity check of a stream's blocks (section 2.1.1.2).
type Check byte

// The check types decoded and verified; the others are reserved.
const (
	CheckNone   Check = 0x00
	CheckCRC32  Check = 0x01
	CheckCRC64  Check = 0x04
	CheckSHA256 Check = 0x0a
)

// Size is the check's size in bytes after each block: 0, 4, 8, 16, 32 or
// 64 (reserved IDs have sizes too, so a stream using one can still be
// parsed, though not verified).
func (c Check) Size() int64 {
	if c == 0 {
		return 0
	}
	return 4 << ((c - 1) / 3)
}

func (c Check) String() string {
	switch c {
	case CheckNone:
		return "none"
	case CheckCRC32:
		return "CRC32"
	case CheckCRC64:
		return "CRC64"
	case CheckSHA256:
		return "SHA-256"
	}
	return fmt.Sprintf("reserved check %#x", byte(c))
}

// Stream is one stream of a file.
type Stream struct {
	Off        int64 // of its stream header in the file
	Size       int64 // compressed bytes, header to footer
	Padding    int64 // zero bytes of stream padding after it
	Check      Check
	FirstBlock int // index of its first block in Index.Blocks
	Blocks     int // number of its blocks
	header     [headerLen]byte
}

// Block is one block as the index records it.
type Block struct {
	Off      int64 // of its block header in the file
	Unpadded int64 // header, compressed data and check (section 4.3.1)
	UOff     int64 // of its first uncompressed byte in the whole file
	USize    int64 // uncompressed bytes (section 4.3.2)
	Stream   int   // index in Index.Streams
}

// Total is the block's size in the file: Unpadded rounded up to 4.
func (b Block) Total() int64 { return (b.Unpadded + 3) &^ 3 }

// Index is every stream and block of a file, in file order.
type Index struct {
	Streams []Stream
	Blocks  []Block
	Size    int64 // uncompressed bytes, all streams together
}

// ReadIndex parses the streams of a file of size bytes backwards from its
// end, as liblzma's lzma_file_info_decoder does: stream padding, stream
// footer, index, stream header, verifying each CRC32, the backward size,
// that both copies of the stream flags agree and that the blocks fill the
// space between header and index. It reads the footers, headers and
// indexes only, never block data. Errors are *FormatError.
func ReadIndex(r io.ReaderAt, size int64) (*Index, error) {
	var rev []Stream
	var blocks [][]Block
	nblocks := 0
	end := size
	for end > 0 {
		if len(rev) == MaxStreams {
			return nil, limitErr(end, "more than %d concatenated streams (xzra.MaxStreams)", MaxStreams)
		}
		pad, err := streamPadding(r, end)
		if err != nil {
			return nil, err
		}
		end -= pad
		if end == 0 {
			return nil, formatErr(0, "stream padding at the start of the file, where a stream header belongs")
		}
		s, bs, err := readStream(r, end, MaxBlocks-nblocks)
		if err != nil {
			return nil, err
		}
		s.Padding = pad
		nblocks += len(bs)
		rev = append(rev, s)
		blocks = append(blocks, bs)
		end = s.Off
	}
	if len(rev) == 0 {
		return nil, formatErr(0, "empty file: no xz stream")
	}
	return assemble(rev, blocks)
}

// assemble puts the streams read backwards into file order and gives
// every block its uncompressed offset.
func assemble(rev []Stream, blocks [][]Block) (*Index, error) {
	ix := &Index{}
	for i := len(rev) - 1; i >= 0; i-- {
		s := rev[i]
		s.FirstBlock, s.Blocks = len(ix.Blocks), len(blocks[i])
		for _, b := range blocks[i] {
			if b.USize > maxInt63-ix.Size {
				return nil, formatErr(b.Off, "uncompressed sizes add up past 2^63 bytes")
			}
			b.UOff, b.Stream = ix.Size, len(ix.Streams)
			ix.Size += b.USize
			ix.Blocks = append(ix.Blocks, b)
		}
		ix.Streams = append(ix.Streams, s)
	}
	return ix, nil
}

// streamPadding counts the zero bytes before end (a multiple of 4,
// section 2.2), reading backwards 64 KiB at a time.
func streamPadding(r io.ReaderAt, end int64) (int64, error) {
	buf := make([]byte, 64<<10)
	pos := end
	for pos > 0 {
		n := min(int64(len(buf)), pos)
		chunk := buf[:n]
		if err := readAt(r, chunk, pos-n); err != nil {
			return 0, err
		}
		i := len(chunk)
		for i > 0 && chunk[i-1] == 0 {
			i--
		}
		pos -= n - int64(i)
		if i > 0 {
			break
		}
	}
	pad := end - pos
	if pad%4 != 0 {
		return 0, formatErr(pos, "stream padding of %d zero bytes, not a multiple of four (or a truncated stream footer)", pad)
	}
	return pad, nil
}

// readStream reads the stream whose footer ends at end. At most maxBlocks
// blocks may be indexed.
func readStream(r io.ReaderAt, end int64, maxBlocks int) (Stream, []Block, error) {
	if end < headerLen+footerLen {
		return Stream{}, nil, formatErr(0, "truncated: %d bytes cannot hold a stream header and footer", end)
	}
	foot := end - footerLen
	var f [footerLen]byte
	if err := readAt(r, f[:], foot); err != nil {
		return Stream{}, nil, err
	}
	flags, backward, err := parseFooter(f, foot)
	if err != nil {
		return Stream{}, nil, err
	}
	ixOff := foot - backward
	if ixOff < headerLen {
		return Stream{}, nil, formatErr(foot, "backward size %d points before the start of the stream", backward)
	}
	blocks, blocksSize, err := readIndex(r, ixOff, backward, maxBlocks)
	if err != nil {
		return Stream{}, nil, err
	}
	start := ixOff - headerLen - blocksSize
	if start < 0 {
		return Stream{}, nil, formatErr(ixOff, "the index records %d bytes of blocks; only %d bytes precede it", blocksSize, ixOff-headerLen)
	}
	s := Stream{Off: start, Size: end - start, Check: Check(flags[1])}
	if err := readAt(r, s.header[:], start); err != nil {
		return Stream{}, nil, err
	}
	if err := parseHeader(s.header, start, flags); err != nil {
		return Stream{}, nil, err
	}
	off := start + headerLen
	for i := range blocks {
		if blocks[i].Unpadded < s.Check.Size()+5 {
			return Stream{}, nil, formatErr(ixOff, "index record %d: unpadded size %d is too small for a block with a %s check", i+1, blocks[i].Unpadded, s.Check)
		}
		blocks[i].Off = off
		off += blocks[i].Total()
	}
	return s, blocks, nil
}

// parseFooter checks a stream footer at off and returns its stream flags
// and the index size it declares (section 2.1.2).
func parseFooter(f [footerLen]byte, off int64) (flags [2]byte, backward int64, err error) {
	if !bytes.Equal(f[10:12], footerMagic) {
		return flags, 0, formatErr(off, "no stream footer magic \"YZ\" at the end (a truncated or corrupt file; read % x)", f[10:12])
	}
	if got, want := crc32.ChecksumIEEE(f[4:10]), binary.LittleEndian.Uint32(f[0:4]); got != want {
		return flags, 0, formatErr(off, "stream footer CRC32 %08x, computed %08x", want, got)
	}
	copy(flags[:], f[8:10])
	if err := checkFlags(flags, off+8); err != nil {
		return flags, 0, err
	}
	backward = (int64(binary.LittleEndian.Uint32(f[4:8])) + 1) * 4
	return flags, backward, nil
}

// parseHeader checks a stream header at off against the footer's flags
// (sections 2.1.1 and 2.1.2.3).
func parseHeader(h [headerLen]byte, off int64, flags [2]byte) error {
	if !bytes.Equal(h[:6], headerMagic) {
		return formatErr(off, "no stream header magic where the index says the stream starts (read % x)", h[:6])
	}
	if got, want := crc32.ChecksumIEEE(h[6:8]), binary.LittleEndian.Uint32(h[8:12]); got != want {
		return formatErr(off, "stream header CRC32 %08x, computed %08x", want, got)
	}
	if h[6] != flags[0] || h[7] != flags[1] {
		return formatErr(off, "stream header flags % x differ from the footer's % x", h[6:8], flags[:])
	}
	return nil
}

// checkFlags refuses stream flags with reserved bits set (section 2.1.1.2).
func checkFlags(flags [2]byte, off int64) error {
	if flags[0] != 0 || flags[1]&0xf0 != 0 {
		return formatErr(off, "stream flags % x have reserved bits set (a newer format or a corrupt file)", flags[:])
	}
	return nil
}

// readIndex parses the index of size bytes at off (section 4): its
// records and the total size of the blocks they describe.
func readIndex(r io.ReaderAt, off, size int64, maxBlocks int) ([]Block, int64, error) {
	switch {
	case size > MaxIndexBytes:
		return nil, 0, limitErr(off, "index of %d bytes, more than %d (xzra.MaxIndexBytes)", size, MaxIndexBytes)
	case size < 8: // indicator, count, padding, CRC32
		return nil, 0, formatErr(off, "backward size %d is too small for an index", size)
	}
	buf := make([]byte, size) // at most MaxIndexBytes, and present in the file
	if err := readAt(r, buf, off); err != nil {
		return nil, 0, err
	}
	body := buf[:size-4]
	if got, want := crc32.ChecksumIEEE(body), binary.LittleEndian.Uint32(buf[size-4:]); got != want {
		return nil, 0, formatErr(off, "index CRC32 %08x, computed %08x", want, got)
	}
	if body[0] != 0 {
		return nil, 0, formatErr(off, "no index indicator (0x00) where the footer's backward size points (read %#02x)", body[0])
	}
	p := body[1:]
	count, n, err := varint(p)
	if err != nil {
		return nil, 0, formatErr(off+1, "index record count: %v", err)
	}
	p = p[n:]
	if count > uint64(len(p)/2) {
		return nil, 0, formatErr(off+1, "index declares %d records; at most %d fit in its size", count, len(p)/2)
	}
	if count > uint64(maxBlocks) {
		return nil, 0, limitErr(off+1, "index declares %d records; at most %d more fit in xzra.MaxBlocks", count, maxBlocks)
	}
	blocks := make([]Block, count)
	var total int64
	for i := range blocks {
		b, rest, err := record(p)
		if err != nil {
			return nil, 0, formatErr(off+int64(len(body)-len(p)), "index record %d: %v", i+1, err)
		}
		p = rest
		if b.Total() > maxInt63-total {
			return nil, 0, formatErr(off, "index record %d: block sizes add up past 2^63 bytes", i+1)
		}
		total += b.Total()
		blocks[i] = b
	}
	if pad := (4 - (len(body)-len(p))%4) % 4; len(p) != pad || !allZero(p) {
		return nil, 0, formatErr(off+int64(len(body)-len(p)), "%d bytes after the index records are not index padding (backward size disagrees with the index)", len(p))
	}
	return blocks, total, nil
}

// record parses one index record (section 4.3).
func record(p []byte) (Block, []byte, error) {
	unpadded, n, err := varint(p)
	if err != nil {
		return Block{}, nil, fmt.Errorf("unpadded size: %v", err)
	}
	p = p[n:]
	usize, n, err := varint(p)
	if err != nil {
		return Block{}, nil, fmt.Errorf("uncompressed size: %v", err)
	}
	if unpadded < 5 || unpadded > maxUnpadded {
		return Block{}, nil, fmt.Errorf("unpadded size %d outside 5 to 2^63-4", unpadded)
	}
	return Block{Unpadded: int64(unpadded), USize: int64(usize)}, p[n:], nil
}

// varint decodes a multibyte integer (section 1.2): at most nine bytes,
// no trailing zero byte, a 63-bit value.
func varint(p []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < len(p) && i < maxVarint; i++ {
		b := p[i]
		if i > 0 && b == 0 {
			return 0, 0, errors.New("multibyte integer with a needless zero byte")
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			return v, i + 1, nil // nine bytes of seven bits: at most 2^63-1
		}
	}
	return 0, 0, errors.New("truncated or overlong multibyte integer")
}

func allZero(p []byte) bool {
	for _, b := range p {
		if b != 0 {
			return false
		}
	}
	return true
}

// readAt fills p from r at off; a short read is a FormatError (the file
// ends early) unless r failed otherwise.
func readAt(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		return formatErr(off, "truncated: %d of %d bytes", n, len(p))
	}
	return err
}
