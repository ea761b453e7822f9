package kpack

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
)

// readFrameCount reads the zstd blob's u32 frame count, as
// build_zstd_frame_index does at open, and fails where it fails on the
// blob's bounds and the count. It reads 4 bytes, never frame data.
func (a *Archive) readFrameCount(r io.ReaderAt) error {
	if err := a.checkZstdBlob(); err != nil {
		return err
	}
	var b [4]byte
	if err := readFull(r, b[:], int64(a.ZstdOffset), "zstd.count"); err != nil {
		return err
	}
	a.FrameCount = binary.LittleEndian.Uint32(b[:])
	return a.checkFrameCount()
}

// IndexFrames walks the zstd frame chain of an archive opened with
// Options.SkipFrameChain, as kpack_open's build_zstd_frame_index does: it
// reads each frame's u32 size prefix (never frame data) and returns the
// *FormatError kpack_open fails with (InvalidFormat, ErrZstdIndex) when a
// size prefix or a frame runs past zstd_size, or an IOError when a read
// fails; the runtime then skips the archive. Zstd bytes after the last
// frame become a Problem (sorted in; once Problems are capped, counted in
// their summary). It does nothing when the chain was walked already or the
// scheme is none. It modifies the Archive: not safe for concurrent use.
func (a *Archive) IndexFrames(r io.ReaderAt) error {
	if a.FrameChain {
		return nil
	}
	if err := a.walkFrames(r); err != nil {
		return err
	}
	if p, ok := a.tailProblem(); ok {
		a.addProblem(p)
	}
	return nil
}

// checkZstdBlob applies kpack_open's checks on zstd_offset and zstd_size.
func (a *Archive) checkZstdBlob() error {
	if a.ZstdSize > MaxZstdBlobSize {
		return formatErr(InvalidFormat, ErrZstdIndex, int64(a.TOCOffset), "zstd_size",
			"zstd_size %d exceeds the runtime's 4 GiB limit", a.ZstdSize)
	}
	if end, ok := addU64(a.ZstdOffset, a.ZstdSize); !ok || end > uint64(a.Size) {
		return formatErr(IOError, ErrZstdIndex, int64(min(a.ZstdOffset, uint64(a.Size))), "zstd_size",
			"zstd blob [%d, +%d) runs past end of file (%d bytes)", a.ZstdOffset, a.ZstdSize, a.Size)
	}
	if a.ZstdSize < 4 {
		return formatErr(InvalidFormat, ErrZstdIndex, int64(a.ZstdOffset), "zstd_size",
			"zstd_size %d is smaller than the 4-byte frame count", a.ZstdSize)
	}
	return nil
}

// checkFrameCount rejects counts the runtime rejects and counts whose size
// prefixes alone cannot fit in the blob, before anything is allocated.
func (a *Archive) checkFrameCount() error {
	if a.FrameCount > MaxZstdFrames {
		return formatErr(InvalidFormat, ErrZstdIndex, int64(a.ZstdOffset), "zstd.count",
			"frame count %d exceeds the runtime's limit of %d", a.FrameCount, MaxZstdFrames)
	}
	if uint64(a.FrameCount)*4 > a.ZstdSize-4 {
		return formatErr(InvalidFormat, ErrZstdIndex, int64(a.ZstdOffset), "zstd.count",
			"frame count %d needs %d bytes of size prefixes; the blob has %d", a.FrameCount, uint64(a.FrameCount)*4, a.ZstdSize-4)
	}
	return nil
}

// walkFrames follows the chain of size prefixes through the blob.
func (a *Archive) walkFrames(r io.ReaderAt) error {
	a.frames = make([]frame, 0, a.FrameCount)
	pos, end := a.ZstdOffset+4, a.ZstdOffset+a.ZstdSize
	var b [4]byte
	for i := uint32(0); i < a.FrameCount; i++ {
		if pos+4 > end {
			return a.prefixPastBlob(i, pos)
		}
		if n, err := r.ReadAt(b[:], int64(pos)); n != len(b) {
			return readErr(n, len(b), int64(pos), frameField(i)+".size", err) // field built only on failure
		}
		size := binary.LittleEndian.Uint32(b[:])
		if pos+4+uint64(size) > end {
			return a.framePastBlob(i, pos, size)
		}
		a.frames = append(a.frames, frame{off: pos + 4, size: size})
		pos += 4 + uint64(size)
	}
	a.trailing = end - pos
	a.FrameChain = true
	return nil
}

// prefixPastBlob is kpack_open's failure when frame i's size prefix at pos
// runs past zstd_size.
func (a *Archive) prefixPastBlob(i uint32, pos uint64) error {
	return formatErr(InvalidFormat, ErrZstdIndex, int64(pos), frameField(i)+".size",
		"size prefix runs past the end of the zstd blob (zstd_size %d)", a.ZstdSize)
}

// framePastBlob is kpack_open's failure when frame i (size prefix at pos)
// runs past zstd_size.
func (a *Archive) framePastBlob(i uint32, pos uint64, size uint32) error {
	end := a.ZstdOffset + a.ZstdSize
	return formatErr(InvalidFormat, ErrZstdIndex, int64(pos), frameField(i),
		"frame of %d bytes runs past the end of the zstd blob by %d bytes", size, pos+4+uint64(size)-end)
}

// tailProblem reports zstd blob bytes that no frame covers.
func (a *Archive) tailProblem() (Problem, bool) {
	if a.trailing == 0 {
		return Problem{}, false
	}
	end := a.ZstdOffset + a.ZstdSize
	return Problem{Kind: ProblemMalformed, Field: "zstd_size", Offset: int64(end - a.trailing),
		Msg: fmt.Sprintf("the %d frames end %d bytes before zstd_size %d", a.FrameCount, a.trailing, a.ZstdSize)}, true
}

// frameField names frame i in errors: "zstd.frames[i]".
func frameField(i uint32) string { return "zstd.frames[" + strconv.FormatUint(uint64(i), 10) + "]" }
