package xzra

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	uxz "github.com/ulikunitz/xz"
)

// needXZ returns XZ Utils' xz and hands it every block during the test,
// or skips the test where there is none (KPACK_LINT_REQUIRE_XZ=1 fails
// it instead, as .ci/run sets).
func needXZ(t *testing.T) string {
	t.Helper()
	xz := FindXZ()
	if xz == "" {
		if os.Getenv("KPACK_LINT_REQUIRE_XZ") != "" {
			t.Fatal("no xz of XZ Utils 5.2 or newer on PATH")
		}
		t.Skip("no xz of XZ Utils 5.2 or newer on PATH")
	}
	old := minExternal
	minExternal = 0
	t.Cleanup(func() { minExternal = old })
	return xz
}

// noProcs fails the test when an xz process outlives the Readers.
func noProcs(t *testing.T) {
	t.Helper()
	if n := liveProcs.Load(); n != 0 {
		t.Errorf("%d xz processes left", n)
	}
}

// TestExternalRandomReads: with xz decoding the blocks, random reads
// return the bytes compressed, with and without background workers and
// with a budget of three blocks, and Close leaves no process.
func TestExternalRandomReads(t *testing.T) {
	xz := needXZ(t)
	data := sample(40*8192+333, 11)
	f := compress(t, data, 8192, uxz.CRC64)
	for _, opt := range []Options{{Workers: -1}, {Workers: 2}, {Workers: 2, MemoryBudget: 3*8192 + 3*procBuffers, MaxBlockSize: 8192}} {
		opt.XZ = xz
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
		noProcs(t)
	}
}

// TestExternalChecks: xz verifies each block's check: every check type
// decodes, and a corrupt check fails the read that reaches the block's
// end with an error naming the block and what xz said.
func TestExternalChecks(t *testing.T) {
	xz := needXZ(t)
	const blk = 4 * step
	data := sample(6*blk+100, 10)
	for _, c := range []byte{uxz.None, uxz.CRC32, uxz.CRC64, uxz.SHA256} {
		f := compress(t, data, blk, c)
		x := open(t, f, Options{Workers: -1, XZ: xz})
		got := make([]byte, len(data))
		if n, err := x.ReadAt(got, 0); err != nil || n != len(data) || !bytes.Equal(got, data) {
			t.Fatalf("check %d: %d bytes, %v", c, n, err)
		}
		if st := x.Stats(); st.Completed != 7 {
			t.Errorf("check %d: %d blocks completed, want 7", c, st.Completed)
		}
		if c == uxz.None {
			continue
		}
		b := x.Index().Blocks[2]
		bad := append([]byte{}, f...)
		bad[b.Off+b.Total()-1] ^= 0x55
		y := open(t, bad, Options{Workers: -1, XZ: xz})
		if _, err := y.ReadAt(got[:100], b.UOff); err != nil {
			t.Errorf("check %d: a read that stops before the check: %v", c, err)
		}
		_, err := y.ReadAt(got[:blk], b.UOff)
		if !isFormat(err, "block 3") || !strings.Contains(err.Error(), "xz: (stdin)") {
			t.Errorf("check %d: corrupt check: %v, want block 3 and xz's message", c, err)
		}
		y.Close()
	}
	noProcs(t)
}

// TestExternalCorrupt: corrupt compressed data and an index one byte
// longer than a block are errors naming the block; the next block reads.
func TestExternalCorrupt(t *testing.T) {
	xz := needXZ(t)
	data := sample(4*65536, 18)
	good := compress(t, data, 65536, uxz.CRC64)
	ix, err := ReadIndex(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	f := append([]byte{}, good...)
	f[ix.Blocks[1].Off+40] ^= 0xff
	x := open(t, f, Options{Workers: -1, XZ: xz})
	got := make([]byte, 65536)
	if _, err := x.ReadAt(got, 65536); !isFormat(err, "block 2") {
		t.Errorf("corrupt data: %v", err)
	}
	if _, err := x.ReadAt(got, 2*65536); err != nil || !bytes.Equal(got, data[2*65536:][:65536]) {
		t.Errorf("block 3: %v", err)
	}
	y := open(t, rewriteIndex(good, ix, []uint64{65536, 65537, 65536, 65536}), Options{Workers: -1, XZ: xz})
	if _, err := y.ReadAt(make([]byte, 65537), 65536); !isFormat(err, "block 2") {
		t.Errorf("index one byte too long: %v", err)
	}
	x.Close()
	y.Close()
	noProcs(t)
}

// TestExternalCloseKills: blocks decoded partway hold a paused xz each;
// Close kills and waits for them all.
func TestExternalCloseKills(t *testing.T) {
	xz := needXZ(t)
	data := sample(8*262144, 12)
	f := compress(t, data, 262144, uxz.CRC64)
	x := open(t, f, Options{Workers: 2, XZ: xz})
	got := make([]byte, 100)
	for i := range 8 {
		if _, err := x.ReadAt(got, int64(i)*262144+10); err != nil || !bytes.Equal(got, data[i*262144+10:][:100]) {
			t.Fatal(err)
		}
	}
	if n := liveProcs.Load(); n != 8 {
		t.Errorf("%d xz processes for 8 blocks read partway, want 8", n)
	}
	x.Prefetch(Range{0, x.Size()})
	x.Close()
	noProcs(t)
}

// TestExternalCharge: an xz process is charged for the dictionary it has
// filled, not the whole of it: a 100-byte read of a 1 MiB block holds
// the process's buffers, the 64 KiB decoded (a step) and the page they
// are in.
func TestExternalCharge(t *testing.T) {
	xz := needXZ(t)
	data := sample(4<<20, 13)
	f := compress(t, data, 1<<20, uxz.CRC64)
	x := open(t, f, Options{Workers: -1, XZ: xz})
	if _, err := x.ReadAt(make([]byte, 100), 0); err != nil {
		t.Fatal(err)
	}
	s := x.states[0]
	if want := procBuffers + step + page; s.mem != int64(want) {
		t.Errorf("block 1 holds %d bytes after a 100-byte read, want %d", s.mem, want)
	}
}

// TestFilterExternal: the delta and x86 BCJ streams xz wrote decode
// through xz too.
func TestFilterExternal(t *testing.T) {
	xz := needXZ(t)
	data := sample(65536, 20)
	for _, name := range []string{"delta.xz", "x86.xz"} {
		x := open(t, readTestdata(t, name), Options{Workers: -1, XZ: xz})
		got := make([]byte, len(data))
		if n, err := x.ReadAt(got, 0); err != nil || !bytes.Equal(got[:n], data) {
			t.Errorf("%s: %d bytes, %v", name, n, err)
		}
	}
}

// TestCheckXZ: XZ Utils' xz passes; a program that is not xz, and none,
// are refused.
func TestCheckXZ(t *testing.T) {
	xz := needXZ(t)
	if !filepath.IsAbs(xz) {
		t.Errorf("FindXZ = %q, not absolute", xz)
	}
	if err := CheckXZ(xz); err != nil {
		t.Errorf("CheckXZ(%s): %v", xz, err)
	}
	fake := filepath.Join(t.TempDir(), "xz")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho XZ_VERSION=40000002\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckXZ(fake); err == nil || !strings.Contains(err.Error(), "5.2 or newer") {
		t.Errorf("xz 4: %v", err)
	}
	if err := CheckXZ(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing program passed")
	}
}

// TestExternalStreamReader: xz reads a file of two streams with padding
// front to back; corrupt data is xz's own error; Close before the end
// kills the process.
func TestExternalStreamReader(t *testing.T) {
	xz := needXZ(t)
	data := sample(300<<10, 24)
	one := compress(t, data, 1<<30, uxz.CRC64)
	two := append(append(append([]byte{}, one...), 0, 0, 0, 0), one...)
	r, err := NewExternalStreamReader(xz, bytes.NewReader(two), 80<<20)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, append(append([]byte{}, data...), data...)) {
		t.Errorf("two streams: %d bytes, %v", len(got), err)
	}
	r.Close()
	bad := append([]byte{}, one...)
	bad[len(bad)/2] ^= 0xff
	r, _ = NewExternalStreamReader(xz, bytes.NewReader(bad), 80<<20)
	if _, err := io.ReadAll(r); err == nil || !strings.Contains(err.Error(), "xz: (stdin): ") {
		t.Errorf("corrupt stream: %v", err)
	}
	r.Close()
	r, _ = NewExternalStreamReader(xz, bytes.NewReader(one), 80<<20)
	if _, err := r.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	r.Close()
	noProcs(t)
}
