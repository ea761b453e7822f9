package xzra

import (
	"container/list"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// DefaultMemoryBudget is Options.MemoryBudget when zero: the decoded block
// bytes and decoder dictionaries one Reader holds, 256 MiB (the default
// of check --deep-memory; ten 24 MiB blocks of dpkg's xz -6).
const DefaultMemoryBudget = 256 << 20

// Options tunes Open. The zero value is ready to use.
type Options struct {
	// MemoryBudget bounds the decoded bytes of cached blocks plus the
	// dictionaries of the decoders, in bytes. Blocks hold their bytes in
	// 1 MiB pages; the pages of blocks cut or dropped are kept for reuse
	// and count in the budget too. Past it, those free pages are let go
	// first, then the least recently read blocks (those given to Release
	// first) are cut to the pages holding the last MiB before their
	// decoder's position, the decoder kept so that reads further on go
	// on from there, then dropped (and decoded again from their start if
	// read again); blocks decoded ahead (Prefetch, read-ahead) and not
	// read yet go last. A block a goroutine is decoding is neither, so the
	// bound can be passed by at most one block and dictionary per
	// concurrent ReadAt caller and background worker.
	// 0 means DefaultMemoryBudget.
	MemoryBudget int64
	// MaxBlockSize is the largest block read in place; a file with a
	// larger one is refused with ErrFewBlocks. 0 means MemoryBudget/2.
	MaxBlockSize int64
	// Workers is how many goroutines decode blocks in the background
	// (read-ahead and Prefetch); 0 means runtime.GOMAXPROCS(0), a
	// negative value none.
	Workers int
	// ReadAhead is how many blocks past the current one are decoded in
	// the background once reads step from one block to the next (a
	// front-to-back scan); 0 means Workers, a negative value none.
	ReadAhead int
	// Charge, when set, is called with the number of uncompressed bytes
	// about to be decoded (at most 1 MiB at a time, from any goroutine;
	// re-decodes after eviction included). An error stops that decode:
	// ReadAt returns it, and background decodes drop the block. This is
	// the hook for a per-run decompressed-bytes budget.
	Charge func(n int64) error
	// XZ is the path of an xz program of XZ Utils (FindXZ) that decodes
	// the blocks of at least 256 KiB compressed, one process per block
	// (external.go); "" decodes every block with github.com/xi2/xz.
	XZ string
	// Liblzma decodes every block with liblzma.so.5, loaded into the
	// process (HaveLiblzma; builds with cgo on Linux), instead of XZ or
	// the Go decoder.
	Liblzma bool
	// Prepaid says the caller charged its budget with the file's whole
	// uncompressed size (Index.Size) when it opened the Reader, as a
	// reader streaming the file front to back would be charged: Charge
	// then gets only the bytes decoded again after their block was
	// dropped or cut, so that a Reader costs the budget what streaming
	// would plus its re-decodes, and never less.
	Prepaid bool
}

func (o Options) withDefaults() Options {
	if o.MemoryBudget <= 0 {
		o.MemoryBudget = DefaultMemoryBudget
	}
	if o.MaxBlockSize <= 0 {
		o.MaxBlockSize = o.MemoryBudget / 2
	}
	switch {
	case o.Workers == 0:
		o.Workers = runtime.GOMAXPROCS(0)
	case o.Workers < 0:
		o.Workers = 0
	}
	switch {
	case o.ReadAhead == 0:
		o.ReadAhead = o.Workers
	case o.ReadAhead < 0 || o.Workers == 0:
		o.ReadAhead = 0
	}
	return o
}

// Stats counts the work of a Reader. Decoded bytes are uncompressed bytes.
type Stats struct {
	Decoded   int64 // bytes decoded, background and re-decodes included
	Redecoded int64 // of those, bytes decoded again after their block was dropped
	Ahead     int64 // of those, bytes decoded by background workers
	Unused    int64 // of those, bytes of blocks dropped or closed before any read of them
	Started   int   // blocks whose decoding started (again after a drop)
	Completed int   // blocks decoded to their end, check verified
	Dropped   int   // blocks dropped from the cache to stay within the budget
	Compacted int   // blocks cut to the pages of their last MiB, their decoders kept, to stay within it
	Peak      int64 // most bytes of blocks (free pages included) and dictionaries held at once
}

// Reader serves the uncompressed bytes of an xz file at random. It is safe
// for concurrent use: reads of different blocks decode in parallel on the
// callers' goroutines; reads of one block share its decoder, which
// resumes where the last read of the block stopped.
type Reader struct {
	r   io.ReaderAt
	ix  *Index
	opt Options
	// data lists the blocks holding bytes, for the binary search by
	// uncompressed offset (empty blocks hold none).
	data []int

	mu      sync.Mutex // guards the fields below and blockState.elem, mem
	states  []*blockState
	lru     list.List // resident blocks, most recently read first
	used    int64
	idle    []*decoder // decoders between blocks, their dictionaries kept
	free    [][]byte   // pages no block holds, kept for reuse (charged to used)
	queue   []job      // background work
	wake    *sync.Cond
	started bool
	closed  atomic.Bool
	workers sync.WaitGroup
	last    int64 // uncompressed offset after the last read, for read-ahead

	decoded, redecoded, ahead  atomic.Int64
	unused                     int64 // x.mu
	startedN, completed, drops atomic.Int64
	compacts                   atomic.Int64
	made                       atomic.Int64 // pages allocated rather than taken from the free list (tests)
	peak                       int64
}

// job is a background decode of block i up to need bytes.
type job struct{ i, need int }

// blockState is the cached, partly decoded state of one block.
type blockState struct {
	i       int
	mu      sync.Mutex
	cond    sync.Cond
	pages   [][]byte // the block's bytes from base to base+n, the decoder's frontier, a page each (see page)
	n       int64    // bytes decoded past base
	base    int64    // 0, or a page's start once the cache kept only the pages before the frontier
	dec     *decoder // positioned at the frontier; nil before the start and after the end
	busy    bool     // a goroutine is decoding it
	done    bool     // decoded to the end, check verified
	err     error    // the decode failed (sticky): reads reaching errAt or the block's end return it
	errAt   int64    // with err, the bytes decoded before it failed
	dropped int64    // how far it had been decoded when last dropped

	elem *list.Element // in Reader.lru while resident (Reader.mu)
	mem  int64         // bytes charged to Reader.used (Reader.mu)
	hdr  *blockHeader  // once read (Reader.mu)
	// ahead marks a block taken by a background worker and not read
	// since, which other background work must not drop; queued, one
	// waiting in Reader.queue (Reader.mu).
	ahead, queued bool
}

// Open reads the index of the xz file of size bytes in r and returns a
// Reader over its uncompressed bytes. Errors: a *FormatError when the
// stream or index is corrupt or truncated; one wrapping ErrFewBlocks when
// the file holds fewer than two blocks with data or a block larger than
// Options.MaxBlockSize (then stream it instead). Both leave nothing open.
func Open(r io.ReaderAt, size int64, opt Options) (*Reader, error) {
	ix, err := ReadIndex(r, size)
	if err != nil {
		return nil, err
	}
	return NewReader(r, ix, opt)
}

// NewReader is Open with an index already read from r.
func NewReader(r io.ReaderAt, ix *Index, opt Options) (*Reader, error) {
	opt = opt.withDefaults()
	x := &Reader{r: r, ix: ix, opt: opt, last: -1}
	for i, b := range ix.Blocks {
		if b.USize > opt.MaxBlockSize {
			return nil, fmt.Errorf("%w: block %d holds %d MiB, more than the %d MiB this reader keeps of one block; compress with smaller blocks (xz -T0 at presets up to -8, or --block-size), or allow more memory", ErrFewBlocks, i+1, b.USize>>20, opt.MaxBlockSize>>20)
		}
		if b.USize > 0 {
			x.data = append(x.data, i)
		}
	}
	if len(x.data) < 2 && ix.Size > 0 {
		return nil, oneBlock(ix.Size)
	}
	x.states = make([]*blockState, len(ix.Blocks))
	x.wake = sync.NewCond(&x.mu)
	return x, nil
}

// LargeOneBlock is the size from which a one-block stream is worth
// cutting into blocks: twice the 24 MiB blocks of xz -T0 at its default
// preset.
const LargeOneBlock = 48 << 20

// oneBlock is the error for a stream of one block of size bytes: below
// LargeOneBlock it is simply small (dpkg-deb writes small packages as
// one block too), above it xz wrote it single-threaded.
func oneBlock(size int64) error {
	if size < LargeOneBlock {
		return fmt.Errorf("%w: the stream is one block of %d bytes (small enough to stream)", ErrFewBlocks, size)
	}
	return fmt.Errorf("%w: the stream is one block of %d MiB, which single-threaded xz writes; compress with xz -T0 or --block-size, as dpkg-deb does", ErrFewBlocks, size>>20)
}

// Index returns the file's index. It is shared: do not modify it.
func (x *Reader) Index() *Index { return x.ix }

// Size is the number of uncompressed bytes.
func (x *Reader) Size() int64 { return x.ix.Size }

// Stats returns the counts so far.
func (x *Reader) Stats() Stats {
	x.mu.Lock()
	peak, unused := x.peak, x.unused
	x.mu.Unlock()
	return Stats{Decoded: x.decoded.Load(), Redecoded: x.redecoded.Load(), Ahead: x.ahead.Load(), Unused: unused,
		Started: int(x.startedN.Load()), Completed: int(x.completed.Load()), Dropped: int(x.drops.Load()), Compacted: int(x.compacts.Load()), Peak: peak}
}

// ErrClosed is returned by reads after Close.
var ErrClosed = fs.ErrClosed

// ReadAt implements io.ReaderAt: it decodes the blocks holding
// [off, off+len(p)), each from its start (or from where an earlier read
// of it stopped) up to the bytes asked for.
func (x *Reader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("xzra: negative offset")
	}
	n := 0
	for n < len(p) && off+int64(n) < x.ix.Size {
		if x.closed.Load() {
			return n, ErrClosed
		}
		at := off + int64(n)
		i := x.find(at)
		b := x.ix.Blocks[i]
		from := at - b.UOff
		k := int(min(int64(len(p)-n), b.USize-from))
		s := x.state(i)
		x.note(i, at, int64(k))
		if err := x.ensure(s, from, from+int64(k), false); err != nil {
			return n, err
		}
		s.copyOut(p[n:n+k], from)
		s.mu.Unlock()
		n += k
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// find returns the block holding uncompressed offset at (< Size).
func (x *Reader) find(at int64) int {
	j := sort.Search(len(x.data), func(j int) bool {
		b := x.ix.Blocks[x.data[j]]
		return b.UOff+b.USize > at
	})
	return x.data[j]
}

// state returns block i's state, making it, and marks it most recently
// read.
func (x *Reader) state(i int) *blockState {
	x.mu.Lock()
	defer x.mu.Unlock()
	s := x.states[i]
	if s == nil {
		s = &blockState{i: i}
		s.cond.L = &s.mu
		x.states[i] = s
	}
	if s.elem != nil {
		x.lru.MoveToFront(s.elem)
	}
	s.ahead = false
	return s
}

// ensure returns with s.mu held once s holds the block's bytes from from
// to need, decoding them if no other goroutine is (from the block's start
// again when the cache kept only bytes past from). background marks
// read-ahead work.
//
// The answer depends on the bytes asked for alone, not on what other
// goroutines decoded first: a read that reaches the block's end returns
// once the block's check is verified (waiting for a background decode to
// verify it), and a failed block fails the reads that reach the point
// where it failed or its end, while reads before that are served (from
// its bytes, or by decoding it again once the cache let them go).
func (x *Reader) ensure(s *blockState, from, need int64, background bool) error {
	end := x.ix.Blocks[s.i].USize
	s.mu.Lock()
	for {
		switch {
		case s.err != nil && (need > s.errAt || need == end):
			err := s.err
			s.mu.Unlock()
			return err
		case s.base <= from && s.base+s.n >= need && (need < end || s.done):
			return nil
		case s.busy:
			s.cond.Wait()
			continue
		}
		s.busy = true
		if s.err != nil || from < s.base {
			s.err = nil // failed past need: decode it again up to need
			x.mu.Lock() // after s.mu, as everywhere but in trim, which only tries s.mu
			x.reset(s)
			x.mu.Unlock()
		}
		s.mu.Unlock()
		err := x.decode(s, need, background)
		s.mu.Lock()
		s.busy = false
		s.cond.Broadcast()
		if err != nil {
			s.mu.Unlock()
			return err
		}
	}
}

// Granules of decoding: a read is decoded up to a multiple of step past
// what it needs, and progress is published every chunk bytes at most (at
// each page's end), so that a reader waiting on a background decode goes
// on as soon as its bytes are there.
const (
	step  = 64 << 10
	chunk = 1 << 20
)

// page is the size of the pages holding a block's bytes: the byte at
// offset o of a block is at pages[(o-base)/page][(o-base)%page]. A block
// smaller than a page gets one page of its size instead, not pooled.
const page = chunk

// decode runs with s.busy set and s.mu not held: it decodes block s.i up
// to need bytes (rounded up to step), verifying the check when that is
// the block's end. background marks read-ahead and Prefetch work.
func (x *Reader) decode(s *blockState, need int64, background bool) error {
	b := x.ix.Blocks[s.i]
	target := min(b.USize, (need+step-1)/step*step)
	if s.dec == nil && !s.done {
		if err := x.begin(s, background); err != nil {
			return err
		}
	}
	pages, base, n := s.pages, s.base, s.n // base does not move while s is busy
	for base+n < target {
		if x.closed.Load() {
			s.dec.close() // Close left this busy block to us
			return ErrClosed
		}
		k := min(target-base-n, page-n%page) // up to the target or the page's end
		if err := x.chargeDecode(s, base+n, k); err != nil {
			return err
		}
		if int(n/page) == len(pages) {
			pages = append(pages, x.newPage(s, b.USize, background))
		}
		m, err := io.ReadFull(s.dec.z, pages[n/page][n%page:][:k])
		x.count(s, base+n, int64(m), background)
		n += int64(m)
		if s.dec.proc != nil {
			x.mu.Lock()
			x.grow(s, base+n)
			x.mu.Unlock()
		}
		s.mu.Lock()
		s.pages, s.n = pages, n
		s.cond.Broadcast()
		s.mu.Unlock()
		if err != nil {
			return x.fail(s, x.shortErr(s.i, base+n, err))
		}
	}
	if base+n == b.USize {
		return x.finish(s)
	}
	return nil
}

// copyOut copies s's bytes from offset from of the block on into p
// (s.mu held, s holding them all).
func (s *blockState) copyOut(p []byte, from int64) {
	for o := from - s.base; len(p) > 0; {
		k := copy(p, s.pages[o/page][o%page:])
		p = p[k:]
		o += int64(k)
	}
}

// chargeDecode passes the k bytes about to be decoded at offset at of
// block s to Options.Charge: all of them, or with Options.Prepaid only
// those decoded before (up to where the block was when it was dropped).
func (x *Reader) chargeDecode(s *blockState, at, k int64) error {
	if x.opt.Charge == nil {
		return nil
	}
	if x.opt.Prepaid {
		k = min(at+k, s.dropped) - at
		if k <= 0 {
			return nil
		}
	}
	return x.opt.Charge(k)
}

// begin parses block s.i's header and points a decoder at it.
func (x *Reader) begin(s *blockState, background bool) error {
	h, err := x.header(s)
	if err != nil {
		return x.fail(s, err)
	}
	if !x.opt.Liblzma && x.opt.XZ != "" && x.ix.Blocks[s.i].Unpadded >= minExternal {
		return x.beginExternal(s, h, background)
	}
	x.mu.Lock()
	var d *decoder
	if n := len(x.idle); n > 0 {
		d, x.idle = x.idle[n-1], x.idle[:n-1]
		x.used -= d.dict // its dictionary moves from the pool to s
		x.charge(s, d.dict)
	}
	x.mu.Unlock()
	old := int64(0)
	if d != nil {
		old = d.dict
	}
	if x.opt.Liblzma {
		d, err = x.ix.startLib(d, x.r, s.i, h)
	} else {
		d, err = x.ix.start(d, x.r, s.i, h)
	}
	if err != nil {
		x.mu.Lock()
		x.charge(s, -old)
		x.mu.Unlock()
		return x.fail(s, err)
	}
	x.mu.Lock()
	x.charge(s, d.dict-old)
	x.trim(s, background, 0)
	x.mu.Unlock()
	s.dec = d
	x.startedN.Add(1)
	return nil
}

// beginExternal starts an xz process on block s.i.
func (x *Reader) beginExternal(s *blockState, h blockHeader, background bool) error {
	d, err := x.ix.startExternal(x.opt.XZ, x.r, s.i, h)
	if err != nil {
		return x.fail(s, err)
	}
	x.mu.Lock()
	x.charge(s, d.dict)
	x.trim(s, background, 0)
	x.mu.Unlock()
	s.dec = d
	x.startedN.Add(1)
	return nil
}

// grow charges the xz process of block s, decoded up to offset at, for
// the dictionary it has filled since (x.mu held): liblzma's pages are
// touched as it writes them, so its memory is the bytes decoded so far
// up to the dictionary's size, plus its buffers and the pipe's.
func (x *Reader) grow(s *blockState, at int64) {
	d := s.dec
	if want := min(d.full, at+procBuffers); want > d.dict {
		x.charge(s, want-d.dict)
		d.dict = want
	}
}

// header returns block s.i's header, reading it once.
func (x *Reader) header(s *blockState) (blockHeader, error) {
	x.mu.Lock()
	h := s.hdr
	x.mu.Unlock()
	if h != nil {
		return *h, nil
	}
	v, err := x.ix.readBlockHeader(x.r, s.i)
	if err == nil {
		x.mu.Lock()
		s.hdr = &v
		x.mu.Unlock()
	}
	return v, err
}

// newPage returns the next page of block s, of usize bytes, charged to
// the budget: for a block smaller than a page one of its size, else one
// from the free list or, when that is empty even after making room for
// one, a new one.
func (x *Reader) newPage(s *blockState, usize int64, background bool) []byte {
	if usize < page {
		x.mu.Lock()
		x.charge(s, usize)
		x.trim(s, background, 0)
		x.mu.Unlock()
		return make([]byte, usize)
	}
	if p := x.takePage(s, background); p != nil {
		return p
	}
	x.made.Add(1)
	return make([]byte, page)
}

// takePage charges a page to s, trimming the cache to make room for it
// when the free list is empty, and returns a page from the free list, or
// nil when there is none: the caller allocates it.
func (x *Reader) takePage(s *blockState, background bool) []byte {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.free) == 0 {
		x.trim(s, background, page)
	}
	x.charge(s, page)
	n := len(x.free)
	if n == 0 {
		return nil
	}
	p := x.free[n-1]
	x.free[n-1] = nil
	x.free = x.free[:n-1]
	x.used -= page // it moves from the free list to s
	return p
}

// putPage returns a page no block holds any more to the free list (x.mu
// held), charging it there; pages of blocks smaller than a page, and
// all pages once the Reader is closed, are let go instead.
func (x *Reader) putPage(p []byte) {
	if len(p) != page || x.closed.Load() {
		return
	}
	x.free = append(x.free, p)
	x.used += page
	x.peak = max(x.peak, x.used)
}

// freeBytes is what the free list holds (x.mu held).
func (x *Reader) freeBytes() int64 { return int64(len(x.free)) * page }

// count adds m bytes decoded at offset at of block s to the stats.
func (x *Reader) count(s *blockState, at, m int64, background bool) {
	x.decoded.Add(m)
	if background {
		x.ahead.Add(m)
	}
	if again := min(at+m, s.dropped) - at; again > 0 {
		x.redecoded.Add(again)
	}
}

// finish reads past the block's last byte so that the decoder checks it
// (the block's check, and the sizes against the index), then returns the
// decoder to the pool.
func (x *Reader) finish(s *blockState) error {
	var one [1]byte
	n, err := s.dec.z.Read(one[:])
	for n == 0 && err == nil {
		n, err = s.dec.z.Read(one[:])
	}
	if n > 0 {
		s.dec.close()
	}
	b := x.ix.Blocks[s.i]
	if n > 0 {
		return x.fail(s, formatErr(b.Off, "block %d decodes to more than the %d bytes the index says", s.i+1, b.USize))
	}
	if err != io.EOF {
		return x.fail(s, x.ix.decodeErr(s.i, err))
	}
	x.completed.Add(1)
	x.mu.Lock()
	x.release(s)
	x.mu.Unlock()
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
	return nil
}

// shortErr explains a decode that stopped after n bytes of block i.
func (x *Reader) shortErr(i int, n int64, err error) error {
	b := x.ix.Blocks[i]
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return formatErr(b.Off, "block %d decodes to %d bytes, fewer than the %d the index says", i+1, n, b.USize)
	}
	return x.ix.decodeErr(i, err)
}

// fail records a decode error on s (sticky unless it is the caller's
// budget or a read error of the file) and drops its decoder.
func (x *Reader) fail(s *blockState, err error) error {
	var fe *FormatError
	x.mu.Lock()
	if s.dec != nil {
		x.charge(s, -s.dec.dict)
		s.dec.close()
		s.dec = nil
	}
	x.mu.Unlock()
	s.mu.Lock()
	if errors.As(err, &fe) {
		s.err, s.errAt = err, s.base+s.n
	} else {
		// Not the file's fault: start over on the next read.
		x.mu.Lock()
		x.reset(s)
		x.mu.Unlock()
	}
	s.mu.Unlock()
	return err
}

// release returns s's decoder to the pool (x.mu held), or frees it when
// the pool holds one per worker already or the budget has no room.
func (x *Reader) release(s *blockState) {
	d := s.dec
	if d == nil {
		return
	}
	s.dec = nil
	x.charge(s, -d.dict)
	if d.proc == nil && len(x.idle) <= x.opt.Workers && !x.closed.Load() && x.used+d.dict <= x.opt.MemoryBudget {
		x.idle = append(x.idle, d)
		x.used += d.dict
		x.peak = max(x.peak, x.used)
		return
	}
	d.close()
}

// dropIdle frees the pooled decoders (x.mu held).
func (x *Reader) dropIdle() {
	for _, d := range x.idle {
		x.used -= d.dict
		d.close()
	}
	x.idle = nil
}

// charge adds delta bytes held by s to the budget (x.mu held) and keeps
// s in the LRU list while it holds any.
func (x *Reader) charge(s *blockState, delta int64) {
	s.mem += delta
	x.used += delta
	x.peak = max(x.peak, x.used)
	switch {
	case s.mem > 0 && s.elem == nil:
		s.elem = x.lru.PushFront(s)
	case s.mem <= 0 && s.elem != nil:
		x.lru.Remove(s.elem)
		s.elem = nil
	}
}

// trim makes room (x.mu held) until the budget holds: it lets go of
// free pages first, then cuts and at last drops least recently read
// blocks, sparing keep, blocks being decoded or read at the moment, and
// blocks decoded ahead and not read yet: always for background work, and
// for reads until no other block is left to cut or drop (in a front to
// back scan the blocks read last are behind the reader, and those decoded
// ahead are what it reads next); the pages those give back are let go in
// turn. It reports whether the budget holds with extra bytes more, free
// pages counting as room for them.
func (x *Reader) trim(keep *blockState, background bool, extra int64) bool {
	budget := x.opt.MemoryBudget - extra
	x.shed(budget, extra)
	tiers := []bool{true} // spare the blocks decoded ahead
	if !background {
		tiers = append(tiers, false)
	}
	for _, spareAhead := range tiers {
		for _, drop := range []bool{false, true} {
			x.trimPass(keep, budget, extra, spareAhead, drop)
		}
	}
	if x.over(budget, extra) && len(x.idle) > 0 {
		x.dropIdle()
	}
	return !x.over(budget, extra)
}

// evict cuts s (or drops it, when drop is set) unless it is busy or,
// with spareAhead, decoded ahead (x.mu and s.mu held).
func (x *Reader) evict(s *blockState, drop, spareAhead bool) {
	switch {
	case s.busy || spareAhead && s.ahead:
	case drop:
		x.drop(s)
	case s.dec != nil && s.n > 2*frontier:
		x.compact(s)
	}
}

// over reports whether x.used passes budget (x.mu held), the free pages
// that extra bytes about to be decoded will take counted as theirs.
func (x *Reader) over(budget, extra int64) bool {
	return x.used-min(x.freeBytes(), extra) > budget
}

// shed lets go of free pages (x.mu held) while x.used passes budget,
// keeping those that extra bytes about to be decoded will take.
func (x *Reader) shed(budget, extra int64) {
	for n := len(x.free); n > 0 && x.freeBytes() > extra && x.over(budget, extra); n-- {
		x.free[n-1] = nil
		x.free = x.free[:n-1]
		x.used -= page
	}
}

// trimPass is one walk of trim from the least recently read block: it
// cuts or, with drop, drops blocks (evict) until the budget holds with
// extra bytes more, letting go of the pages they give back.
func (x *Reader) trimPass(keep *blockState, budget, extra int64, spareAhead, drop bool) {
	for e := x.lru.Back(); e != nil && x.over(budget, extra); {
		prev := e.Prev()
		s := e.Value.(*blockState)
		if s != keep && s.mu.TryLock() {
			x.evict(s, drop, spareAhead)
			s.mu.Unlock()
			x.shed(budget, extra)
		}
		e = prev
	}
}

// drop frees s's bytes and decoder (x.mu and s.mu held, s not busy).
func (x *Reader) drop(s *blockState) {
	if s.ahead {
		x.unused += s.n
	}
	x.reset(s)
	x.drops.Add(1)
}

// reset frees s's decoder and returns its pages to the free list (x.mu
// and s.mu held), so that the next read decodes it from its start.
func (x *Reader) reset(s *blockState) {
	s.dropped = max(s.dropped, s.base+s.n)
	pages := s.pages
	s.dec.close()
	s.pages, s.n, s.base, s.dec, s.done, s.ahead = nil, 0, 0, nil, false, false
	x.charge(s, -s.mem)
	for _, p := range pages {
		x.putPage(p)
	}
}

// frontier is what compact keeps of a block: the pages holding the last
// MiB decoded. A tar listing decodes each block up to a header; what is
// read next there is the member after it (the decoder goes on) or the
// end of the member before it (an ELF file's section headers).
const frontier = 1 << 20

// compact returns the pages of s before those holding the last frontier
// bytes to the free list, keeping its decoder where it is (x.mu and s.mu
// held, s not busy, s.n > 2*frontier): reads past the frontier go on
// decoding, reads before the first page kept decode the block again.
func (x *Reader) compact(s *blockState) {
	k := int((s.n - frontier) / page) // s is larger than a page: its pages are full ones
	cut := int64(k) * page
	s.base += cut
	s.n -= cut
	s.dropped = max(s.dropped, s.base)
	x.charge(s, -cut)
	for _, p := range s.pages[:k] {
		x.putPage(p)
	}
	kept := copy(s.pages, s.pages[k:])
	clear(s.pages[kept:]) // the free list's now, or let go
	s.pages = s.pages[:kept]
	x.compacts.Add(1)
}

// note records a read of n bytes at uncompressed offset at, in block i,
// and when it goes on from where the last read stopped into the start of
// a block (a front-to-back stream of reads, as io.Copy makes; not the
// jumps of a tar listing or of the headers of ELF files and bundles,
// which need a prefix of each block), queues the next ReadAhead blocks
// for the background workers.
func (x *Reader) note(i int, at, n int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	streaming := at == x.last && at == x.ix.Blocks[i].UOff
	x.last = at + n
	if x.opt.ReadAhead == 0 || !streaming {
		return
	}
	for j, k := x.next(i), 0; j >= 0 && k < x.opt.ReadAhead; j, k = x.next(j), k+1 {
		x.enqueue(j, int(x.ix.Blocks[j].USize))
	}
}

// next is the block with data after block i, or -1.
func (x *Reader) next(i int) int {
	for j := i + 1; j < len(x.ix.Blocks); j++ {
		if x.ix.Blocks[j].USize > 0 {
			return j
		}
	}
	return -1
}

// enqueue queues a background decode of block i up to need bytes
// (x.mu held), unless it is queued or decoded that far already.
func (x *Reader) enqueue(i, need int) {
	s := x.states[i]
	if s == nil {
		s = &blockState{i: i}
		s.cond.L = &s.mu
		x.states[i] = s
	}
	if s.queued || x.closed.Load() {
		return
	}
	if s.mu.TryLock() {
		enough := s.base == 0 && s.n >= int64(need) || s.err != nil
		s.mu.Unlock()
		if enough {
			return
		}
	}
	s.queued = true
	x.queue = append(x.queue, job{i, need})
	if !x.started {
		x.started = true
		for range x.opt.Workers {
			x.workers.Add(1)
			go x.work()
		}
	}
	x.wake.Signal()
}

// Range is a span of uncompressed bytes.
type Range struct{ Off, Len int64 }

// Prefetch queues the blocks holding the ranges for the background
// workers, each up to the end of the range in it, and returns at once.
// A worker makes room for a block by cutting or dropping the blocks read
// least recently, never those decoded ahead and not read yet; when that
// is not enough it leaves the block to ReadAt. With Workers < 0 it does
// nothing.
func (x *Reader) Prefetch(ranges ...Range) {
	if x.opt.Workers == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, rg := range ranges {
		end := min(rg.Off+rg.Len, x.ix.Size)
		for at := max(rg.Off, 0); at < end; {
			i := x.find(at)
			b := x.ix.Blocks[i]
			x.enqueue(i, int(min(end, b.UOff+b.USize)-b.UOff))
			at = b.UOff + b.USize
		}
	}
}

// Release tells the Reader that the ranges will not be read again soon
// (a tar member whose reader was closed): the blocks lying wholly inside
// one are dropped first when the budget needs room, before blocks read
// less recently. A later read of them decodes them again.
func (x *Reader) Release(ranges ...Range) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, rg := range ranges {
		end := min(rg.Off+rg.Len, x.ix.Size)
		for at := max(rg.Off, 0); at < end; {
			i := x.find(at)
			b := x.ix.Blocks[i]
			if s := x.states[i]; s != nil && s.elem != nil && b.UOff >= rg.Off && b.UOff+b.USize <= end {
				x.lru.MoveToBack(s.elem)
			}
			at = b.UOff + b.USize
		}
	}
}

// work is a background worker: it decodes queued blocks while they fit
// the budget.
func (x *Reader) work() {
	defer x.workers.Done()
	for {
		x.mu.Lock()
		for len(x.queue) == 0 && !x.closed.Load() {
			x.wake.Wait()
		}
		if x.closed.Load() {
			x.mu.Unlock()
			return
		}
		j := x.queue[0]
		x.queue = x.queue[1:]
		s := x.states[j.i]
		s.queued = false
		x.mu.Unlock()
		if x.fits(s, j) {
			if err := x.ensure(s, 0, int64(j.need), true); err == nil {
				s.mu.Unlock()
			}
		}
	}
}

// fits reports whether job j's block needs decoding and can be decoded
// without dropping blocks decoded ahead, and if so marks it ahead. A
// block that holds the bytes already, or that another goroutine is
// decoding, is not marked: a block marked ahead is spared until it is
// read, and one already read (a hint repeated for a block the reader is
// in) would be spared, its memory held, to the end.
func (x *Reader) fits(s *blockState, j job) bool {
	s.mu.Lock()
	skip := s.busy || s.err != nil || s.base == 0 && s.n >= int64(j.need)
	s.mu.Unlock()
	if skip {
		return false
	}
	h, err := x.header(s)
	if err != nil {
		return true // the decode fails and keeps the error
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	s.ahead = x.trim(s, true, int64(j.need)+h.dict)
	return s.ahead
}

// Close stops the background workers and frees every block, free page
// and idle decoder. Reads after Close fail with ErrClosed. It never fails.
func (x *Reader) Close() error {
	x.mu.Lock()
	x.closed.Store(true)
	x.queue = nil
	x.wake.Broadcast()
	x.mu.Unlock()
	x.workers.Wait()
	x.mu.Lock()
	states := slices.Clone(x.states)
	x.mu.Unlock()
	for _, s := range states {
		if s == nil {
			continue
		}
		s.mu.Lock() // before x.mu, as everywhere
		x.mu.Lock()
		if !s.busy { // a busy block's decode stops at ErrClosed and closes its decoder
			x.drop(s)
		}
		x.mu.Unlock()
		s.mu.Unlock()
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.used -= x.freeBytes()
	x.free = nil
	x.dropIdle()
	return nil
}
