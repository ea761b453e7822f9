package xzra

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	uxz "github.com/ulikunitz/xz"
)

// TestChecks: blocks of every check type decode to the bytes compressed,
// and a corrupt check fails the read that reaches the block's end, not
// one that stops before it.
func TestChecks(t *testing.T) {
	const blk = 4 * step
	data := sample(6*blk+100, 10)
	for _, c := range []struct {
		id   byte
		name Check
	}{{uxz.None, CheckNone}, {uxz.CRC32, CheckCRC32}, {uxz.CRC64, CheckCRC64}, {uxz.SHA256, CheckSHA256}} {
		f := compress(t, data, blk, c.id)
		x := open(t, f, Options{Workers: -1})
		if x.Index().Streams[0].Check != c.name {
			t.Errorf("%v: index check %v", c.name, x.Index().Streams[0].Check)
		}
		got := make([]byte, len(data))
		if n, err := x.ReadAt(got, 0); err != nil || n != len(data) || !bytes.Equal(got, data) {
			t.Fatalf("%v: %d bytes, %v, equal %v", c.name, n, err, bytes.Equal(got, data))
		}
		if st := x.Stats(); st.Completed != 7 || st.Decoded != int64(len(data)) {
			t.Errorf("%v: stats %+v, want 7 blocks completed and %d bytes", c.name, st, len(data))
		}
		if c.name == CheckNone {
			continue
		}
		b := x.Index().Blocks[2]
		bad := append([]byte{}, f...)
		bad[b.Off+b.Total()-1] ^= 0x55 // the last byte of block 3's check
		y := open(t, bad, Options{Workers: -1})
		if _, err := y.ReadAt(got[:100], b.UOff); err != nil {
			t.Errorf("%v: a read that stops before the check: %v", c.name, err)
		}
		_, err := y.ReadAt(got[:blk], b.UOff)
		if !isFormat(err, "block 3") {
			t.Errorf("%v: corrupt check: %v", c.name, err)
		}
		if _, err2 := y.ReadAt(got[:10], b.UOff+blk-10); !isFormat(err2, "block 3") {
			t.Errorf("%v: the error is not kept: %v", c.name, err2)
		}
		if _, err := y.ReadAt(got[:blk], x.Index().Blocks[3].UOff); err != nil {
			t.Errorf("%v: the next block: %v", c.name, err)
		}
	}
}

// TestRandomReads: random reads, of any length and across blocks, return
// the bytes the streaming decoder gives, byte for byte, with and without
// background workers and with a budget that holds three blocks.
func TestRandomReads(t *testing.T) {
	data := sample(40*8192+333, 11)
	f := compress(t, data, 8192, uxz.CRC64)
	stream, err := uxz.NewReader(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadAll(stream)
	if err != nil || !bytes.Equal(want, data) {
		t.Fatalf("streaming: %v", err)
	}
	for _, opt := range []Options{{Workers: -1}, {Workers: 2}, {Workers: 2, MemoryBudget: 3*8192 + 1<<20, MaxBlockSize: 8192}} {
		x := open(t, f, opt)
		rng := rand.New(rand.NewPCG(1, 2))
		for range 400 {
			off := rng.Int64N(int64(len(want)) + 10)
			n := rng.IntN(3 * 8192)
			got := make([]byte, n)
			k, err := x.ReadAt(got, off)
			end := min(off+int64(n), int64(len(want)))
			wantN := int(max(end-off, 0))
			if k != wantN || !bytes.Equal(got[:k], want[min(off, end):end]) {
				t.Fatalf("%+v: ReadAt(%d bytes, %d) = %d, %v; want %d bytes equal", opt, n, off, k, err, wantN)
			}
			if (k < n) != (err == io.EOF) || (err != nil && err != io.EOF) {
				t.Fatalf("%+v: ReadAt(%d bytes, %d) = %d, %v", opt, n, off, k, err)
			}
		}
	}
}

// TestPartialDecode: a read of a block's first bytes decodes one step of
// it, not the whole block; a later read further on resumes the decoder
// instead of starting over.
func TestPartialDecode(t *testing.T) {
	data := sample(4*262144, 12)
	f := compress(t, data, 262144, uxz.CRC64)
	x := open(t, f, Options{Workers: -1})
	b := x.Index().Blocks[2]
	got := make([]byte, 512)
	if _, err := x.ReadAt(got, b.UOff+1000); err != nil || !bytes.Equal(got, data[b.UOff+1000:][:512]) {
		t.Fatal(err)
	}
	if st := x.Stats(); st.Decoded != step || st.Started != 1 || st.Completed != 0 {
		t.Errorf("after a 512-byte read: %+v, want %d bytes decoded of one block", st, step)
	}
	if _, err := x.ReadAt(got, b.UOff+200000); err != nil || !bytes.Equal(got, data[b.UOff+200000:][:512]) {
		t.Fatal(err)
	}
	if st := x.Stats(); st.Started != 1 || st.Decoded != 200000/step*step+step || st.Redecoded != 0 {
		t.Errorf("after a second read further on: %+v", st)
	}
}

// TestEviction: with a budget of about two blocks, reading many blocks
// drops the oldest; reading one again decodes it again, counted as a
// re-decode, and the bytes are still right.
func TestEviction(t *testing.T) {
	data := sample(8*65536, 13)
	f := compress(t, data, 65536, uxz.CRC64)
	const budget = 3*65536 + 1000 // a dictionary (as large as a block) and two blocks
	x := open(t, f, Options{Workers: -1, MemoryBudget: budget, MaxBlockSize: 65536})
	got := make([]byte, 65536)
	for _, i := range []int{0, 1, 2, 3, 4, 0} {
		if _, err := x.ReadAt(got, int64(i)*65536); err != nil || !bytes.Equal(got, data[i*65536:][:65536]) {
			t.Fatalf("block %d: %v", i, err)
		}
	}
	st := x.Stats()
	if st.Dropped < 3 || st.Redecoded != 65536 || st.Decoded != 6*65536 {
		t.Errorf("stats %+v: want at least 3 drops and block 1 decoded twice", st)
	}
	if lim := int64(budget + 2*65536); st.Peak > lim {
		t.Errorf("peak %d, more than the budget plus one block and a dictionary (%d)", st.Peak, lim)
	}
}

// TestBoundedMemory: many goroutines reading at random keep the cache
// within the budget plus one block and dictionary per reader.
func TestBoundedMemory(t *testing.T) {
	data := sample(64*16384, 14)
	f := compress(t, data, 16384, uxz.CRC64)
	const budget = 256 << 10
	x := open(t, f, Options{Workers: 2, MemoryBudget: budget, MaxBlockSize: 16384})
	var wg sync.WaitGroup
	const readers = 4
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 3))
			buf := make([]byte, 20000)
			for range 200 {
				off := rng.Int64N(int64(len(data) - len(buf)))
				if _, err := x.ReadAt(buf, off); err != nil || !bytes.Equal(buf, data[off:][:len(buf)]) {
					t.Errorf("ReadAt %d: %v", off, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	st := x.Stats()
	if lim := int64(budget + (readers+2)*2*16384); st.Peak > lim {
		t.Errorf("peak %d, more than %d", st.Peak, lim)
	}
	if st.Dropped == 0 {
		t.Errorf("no block dropped: the test does not exercise the bound (%+v)", st)
	}
}

// TestReadAhead: a front-to-back scan has the workers decode the next
// blocks; without workers nothing is decoded ahead. The bytes are the
// same either way.
func TestReadAhead(t *testing.T) {
	data := sample(16*65536, 15)
	f := compress(t, data, 65536, uxz.CRC64)
	for _, workers := range []int{-1, 2} {
		x := open(t, f, Options{Workers: workers})
		var out bytes.Buffer
		if _, err := io.Copy(&out, io.NewSectionReader(x, 0, x.Size())); err != nil || !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("workers %d: %v", workers, err)
		}
		st := x.Stats()
		if (st.Ahead > 0) != (workers > 0) {
			t.Errorf("workers %d: %d bytes decoded ahead", workers, st.Ahead)
		}
		if st.Completed != 16 || st.Redecoded != 0 {
			t.Errorf("workers %d: %+v", workers, st)
		}
	}
}

// TestNoReadAheadForHeaders: reads that hop from block to block (the
// first bytes of each, as a tar listing or a scan of bundle headers reads)
// decode nothing ahead, though they visit the blocks in order.
func TestNoReadAheadForHeaders(t *testing.T) {
	data := sample(8*65536, 21)
	f := compress(t, data, 65536, uxz.CRC64)
	x := open(t, f, Options{Workers: 2})
	got := make([]byte, 512)
	for i := range 8 {
		if _, err := x.ReadAt(got, int64(i)*65536+1000); err != nil || !bytes.Equal(got, data[i*65536+1000:][:512]) {
			t.Fatal(err)
		}
	}
	if st := x.Stats(); st.Ahead != 0 || st.Started != 8 {
		t.Errorf("%+v: want nothing decoded ahead", st)
	}
}

// TestUnused: blocks decoded ahead and never read are counted when the
// Reader closes.
func TestUnused(t *testing.T) {
	data := sample(8*65536, 22)
	f := compress(t, data, 65536, uxz.CRC64)
	x, err := Open(bytes.NewReader(f), int64(len(f)), Options{Workers: 2, ReadAhead: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, io.NewSectionReader(x, 0, 65536+10)); err != nil {
		t.Fatal(err)
	}
	for x.Stats().Completed < 4 { // blocks 1 and 2 read, 3 and 4 ahead
		runtime.Gosched()
	}
	x.Close()
	if st := x.Stats(); st.Unused != 2*65536 || st.Ahead < 2*65536 {
		t.Errorf("%+v: want blocks 3 and 4 (128 KiB) decoded ahead and unused", st)
	}
}

// TestPrefetch: prefetched ranges are decoded by the workers up to the
// end of the range; reads then find them decoded.
func TestPrefetch(t *testing.T) {
	data := sample(8*65536, 16)
	f := compress(t, data, 65536, uxz.CRC64)
	x := open(t, f, Options{Workers: 2})
	x.Prefetch(Range{Off: 65536 * 2, Len: 1000}, Range{Off: 65536*5 + 100, Len: 65536})
	for x.Stats().Started < 3 {
		runtime.Gosched()
	}
	got := make([]byte, 1000)
	if _, err := x.ReadAt(got, 65536*2); err != nil || !bytes.Equal(got, data[65536*2:][:1000]) {
		t.Fatal(err)
	}
	if _, err := x.ReadAt(got, 65536*6+100); err != nil || !bytes.Equal(got, data[65536*6+100:][:1000]) {
		t.Fatal(err)
	}
	if st := x.Stats(); st.Started != 3 || st.Redecoded != 0 {
		t.Errorf("%+v: want blocks 3, 6 and 7 started once", st)
	}
}

// TestCharge: every decoded byte is charged before it is decoded, and a
// charge error fails the read without poisoning the block.
func TestCharge(t *testing.T) {
	data := sample(4*65536, 17)
	f := compress(t, data, 65536, uxz.CRC64)
	var charged atomic.Int64
	var refuse atomic.Bool
	budget := errors.New("decompressed-bytes budget used up")
	x := open(t, f, Options{Workers: -1, Charge: func(n int64) error {
		if refuse.Load() {
			return budget
		}
		charged.Add(n)
		return nil
	}})
	got := make([]byte, 100000)
	if _, err := x.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	if st := x.Stats(); charged.Load() != st.Decoded {
		t.Errorf("charged %d, decoded %d", charged.Load(), st.Decoded)
	}
	refuse.Store(true)
	if _, err := x.ReadAt(got, 3*65536-1000); !errors.Is(err, budget) {
		t.Errorf("refused charge: %v", err)
	}
	refuse.Store(false)
	if _, err := x.ReadAt(got[:1000], 3*65536-1000); err != nil || !bytes.Equal(got[:1000], data[3*65536-1000:][:1000]) {
		t.Errorf("after the charge is allowed again: %v", err)
	}
}

// TestChargePrepaid: with Options.Prepaid only bytes decoded again after
// their block was dropped are charged.
func TestChargePrepaid(t *testing.T) {
	data := sample(4*65536, 19)
	f := compress(t, data, 65536, uxz.CRC64)
	var charged atomic.Int64
	x := open(t, f, Options{Workers: -1, Prepaid: true, MemoryBudget: 3 * 65536, MaxBlockSize: 65536, Charge: func(n int64) error {
		charged.Add(n)
		return nil
	}})
	got := make([]byte, len(data))
	for pass := 0; pass < 2; pass++ {
		for at := int64(0); at < int64(len(data)); at += 65536 {
			if _, err := x.ReadAt(got[at:at+65536], at); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !bytes.Equal(got, data) {
		t.Fatal("bytes differ")
	}
	st := x.Stats()
	if st.Redecoded == 0 || charged.Load() != st.Redecoded {
		t.Errorf("charged %d, decoded again %d (of %d): want the re-decodes charged, and some", charged.Load(), st.Redecoded, st.Decoded)
	}
}

// TestCorruptBlock: a block whose header or data is corrupt fails the
// reads of its bytes with a FormatError naming it; other blocks read.
func TestCorruptBlock(t *testing.T) {
	data := sample(4*65536, 18)
	good := compress(t, data, 65536, uxz.CRC64)
	ix, err := ReadIndex(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	b := ix.Blocks[1]
	for _, tc := range []struct {
		name string
		at   int64
		want string
	}{{"header CRC", b.Off + 1, "header CRC32"}, {"data", b.Off + 40, "block 2"}} {
		f := append([]byte{}, good...)
		f[tc.at] ^= 0xff
		x := open(t, f, Options{Workers: -1})
		got := make([]byte, 65536)
		if _, err := x.ReadAt(got, 65536); !isFormat(err, tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if _, err := x.ReadAt(got, 2*65536); err != nil || !bytes.Equal(got, data[2*65536:][:65536]) {
			t.Errorf("%s: block 3: %v", tc.name, err)
		}
	}
	// The index lies about block 2's size: one byte more than it holds.
	sizes := []uint64{65536, 65537, 65536, 65536}
	f := rewriteIndex(good, ix, sizes)
	x := open(t, f, Options{Workers: -1})
	if _, err := x.ReadAt(make([]byte, 65537), 65536); !isFormat(err, "block 2") {
		t.Errorf("index one byte too long: %v", err)
	}
}

// TestClose: reads after Close fail with ErrClosed, background work
// stops, and Close twice is harmless.
func TestClose(t *testing.T) {
	data := sample(8*65536, 19)
	f := compress(t, data, 65536, uxz.CRC64)
	x, err := Open(bytes.NewReader(f), int64(len(f)), Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	x.Prefetch(Range{0, x.Size()})
	x.Close()
	if _, err := x.ReadAt(make([]byte, 10), 0); !errors.Is(err, ErrClosed) {
		t.Errorf("read after Close: %v", err)
	}
	x.Close()
}

// TestFilters: streams xz wrote with the delta and x86 BCJ filters in
// front of LZMA2 read in place (testdata, made by xz 5.4.1 as
// testdata/README says); one with the ARM64 filter is refused naming it.
func TestFilters(t *testing.T) {
	data := sample(65536, 20)
	for _, name := range []string{"delta.xz", "x86.xz", "arm64.xz"} {
		f := readTestdata(t, name)
		x := open(t, f, Options{Workers: -1})
		got := make([]byte, len(data))
		n, err := x.ReadAt(got, 0)
		if name == "arm64.xz" {
			if err == nil || !strings.Contains(err.Error(), "ARM64") {
				t.Errorf("%s: %v, want a refusal naming ARM64", name, err)
			}
			continue
		}
		if err != nil || n != len(data) || !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes, %v, equal %v", name, n, err, bytes.Equal(got[:n], data[:n]))
		}
	}
}

// TestDictionaryLowered: a block gets no more dictionary than its size:
// blocks of 16 KiB written with an 8 MiB dictionary decode with 16 KiB
// ones.
func TestDictionaryLowered(t *testing.T) {
	data := sample(4*16384, 23)
	var out bytes.Buffer
	w, err := uxz.WriterConfig{BlockSize: 16384, DictCap: 8 << 20}.NewWriter(&out)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	x := open(t, out.Bytes(), Options{Workers: -1})
	got := make([]byte, len(data))
	if _, err := x.ReadAt(got, 0); err != nil || !bytes.Equal(got, data) {
		t.Fatal(err)
	}
	if st := x.Stats(); st.Peak > int64(len(data))+16384 {
		t.Errorf("peak %d bytes: the 8 MiB dictionary was not lowered (want the blocks and one 16 KiB dictionary)", st.Peak)
	}
	for _, n := range []int64{1, 4096, 4097, 16384, 3 << 20, 8 << 20, 1536 << 20} {
		if d := lzma2Dict(dictBits(n)); d < n || (n > 4096 && lzma2Dict(dictBits(n)-1) >= n) {
			t.Errorf("dictBits(%d) names %d bytes", n, d)
		}
	}
}

// TestCompact: over budget, blocks decoded part way are cut to the last
// MiB before their frontier and keep their decoders, so a tar-listing
// pattern (a header deep in each block, then the member after it) decodes
// nothing twice; a read before the kept MiB decodes the block again and
// still returns the right bytes.
func TestCompact(t *testing.T) {
	const blk = 4 << 20
	data := sample(6*blk, 24)
	f := compress(t, data, blk, uxz.CRC64)
	// Room for three 3 MiB prefixes with their dictionaries, not six.
	x := open(t, f, Options{Workers: -1, MemoryBudget: 3 * (3<<20 + blk), MaxBlockSize: blk})
	got := make([]byte, 512)
	read := func(off int64) {
		t.Helper()
		if _, err := x.ReadAt(got, off); err != nil || !bytes.Equal(got, data[off:][:512]) {
			t.Fatalf("ReadAt %d: %v", off, err)
		}
	}
	for i := range 6 {
		read(int64(i)*blk + 3<<20) // a header 3 MiB into each block
	}
	first := x.Stats()
	if first.Compacted == 0 || first.Dropped != 0 {
		t.Fatalf("%+v: want blocks compacted, none dropped", first)
	}
	for i := range 6 {
		read(int64(i)*blk + 3<<20 + 512)    // the member after each header
		read(int64(i)*blk + 3<<20 - 100000) // the end of the member before it
	}
	if st := x.Stats(); st.Redecoded != 0 || st.Started != 6 {
		t.Errorf("%+v: want nothing decoded twice", st)
	}
	read(1000) // before block 1's kept MiB
	if st := x.Stats(); st.Started != 7 || st.Redecoded == 0 {
		t.Errorf("%+v: want block 1 decoded again", st)
	}
}

// TestRelease: a released range's blocks are dropped before blocks read
// less recently.
func TestRelease(t *testing.T) {
	data := sample(4*65536, 25)
	f := compress(t, data, 65536, uxz.CRC64)
	x := open(t, f, Options{Workers: -1, MemoryBudget: 3*65536 + 1000, MaxBlockSize: 65536})
	got := make([]byte, 65536)
	read := func(i int) {
		t.Helper()
		if _, err := x.ReadAt(got, int64(i)*65536); err != nil || !bytes.Equal(got, data[i*65536:][:65536]) {
			t.Fatalf("block %d: %v", i+1, err)
		}
	}
	read(1)
	read(0)
	x.Release(Range{0, 65536})
	read(2) // room for two blocks and a dictionary: the released first block goes, not the second, read longer ago
	read(1)
	if st := x.Stats(); st.Redecoded != 0 || st.Dropped != 1 {
		t.Errorf("%+v: want block 1 dropped, block 2 kept", st)
	}
	read(0)
	if st := x.Stats(); st.Redecoded != 65536 {
		t.Errorf("%+v: want block 1 decoded again", st)
	}
}

// TestReadsSpareBlocksAhead: a read that needs room drops the blocks
// behind it before the blocks decoded ahead of it and not read yet
// (a front to back scan with read-ahead), so none is decoded twice.
func TestReadsSpareBlocksAhead(t *testing.T) {
	data := sample(4*65536, 26)
	f := compress(t, data, 65536, uxz.CRC64)
	x := open(t, f, Options{Workers: 1, ReadAhead: -1, MemoryBudget: 4*65536 + 4096, MaxBlockSize: 65536}) // three blocks and a dictionary
	x.Prefetch(Range{2 * 65536, 2 * 65536})
	for !settled(x, 2) || !settled(x, 3) {
		runtime.Gosched()
	}
	got := make([]byte, 65536)
	for i := range 4 {
		if _, err := x.ReadAt(got, int64(i)*65536); err != nil || !bytes.Equal(got, data[i*65536:][:65536]) {
			t.Fatalf("block %d: %v", i+1, err)
		}
	}
	if st := x.Stats(); st.Redecoded != 0 || st.Started != 4 || st.Unused != 0 || st.Dropped == 0 {
		t.Errorf("%+v: want each block decoded once, blocks 3 and 4 ahead and read", st)
	}
}

// TestHintAfterReadDoesNotPin: a hint for a block that holds its bytes
// already (a bundle's hint for the block the reader is in) does not mark
// it as decoded ahead, which would spare it, and hold its memory, until
// the end.
func TestHintAfterReadDoesNotPin(t *testing.T) {
	data := sample(2*65536, 27)
	f := compress(t, data, 65536, uxz.CRC64)
	x := open(t, f, Options{Workers: -1})
	got := make([]byte, 65536)
	if _, err := x.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	s := x.states[0]
	if x.fits(s, job{0, 65536}) || s.ahead {
		t.Error("a decoded block was taken for background work and marked ahead")
	}
	if !x.fits(x.state(1), job{1, 65536}) {
		t.Error("a block not decoded yet does not fit an empty budget")
	}
}

// settled reports whether block i is decoded to its end and no goroutine
// holds it busy any more (its decoder back in the pool): Stats.Completed
// counts a block before its worker lets go of it.
func settled(x *Reader, i int) bool {
	x.mu.Lock()
	s := x.states[i]
	x.mu.Unlock()
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done && !s.busy
}

// TestCorruptCheckDeterministic: with a block whose check is corrupt, a
// read reaching the block's end fails and a read of its start succeeds,
// whatever the background workers decoded first, with every decoder.
func TestCorruptCheckDeterministic(t *testing.T) {
	const blk = 4 * step
	data := sample(4*blk, 23)
	f := compress(t, data, blk, uxz.CRC64)
	ix, err := ReadIndex(bytes.NewReader(f), int64(len(f)))
	if err != nil {
		t.Fatal(err)
	}
	b := ix.Blocks[1]
	f[b.Off+b.Total()-1] ^= 0x55
	opts := []Options{{Workers: 2}}
	if HaveLiblzma() {
		opts = append(opts, Options{Workers: 2, Liblzma: true})
	}
	for _, opt := range opts {
		for round := range 40 {
			x := open(t, f, opt)
			if round%2 == 0 {
				x.Prefetch(Range{0, x.Size()})
			}
			whole := make([]byte, blk)
			head := make([]byte, 100)
			for _, prefixFirst := range []bool{round%4 < 2, round%4 >= 2} {
				if prefixFirst {
					if _, err := x.ReadAt(head, b.UOff); err != nil || !bytes.Equal(head, data[b.UOff:][:100]) {
						t.Fatalf("%+v round %d: the block's first 100 bytes: %v", opt, round, err)
					}
				} else if _, err := x.ReadAt(whole, b.UOff); !isFormat(err, "block 2") {
					t.Fatalf("%+v round %d: the whole block: %v, want its check error", opt, round, err)
				}
			}
			x.Close()
		}
	}
}
