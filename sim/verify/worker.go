package verify

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/rocm-tools/kpack-lint/input/codeobj"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// objKey names an object inside one archive.
type objKey struct{ kernel, arch string }

// ref is one toc entry waiting for its blob or frame.
type ref struct {
	kernel, arch string
	e            kpack.Entry
}

// archiveResult collects what one job learns about one archive's objects.
type archiveResult struct {
	s      *objects
	bytes  int64           // decompressed bytes
	read   int64           // bytes read from the archive
	marked <-chan struct{} // closed once s.hash is final (nil: it is)
}

func (ar *archiveResult) set(r ref, o Object) {
	o.Ordinal = r.e.Ordinal
	ar.s.set(r.e.Index, o)
}

func (ar *archiveResult) problem(field string, off uint64, format string, args ...any) {
	ar.s.problem(kpack.Problem{Kind: kpack.ProblemMalformed, Field: field,
		Offset: int64(off), Msg: fmt.Sprintf(format, args...)})
}

// hashes reports whether some of refs need their object's sha256,
// waiting for markHashed if it still runs (decoding does not wait).
func (ar *archiveResult) hashes(refs []ref) bool {
	if ar.marked != nil {
		<-ar.marked
	}
	for _, rf := range refs {
		if ar.s.hash[rf.e.Index] {
			return true
		}
	}
	return false
}

// worker verifies jobs one at a time with a reused decoder and buffers.
type worker struct {
	opt     Options
	mem     *budget
	prog    *progress
	marked  <-chan struct{} // closed once the objects to hash are marked (nil: they are)
	fd      *kpack.FrameDecoder
	in      []byte // compressed frame read for VerifyOne
	out     []byte // decompressed object; cap(out) bytes are held in mem
	held    int64
	targets map[string]string // target strings, one copy each
	meter   *inflate.Meter    // what the worker decodes, against the run's budget (Options.Budget)
	meterOf *objects          // the archive the meter names
}

func newWorker(opt Options, mem *budget, prog *progress) *worker {
	w := &worker{opt: opt, mem: mem, prog: prog, targets: map[string]string{}, meter: opt.Budget.Meter("")}
	w.meter.Prefix("the zstd frames of ")
	return w
}

func (w *worker) close() {
	if w.fd != nil {
		w.fd.Close()
	}
	w.dropOut()
	w.meter.Flush()
}

// count names archive s in what the worker's meter charges from now on.
func (w *worker) count(s *objects) {
	if w.meterOf != s {
		w.meter.Name(s.a.Path)
		w.meterOf = s
	}
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

// do verifies one job: a read's worth of frames of a zstd archive, or a
// whole scheme none archive.
func (w *worker) do(j job) archiveResult {
	ar := archiveResult{s: j.s, marked: w.marked}
	w.count(j.s)
	if j.whole {
		w.verifyWhole(j.s, j.refs, &ar)
	} else {
		for _, f := range j.frames {
			if refs := j.refs.of(f.Ordinal); len(refs) > 0 {
				w.verifyFrame(f, refs, &ar)
			}
		}
	}
	// Give back a large buffer so one big kernel does not starve the others.
	if w.held > w.mem.total/int64(max(w.opt.Workers, 1)) {
		w.dropOut()
	}
	return ar
}

// doSafe is do, with a file that shrinks under a mapped read (a memory
// fault, the goroutine runs with debug.SetPanicOnFault) failing the job's
// objects with IO_ERROR instead of the process.
func (w *worker) doSafe(j job) (ar archiveResult) {
	defer func() {
		if v := recover(); v != nil {
			if !vfs.IsFault(v, j.win.Data) { // a fault elsewhere is a bug
				panic(v)
			}
			ar = archiveResult{s: j.s}
			err := shrank(j.s.a.Info)
			for _, f := range j.frames {
				setAll(j.refs.of(f.Ordinal), Object{Code: kpack.IOError, Err: err.Error()}, &ar)
			}
			ar.problem("archive", 0, "fetch gives IO_ERROR: %v", err)
		}
	}()
	return w.do(j)
}

// verifyWhole reads the objects of a scheme none archive.
func (w *worker) verifyWhole(s *objects, refs *entries, ar *archiveResult) {
	r, err := s.a.Entry.Open()
	if err != nil {
		failOpen(refs.refs, err, ar)
		return
	}
	defer r.Close()
	w.verifyNone(s.a.Info, r, refs, ar)
}

// failOpen records IO_ERROR for refs of an archive that cannot be read.
func failOpen(refs []ref, err error, ar *archiveResult) {
	for _, rf := range refs {
		ar.set(rf, Object{Code: kpack.IOError, Err: err.Error()})
	}
	ar.problem("archive", 0, "fetch gives IO_ERROR: %v", err)
}

// verifyOne verifies the object of one entry (VerifyOne): the zstd frame
// is read through the archive's frame index.
func (w *worker) verifyOne(s *objects, rf ref) {
	ar := archiveResult{s: s}
	es := &entries{refs: []ref{rf}}
	r, err := s.a.Entry.Open()
	if err != nil {
		failOpen(es.refs, err, &ar)
		return
	}
	defer r.Close()
	w.count(s)
	info := s.a.Info
	if info.EffectiveScheme() != kpack.SchemeZstd {
		w.verifyNone(info, r, es, &ar)
		return
	}
	if err := info.IndexFrames(r); err != nil {
		ar.set(rf, Object{Code: kpack.InvalidFormat, Err: err.Error()})
		return
	}
	off, size, ok := info.Frame(rf.e.Ordinal)
	if !ok {
		ar.set(rf, Object{Code: kpack.KernelNotFound,
			Err: fmt.Sprintf("kpack: ordinal %d is outside the zstd frame table (%d frames)", rf.e.Ordinal, info.FrameCount)})
		return
	}
	f := kpack.ScanFrame{Ordinal: rf.e.Ordinal, Offset: off, Size: size}
	if uint64(size) <= w.opt.MaxKernelSize {
		f.Data = grow(&w.in, uint64(size))
		if n, err := r.ReadAt(f.Data, int64(off)); n != len(f.Data) {
			err = fmt.Errorf("kpack: read %d of %d bytes at %d: %w", n, size, off, orEOF(err))
			ar.set(rf, Object{Code: kpack.IOError, Err: err.Error()})
			ar.problem(field(rf), off, "fetch gives IO_ERROR: %v", err)
			return
		}
	}
	w.verifyFrame(f, es.refs, &ar)
}

func orEOF(err error) error {
	if err == nil {
		return io.ErrUnexpectedEOF
	}
	return err
}

// entries are an archive's TOC entries sorted by ordinal, then kernel key
// and arch.
type entries struct {
	refs []ref
}

// newEntries lists info's entries in ordinal order. TOC order (by
// Entry.Index) usually is ordinal order already (the writer numbers frames
// as it stores them), and then no sort is needed.
func newEntries(info *kpack.Archive) *entries {
	refs := make([]ref, info.Entries)
	// A page of refs must be written before it is read: a read of fresh
	// memory maps the kernel's zero page, and the first write then copies
	// it and flushes the TLB of every core running the process. So which
	// slots are taken is kept aside, and a slot's entry (no pointers) is
	// stored before its strings, whose stores, while the collector marks,
	// first read the slot (the write barrier).
	taken := make([]uint64, (len(refs)+63)/64)
	placed := 0
	for key, list := range info.Kernels {
		for _, ae := range list {
			i := ae.Index
			if int(i) < len(refs) && taken[i/64]&(1<<(i%64)) == 0 {
				taken[i/64] |= 1 << (i % 64)
				refs[i].e = ae.Entry
				refs[i].kernel, refs[i].arch = key, ae.Arch
				placed++
			}
		}
	}
	inOrder := placed == len(refs)
	if !inOrder { // not a permutation of the indexes: collect and sort
		refs = refs[:0]
		for key, list := range info.Kernels {
			for _, ae := range list {
				refs = append(refs, ref{key, ae.Arch, ae.Entry})
			}
		}
	}
	byOrdinal := func(a, b ref) int {
		return cmp.Or(cmp.Compare(a.e.Ordinal, b.e.Ordinal), strings.Compare(a.kernel, b.kernel), strings.Compare(a.arch, b.arch))
	}
	if !inOrder || !increasingOrdinals(refs) {
		slices.SortFunc(refs, byOrdinal)
	}
	return &entries{refs: refs}
}

// increasingOrdinals reports whether refs' ordinals strictly increase (no
// two entries share a frame: the sort order needs nothing else).
func increasingOrdinals(refs []ref) bool {
	for i := 1; i < len(refs); i++ {
		if refs[i].e.Ordinal <= refs[i-1].e.Ordinal {
			return false
		}
	}
	return true
}

// of returns the entries with ordinal ord.
func (es *entries) of(ord uint32) []ref {
	i := sort.Search(len(es.refs), func(i int) bool { return es.refs[i].e.Ordinal >= ord })
	j := i
	for j < len(es.refs) && es.refs[j].e.Ordinal == ord {
		j++
	}
	return es.refs[i:j]
}

// from returns the entries with ordinal ord or above.
func (es *entries) from(ord uint32) []ref {
	i := sort.Search(len(es.refs), func(i int) bool { return es.refs[i].e.Ordinal >= ord })
	return es.refs[i:]
}

// verifyNone reads each referenced blob once, after the runtime's checks
// (kpack.Archive.Blob: ordinal, malformed item, size limit, end of file).
// A blob that fits the budget is read whole and parsed; a larger one is
// streamed: hashed, counted and its ELF header decoded, never held.
func (w *worker) verifyNone(info *kpack.Archive, r io.ReaderAt, es *entries, ar *archiveResult) {
	for refs := es.refs; len(refs) > 0; {
		ord := refs[0].e.Ordinal
		n := 1
		for n < len(refs) && refs[n].e.Ordinal == ord {
			n++
		}
		w.verifyBlob(info, r, ord, refs[:n], ar)
		refs = refs[n:]
	}
}

// verifyBlob reads blob ord for the entries refs.
func (w *worker) verifyBlob(info *kpack.Archive, r io.ReaderAt, ord uint32, refs []ref, ar *archiveResult) {
	sec, code, err := info.Blob(r, ord, w.opt.MaxKernelSize)
	if code != kpack.Success {
		w.recordNone(info, refs, nil, code, err, ar)
		return
	}
	size := uint64(sec.Size())
	if size > uint64(w.mem.total) {
		w.streamNone(info, refs, sec, ar)
		return
	}
	data := w.reserve(size, 0)[:size]
	if n, err := sec.ReadAt(data, 0); n < len(data) {
		w.recordNone(info, refs, nil, kpack.IOError, fmt.Errorf("kpack: read %d of %d bytes at %d: %w", n, size, blobOffset(info, ord), err), ar)
		return
	}
	w.recordNone(info, refs, data, kpack.Success, nil, ar)
}

// streamNone verifies a blob larger than the budget in pieces of at most
// 1 MiB (or the budget).
func (w *worker) streamNone(info *kpack.Archive, refs []ref, sec *io.SectionReader, ar *archiveResult) {
	buf := w.reserve(uint64(min(1<<20, max(w.mem.total, 4<<10))), 0)
	s := newHeadSink(ar.hashes(refs))
	if _, err := io.CopyBuffer(s, io.NewSectionReader(sec, 0, sec.Size()), buf[:cap(buf)]); err != nil {
		w.recordNone(info, refs, nil, kpack.IOError, fmt.Errorf("kpack: reading blob at %d: %w", blobOffset(info, refs[0].e.Ordinal), err), ar)
		return
	}
	o := w.intern(s.object())
	ar.bytes += int64(o.Size)
	ar.read += int64(o.Size)
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
	o := w.intern(analyze(data, ar.hashes(refs), w.meter))
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

func grow(buf *[]byte, n uint64) []byte {
	if uint64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	return (*buf)[:n]
}

// verifyFrame decodes frame f for each distinct original_size its entries
// refs declare.
func (w *worker) verifyFrame(f kpack.ScanFrame, refs []ref, ar *archiveResult) {
	off := f.Offset
	if f.Data == nil {
		err := fmt.Errorf("kpack: frame %d is %d bytes, over the %d-byte limit", refs[0].e.Ordinal, f.Size, w.opt.MaxKernelSize)
		setAll(refs, Object{Code: kpack.OutOfMemory, Err: err.Error()}, ar)
		return
	}
	in := f.Data
	if len(refs) == 1 {
		w.decodeGroup(in, off, refs, ar) // one entry: one size
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
// one pass whatever the number of sizes. Only the entries whose
// original_size is that length are then decoded for real; the others fail
// as decoding them alone would.
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

// fail records DECOMPRESSION_FAILED for refs with a problem each; past
// the run's budget of decompressed bytes, OUT_OF_MEMORY and Skipped (a
// limit of this run, not a defect of the archive).
func (w *worker) fail(refs []ref, off uint64, err error, ar *archiveResult) {
	var le *inflate.LimitError
	if errors.As(err, &le) {
		setAll(refs, Object{Code: kpack.OutOfMemory, Skipped: true,
			Err: fmt.Sprintf("kpack: frame %d: %v", refs[0].e.Ordinal, err)}, ar)
		return
	}
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
			o = analyze(out, ar.hashes(refs), w.meter)
		}
	case plan.Window <= limit:
		w.reserve(0, plan.Window+ringSlack)
		o, err = w.streamObject(fd, in, want, ar.hashes(refs))
	case want <= inPlaceLimit(limit):
		// The declared window is over the budget but original_size is
		// not: decoded in place, the output is the history.
		var out []byte
		out, err = fd.Decode(in, want, w.reserve(want+kpack.FrameSlack, inPlaceGrowth(want)))
		if err == nil {
			o = analyze(out, ar.hashes(refs), w.meter)
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
		setAll(refs, w.intern(o), ar)
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
		w.fd.SetMeter(w.meter)
	}
	return w.fd
}

// streamObject decodes a frame too large to keep, counting (and, when
// asked, hashing) its output and keeping only the ELF header.
func (w *worker) streamObject(fd *kpack.FrameDecoder, in []byte, want uint64, hash bool) (Object, error) {
	s := newHeadSink(hash)
	if err := fd.Stream(in, want, s); err != nil {
		return Object{}, err
	}
	return s.object(), nil
}

// intern keeps one copy of each target string.
func (w *worker) intern(o Object) Object {
	if t, ok := w.targets[o.Target]; ok {
		o.Target = t
	} else {
		w.targets[o.Target] = o.Target
	}
	return o
}

// object is what the sink saw: size, hash and the target of its ELF header.
func (s *headSink) object() Object {
	o := Object{Code: Success, Size: s.n}
	if s.h != nil {
		s.h.Sum(o.Sum[:0])
		o.Hashed = true
	}
	id, err := codeobj.DecodeHeader(s.head[:s.kept], s.n)
	if err != nil {
		o.Err, o.NotELF = err.Error(), !codeobj.HasELFMagic(s.head[:s.kept])
	} else {
		o.Target = id.String()
	}
	return o
}

// headSink counts (and, with a hash, hashes) what it is given and keeps
// the first bytes.
type headSink struct {
	h    hash.Hash
	head [codeobj.HeaderSize]byte
	kept int
	n    uint64
}

func newHeadSink(hashed bool) *headSink {
	s := &headSink{}
	if hashed {
		s.h = sha256.New()
	}
	return s
}

func (s *headSink) Write(p []byte) (int, error) {
	s.kept += copy(s.head[s.kept:], p)
	s.n += uint64(len(p))
	if s.h != nil {
		return s.h.Write(p)
	}
	return len(p), nil
}

// analyze decodes a fetched code object's target (a compressed section
// name table it inflates counted with meter) and, when asked, hashes it.
func analyze(data []byte, hash bool, meter *inflate.Meter) Object {
	o := Object{Code: Success, Size: uint64(len(data))}
	if hash {
		o.Sum, o.Hashed = sha256.Sum256(data), true
	}
	id, err := codeobj.DecodeCodeObject(data, meter)
	if err != nil {
		o.Err, o.NotELF = err.Error(), !codeobj.HasELFMagic(data)
		return o
	}
	o.Target = id.String()
	return o
}
