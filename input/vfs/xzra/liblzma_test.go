package xzra

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
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
		r, err := NewStreamReader(bytes.NewReader(c.in), MaxDict)
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
	r, _ := NewStreamReader(bytes.NewReader(bad), MaxDict)
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
	r, _ = NewStreamReader(bytes.NewReader(big.Bytes()), MaxDict)
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
	r, _ := NewStreamReader(bytes.NewReader(withCheckID(compress(t, data, 1<<30, uxz.CRC32), 2)), MaxDict)
	if _, err := io.ReadAll(r); err == nil || !strings.Contains(err.Error(), "unsupported type of integrity check") {
		t.Errorf("streamed: %v", err)
	}
	r.Close()
	noLzma(t)
}
