package kpack_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
)

var (
	zframe    = kpacktest.ZstdFrame
	rleBlocks = kpacktest.RLEBlocks
	rawBlock  = kpacktest.RawBlock
)

// A frame without a content size that decodes to far more than
// original_size fails without the output buffer growing past
// original_size plus one block (DecodeAll's append used to reallocate it
// to 1.25x, then keep going).
func TestFrameDecoderNoFCSBombBounded(t *testing.T) {
	const want = 64 << 20
	frame := zframe(-1, 0x38, rleBlocks(1<<30, 'A', true)...)
	d := kpack.NewFrameDecoder(0)
	defer d.Close()
	var err error
	n := kpacktest.Allocated(func() { _, err = d.Decode(frame, want, nil) })
	if err == nil || !strings.Contains(err.Error(), "more than original_size") {
		t.Fatalf("err = %v", err)
	}
	if n > want+8<<20 {
		t.Errorf("allocated %d bytes decoding to original_size %d", n, want)
	}
	// Short of original_size.
	if _, err := d.Decode(zframe(-1, 0x38, rleBlocks(1000, 'A', true)...), 1001, nil); err == nil ||
		!strings.Contains(err.Error(), "decodes to 1000 bytes, original_size 1001") {
		t.Errorf("short: %v", err)
	}
	// Exact.
	out, err := d.Decode(zframe(-1, 0x38, rleBlocks(300<<10, 'B', true)...), 300<<10, nil)
	if err != nil || !bytes.Equal(out, bytes.Repeat([]byte("B"), 300<<10)) {
		t.Errorf("exact: %d bytes, %v", len(out), err)
	}
}

// A single-segment frame whose content size is 1 GiB = original_size =
// the default kernel limit decodes (its window is its content size, which
// decoding in place never allocates separately).
func TestFrameDecoderSingleSegment1GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 1 GiB")
	}
	frame := zframe(1<<30, 0, rleBlocks(1<<30, 'A', true)...)
	d := kpack.NewFrameDecoder(0)
	defer d.Close()
	var out []byte
	var err error
	n := kpacktest.Allocated(func() { out, err = d.Decode(frame, 1<<30, nil) })
	if err != nil || len(out) != 1<<30 || out[len(out)-1] != 'A' {
		t.Fatalf("%d bytes, %v", len(out), err)
	}
	if n > 1<<30+8<<20 {
		t.Errorf("allocated %d bytes", n)
	}
}

func TestFrameDecoderContentSizeLie(t *testing.T) {
	d := kpack.NewFrameDecoder(0)
	defer d.Close()
	for _, size := range []int64{100, 200 << 10} {
		_, err := d.Decode(zframe(size, 0, rleBlocks(1<<20, 'A', true)...), uint64(size), nil)
		if err == nil || !strings.Contains(err.Error(), "exceeds its declared content size") {
			t.Errorf("content size %d: %v", size, err)
		}
	}
	_, err := d.Decode(zframe(300<<10, 0, rleBlocks(200<<10, 'A', true)...), 300<<10, nil)
	if err == nil || !strings.Contains(err.Error(), "ends before its declared content size") {
		t.Errorf("short: %v", err)
	}
}

// Streaming refuses, before decoding, a frame whose window exceeds the
// limit, with a *WindowError (a limit, not a defect).
func TestFrameDecoderStreamWindowLimit(t *testing.T) {
	d := kpack.NewFrameDecoderWindow(0, 1<<20)
	defer d.Close()
	frame := zframe(-1, 13<<3, rleBlocks(1000, 'A', true)...) // 8 MiB window
	var we *kpack.WindowError
	if err := d.Stream(frame, 1000, &bytes.Buffer{}); !errors.As(err, &we) || we.Window != 8<<20 || we.Limit != 1<<20 {
		t.Errorf("err = %v", err)
	}
	// Decode needs no window: original_size bounds the output, so the
	// frame is decoded in place whatever window it declares.
	if out, err := d.Decode(frame, 1000, nil); err != nil || len(out) != 1000 {
		t.Errorf("Decode: %d bytes, %v", len(out), err)
	}
	// A single-segment frame's window is its content size.
	big := zframe(2<<20, 0, rleBlocks(2<<20, 'A', true)...)
	if err := d.Stream(big, 2<<20, &bytes.Buffer{}); !errors.As(err, &we) || we.Window != 2<<20 {
		t.Errorf("single segment: %v", err)
	}
	// Within the limit it streams, and keeps the ring until released.
	var buf bytes.Buffer
	ok := zframe(-1, 0x38, rleBlocks(3<<20, 'C', true)...) // 128 KiB window
	if err := d.Stream(ok, 3<<20, &buf); err != nil || buf.Len() != 3<<20 {
		t.Errorf("stream: %d bytes, %v", buf.Len(), err)
	}
	if d.StreamHeld() < 128<<10 {
		t.Errorf("StreamHeld = %d", d.StreamHeld())
	}
	d.ReleaseStream()
	if d.StreamHeld() != 0 {
		t.Errorf("StreamHeld after release = %d", d.StreamHeld())
	}
}

// Several frames in one slot decode like ZSTD_decompress: the total must be
// original_size (a first frame with a content size must still match it).
func TestFrameDecoderConcatenatedFrames(t *testing.T) {
	d := kpack.NewFrameDecoder(0)
	defer d.Close()
	one := zframe(64, 0, rawBlock(bytes.Repeat([]byte("x"), 64), true))
	noFCS := zframe(-1, 0x38, rawBlock(bytes.Repeat([]byte("x"), 64), true))
	two := append(append([]byte(nil), noFCS...), one...)
	if out, err := d.Decode(two, 128, nil); err != nil || len(out) != 128 {
		t.Errorf("128: %d, %v", len(out), err)
	}
	if _, err := d.Decode(two, 64, nil); err == nil {
		t.Error("64: decoded")
	}
	// A bomb after a valid frame stays bounded.
	bomb := append(append([]byte(nil), one...), zframe(-1, 0x38, rleBlocks(1<<30, 'A', true)...)...)
	var err error
	n := kpacktest.Allocated(func() { _, err = d.Decode(bomb, 64, nil) })
	if err == nil || n > 8<<20 {
		t.Errorf("bomb: %v, allocated %d", err, n)
	}
}
