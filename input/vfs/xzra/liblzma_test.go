package xzra

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	uxz "github.com/ulikunitz/xz"
)

// needLib skips the test where liblzma.so.5 does not load (a build
// without cgo, a system without liblzma); KPACK_LINT_REQUIRE_LIBLZMA=1
// fails it instead, as .ci/run sets where both are there.
func needLib(t *testing.T) {
	t.Helper()
	if !HaveLiblzma() {
		if os.Getenv("KPACK_LINT_REQUIRE_LIBLZMA") != "" {
			t.Fatal("liblzma.so.5 (XZ Utils 5.2 or newer) did not load")
		}
		t.Skip("liblzma.so.5 (XZ Utils 5.2 or newer) did not load")
	}
}

// noLzma fails the test when a liblzma decoder outlives the Readers.
func noLzma(t *testing.T) {
	t.Helper()
	if n := liveLzma.Load(); n != 0 {
		t.Errorf("%d liblzma decoders left", n)
	}
}

// TestLiblzmaRandomReads: with liblzma decoding the blocks, random reads
// return the bytes compressed, with and without background workers and
// with a budget of three blocks; decoders are re-used from block to
// block, and Close frees them all.
func TestLiblzmaRandomReads(t *testing.T) {
	needLib(t)
	data := sample(40*8192+333, 11)
	f := compress(t, data, 8192, uxz.CRC64)
	for _, opt := range []Options{{Workers: -1}, {Workers: 2}, {Workers: 2, MemoryBudget: 3*8192 + 3*lzmaBuffers, MaxBlockSize: 8192}} {
		opt.Liblzma = true
		x, err := Open(bytes.NewReader(f), int64(len(f)), opt)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for range 200 {
			off := rng.Int64N(int64(len(data)))
			got := make([]byte, rng.IntN(3*8192))
			k, err := x.ReadAt(got, off)
			end := min(off+int64(len(got)), int64(len(data)))
			if k != int(end-off) || !bytes.Equal(got[:k], data[off:end]) || err != nil && err != io.EOF {
				t.Fatalf("%+v: ReadAt(%d bytes, %d) = %d, %v; want %d bytes equal", opt, len(got), off, k, err, end-off)
			}
		}
		if st := x.Stats(); st.Started == 0 {
			t.Errorf("%+v: no block decoded", opt)
		}
		x.Close()
		noLzma(t)
	}
}

// TestLiblzmaReuse: read front to back on one goroutine, the 41 blocks
// are decoded by one liblzma decoder, returned to the pool after each.
func TestLiblzmaReuse(t *testing.T) {
	needLib(t)
	data := sample(40*8192+333, 14)
	f := compress(t, data, 8192, uxz.CRC64)
	x := open(t, f, Options{Workers: -1, Liblzma: true})
	got := make([]byte, len(data))
	before := liveLzma.Load()
	if n, err := x.ReadAt(got, 0); err != nil || !bytes.Equal(got[:n], data) {
		t.Fatalf("%d bytes, %v", n, err)
	}
	if n := liveLzma.Load() - before; n != 1 {
		t.Errorf("%d liblzma decoders for a front-to-back read, want 1", n)
	}
	if st := x.Stats(); st.Completed != 41 {
		t.Errorf("%d blocks completed, want 41", st.Completed)
	}
	x.Close()
	noLzma(t)
}

// TestLiblzmaChecks: liblzma verifies each block's check: every check
// type decodes, and a corrupt check fails the read that reaches the
// block's end with an error naming the block and liblzma's word.
func TestLiblzmaChecks(t *testing.T) {
	needLib(t)
	const blk = 4 * step
	data := sample(6*blk+100, 10)
	for _, c := range []byte{uxz.None, uxz.CRC32, uxz.CRC64, uxz.SHA256} {
		f := compress(t, data, blk, c)
		x := open(t, f, Options{Workers: -1, Liblzma: true})
		got := make([]byte, len(data))
		if n, err := x.ReadAt(got, 0); err != nil || n != len(data) || !bytes.Equal(got, data) {
			t.Fatalf("check %d: %d bytes, %v", c, n, err)
		}
		if st := x.Stats(); st.Completed != 7 {
			t.Errorf("check %d: %d blocks completed, want 7", c, st.Completed)
		}
		x.Close()
		if c == uxz.None {
			continue
		}
		b := x.Index().Blocks[2]
		bad := append([]byte{}, f...)
		bad[b.Off+b.Total()-1] ^= 0x55
		y := open(t, bad, Options{Workers: -1, Liblzma: true})
		if _, err := y.ReadAt(got[:100], b.UOff); err != nil {
			t.Errorf("check %d: a read that stops before the check: %v", c, err)
		}
		_, err := y.ReadAt(got[:blk], b.UOff)
		if !isFormat(err, "block 3") || !strings.Contains(err.Error(), "liblzma: compressed data is corrupt") {
			t.Errorf("check %d: corrupt check: %v, want block 3 and liblzma's word", c, err)
		}
		y.Close()
	}
	noLzma(t)
}

// TestLiblzmaCorrupt: corrupt compressed data and an index one byte
// longer than a block are errors naming the block; the next block reads.
func TestLiblzmaCorrupt(t *testing.T) {
	needLib(t)
	data := sample(4*65536, 18)
	good := compress(t, data, 65536, uxz.CRC64)
	ix, err := ReadIndex(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	f := append([]byte{}, good...)
	f[ix.Blocks[1].Off+40] ^= 0xff
	x := open(t, f, Options{Workers: -1, Liblzma: true})
	got := make([]byte, 65536)
	if _, err := x.ReadAt(got, 65536); !isFormat(err, "block 2") {
		t.Errorf("corrupt data: %v", err)
	}
	if _, err := x.ReadAt(got, 2*65536); err != nil || !bytes.Equal(got, data[2*65536:][:65536]) {
		t.Errorf("block 3: %v", err)
	}
	y := open(t, rewriteIndex(good, ix, []uint64{65536, 65537, 65536, 65536}), Options{Workers: -1, Liblzma: true})
	if _, err := y.ReadAt(make([]byte, 65537), 65536); !isFormat(err, "block 2") {
		t.Errorf("index one byte too long: %v", err)
	}
	x.Close()
	y.Close()
	noLzma(t)
}

// TestFilterLiblzma: the delta and x86 BCJ streams xz wrote decode
// through liblzma too.
func TestFilterLiblzma(t *testing.T) {
	needLib(t)
	data := sample(65536, 20)
	for _, name := range []string{"delta.xz", "x86.xz"} {
		x := open(t, readTestdata(t, name), Options{Workers: -1, Liblzma: true})
		got := make([]byte, len(data))
		if n, err := x.ReadAt(got, 0); err != nil || !bytes.Equal(got[:n], data) {
			t.Errorf("%s: %d bytes, %v", name, n, err)
		}
		x.Close()
	}
	noLzma(t)
}

// TestStreamReader: NewStreamReader reads a stream front to back, and
// two streams one after the other with stream padding between them (as
// xz -d does); corrupt data is liblzma's error; a block whose dictionary
// passes MaxDict is refused before anything is allocated for it.
func TestStreamReader(t *testing.T) {
	needLib(t)
	data := sample(300<<10, 21)
	one := compress(t, data, 1<<30, uxz.CRC64)
	two := append(append(append([]byte{}, one...), 0, 0, 0, 0), compress(t, data[:1000], 1<<30, uxz.CRC32)...)
	for name, c := range map[string]struct {
		in   []byte
		want []byte
	}{"one stream": {one, data}, "two streams": {two, append(append([]byte{}, data...), data[:1000]...)}} {
		r, err := NewStreamReader(bytes.NewReader(c.in), MaxDict+16<<20)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s: %d bytes, %v", name, len(got), err)
		}
		r.Close()
		if _, err := r.Read(make([]byte, 1)); err == nil {
			t.Errorf("%s: a read after Close passed", name)
		}
	}
	bad := append([]byte{}, one...)
	bad[len(bad)/2] ^= 0xff
	r, _ := NewStreamReader(bytes.NewReader(bad), MaxDict+16<<20)
	if _, err := io.ReadAll(r); err == nil || !strings.HasPrefix(err.Error(), "liblzma: ") {
		t.Errorf("corrupt stream: %v", err)
	}
	r.Close()
	var big bytes.Buffer
	w, err := uxz.WriterConfig{DictCap: 2 * MaxDict}.NewWriter(&big)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("small"))
	w.Close()
	r, _ = NewStreamReader(bytes.NewReader(big.Bytes()), MaxDict+16<<20)
	if _, err := io.ReadAll(r); err == nil || !strings.Contains(err.Error(), "needs more than the 64 MiB of memory allowed (--deep-memory)") {
		t.Errorf("a %d MiB dictionary: %v", 2*MaxDict>>20, err)
	}
	r.Close()
	r, _ = NewStreamReader(bytes.NewReader(big.Bytes()), 3*MaxDict)
	if got, err := io.ReadAll(r); err != nil || string(got) != "small" {
		t.Errorf("a %d MiB dictionary within a %d MiB limit: %q, %v", 2*MaxDict>>20, 3*MaxDict>>20, got, err)
	}
	r.Close()
	noLzma(t)
}

// withCheckID rewrites a one-stream file's check ID in its header and
// footer (CRCs fixed), leaving the blocks' check fields as they are.
func withCheckID(f []byte, id byte) []byte {
	g := append([]byte{}, f...)
	g[7] = id
	binary.LittleEndian.PutUint32(g[8:12], crc32.ChecksumIEEE(g[6:8]))
	foot := len(g) - footerLen
	g[foot+9] = id
	binary.LittleEndian.PutUint32(g[foot:foot+4], crc32.ChecksumIEEE(g[foot+4:foot+10]))
	return g
}

// TestLiblzmaReservedCheck: a stream whose check ID is reserved (2, of
// the 4-byte ones) is an error, not data decoded unverified: read in
// place and streamed alike, as the Go decoder does and xz -t.
func TestLiblzmaReservedCheck(t *testing.T) {
	needLib(t)
	data := sample(3*65536, 22)
	f := withCheckID(compress(t, data, 65536, uxz.CRC32), 2)
	x := open(t, f, Options{Workers: -1, Liblzma: true})
	if _, err := x.ReadAt(make([]byte, 100), 0); !isFormat(err, "block 1") || !strings.Contains(err.Error(), "unsupported type of integrity check") {
		t.Errorf("in place: %v", err)
	}
	x.Close()
	r, _ := NewStreamReader(bytes.NewReader(withCheckID(compress(t, data, 1<<30, uxz.CRC32), 2)), MaxDict+16<<20)
	if _, err := io.ReadAll(r); err == nil || !strings.Contains(err.Error(), "unsupported type of integrity check") {
		t.Errorf("streamed: %v", err)
	}
	r.Close()
	noLzma(t)
}
