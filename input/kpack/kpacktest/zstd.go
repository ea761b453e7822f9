package kpacktest

import (
	"encoding/binary"
	"runtime"
)

// Hand-built zstd frames (RFC 8878) for tests that need frames an encoder
// will not write: lying or missing content sizes, decompression bombs.

// ZstdFrame builds a frame from blocks: with fcs >= 0 a single-segment
// frame with an 8-byte content size, else a frame with no content size and
// window descriptor wd (0x38 is a 256 KiB window).
func ZstdFrame(fcs int64, wd byte, blocks ...[]byte) []byte {
	f := binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
	if fcs >= 0 {
		f = append(f, 0xe0)
		f = binary.LittleEndian.AppendUint64(f, uint64(fcs))
	} else {
		f = append(f, 0x00, wd)
	}
	for _, b := range blocks {
		f = append(f, b...)
	}
	return f
}

// BlockHeader is the 3-byte header of a block of n bytes and type typ
// (0 raw, 1 RLE, 2 compressed); last marks the frame's final block.
func BlockHeader(n int, typ uint32, last bool) []byte {
	h := uint32(n)<<3 | typ<<1
	if last {
		h |= 1
	}
	return []byte{byte(h), byte(h >> 8), byte(h >> 16)}
}

// RLEBlocks is total bytes of c in RLE blocks of 128 KiB: a few bytes that
// decompress to total. The last block ends the frame when last is set.
func RLEBlocks(total int, c byte, last bool) [][]byte {
	var out [][]byte
	for total > 0 {
		n := min(total, 128<<10)
		total -= n
		out = append(out, append(BlockHeader(n, 1, last && total == 0), c))
	}
	return out
}

// RawBlock is d stored as a raw block.
func RawBlock(d []byte, last bool) []byte { return append(BlockHeader(len(d), 0, last), d...) }

// Allocated runs f and returns the bytes allocated meanwhile (all
// goroutines), after a GC. Bomb tests bound decoder memory with it rather
// than with timings.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
