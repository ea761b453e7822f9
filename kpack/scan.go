package kpack

import (
	"encoding/binary"
	"io"
)

// ScanFrame is one zstd frame that ScanFrames hands over.
type ScanFrame struct {
	Ordinal uint32 // its index in the frame table
	Offset  uint64 // file offset of the frame (after its size prefix)
	Size    uint32 // compressed size in bytes
	// Data is the frame's bytes, a slice of the buffer handed over with
	// it; nil when Size is over the scan's limit (the frame is not read).
	Data []byte
}

// ScanFrames reads the zstd blob of a zstd-per-kernel archive front to
// back, in reads of about chunk bytes, checks its chain of frame size
// prefixes as kpack_open does (IndexFrames) and hands every frame to fn,
// in order, a read's worth at a time: the frames' Data are slices of buf,
// a buffer of at least the read's length that get(n) returned and that fn
// then owns (it may keep buf and the frames after returning; ScanFrames
// never touches it again). A frame larger than limit bytes is not read
// (Data nil) and does not enlarge a read; any other frame larger than
// chunk gets a read of its own.
//
// It returns the bytes read and the error IndexFrames would give (a size
// prefix or frame running past zstd_size: the runtime never opens the
// archive, though frames handed over before the fault are what the file
// holds), an IOError *FormatError when a read fails, or fn's error. On
// success the frame index is set as IndexFrames sets it (FrameChain, and
// bytes after the last frame a Problem). Not safe for concurrent use with
// other methods of the Archive.
func (a *Archive) ScanFrames(r io.ReaderAt, chunk int, limit uint64, get func(n int) []byte,
	fn func(buf []byte, frames []ScanFrame) error) (int64, error) {
	s := &scanner{a: a, r: r, chunk: max(chunk, 4), get: get, fn: fn}
	err := s.scan(limit)
	return s.read, err
}

type scanner struct {
	a       *Archive
	r       io.ReaderAt
	chunk   int
	get     func(n int) []byte
	fn      func(buf []byte, frames []ScanFrame) error
	win     []byte // the current read
	start   uint64 // file offset of win[0]
	pending []ScanFrame
	read    int64
}

func (s *scanner) scan(limit uint64) error {
	a := s.a
	frames := make([]frame, 0, a.FrameCount)
	pos, end := a.ZstdOffset+4, a.ZstdOffset+a.ZstdSize
	for i := uint32(0); i < a.FrameCount; i++ {
		if pos+4 > end {
			return a.prefixPastBlob(i, pos)
		}
		if err := s.need(pos, 4, end, i); err != nil {
			return err
		}
		size := binary.LittleEndian.Uint32(s.win[pos-s.start:])
		if pos+4+uint64(size) > end {
			return a.framePastBlob(i, pos, size)
		}
		f := ScanFrame{Ordinal: i, Offset: pos + 4, Size: size}
		if uint64(size) <= limit {
			if err := s.need(pos, 4+uint64(size), end, i); err != nil {
				return err
			}
			f.Data = s.win[pos+4-s.start : pos+4+uint64(size)-s.start]
		}
		s.pending = append(s.pending, f)
		frames = append(frames, frame{off: pos + 4, size: size})
		pos += 4 + uint64(size)
	}
	if err := s.flush(); err != nil {
		return err
	}
	a.frames, a.trailing, a.FrameChain = frames, end-pos, true
	if p, ok := a.tailProblem(); ok {
		a.addProblem(p)
	}
	return nil
}

// need makes sure the file bytes [pos, pos+n) are in the current read:
// else it hands over the frames read so far and reads from pos on, at
// least n bytes (n fits the blob: the caller checked it against end).
func (s *scanner) need(pos, n, end uint64, i uint32) error {
	if pos >= s.start && pos+n <= s.start+uint64(len(s.win)) {
		return nil
	}
	if err := s.flush(); err != nil {
		return err
	}
	size := min(max(uint64(s.chunk), n), end-pos)
	buf := s.get(int(size))[:size]
	k, err := s.r.ReadAt(buf, int64(pos))
	s.read += int64(k)
	if k != len(buf) {
		return readErr(k, len(buf), int64(pos), frameField(i)+".size", err)
	}
	s.win, s.start = buf, pos
	return nil
}

// flush hands the frames of the current read to fn.
func (s *scanner) flush() error {
	if len(s.pending) == 0 {
		return nil
	}
	err := s.fn(s.win, s.pending)
	s.pending, s.win = nil, nil
	return err
}

// Frame returns the file offset and compressed size of zstd frame ordinal,
// once the frame chain is walked (FrameChain); ok is false outside the
// frame table or before.
func (a *Archive) Frame(ordinal uint32) (offset uint64, size uint32, ok bool) {
	if int64(ordinal) >= int64(len(a.frames)) {
		return 0, 0, false
	}
	f := a.frames[ordinal]
	return f.off, f.size, true
}
