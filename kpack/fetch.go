package kpack

import (
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
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
//   - InvalidFormat: the blob's offset/size did not decode (the runtime's
//     conversion throws at open; there is nothing it could return).
//   - OutOfMemory: the kernel or frame is larger than Options.MaxKernelSize
//     (this reader's limit; the runtime would try to allocate it).
//
// Fetch allocates at most the kernel's size and never more than the limit.
// For scheme none the runtime ignores original_size, and so does Fetch.
func (a *Archive) Fetch(r io.ReaderAt, key, arch string) ([]byte, Code, error) {
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
	if int64(e.Ordinal) >= int64(len(f.a.Blobs)) {
		return nil, KernelNotFound, fmt.Errorf("kpack: ordinal %d is outside the blobs table (%d items)", e.Ordinal, len(f.a.Blobs))
	}
	if f.a.bad[e.Ordinal] {
		return nil, InvalidFormat, fmt.Errorf("kpack: blobs[%d] has a malformed offset or size", e.Ordinal)
	}
	b := f.a.Blobs[e.Ordinal]
	if b.Size > f.max {
		return nil, OutOfMemory, fmt.Errorf("kpack: blobs[%d] is %d bytes, over the %d-byte limit", e.Ordinal, b.Size, f.max)
	}
	if end, ok := addU64(b.Offset, b.Size); !ok || end > uint64(f.a.Size) {
		return nil, IOError, fmt.Errorf("kpack: blobs[%d] [%d, +%d) runs past end of file (%d bytes)", e.Ordinal, b.Offset, b.Size, f.a.Size)
	}
	out := grow(&f.out, b.Size)
	if err := f.readAt(out, b.Offset); err != nil {
		return nil, IOError, err
	}
	return out, Success, nil
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

// grow returns (*buf)[:n], reallocating only when the capacity is short.
func grow(buf *[]byte, n uint64) []byte {
	if uint64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	return (*buf)[:n]
}

func (f *fetcher) fetchZstd(e Entry) ([]byte, Code, error) {
	if int64(e.Ordinal) >= int64(len(f.a.frames)) {
		return nil, KernelNotFound, fmt.Errorf("kpack: ordinal %d is outside the zstd frame table (%d frames)", e.Ordinal, len(f.a.frames))
	}
	fr := f.a.frames[e.Ordinal]
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
	return f.fd.Decode(in, want, grow(&f.out, want)[:0:want])
}

// FrameDecoder decompresses zstd-per-kernel frames with the bounds
// kpack_get_kernel needs and this reader adds: output never exceeds the
// entry's original_size, and a frame whose content-size header claims
// another size (a decompression bomb) is refused without decompressing. It
// reuses one single-threaded decoder; it is not safe for concurrent use.
type FrameDecoder struct {
	max uint64 // largest original_size accepted, bytes
	dec *zstd.Decoder
}

// NewFrameDecoder returns a decoder for kernels of at most maxKernelSize
// bytes (0 means DefaultMaxKernelSize).
func NewFrameDecoder(maxKernelSize uint64) *FrameDecoder {
	if maxKernelSize == 0 {
		maxKernelSize = DefaultMaxKernelSize
	}
	return &FrameDecoder{max: maxKernelSize}
}

// Decode decompresses one frame into dst[:0] (cap(dst) must be at least
// originalSize) and returns exactly originalSize bytes, or an error: a bad
// frame header, a content size other than originalSize, corrupt data, or a
// decoded length other than originalSize (DECOMPRESSION_FAILED in the
// runtime).
func (d *FrameDecoder) Decode(frame []byte, originalSize uint64, dst []byte) ([]byte, error) {
	if len(frame) == 0 {
		if originalSize == 0 {
			return dst[:0], nil
		}
		return nil, fmt.Errorf("empty frame decodes to 0 bytes, original_size %d", originalSize)
	}
	var h zstd.Header
	if err := h.Decode(frame); err != nil {
		return nil, fmt.Errorf("bad zstd frame header: %w", err)
	}
	if h.HasFCS && h.FrameContentSize != originalSize {
		return nil, fmt.Errorf("frame content size %d != original_size %d (not decompressed)", h.FrameContentSize, originalSize)
	}
	if err := d.decoder(); err != nil {
		return nil, err
	}
	out, err := d.dec.DecodeAll(frame, dst[:0:originalSize])
	if err != nil {
		return nil, err
	}
	if uint64(len(out)) != originalSize {
		return nil, fmt.Errorf("decoded %d bytes, original_size %d", len(out), originalSize)
	}
	return out, nil
}

// Close releases the decoder.
func (d *FrameDecoder) Close() {
	if d.dec != nil {
		d.dec.Close()
		d.dec = nil
	}
}

// decoder creates the single-threaded, memory-bounded zstd decoder once.
func (d *FrameDecoder) decoder() error {
	if d.dec != nil {
		return nil
	}
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(max(d.max, 1)),
		zstd.WithDecoderMaxWindow(min(max(d.max, zstd.MinWindowSize), 512<<20)),
		zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return err
	}
	d.dec = dec
	return nil
}
