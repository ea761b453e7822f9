package deep

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"

	"github.com/klauspost/compress/zstd"

	"github.com/rocm-tools/kpack-lint/kpack"
	"github.com/rocm-tools/kpack-lint/model"
)

// objKey names an object inside one archive.
type objKey struct{ kernel, arch string }

// ref is one toc entry waiting for its blob or frame.
type ref struct {
	kernel, arch string
	e            kpack.Entry
}

// archiveResult is what one archive contributes to a Result.
type archiveResult struct {
	objects  map[objKey]Object
	problems []kpack.Problem
	bytes    int64 // decompressed bytes
	read     int64 // bytes read from the archive
}

func (ar *archiveResult) set(r ref, o Object) {
	o.Ordinal = r.e.Ordinal
	ar.objects[objKey{r.kernel, r.arch}] = o
}

func (ar *archiveResult) problem(field string, off uint64, format string, args ...any) {
	ar.problems = append(ar.problems, kpack.Problem{Kind: kpack.ProblemMalformed, Field: field,
		Offset: int64(off), Msg: fmt.Sprintf(format, args...)})
}

// worker verifies archives one at a time with a reused decoder and buffers.
type worker struct {
	opt  Options
	mem  *budget
	prog *progress
	seen int64 // archive bytes reported to prog for the current archive
	fd   *kpack.FrameDecoder
	in   []byte // compressed frame (plus the next size prefix)
	out  []byte // decompressed object; cap(out) bytes are held in mem
	held int64
}

func newWorker(opt Options, mem *budget, prog *progress) *worker {
	return &worker{opt: opt, mem: mem, prog: prog}
}

func (w *worker) close() {
	if w.fd != nil {
		w.fd.Close()
	}
	w.dropOut()
}

// dropOut frees the output buffer, the streaming decoder's history ring
// and their share of the memory budget.
func (w *worker) dropOut() {
	w.out = nil
	if w.fd != nil {
		w.fd.ReleaseStream()
	}
	w.mem.release(w.held)
	w.held = 0
}

// reserve makes sure the budget covers an output buffer of buf bytes plus a
// streaming history ring of ring bytes, and returns a buffer of capacity
// buf. What the worker holds already (buffer, ring) is counted; when it
// is not enough, everything is released before waiting for the new total,
// so workers never hold and wait at once. Requests over the budget are
// clamped to it (they run alone).
func (w *worker) reserve(buf, ring uint64) []byte {
	var have uint64
	if w.fd != nil {
		have = w.fd.StreamHeld()
	}
	need := max(buf, uint64(cap(w.out))) + max(ring, have)
	if uint64(w.held) < min(need, uint64(w.mem.total)) {
		w.dropOut()
		w.held = w.mem.acquire(int64(min(buf+ring, uint64(w.mem.total))))
	}
	if uint64(cap(w.out)) < buf {
		w.out = make([]byte, buf)
	}
	return w.out[:0:cap(w.out)]
}

// report passes n bytes read to the progress bar.
func (w *worker) report(n int64) {
	w.seen += n
	w.prog.add(n)
}

// verify reads every object of archive a.
func (w *worker) verify(a *model.Archive) archiveResult {
	w.seen = 0
	defer func() { w.prog.archiveDone(a.Info.Size - w.seen) }()
	return w.verifyRefs(a, entriesByOrdinal(a.Info))
}

// verifyRefs reads the objects of archive a that byOrdinal lists.
func (w *worker) verifyRefs(a *model.Archive, byOrdinal map[uint32][]ref) archiveResult {
	ar := archiveResult{objects: map[objKey]Object{}}
	r, err := a.Entry.Open()
	if err != nil {
		for _, refs := range byOrdinal {
			for _, rf := range refs {
				ar.set(rf, Object{Code: kpack.IOError, Err: err.Error()})
			}
		}
		ar.problem("archive", 0, "fetch gives IO_ERROR: %v", err)
		return ar
	}
	defer r.Close()
	if a.Info.EffectiveScheme() == kpack.SchemeZstd {
		w.verifyZstd(a.Info, r, byOrdinal, &ar)
	} else {
		w.verifyNone(a.Info, r, byOrdinal, &ar)
	}
	// Give back a large buffer so one big kernel does not starve the others.
	if w.held > w.mem.total/int64(max(w.opt.Workers, 1)) {
		w.dropOut()
	}
	return ar
}

// entriesByOrdinal groups the TOC entries by ordinal, in key/arch order.
func entriesByOrdinal(info *kpack.Archive) map[uint32][]ref {
	out := map[uint32][]ref{}
	for _, key := range info.KernelKeys() {
		for _, arch := range info.KernelArches(key) {
			e, _ := info.Lookup(key, arch)
			out[e.Ordinal] = append(out[e.Ordinal], ref{key, arch, e})
		}
	}
	return out
}

func sortedOrdinals(m map[uint32][]ref) []uint32 {
	out := make([]uint32, 0, len(m))
	for o := range m {
		out = append(out, o)
	}
	slices.Sort(out)
	return out
}

// verifyNone reads each referenced blob once, after the runtime's checks
// (kpack.Archive.Blob: ordinal, malformed item, size limit, end of file).
// A blob that fits the budget is read whole and parsed; a larger one is
// streamed: hashed, counted and its ELF header decoded, never held.
func (w *worker) verifyNone(info *kpack.Archive, r io.ReaderAt, byOrdinal map[uint32][]ref, ar *archiveResult) {
	for _, ord := range sortedOrdinals(byOrdinal) {
		refs := byOrdinal[ord]
		sec, code, err := info.Blob(r, ord, w.opt.MaxKernelSize)
		if code != kpack.Success {
			w.recordNone(info, refs, nil, code, err, ar)
			continue
		}
		size := uint64(sec.Size())
		if size > uint64(w.mem.total) {
			w.streamNone(info, refs, sec, ar)
			continue
		}
		data := w.reserve(size, 0)[:size]
		if n, err := sec.ReadAt(data, 0); n < len(data) {
			w.recordNone(info, refs, nil, kpack.IOError, fmt.Errorf("kpack: read %d of %d bytes at %d: %w", n, size, blobOffset(info, ord), err), ar)
			continue
		}
		w.recordNone(info, refs, data, kpack.Success, nil, ar)
		w.report(int64(size))
	}
}

// streamNone verifies a blob larger than the budget in pieces of at most
// 1 MiB (or the budget).
func (w *worker) streamNone(info *kpack.Archive, refs []ref, sec *io.SectionReader, ar *archiveResult) {
	buf := w.reserve(uint64(min(1<<20, max(w.mem.total, 4<<10))), 0)
	s := &headSink{h: sha256.New()}
	if _, err := io.CopyBuffer(s, io.NewSectionReader(sec, 0, sec.Size()), buf[:cap(buf)]); err != nil {
		w.recordNone(info, refs, nil, kpack.IOError, fmt.Errorf("kpack: reading blob at %d: %w", blobOffset(info, refs[0].e.Ordinal), err), ar)
		return
	}
	o := s.object()
	ar.bytes += int64(o.Size)
	ar.read += int64(o.Size)
	w.report(int64(o.Size))
	for _, rf := range refs {
		ar.set(rf, o)
		if o.Size != rf.e.OriginalSize {
			ar.problem(field(rf)+".original_size", blobOffset(info, rf.e.Ordinal),
				"%s", kpack.NoneSizeMismatch(int(o.Size), rf.e.OriginalSize))
		}
	}
}

func (w *worker) recordNone(info *kpack.Archive, refs []ref, data []byte, code kpack.Code, err error, ar *archiveResult) {
	if code != kpack.Success {
		for _, rf := range refs {
			ar.set(rf, Object{Code: code, Err: err.Error()})
		}
		if code == kpack.IOError && !blobPastEOF(info, refs[0].e.Ordinal) {
			// Past-EOF blobs are Open's problems; a failed read is ours.
			ar.problem(field(refs[0]), blobOffset(info, refs[0].e.Ordinal), "fetch gives IO_ERROR: %v", err)
		}
		return
	}
	o := analyze(data)
	ar.bytes += int64(len(data))
	ar.read += int64(len(data))
	for _, rf := range refs {
		ar.set(rf, o)
		if uint64(len(data)) != rf.e.OriginalSize {
			ar.problem(field(rf)+".original_size", blobOffset(info, rf.e.Ordinal),
				"%s", kpack.NoneSizeMismatch(len(data), rf.e.OriginalSize))
		}
	}
}

func blobPastEOF(info *kpack.Archive, ord uint32) bool {
	if int(ord) >= len(info.Blobs) {
		return false
	}
	b := info.Blobs[ord]
	return b.Offset > uint64(info.Size) || b.Size > uint64(info.Size)-b.Offset
}

func blobOffset(info *kpack.Archive, ord uint32) uint64 {
	if int(ord) < len(info.Blobs) {
		return info.Blobs[ord].Offset
	}
	return 0
}

func field(r ref) string { return "toc[" + r.kernel + "][" + r.arch + "]" }

// frameReader walks the zstd blob's chain of u32 size prefixes and frames,
// reading each referenced frame together with the next size prefix.
type frameReader struct {
	w     *worker
	r     io.ReaderAt
	pos   uint64 // offset of the current frame's size prefix
	size  uint32 // current frame's size, valid when have
	have  bool
	left  uint32 // frames after the current one
	nread int64
}

// prefix reads the current frame's size prefix unless already known.
func (fr *frameReader) prefix() error {
	if fr.have {
		return nil
	}
	var b [4]byte
	if err := fr.readAt(b[:], fr.pos); err != nil {
		return err
	}
	fr.size, fr.have = binary.LittleEndian.Uint32(b[:]), true
	return nil
}

// frame reads the current frame's bytes (and the next prefix if any).
func (fr *frameReader) frame() ([]byte, error) {
	n := uint64(fr.size)
	extra := uint64(0)
	if fr.left > 0 {
		extra = 4
	}
	buf := grow(&fr.w.in, n+extra)
	if err := fr.readAt(buf, fr.pos+4); err != nil {
		return nil, err
	}
	fr.advance()
	if extra > 0 {
		fr.size, fr.have = binary.LittleEndian.Uint32(buf[n:]), true
	}
	return buf[:n], nil
}

// advance moves to the next frame's prefix.
func (fr *frameReader) advance() {
	fr.pos += 4 + uint64(fr.size)
	fr.have = false
	if fr.left > 0 {
		fr.left--
	}
}

func (fr *frameReader) readAt(p []byte, off uint64) error {
	n, err := fr.r.ReadAt(p, int64(off))
	fr.nread += int64(n)
	if n == len(p) {
		return nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("kpack: read %d of %d bytes at %d: %w", n, len(p), off, err)
}

func grow(buf *[]byte, n uint64) []byte {
	if uint64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	return (*buf)[:n]
}

// verifyZstd streams the zstd blob front to back (Open has validated the
// frame chain against zstd_size), decoding each referenced frame once per
// distinct original_size.
func (w *worker) verifyZstd(info *kpack.Archive, r io.ReaderAt, byOrdinal map[uint32][]ref, ar *archiveResult) {
	fr := &frameReader{w: w, r: r, pos: info.ZstdOffset + 4, left: info.FrameCount}
	if fr.left > 0 {
		fr.left--
	}
	for i := uint32(0); i < info.FrameCount; i++ {
		if err := fr.prefix(); err != nil {
			failFrom(byOrdinal, i, info.FrameCount, kpack.IOError, err, ar)
			ar.problem("zstd.frames", fr.pos, "fetch gives IO_ERROR: %v", err)
			break
		}
		refs := byOrdinal[i]
		if len(refs) == 0 {
			fr.advance()
			continue
		}
		before := fr.nread
		w.verifyFrame(fr, refs, ar)
		w.report(fr.nread - before)
	}
	for ord, refs := range byOrdinal {
		if ord >= info.FrameCount {
			for _, rf := range refs {
				ar.set(rf, Object{Code: kpack.KernelNotFound,
					Err: fmt.Sprintf("kpack: ordinal %d is outside the zstd frame table (%d frames)", ord, info.FrameCount)})
			}
		}
	}
	ar.read += fr.nread
}

// failFrom records code for every entry whose ordinal is in [from, to).
func failFrom(byOrdinal map[uint32][]ref, from, to uint32, code kpack.Code, err error, ar *archiveResult) {
	for ord, refs := range byOrdinal {
		if ord >= from && ord < to {
			for _, rf := range refs {
				ar.set(rf, Object{Code: code, Err: err.Error()})
			}
		}
	}
}

// verifyFrame reads the current frame and decodes it for each distinct
// original_size its entries declare.
func (w *worker) verifyFrame(fr *frameReader, refs []ref, ar *archiveResult) {
	off := fr.pos + 4
	if uint64(fr.size) > w.opt.MaxKernelSize {
		err := fmt.Errorf("kpack: frame %d is %d bytes, over the %d-byte limit", refs[0].e.Ordinal, fr.size, w.opt.MaxKernelSize)
		setAll(refs, Object{Code: kpack.OutOfMemory, Err: err.Error()}, ar)
		fr.advance()
		return
	}
	in, err := fr.frame()
	if err != nil {
		setAll(refs, Object{Code: kpack.IOError, Err: err.Error()}, ar)
		ar.problem(field(refs[0]), off, "fetch gives IO_ERROR: %v", err)
		return
	}
	groups := bySize(refs)
	if len(groups) > 1 && !hasContentSize(in) {
		w.decodeSizes(in, off, groups, ar)
		return
	}
	for _, group := range groups {
		w.decodeGroup(in, off, group, ar) // a content size other than original_size fails without decoding
	}
}

// hasContentSize reports whether a frame's header declares its content
// size (false for a header that does not parse: decoding reports it).
func hasContentSize(in []byte) bool {
	var h zstd.Header
	return h.Decode(in) == nil && h.HasFCS
}

// decodeSizes handles a frame without a content size that TOC entries file
// under several original_sizes: the frame decodes to one length, learnt in
// one pass (a frame referenced by 2,000 entries with 2,000 sizes was once
// decoded 2,000 times, ~2 h). Only the entries whose original_size is that
// length are then decoded for real; the others fail as decoding them alone
// would.
func (w *worker) decodeSizes(in []byte, off uint64, groups [][]ref, ar *archiveResult) {
	largest := groups[len(groups)-1][0].e.OriginalSize
	n, over, measured, err := w.frameLength(in, min(largest, w.opt.MaxKernelSize))
	for _, g := range groups {
		want := g[0].e.OriginalSize
		switch {
		case err != nil:
			w.fail(g, off, err, ar)
		case over && want <= measured || !over && want < n:
			w.fail(g, off, fmt.Errorf("frame decodes to more than original_size %d bytes", want), ar)
		case !over && want > n:
			w.fail(g, off, fmt.Errorf("frame decodes to %d bytes, original_size %d", n, want), ar)
		default: // the length, or past what could be measured
			w.decodeGroup(in, off, g, ar)
		}
	}
}

// frameLength decodes a frame without keeping it, up to limit bytes, and
// returns its length n, or over (it decodes to more than measured bytes),
// or the error of a corrupt frame. With a window the budget holds it
// streams to a counter; otherwise it decodes in place into a buffer of
// what the budget allows.
func (w *worker) frameLength(in []byte, limit uint64) (n uint64, over bool, measured uint64, err error) {
	fd := w.decoder()
	budget := uint64(w.mem.total)
	plan, err := fd.Plan(in, 0) // no content size here: fails only on a bad header
	if err != nil {
		return 0, false, 0, err
	}
	if plan.Window > 0 && plan.Window+ringSlack <= budget {
		w.reserve(0, plan.Window+ringSlack)
		c := &counter{}
		err := fd.Stream(in, limit, c)
		switch {
		case err == nil:
			return limit, false, limit, nil
		case errors.Is(err, kpack.ErrTooLong):
			return limit, true, limit, nil
		case errors.Is(err, kpack.ErrTooShort):
			return c.n, false, limit, nil
		}
		return 0, false, limit, err
	}
	measured = min(limit, inPlaceLimit(budget))
	buf := w.reserve(measured, inPlaceGrowth(measured))
	n, over, err = fd.DecodedLength(in, buf[:0:measured])
	return n, over, measured, err
}

// counter counts the bytes written to it.
type counter struct{ n uint64 }

func (c *counter) Write(p []byte) (int, error) {
	c.n += uint64(len(p))
	return len(p), nil
}

// inPlaceGrowth is what an in-place decode into a buffer of size bytes may
// allocate besides it: DecodeAll grows the buffer once (Go's append, about
// 1.25x) before it sees the block that overruns it.
func inPlaceGrowth(size uint64) uint64 { return size + size/4 + kpack.FrameSlack }

// inPlaceLimit is the largest buffer an in-place decode may use within
// budget bytes, growth included.
func inPlaceLimit(budget uint64) uint64 {
	return (budget - min(budget, 2*kpack.FrameSlack)) * 4 / 9
}

// fail records DECOMPRESSION_FAILED for refs with a problem each.
func (w *worker) fail(refs []ref, off uint64, err error, ar *archiveResult) {
	err = fmt.Errorf("kpack: frame %d: %w", refs[0].e.Ordinal, err)
	for _, rf := range refs {
		ar.set(rf, Object{Code: kpack.DecompressionFailed, Err: err.Error()})
		ar.problem(field(rf), off, "fetch gives DECOMPRESSION_FAILED: %v", err)
	}
}

func setAll(refs []ref, o Object, ar *archiveResult) {
	for _, rf := range refs {
		ar.set(rf, o)
	}
}

// bySize splits refs by OriginalSize, smallest first, keeping key order.
func bySize(refs []ref) [][]ref {
	idx := map[uint64]int{}
	var out [][]ref
	for _, rf := range refs {
		i, ok := idx[rf.e.OriginalSize]
		if !ok {
			i = len(out)
			idx[rf.e.OriginalSize] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], rf)
	}
	slices.SortStableFunc(out, func(a, b []ref) int {
		return compareU64(a[0].e.OriginalSize, b[0].e.OriginalSize)
	})
	return out
}

func compareU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// decodeGroup decodes one frame to the original_size shared by refs.
//
// Memory stays within Options.MaxMemory (plus one block of slack): an
// object that fits is decoded into the reused output buffer (a lone frame
// whose content size is original_size in place, anything else as a stream
// whose history ring counts too) and parsed as a whole ELF file. A larger
// object is streamed without being kept: hashed, counted and its ELF
// header decoded. A frame whose window (for a single-segment frame, its
// content size) exceeds MaxMemory is not decoded at all: it is recorded as
// OUT_OF_MEMORY with Skipped set, a limit of this run, not a defect.
func (w *worker) decodeGroup(in []byte, off uint64, refs []ref, ar *archiveResult) {
	want := refs[0].e.OriginalSize
	if want > w.opt.MaxKernelSize {
		err := fmt.Errorf("kpack: frame %d (%d bytes, original_size %d) is over the %d-byte limit",
			refs[0].e.Ordinal, len(in), want, w.opt.MaxKernelSize)
		setAll(refs, Object{Code: kpack.OutOfMemory, Err: err.Error()}, ar)
		return
	}
	fd := w.decoder()
	limit := uint64(w.mem.total)
	plan, err := fd.Plan(in, want)
	var o Object
	switch {
	case err != nil:
	case want <= limit && (plan.InPlace || want+plan.Window <= limit):
		var out []byte
		if plan.InPlace {
			out, err = fd.Decode(in, want, w.reserve(want+kpack.FrameSlack, 0))
		} else {
			out, err = fd.Decode(in, want, w.reserve(want+kpack.FrameSlack, plan.Window+ringSlack))
		}
		if err == nil {
			o = analyze(out)
		}
	case plan.Window <= limit:
		w.reserve(0, plan.Window+ringSlack)
		o, err = w.streamObject(fd, in, want)
	case want <= inPlaceLimit(limit):
		// The declared window is over the budget but original_size is
		// not: decoded in place, the output is the history.
		var out []byte
		out, err = fd.Decode(in, want, w.reserve(want+kpack.FrameSlack, inPlaceGrowth(want)))
		if err == nil {
			o = analyze(out)
		}
	default:
		err = &kpack.WindowError{Window: plan.Window, Limit: limit}
	}
	if plan.Window > bigRing {
		w.dropOut() // do not keep a large history ring between frames
	}
	var we *kpack.WindowError
	switch {
	case errors.As(err, &we):
		setAll(refs, Object{Code: kpack.OutOfMemory, Skipped: true,
			Err: fmt.Sprintf("kpack: frame %d: window of %d bytes exceeds the --deep-memory limit (%d bytes); not verified",
				refs[0].e.Ordinal, we.Window, we.Limit)}, ar)
	case err != nil:
		w.fail(refs, off, err, ar)
	default:
		ar.bytes += int64(o.Size)
		setAll(refs, o, ar)
	}
}

// ringSlack approximates what a streaming decoder holds besides its window
// (two blocks of space); bigRing is the window above which the ring is
// released after use rather than kept for the next frame.
const (
	ringSlack = 2 * (128<<10 + 32)
	bigRing   = 1 << 20
)

func (w *worker) decoder() *kpack.FrameDecoder {
	if w.fd == nil {
		w.fd = kpack.NewFrameDecoderWindow(w.opt.MaxKernelSize, uint64(w.mem.total))
	}
	return w.fd
}

// streamObject decodes a frame too large to keep, hashing and counting its
// output and keeping only the ELF header.
func (w *worker) streamObject(fd *kpack.FrameDecoder, in []byte, want uint64) (Object, error) {
	s := &headSink{h: sha256.New()}
	if err := fd.Stream(in, want, s); err != nil {
		return Object{}, err
	}
	return s.object(), nil
}

// object is what the sink saw: size, hash and the target of its ELF header.
func (s *headSink) object() Object {
	o := Object{Code: Success, Size: s.n}
	s.h.Sum(o.Sum[:0])
	id, err := DecodeHeader(s.head[:s.kept], s.n)
	if err != nil {
		o.Err = err.Error()
	} else {
		o.Target = id.String()
	}
	return o
}

// headSink hashes and counts what it is given and keeps the first bytes.
type headSink struct {
	h    hash.Hash
	head [elf64HeaderSize]byte
	kept int
	n    uint64
}

func (s *headSink) Write(p []byte) (int, error) {
	s.kept += copy(s.head[s.kept:], p)
	s.n += uint64(len(p))
	return s.h.Write(p)
}
