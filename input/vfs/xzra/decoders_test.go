package xzra

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	uxz "github.com/ulikunitz/xz"
)

// libDecoder is one of the decoders of liblzma's code that stand in for
// the Go decoder: an xz process per block (external.go) or liblzma in the
// process (liblzma_cgo.go).
type libDecoder struct {
	opt     Options // XZ or Liblzma set
	buffers int64   // what a decoder holds besides its dictionary
	corrupt string  // the words of its error for corrupt data
	left    func(t *testing.T)
}

// eachLibDecoder runs test as a subtest with each libDecoder, skipped
// where it is not there (needXZ, needLib).
func eachLibDecoder(t *testing.T, test func(t *testing.T, d libDecoder)) {
	t.Run("xz", func(t *testing.T) {
		xz := needXZ(t)
		test(t, libDecoder{opt: Options{XZ: xz}, buffers: procBuffers, corrupt: "xz: (stdin)", left: noProcs})
	})
	t.Run("liblzma", func(t *testing.T) {
		needLib(t)
		test(t, libDecoder{opt: Options{Liblzma: true}, buffers: lzmaBuffers, corrupt: "liblzma: compressed data is corrupt", left: noLzma})
	})
}

// with returns d's options with opt's other fields.
func (d libDecoder) with(opt Options) Options {
	opt.XZ, opt.Liblzma = d.opt.XZ, d.opt.Liblzma
	return opt
}

// TestLibRandomReads: with xz or liblzma decoding the blocks, random reads
// return the bytes compressed, with and without background workers and
// with a budget of three blocks, and Close leaves no process or decoder.
func TestLibRandomReads(t *testing.T) {
	data := sample(40*8192+333, 11)
	f := compress(t, data, 8192, uxz.CRC64)
	eachLibDecoder(t, func(t *testing.T, d libDecoder) {
		for _, opt := range []Options{{Workers: -1}, {Workers: 2}, {Workers: 2, MemoryBudget: 3*8192 + 3*d.buffers, MaxBlockSize: 8192}} {
			opt = d.with(opt)
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
			d.left(t)
		}
	})
}

// TestLibChecks: xz and liblzma verify each block's check: every check
// type decodes, and a corrupt check fails the read that reaches the
// block's end with an error naming the block and the decoder's words.
func TestLibChecks(t *testing.T) {
	const blk = 4 * step
	data := sample(6*blk+100, 10)
	eachLibDecoder(t, func(t *testing.T, d libDecoder) {
		for _, c := range []byte{uxz.None, uxz.CRC32, uxz.CRC64, uxz.SHA256} {
			f := compress(t, data, blk, c)
			x := open(t, f, d.with(Options{Workers: -1}))
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
			y := open(t, bad, d.with(Options{Workers: -1}))
			if _, err := y.ReadAt(got[:100], b.UOff); err != nil {
				t.Errorf("check %d: a read that stops before the check: %v", c, err)
			}
			_, err := y.ReadAt(got[:blk], b.UOff)
			if !isFormat(err, "block 3") || !strings.Contains(err.Error(), d.corrupt) {
				t.Errorf("check %d: corrupt check: %v, want block 3 and %q", c, err, d.corrupt)
			}
			y.Close()
		}
		d.left(t)
	})
}

// TestLibCorrupt: corrupt compressed data and an index one byte longer
// than a block are errors naming the block; the next block reads.
func TestLibCorrupt(t *testing.T) {
	data := sample(4*65536, 18)
	good := compress(t, data, 65536, uxz.CRC64)
	ix, err := ReadIndex(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	f := append([]byte{}, good...)
	f[ix.Blocks[1].Off+40] ^= 0xff
	eachLibDecoder(t, func(t *testing.T, d libDecoder) {
		x := open(t, f, d.with(Options{Workers: -1}))
		got := make([]byte, 65536)
		if _, err := x.ReadAt(got, 65536); !isFormat(err, "block 2") {
			t.Errorf("corrupt data: %v", err)
		}
		if _, err := x.ReadAt(got, 2*65536); err != nil || !bytes.Equal(got, data[2*65536:][:65536]) {
			t.Errorf("block 3: %v", err)
		}
		y := open(t, rewriteIndex(good, ix, []uint64{65536, 65537, 65536, 65536}), d.with(Options{Workers: -1}))
		if _, err := y.ReadAt(make([]byte, 65537), 65536); !isFormat(err, "block 2") {
			t.Errorf("index one byte too long: %v", err)
		}
		x.Close()
		y.Close()
		d.left(t)
	})
}

// TestLibFilters: the delta and x86 BCJ streams xz wrote decode through
// xz and liblzma too.
func TestLibFilters(t *testing.T) {
	data := sample(65536, 20)
	eachLibDecoder(t, func(t *testing.T, d libDecoder) {
		for _, name := range []string{"delta.xz", "x86.xz"} {
			x := open(t, readTestdata(t, name), d.with(Options{Workers: -1}))
			got := make([]byte, len(data))
			if n, err := x.ReadAt(got, 0); err != nil || !bytes.Equal(got[:n], data) {
				t.Errorf("%s: %d bytes, %v", name, n, err)
			}
			x.Close()
		}
		d.left(t)
	})
}
