package xzra

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	uxz "github.com/ulikunitz/xz"
)

// TestReadIndex: a stream of 10 blocks of 64 KiB and a short last one is
// indexed with the offsets and sizes the blocks have.
func TestReadIndex(t *testing.T) {
	data := sample(10*65536+1000, 1)
	f := compress(t, data, 65536, uxz.CRC64)
	ix, err := ReadIndex(bytes.NewReader(f), int64(len(f)))
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Streams) != 1 || len(ix.Blocks) != 11 || ix.Size != int64(len(data)) {
		t.Fatalf("streams %d blocks %d size %d, want 1, 11, %d", len(ix.Streams), len(ix.Blocks), ix.Size, len(data))
	}
	s := ix.Streams[0]
	if s.Off != 0 || s.Size != int64(len(f)) || s.Check != CheckCRC64 || s.Blocks != 11 || s.Padding != 0 {
		t.Errorf("stream %+v", s)
	}
	off := int64(headerLen)
	for i, b := range ix.Blocks {
		want := int64(65536)
		if i == 10 {
			want = 1000
		}
		if b.Off != off || b.USize != want || b.UOff != int64(i)*65536 || b.Stream != 0 {
			t.Errorf("block %d: %+v, want offset %d, %d bytes at %d", i, b, off, want, i*65536)
		}
		if f[b.Off] == 0 {
			t.Errorf("block %d: no block header at %d", i, b.Off)
		}
		off += b.Total()
	}
}

// TestReadIndexStreams: two streams with stream padding between and after
// them are indexed in file order, the second one's blocks after the
// first's in uncompressed offsets; padding that is not a multiple of four
// is refused.
func TestReadIndexStreams(t *testing.T) {
	a, b := sample(3*4096, 2), sample(2*4096+7, 3)
	fa, fb := compress(t, a, 4096, uxz.CRC32), compress(t, b, 4096, uxz.SHA256)
	f := append(append(append(append([]byte{}, fa...), make([]byte, 8)...), fb...), make([]byte, 4)...)
	ix, err := ReadIndex(bytes.NewReader(f), int64(len(f)))
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Streams) != 2 || len(ix.Blocks) != 6 || ix.Size != int64(len(a)+len(b)) {
		t.Fatalf("streams %d blocks %d size %d", len(ix.Streams), len(ix.Blocks), ix.Size)
	}
	s0, s1 := ix.Streams[0], ix.Streams[1]
	if s0.Off != 0 || s0.Padding != 8 || s0.Check != CheckCRC32 || s0.FirstBlock != 0 || s0.Blocks != 3 {
		t.Errorf("stream 0 %+v", s0)
	}
	if s1.Off != int64(len(fa)+8) || s1.Padding != 4 || s1.Check != CheckSHA256 || s1.FirstBlock != 3 || s1.Blocks != 3 {
		t.Errorf("stream 1 %+v", s1)
	}
	if bl := ix.Blocks[3]; bl.UOff != int64(len(a)) || bl.Stream != 1 || bl.Off != s1.Off+headerLen {
		t.Errorf("block 4 %+v", bl)
	}
	x := open(t, f, Options{})
	got := make([]byte, x.Size())
	if _, err := x.ReadAt(got, 0); err != nil || !bytes.Equal(got, append(append([]byte{}, a...), b...)) {
		t.Errorf("read across streams: %v, equal %v", err, bytes.Equal(got, append(a, b...)))
	}

	bad := append(append([]byte{}, fa...), 0, 0)
	if _, err := ReadIndex(bytes.NewReader(bad), int64(len(bad))); !isFormat(err, "not a multiple of four") {
		t.Errorf("2 bytes of padding: %v", err)
	}
	lead := append(make([]byte, 4), fa...)
	if _, err := ReadIndex(bytes.NewReader(lead), int64(len(lead))); !isFormat(err, "") {
		t.Errorf("padding before the first stream: %v", err)
	}
}

// TestReadIndexEmpty: a stream of no blocks (what xz writes for an
// empty input) has an index of no records and reads as zero bytes; so
// does one of a single empty block (what ulikunitz/xz writes). An empty
// file is no stream.
func TestReadIndexEmpty(t *testing.T) {
	for _, f := range [][]byte{emptyStream(), compress(t, nil, 4096, uxz.CRC64)} {
		ix, err := ReadIndex(bytes.NewReader(f), int64(len(f)))
		if err != nil {
			t.Fatal(err)
		}
		if len(ix.Blocks) > 1 || ix.Size != 0 || len(ix.Streams) != 1 {
			t.Fatalf("%+v", ix)
		}
		x := open(t, f, Options{})
		if n, err := x.ReadAt(make([]byte, 1), 0); n != 0 || err != io.EOF {
			t.Errorf("read of an empty stream: %d, %v", n, err)
		}
	}
	if _, err := ReadIndex(bytes.NewReader(nil), 0); !isFormat(err, "empty file") {
		t.Errorf("empty file: %v", err)
	}
}

// emptyStream is a stream of no blocks with a CRC64 check, as xz writes
// it for an empty input.
func emptyStream() []byte {
	flags := []byte{0, byte(CheckCRC64)}
	f := append(append([]byte{}, headerMagic...), flags...)
	f = binary.LittleEndian.AppendUint32(f, crc32.ChecksumIEEE(flags))
	index := []byte{0, 0, 0, 0}
	index = binary.LittleEndian.AppendUint32(index, crc32.ChecksumIEEE(index))
	f = append(f, index...)
	foot := binary.LittleEndian.AppendUint32(nil, uint32(len(index)/4-1))
	foot = append(foot, flags...)
	f = binary.LittleEndian.AppendUint32(f, crc32.ChecksumIEEE(foot))
	return append(append(f, foot...), footerMagic...)
}

// TestReadIndexCorrupt: every CRC32 and structural field the index
// depends on is checked, and the error is a *FormatError naming it.
func TestReadIndexCorrupt(t *testing.T) {
	good := compress(t, sample(5*4096, 4), 4096, uxz.CRC64)
	foot, index := footerAt(good)
	cases := []struct {
		name string
		edit func(f []byte) []byte
		want string
	}{
		{"footer magic", func(f []byte) []byte { f[len(f)-1] = 'X'; return f }, "footer magic"},
		{"footer CRC", func(f []byte) []byte { f[foot] ^= 1; return f }, "stream footer CRC32"},
		{"truncated footer", func(f []byte) []byte { return f[:len(f)-3] }, ""},
		{"cut in half", func(f []byte) []byte { return f[:len(f)/2] }, ""},
		{"index CRC", func(f []byte) []byte { f[index+2] ^= 0x01; return f }, "index CRC32"},
		{"header CRC", func(f []byte) []byte { f[8] ^= 1; return f }, "stream header CRC32"},
		{"header magic", func(f []byte) []byte { f[1] = 'Q'; return f }, "stream header magic"},
		{"flags differ", func(f []byte) []byte {
			f[7] = 0x01 // CRC32 in the header, CRC64 in the footer
			binary.LittleEndian.PutUint32(f[8:], crc32.ChecksumIEEE(f[6:8]))
			return f
		}, "differ from the footer"},
		{"reserved flags", func(f []byte) []byte {
			f[foot+9] = 0x14
			binary.LittleEndian.PutUint32(f[foot:], crc32.ChecksumIEEE(f[foot+4:foot+10]))
			return f
		}, "reserved bits"},
		{"backward size too large", func(f []byte) []byte {
			binary.LittleEndian.PutUint32(f[foot+4:], 1<<30)
			binary.LittleEndian.PutUint32(f[foot:], crc32.ChecksumIEEE(f[foot+4:foot+10]))
			return f
		}, "before the start"},
		{"unpadded size grows", func(f []byte) []byte {
			f[index+2] += 4 // the first record's unpadded size (one byte is enough at 4 KiB blocks? it is two)
			fixIndexCRC(f, index, foot-index)
			return f
		}, ""},
		{"no index indicator", func(f []byte) []byte {
			f[index] = 1
			fixIndexCRC(f, index, foot-index)
			return f
		}, "index indicator"},
	}
	for _, tc := range cases {
		f := tc.edit(append([]byte{}, good...))
		_, err := ReadIndex(bytes.NewReader(f), int64(len(f)))
		if !isFormat(err, tc.want) {
			t.Errorf("%s: %v, want a FormatError saying %q", tc.name, err, tc.want)
		}
	}
}

// TestReadIndexHugeSizes: an index may declare any size; nothing is
// allocated from it. A block of 2^62 bytes is refused by Open with
// ErrFewBlocks (larger than MaxBlockSize), and sizes that add up past
// 2^63 are a FormatError.
func TestReadIndexHugeSizes(t *testing.T) {
	huge := func(sizes ...uint64) []byte {
		f := compress(t, sample(len(sizes)*4096, 5), 4096, uxz.CRC64)
		ix, err := ReadIndex(bytes.NewReader(f), int64(len(f)))
		if err != nil {
			t.Fatal(err)
		}
		return rewriteIndex(f, ix, sizes)
	}
	f := huge(4096, 1<<62)
	x, err := Open(bytes.NewReader(f), int64(len(f)), Options{})
	if !errors.Is(err, ErrFewBlocks) || x != nil || !strings.Contains(err.Error(), "block 2 holds") {
		t.Errorf("a 2^62-byte block: %v", err)
	}
	f = huge(1<<62, 1<<62, 1<<62)
	if _, err := ReadIndex(bytes.NewReader(f), int64(len(f))); !isFormat(err, "past 2^63") {
		t.Errorf("sizes past 2^63: %v", err)
	}
}

// rewriteIndex replaces the index of the one-stream file f with one that
// keeps the unpadded sizes and declares the uncompressed sizes given.
func rewriteIndex(f []byte, ix *Index, sizes []uint64) []byte {
	_, index := footerAt(f)
	out := append([]byte{}, f[:index]...)
	start := len(out)
	out = append(out, 0)
	out = putVarint(out, uint64(len(sizes)))
	for i, s := range sizes {
		out = putVarint(out, uint64(ix.Blocks[i].Unpadded))
		out = putVarint(out, s)
	}
	for (len(out)-start)%4 != 0 {
		out = append(out, 0)
	}
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
	var foot [footerLen]byte
	binary.LittleEndian.PutUint32(foot[4:], uint32((len(out)-start)/4-1))
	copy(foot[8:10], f[6:8])
	copy(foot[10:], footerMagic)
	binary.LittleEndian.PutUint32(foot[0:], crc32.ChecksumIEEE(foot[4:10]))
	return append(out, foot[:]...)
}

// TestOpenOneBlock: a stream of one block is refused with ErrFewBlocks;
// when it is large the message names the fix.
func TestOpenOneBlock(t *testing.T) {
	f := compress(t, sample(100000, 6), 1<<30, uxz.CRC64)
	_, err := Open(bytes.NewReader(f), int64(len(f)), Options{})
	if !errors.Is(err, ErrFewBlocks) || !strings.Contains(err.Error(), "one block of 100000 bytes (small enough to stream)") {
		t.Errorf("one small block: %v", err)
	}
	if err := oneBlock(1 << 30); !errors.Is(err, ErrFewBlocks) || !strings.Contains(err.Error(), "one block of 1024 MiB") || !strings.Contains(err.Error(), "xz -T0") {
		t.Errorf("one large block: %v", err)
	}
}

// TestVarint: the multibyte integers of section 1.2.
func TestVarint(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 300, 1 << 35, maxInt63} {
		p := putVarint(nil, v)
		got, n, err := varint(p)
		if err != nil || got != v || n != len(p) {
			t.Errorf("%d: %d %d %v", v, got, n, err)
		}
	}
	if v, n, err := varint([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}); v != maxInt63 || n != 9 || err != nil {
		t.Errorf("2^63-1 in nine bytes: %d %d %v", v, n, err)
	}
	for _, p := range [][]byte{{0x80, 0x00}, {0x80}, bytes.Repeat([]byte{0xff}, 10)} {
		if _, _, err := varint(p); err == nil {
			t.Errorf("% x: no error", p)
		}
	}
}

func isFormat(err error, want string) bool {
	var fe *FormatError
	return errors.As(err, &fe) && strings.Contains(fe.Msg, want)
}
