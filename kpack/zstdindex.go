package kpack

import (
	"encoding/binary"
	"io"
	"strconv"
)

// readFrameIndex reads the zstd blob's u32 frame count and each frame's u32
// size prefix, as build_zstd_frame_index does at open, and fails where it
// fails. It reads only the prefixes, never frame data.
func (a *Archive) readFrameIndex(r io.ReaderAt) error {
	if err := a.checkZstdBlob(); err != nil {
		return err
	}
	var b [4]byte
	if err := readFull(r, b[:], int64(a.ZstdOffset), "zstd.count"); err != nil {
		return err
	}
	a.FrameCount = binary.LittleEndian.Uint32(b[:])
	if err := a.checkFrameCount(); err != nil {
		return err
	}
	return a.walkFrames(r)
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
		field := "zstd.frames[" + strconv.FormatUint(uint64(i), 10) + "]"
		if pos+4 > end {
			return formatErr(InvalidFormat, ErrZstdIndex, int64(pos), field+".size",
				"size prefix runs past the end of the zstd blob (zstd_size %d)", a.ZstdSize)
		}
		if err := readFull(r, b[:], int64(pos), field+".size"); err != nil {
			return err
		}
		size := binary.LittleEndian.Uint32(b[:])
		if pos+4+uint64(size) > end {
			return formatErr(InvalidFormat, ErrZstdIndex, int64(pos), field,
				"frame of %d bytes runs past the end of the zstd blob by %d bytes", size, pos+4+uint64(size)-end)
		}
		a.frames = append(a.frames, frame{off: pos + 4, size: size})
		pos += 4 + uint64(size)
	}
	a.trailing = end - pos
	return nil
}
