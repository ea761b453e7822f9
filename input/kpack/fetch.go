package kpack

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/klauspost/compress/zstd"

	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// Fetch reads one kernel as kpack_get_kernel does and returns the code
// object bytes with Success, or nil, the kpack_error_t the runtime returns
// and an error describing why:
//   - KernelNotFound: no toc[key][arch]; or the ordinal is outside the blobs
//     table / frame table (the runtime checks ordinal >= size there); a none
//     (or unknown-scheme) archive without a blobs table therefore never serves.
//   - IOError: a none blob runs past end of file, or the read fails.
//   - DecompressionFailed: a zstd frame that does not decode, or decodes to a
//     size other than original_size. A frame whose content-size header
//     differs from original_size is refused without decompressing.
//   - Abort: the blob size (none) or original_size (zstd) is at least
//     AbortSize; the runtime's allocation throws and the process aborts.
//   - OutOfMemory: the kernel or frame is larger than Options.MaxKernelSize
//     (this reader's limit; the runtime would try to allocate it).
//
// Fetch allocates the kernel's size (plus one zstd block), never more than
// the limit. A lone frame whose content size is original_size is decoded in
// place; any other frame is streamed into that buffer with a history ring
// of its window (or, when the window exceeds the decoder's window limit,
// decoded in place too), and stops one block after passing original_size.
// For scheme none the runtime ignores original_size and returns the blob as
// stored, and so does Fetch.
//
// An archive opened with Options.SkipFrameChain has its frame chain walked
// first (IndexFrames); a chain that runs past zstd_size fails with the
// open's *FormatError and its Code, as the runtime never opens the archive.
func (a *Archive) Fetch(r io.ReaderAt, key, arch string) ([]byte, Code, error) {
	if err := a.IndexFrames(r); err != nil {
		return nil, openCode(err), err
	}
	f := a.newFetcher(r, a.opt.MaxKernelSize)
	defer f.close()
	e, ok := a.Lookup(key, arch)
	if !ok {
		return nil, KernelNotFound, fmt.Errorf("kpack: no toc entry for %q on %s", key, arch)
	}
	return f.fetch(e)
}

// fetcher holds the decoder and buffers reused across kernels.
type fetcher struct {
	a    *Archive
	r    io.ReaderAt
	max  uint64
	fd   *FrameDecoder
	in   []byte
	out  []byte
	read int64 // bytes read from r
}

func (a *Archive) newFetcher(r io.ReaderAt, max uint64) *fetcher {
	if max == 0 {
		max = a.opt.MaxKernelSize
	}
	return &fetcher{a: a, r: r, max: max}
}

func (f *fetcher) close() {
	if f.fd != nil {
		f.fd.Close()
	}
}

func (f *fetcher) fetch(e Entry) ([]byte, Code, error) {
	if f.a.EffectiveScheme() == SchemeZstd {
		return f.fetchZstd(e)
	}
	return f.fetchNone(e)
}

func (f *fetcher) fetchNone(e Entry) ([]byte, Code, error) {
	sec, code, err := f.a.Blob(f.r, e.Ordinal, f.max)
	if code != Success {
		return nil, code, err
	}
	out := grow(&f.out, uint64(sec.Size()))
	if err := f.readAt(out, f.a.Blobs[e.Ordinal].Offset); err != nil {
		return nil, IOError, err
	}
	return out, Success, nil
}

// Blob returns the stored bytes of scheme none blob ordinal as a section of
// r, after the checks kpack_get_kernel makes before reading it:
// KernelNotFound (ordinal outside the blobs table), Abort (a size the
// runtime's allocation throws on), OutOfMemory (more than max bytes, this
// reader's limit) and IOError (past end of file). Reading the section
// in pieces lets a caller verify a blob larger than it may hold.
func (a *Archive) Blob(r io.ReaderAt, ordinal uint32, max uint64) (*io.SectionReader, Code, error) {
	if int64(ordinal) >= int64(len(a.Blobs)) {
		return nil, KernelNotFound, fmt.Errorf("kpack: ordinal %d is outside the blobs table (%d items)", ordinal, len(a.Blobs))
	}
	b := a.Blobs[ordinal]
	if b.Size >= AbortSize {
		return nil, Abort, fmt.Errorf("kpack: blobs[%d] size %d: the runtime's allocation throws std::bad_alloc and the process aborts", ordinal, b.Size)
	}
	if b.Size > max {
		return nil, OutOfMemory, fmt.Errorf("kpack: blobs[%d] is %d bytes, over the %d-byte limit", ordinal, b.Size, max)
	}
	if end, ok := addU64(b.Offset, b.Size); !ok || end > uint64(a.Size) {
		return nil, IOError, fmt.Errorf("kpack: blobs[%d] [%d, +%d) runs past end of file (%d bytes)", ordinal, b.Offset, b.Size, a.Size)
	}
	return io.NewSectionReader(r, int64(b.Offset), int64(b.Size)), Success, nil
}

func (f *fetcher) readAt(p []byte, off uint64) error {
	n, err := f.r.ReadAt(p, int64(off))
	f.read += int64(n)
	if n == len(p) {
		return nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("kpack: read %d of %d bytes at %d: %w", n, len(p), off, err)
}

// bigAlloc is the buffer size from which grow collects garbage first.
const bigAlloc = 64 << 20

// grow returns (*buf)[:n], reallocating only when the capacity is short.
// Before a big allocation it runs the garbage collector, so the kernel a
// previous Fetch returned (and its caller dropped) is reused rather than
// kept next to the new one: without it the heap goal after one 1 GiB fetch
// lets a second one double the resident memory.
func grow(buf *[]byte, n uint64) []byte {
	if uint64(cap(*buf)) < n {
		*buf = nil
		if n >= bigAlloc {
			runtime.GC()
		}
		*buf = make([]byte, n)
	}
	return (*buf)[:n]
}

func (f *fetcher) fetchZstd(e Entry) ([]byte, Code, error) {
	if int64(e.Ordinal) >= int64(len(f.a.frames)) {
		return nil, KernelNotFound, fmt.Errorf("kpack: ordinal %d is outside the zstd frame table (%d frames)", e.Ordinal, len(f.a.frames))
	}
	fr := f.a.frames[e.Ordinal]
	if e.OriginalSize >= AbortSize {
		return nil, Abort, fmt.Errorf("kpack: original_size %d: the runtime's allocation throws std::bad_alloc and the process aborts", e.OriginalSize)
	}
	if e.OriginalSize > f.max || uint64(fr.size) > f.max {
		return nil, OutOfMemory, fmt.Errorf("kpack: frame %d (%d bytes, original_size %d) is over the %d-byte limit",
			e.Ordinal, fr.size, e.OriginalSize, f.max)
	}
	in := grow(&f.in, uint64(fr.size))
	if err := f.readAt(in, fr.off); err != nil {
		return nil, IOError, err
	}
	out, err := f.decode(in, e.OriginalSize)
	if err != nil {
		return nil, DecompressionFailed, fmt.Errorf("kpack: frame %d: %w", e.Ordinal, err)
	}
	return out, Success, nil
}

// decode decompresses in into the reused output buffer, producing exactly
// want bytes or an error; output never exceeds want bytes.
func (f *fetcher) decode(in []byte, want uint64) ([]byte, error) {
	if f.fd == nil {
		f.fd = NewFrameDecoder(f.max)
	}
	return f.fd.Decode(in, want, grow(&f.out, want+FrameSlack)[:0])
}

// FrameSlack is the room Decode wants past originalSize in dst: one zstd
// block (128 KiB) plus the decoder's over-allocation, so the block that
// runs past original_size is caught without the output buffer growing.
const FrameSlack = 128<<10 + 64

// ringSlack is what a streaming decode holds besides the window: two
// blocks of space (klauspost/compress history ring).
const ringSlack = 2 * (128<<10 + 32)

// libzstdMaxWindow is the largest window libzstd's one-shot decoder accepts
// (ZSTD_WINDOWLOG_MAX 31, plus the mantissa). Decoding in place never
// allocates a window, so only the streaming path bounds it further.
const libzstdMaxWindow = 1<<31 + 7<<28

// WindowError is returned by FrameDecoder.Stream when a frame
// needs more history than the decoder's window limit: the frame cannot be
// decoded in bounded memory, which says nothing about its validity.
type WindowError struct {
	Window, Limit uint64
}

// Error says how large the window is and which limit it exceeds.
func (e *WindowError) Error() string {
	return fmt.Sprintf("window of %d bytes exceeds the %d-byte memory limit; not verified", e.Window, e.Limit)
}

// FrameDecoder decompresses zstd-per-kernel frames with the bounds
// kpack_get_kernel needs and this reader adds: output never exceeds the
// entry's original_size, and a frame whose content-size header claims
// another size (a decompression bomb) is refused without decompressing.
//
// A lone frame whose content size equals original_size is decoded in place
// (the output buffer is the decoder's history, no window is allocated).
// Anything else (no content size, several or skippable frames) is decoded
// as a stream: the decoder then keeps a history ring of the frame's window,
// at most the window limit, and the output is counted as it is produced, so
// a frame that runs past original_size stops one block later. A frame whose
// declared window exceeds the limit is decoded in place as well: its output
// buffer is its history, and original_size, not the window, bounds what it
// may produce (a declared 2 GiB window must not let a corrupt 256-byte frame
// escape verification); the buffer may grow once, to about 2.25 times
// original_size, before an overrun is seen. It reuses its single-threaded
// decoders; it is not safe for concurrent use. What it decodes is counted
// with its meter (SetMeter).
type FrameDecoder struct {
	max    uint64 // largest original_size accepted, bytes
	window uint64 // largest window a streaming decode may keep
	dec    *zstd.Decoder
	str    *zstd.Decoder
	strWin uint64 // largest window str has been used with
	rd     bytes.Reader
	meter  *inflate.Meter
}

// SetMeter counts what the decoder decodes from now on with m, the run's
// budget of decompressed bytes (nil, the default: not counted). Past the
// budget, Decode, Stream and DecodedLength fail with its
// *inflate.LimitError, before decoding when another stream spent it.
func (d *FrameDecoder) SetMeter(m *inflate.Meter) { d.meter = m }

// NewFrameDecoder returns a decoder for kernels of at most maxKernelSize
// bytes (0 means DefaultMaxKernelSize). Streaming decodes keep a window of
// at most min(maxKernelSize, 512 MiB).
func NewFrameDecoder(maxKernelSize uint64) *FrameDecoder {
	if maxKernelSize == 0 {
		maxKernelSize = DefaultMaxKernelSize
	}
	return NewFrameDecoderWindow(maxKernelSize, min(maxKernelSize, 512<<20))
}

// NewFrameDecoderWindow is NewFrameDecoder with the streaming window limit
// (bytes of history a streaming decode may allocate) set to maxWindow.
func NewFrameDecoderWindow(maxKernelSize, maxWindow uint64) *FrameDecoder {
	if maxKernelSize == 0 {
		maxKernelSize = DefaultMaxKernelSize
	}
	return &FrameDecoder{max: maxKernelSize, window: max(maxWindow, zstd.MinWindowSize)}
}

// FramePlan is how Decode would decode a frame.
type FramePlan struct {
	// InPlace: one frame whose content size is original_size, decoded
	// straight into the output buffer.
	InPlace bool
	// Window is the history a streaming decode of the first frame keeps
	// (0 when unknown: a skippable first frame).
	Window uint64
}

// Plan inspects a frame's header. Its error is the one Decode would return
// for a bad header or a content size other than originalSize.
func (d *FrameDecoder) Plan(frame []byte, originalSize uint64) (FramePlan, error) {
	if len(frame) == 0 {
		return FramePlan{InPlace: true}, nil
	}
	var h zstd.Header
	if err := h.Decode(frame); err != nil {
		return FramePlan{}, fmt.Errorf("bad zstd frame header: %w", err)
	}
	if h.HasFCS && h.FrameContentSize != originalSize {
		return FramePlan{}, fmt.Errorf("frame content size %d != original_size %d (not decompressed)", h.FrameContentSize, originalSize)
	}
	var plan FramePlan
	switch {
	case h.Skippable:
		return plan, nil
	case h.SingleSegment:
		plan.Window = max(h.FrameContentSize, zstd.MinWindowSize)
	default:
		plan.Window = h.WindowSize
	}
	plan.InPlace = h.HasFCS && loneFrame(frame, h)
	return plan, nil
}

// loneFrame walks the block headers of the frame starting input and
// reports whether nothing follows it. A frame whose blocks do not parse is
// treated as alone: decoding fails inside it.
func loneFrame(in []byte, h zstd.Header) bool {
	p := h.HeaderSize
	for {
		if p+3 > len(in) {
			return true
		}
		bh := uint32(in[p]) | uint32(in[p+1])<<8 | uint32(in[p+2])<<16
		p += 3
		switch (bh >> 1) & 3 {
		case 0, 2: // raw, compressed
			p += int(bh >> 3)
		case 1: // RLE
			p++
		default:
			return true
		}
		if bh&1 != 0 {
			break
		}
	}
	if in[4]&(1<<2) != 0 { // content checksum
		p += 4
	}
	return p >= len(in)
}

// Decode decompresses one frame (or, as the runtime's ZSTD_decompress
// does, a sequence of frames) into dst[:0] and returns exactly
// originalSize bytes, or an error: a bad frame header, a content size other
// than originalSize, corrupt data, or a decoded length other than
// originalSize (DECOMPRESSION_FAILED in the runtime). Errors about the
// decoded length wrap ErrTooLong or ErrTooShort. dst should have capacity
// originalSize+FrameSlack; if it has less, Decode allocates that much.
func (d *FrameDecoder) Decode(frame []byte, originalSize uint64, dst []byte) ([]byte, error) {
	if uint64(cap(dst)) < originalSize+FrameSlack {
		dst = make([]byte, 0, originalSize+FrameSlack)
	}
	dst = dst[:0]
	if len(frame) == 0 {
		if originalSize == 0 {
			return dst, nil
		}
		return nil, fmt.Errorf("empty frame decodes to 0 bytes, original_size %d", originalSize)
	}
	plan, err := d.Plan(frame, originalSize)
	if err != nil {
		return nil, err
	}
	if !plan.InPlace && plan.Window <= d.window {
		sink := &bufSink{buf: dst, max: originalSize}
		if err := d.Stream(frame, originalSize, sink); err != nil {
			return nil, err
		}
		return sink.buf, nil
	}
	if err := d.decoder(); err != nil {
		return nil, err
	}
	if err := d.meter.Check(); err != nil {
		return nil, err
	}
	out, err := d.dec.DecodeAll(frame, dst)
	if merr := d.meter.Add(len(out)); merr != nil {
		return nil, merr
	}
	switch {
	case errors.Is(err, zstd.ErrFrameSizeExceeded),
		errors.Is(err, zstd.ErrWindowSizeExceeded) && frame[4]&(1<<5) != 0:
		// In a single-segment frame the window is the content size, so a
		// block larger than the window overruns it too.
		return nil, lengthError{fmt.Sprintf("frame data exceeds its declared content size %d (= original_size)", originalSize), true}
	case errors.Is(err, zstd.ErrFrameSizeMismatch):
		return nil, lengthError{fmt.Sprintf("frame data ends before its declared content size %d (= original_size)", originalSize), false}
	case errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return nil, lengthError{fmt.Sprintf("frame decodes to more than original_size %d bytes", originalSize), true}
	case err != nil:
		return nil, err
	}
	if uint64(len(out)) != originalSize {
		return nil, lengthError{fmt.Sprintf("frame decodes to %d bytes, original_size %d", len(out), originalSize), false}
	}
	return out, nil
}

// Decode and Stream errors that say a frame decodes to a length other than
// original_size, as opposed to data that does not decode at all, wrap
// ErrTooLong (more bytes) or ErrTooShort (fewer, with a clean end).
var (
	ErrTooLong  = errors.New("kpack: frame decodes to more than original_size")
	ErrTooShort = errors.New("kpack: frame decodes to less than original_size")
)

type lengthError struct {
	msg  string
	long bool
}

func (e lengthError) Error() string { return e.msg }
func (e lengthError) Is(target error) bool {
	return target == ErrTooLong && e.long || target == ErrTooShort && !e.long
}

// DecodedLength decodes frame in place into dst[:0], whose capacity bounds
// the output (the buffer may grow once, as in Decode), and returns the
// length it decodes to; over is set when that is more than cap(dst). err
// is a bad header or corrupt data. The content size a frame declares is not
// compared with anything: one call answers for every original_size that TOC
// entries sharing the frame declare.
func (d *FrameDecoder) DecodedLength(frame, dst []byte) (n uint64, over bool, err error) {
	if len(frame) == 0 {
		return 0, false, nil
	}
	var h zstd.Header
	if err := h.Decode(frame); err != nil {
		return 0, false, fmt.Errorf("bad zstd frame header: %w", err)
	}
	if err := d.decoder(); err != nil {
		return 0, false, err
	}
	if err := d.meter.Check(); err != nil {
		return 0, false, err
	}
	out, err := d.dec.DecodeAll(frame, dst[:0])
	if merr := d.meter.Add(len(out)); merr != nil {
		return 0, false, merr
	}
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return uint64(cap(dst)), true, nil
	case err != nil:
		return 0, false, err
	}
	return uint64(len(out)), false, nil
}

// errOverrun is returned by sinks once the output passes original_size.
var errOverrun = errors.New("frame decodes to more than original_size")

// bufSink collects at most max bytes.
type bufSink struct {
	buf []byte
	max uint64
}

func (s *bufSink) Write(p []byte) (int, error) {
	if uint64(len(s.buf))+uint64(len(p)) > s.max {
		return 0, errOverrun
	}
	s.buf = append(s.buf, p...)
	return len(p), nil
}

// countSink counts what it passes on and refuses output past max bytes;
// meter counts it against the run's budget.
type countSink struct {
	w     io.Writer
	n     uint64
	max   uint64
	meter *inflate.Meter
}

func (s *countSink) Write(p []byte) (int, error) {
	if s.n+uint64(len(p)) > s.max {
		return 0, errOverrun
	}
	if err := s.meter.Add(len(p)); err != nil {
		return 0, err
	}
	s.n += uint64(len(p))
	return s.w.Write(p)
}

// Stream decodes frame as a stream into w, which receives exactly
// originalSize bytes on success (possibly more calls than one; never bytes
// past originalSize). It fails with a *WindowError, before decoding, when
// the first frame's window exceeds the window limit, and with an error as
// soon as the output passes originalSize or when the data ends short of
// it. The decoder keeps a history ring of the largest window used (see
// StreamHeld) until ReleaseStream or Close.
func (d *FrameDecoder) Stream(frame []byte, originalSize uint64, w io.Writer) error {
	if len(frame) == 0 {
		if originalSize == 0 {
			return nil
		}
		return fmt.Errorf("empty frame decodes to 0 bytes, original_size %d", originalSize)
	}
	plan, err := d.Plan(frame, originalSize)
	if err != nil {
		return err
	}
	win := plan.Window
	if win > d.window {
		return &WindowError{Window: win, Limit: d.window}
	}
	if err := d.streamDecoder(); err != nil {
		return err
	}
	if err := d.meter.Check(); err != nil {
		return err
	}
	d.strWin = max(d.strWin, win)
	d.rd.Reset(frame)
	defer d.rd.Reset(nil)
	if err := d.str.Reset(&d.rd); err != nil {
		return err
	}
	sink := &countSink{w: w, max: originalSize, meter: d.meter}
	_, err = d.str.WriteTo(sink)
	switch {
	case errors.Is(err, errOverrun):
		return lengthError{fmt.Sprintf("frame decodes to more than original_size %d bytes (stopped at the block after byte %d)", originalSize, sink.n), true}
	case errors.Is(err, zstd.ErrDecoderSizeExceeded):
		// Only a later frame's window can exceed the limit here.
		return fmt.Errorf("%w: a later frame's window exceeds the %d-byte memory limit", err, d.window)
	case err != nil:
		return err
	case sink.n != originalSize:
		return lengthError{fmt.Sprintf("frame decodes to %d bytes, original_size %d", sink.n, originalSize), false}
	}
	return nil
}

// StreamHeld is the memory the streaming decoder keeps between calls: its
// history ring for the largest window used so far (0 if none).
func (d *FrameDecoder) StreamHeld() uint64 {
	if d.str == nil || d.strWin == 0 {
		return 0
	}
	return d.strWin + ringSlack
}

// ReleaseStream drops the streaming decoder and its history ring.
func (d *FrameDecoder) ReleaseStream() {
	if d.str != nil {
		d.str.Close()
		d.str, d.strWin = nil, 0
	}
}

// Close releases the decoders.
func (d *FrameDecoder) Close() {
	if d.dec != nil {
		d.dec.Close()
		d.dec = nil
	}
	d.ReleaseStream()
}

// decoder creates the single-threaded in-place decoder once. In place, the
// output buffer (capped by WithDecodeAllCapLimit) is the history, so the
// window is limited only as libzstd limits it.
func (d *FrameDecoder) decoder() error {
	if d.dec != nil {
		return nil
	}
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(max(d.max+FrameSlack, libzstdMaxWindow)),
		zstd.WithDecoderMaxWindow(libzstdMaxWindow),
		zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return err
	}
	d.dec = dec
	return nil
}

// streamDecoder creates the single-threaded streaming decoder, whose
// history ring is bounded by the window limit.
func (d *FrameDecoder) streamDecoder() error {
	if d.str != nil {
		return nil
	}
	str, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(d.window),
		zstd.WithDecoderMaxWindow(d.window))
	if err != nil {
		return err
	}
	d.str = str
	return nil
}
