package xzra

import (
	"bytes"
	"sync"
	"testing"

	uxz "github.com/ulikunitz/xz"
)

// pagedBlock is the block size of pagedFile: three pages and a part, so
// that a block's last page is partly filled.
const pagedBlock = 3*page + 12345

// paged holds pagedFile's data and xz file, compressed once.
var paged struct {
	once    sync.Once
	data, f []byte
}

// pagedFile returns the data and xz file of four blocks of pagedBlock
// bytes and a short fifth, compressed once for all the page tests.
func pagedFile(t *testing.T) (data, f []byte) {
	paged.once.Do(func() {
		paged.data = sample(4*pagedBlock+5000, 26)
		paged.f = compress(t, paged.data, pagedBlock, uxz.CRC64)
	})
	if paged.f == nil {
		t.Fatal("compressing the sample failed")
	}
	return paged.data, paged.f
}

// openPaged opens pagedFile without background workers.
func openPaged(t *testing.T, budget int64) (*Reader, []byte) {
	t.Helper()
	data, f := pagedFile(t)
	return open(t, f, Options{Workers: -1, MemoryBudget: budget, MaxBlockSize: pagedBlock}), data
}

// readOK reads n bytes at off and compares them with data.
func readOK(t *testing.T, x *Reader, data []byte, off int64, n int) {
	t.Helper()
	got := make([]byte, n)
	if k, err := x.ReadAt(got, off); err != nil || k != n || !bytes.Equal(got, data[off:][:n]) {
		t.Fatalf("ReadAt(%d bytes, %d) = %d, %v, equal %v", n, off, k, err, bytes.Equal(got[:k], data[off:][:k]))
	}
}

// checkUsed checks the accounting: x.used is what the blocks hold (their
// pages' sizes and decoders' dictionaries), plus the free pages and idle
// decoders.
func checkUsed(t *testing.T, x *Reader) {
	t.Helper()
	x.mu.Lock()
	defer x.mu.Unlock()
	sum := x.freeBytes()
	for _, d := range x.idle {
		sum += d.dict
	}
	for _, s := range x.states {
		if s == nil {
			continue
		}
		s.mu.Lock()
		held := int64(0)
		for _, p := range s.pages {
			held += int64(cap(p))
		}
		if s.dec != nil {
			held += s.dec.dict
		}
		if held != s.mem {
			t.Errorf("block %d holds %d bytes, charged %d", s.i+1, held, s.mem)
		}
		if s.n > int64(len(s.pages))*page || (len(s.pages) > 0 && s.n <= int64(len(s.pages)-1)*page) {
			t.Errorf("block %d: %d bytes in %d pages", s.i+1, s.n, len(s.pages))
		}
		sum += s.mem
		s.mu.Unlock()
	}
	if sum != x.used {
		t.Errorf("used %d, held %d", x.used, sum)
	}
}

// TestPagesSpan: reads across page boundaries, over a block's partly
// filled last page and into the next block return the right bytes; a
// block holds as many pages as its decoded bytes need.
func TestPagesSpan(t *testing.T) {
	x, data := openPaged(t, 0)
	readOK(t, x, data, page-10, 20)
	readOK(t, x, data, 2*page-1, page+2)
	readOK(t, x, data, pagedBlock-3*page/2, 2*page) // the last page of block 1, then block 2
	readOK(t, x, data, 0, 3*pagedBlock+100)
	readOK(t, x, data, int64(len(data))-5000-page, page+5000) // the short last block
	s := x.states[0]
	if len(s.pages) != 4 || s.n != pagedBlock || s.base != 0 {
		t.Errorf("block 1: %d pages, %d bytes from %d; want 4 pages holding %d", len(s.pages), s.n, s.base, pagedBlock)
	}
	if last := x.states[4]; len(last.pages) != 1 || len(last.pages[0]) != 5000 {
		t.Errorf("the 5000-byte block has %d pages, the first of %d bytes; want one of its size", len(last.pages), len(last.pages[0]))
	}
	if st := x.Stats(); st.Redecoded != 0 || st.Decoded != int64(len(data)) {
		t.Errorf("%+v: want every byte decoded once", st)
	}
	checkUsed(t, x)
}

// TestPagesCompact: compact returns the pages before the last MiB to the
// free list without copying; reads past the frontier go on decoding into
// pages from the free list, a read before the first page kept decodes
// the block again from its start.
func TestPagesCompact(t *testing.T) {
	x, data := openPaged(t, 0)
	readOK(t, x, data, 3*page-512, 512) // decoded to 3 MiB: three full pages
	s := x.states[0]
	first := s.pages[2]
	x.mu.Lock()
	s.mu.Lock()
	x.compact(s)
	s.mu.Unlock()
	x.mu.Unlock()
	if s.base != 2*page || s.n != page || len(s.pages) != 1 || &s.pages[0][0] != &first[0] || len(x.free) != 2 {
		t.Fatalf("after compact: base %d, %d bytes in %d pages, %d free; want the third page kept, two free", s.base, s.n, len(s.pages), len(x.free))
	}
	checkUsed(t, x)
	readOK(t, x, data, 3*page-1000, 2000) // past the frontier: one more page, from the free list
	readOK(t, x, data, 2*page, 100)       // the first byte kept
	if st := x.Stats(); st.Started != 1 || st.Redecoded != 0 || len(x.free) != 1 || x.made.Load() != 3 {
		t.Errorf("%+v, %d free, %d made: want the decoder gone on, a free page taken", st, len(x.free), x.made.Load())
	}
	readOK(t, x, data, 2*page-1, 2) // before the first page kept
	if st := x.Stats(); st.Started != 2 || st.Redecoded != 2*page+step {
		t.Errorf("%+v: want block 1 decoded again up to 2 MiB and a step", st)
	}
	if x.made.Load() != 3 || s.base != 0 {
		t.Errorf("%d pages made, base %d: want the decode again in the pages given back", x.made.Load(), s.base)
	}
	checkUsed(t, x)
}

// TestPagesReused: the pages of dropped blocks go to the free list and
// the next blocks decode into them, so a scan of many blocks within a
// budget of two allocates about two blocks' pages.
func TestPagesReused(t *testing.T) {
	const budget = 2*4*page + 2<<20 // two blocks' pages and a dictionary
	x, data := openPaged(t, budget)
	readOK(t, x, data, 0, pagedBlock)
	x.mu.Lock()
	s := x.states[0]
	s.mu.Lock()
	x.drop(s)
	s.mu.Unlock()
	if len(x.free) != 4 || s.pages != nil || s.mem != 0 {
		t.Errorf("after a drop: %d free pages, block keeps %d pages, %d bytes", len(x.free), len(s.pages), s.mem)
	}
	x.mu.Unlock()
	checkUsed(t, x)
	readOK(t, x, data, pagedBlock, page+1) // two pages of block 2
	if len(x.free) != 2 || x.made.Load() != 4 {
		t.Errorf("%d free, %d made: want block 2 in block 1's pages", len(x.free), x.made.Load())
	}
	for range 3 {
		readOK(t, x, data, 0, len(data))
	}
	st := x.Stats()
	t.Logf("%+v, %d pages made", st, x.made.Load())
	if st.Dropped == 0 || x.made.Load() > budget/page+1 {
		t.Errorf("%+v: %d pages made for a budget of %d pages", st, x.made.Load(), budget/page)
	}
	if lim := int64(budget + pagedBlock + page + 2<<20); st.Peak > lim {
		t.Errorf("peak %d, more than the budget and a block and a dictionary (%d)", st.Peak, lim)
	}
	checkUsed(t, x)
}

// TestPagesBudget: free pages count in the budget and go first: trimming
// lets them go before cutting or dropping a block, and a background job
// counts them as room for the bytes it will decode.
func TestPagesBudget(t *testing.T) {
	x, data := openPaged(t, 0)
	readOK(t, x, data, 0, pagedBlock)
	readOK(t, x, data, pagedBlock, 100) // block 2: one page, a decoder
	x.mu.Lock()
	s := x.states[0]
	s.mu.Lock()
	x.drop(s)
	s.mu.Unlock()
	free := x.freeBytes()
	x.opt.MemoryBudget = x.used - free + page // room for one free page
	if !x.trim(nil, false, 0) || len(x.free) != 1 {
		t.Errorf("trim: %d free pages, want 1", len(x.free))
	}
	if d, c := x.drops.Load(), x.compacts.Load(); d != 1 || c != 0 || len(x.states[1].pages) != 1 {
		t.Errorf("%d dropped, %d compacted: want block 2 kept", d, c)
	}
	x.states[1].ahead = true // spared by background work
	if !x.trim(nil, true, page) || len(x.free) != 1 {
		t.Errorf("the free page is room for a page: %d free", len(x.free))
	}
	if x.trim(nil, true, 3*page) { // the idle decoder's MiB and the free page are not room for 3
		t.Error("room for 3 MiB")
	}
	if len(x.free) != 1 || len(x.states[1].pages) != 1 {
		t.Errorf("%d free pages, block 2 holds %d pages: want both kept for the job", len(x.free), len(x.states[1].pages))
	}
	x.mu.Unlock()
	checkUsed(t, x)
	x.Close()
	if x.used != 0 || x.free != nil {
		t.Errorf("after Close: %d bytes used, %d free pages", x.used, len(x.free))
	}
}
