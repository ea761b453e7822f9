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
	// Data is the frame's bytes, a slice of the Window handed over with
	// it (valid until the window is released); nil when Size is over the
	// scan's limit (the frame is not read).
	Data []byte
}

// Window is a run of an archive's bytes that ScanFrames read: Data, and
// Release, which gives its memory back (a pooled buffer, a mapping to
// unmap); Release is nil when there is nothing to give back.
type Window struct {
	Data    []byte
	Release func()
}

// Done gives w's memory back (calls Release, if set).
func (w Window) Done() {
	if w.Release != nil {
		w.Release()
	}
}

// Source gives ScanFrames the bytes of the archive file: Read returns a
// window holding the n bytes at file offset off, or, when it cannot, the
// number of bytes it got and why (an io.ReaderAt's contract: got < n
// comes with an error).
type Source interface {
	Read(off int64, n int) (w Window, got int, err error)
}

// ReaderSource reads r into buffers from get(n) (a buffer of at least n
// bytes); their windows have no Release.
func ReaderSource(r io.ReaderAt, get func(n int) []byte) Source {
	return readerSource{r, get}
}

type readerSource struct {
	r   io.ReaderAt
	get func(n int) []byte
}

func (rs readerSource) Read(off int64, n int) (Window, int, error) {
	buf := rs.get(n)[:n]
	k, err := rs.r.ReadAt(buf, off)
	return Window{Data: buf}, k, err
}

// ScanFrames reads the zstd blob of a zstd-per-kernel archive front to
// back, in reads of about chunk bytes from src, checks its chain of frame
// size prefixes as kpack_open does (IndexFrames) and hands every frame to
// fn, in order, a read's worth at a time: the frames' Data are slices of
// the window handed over with them, which fn then owns (it may keep the
// window and the frames after returning, and releases the window when it
// is done with them; ScanFrames never touches it again). Windows it does
// not hand over it releases. A frame larger than limit bytes is not read
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
func (a *Archive) ScanFrames(src Source, chunk int, limit uint64,
	fn func(w Window, frames []ScanFrame) error) (int64, error) {
	s := &scanner{a: a, src: src, chunk: max(chunk, 4), fn: fn}
	defer func() { s.win.Done() }() // a window not handed over
	err := s.scan(limit)
	return s.read, err
}

type scanner struct {
	a       *Archive
	src     Source
	chunk   int
	fn      func(w Window, frames []ScanFrame) error
	win     Window // the current read
	start   uint64 // file offset of win.Data[0]
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
		size := binary.LittleEndian.Uint32(s.win.Data[pos-s.start:])
		if pos+4+uint64(size) > end {
			return a.framePastBlob(i, pos, size)
		}
		f := ScanFrame{Ordinal: i, Offset: pos + 4, Size: size}
		if uint64(size) <= limit {
			if err := s.need(pos, 4+uint64(size), end, i); err != nil {
				return err
			}
			f.Data = s.win.Data[pos+4-s.start : pos+4+uint64(size)-s.start]
		}
		s.add(f, a.FrameCount-i)
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

// add appends f to the frames of the current read, left frames (f
// included) still to come. The frames of reads are runs of one slab,
// allocated a chunk at a time (at most what the frame table holds), not a
// slice per read: a read that outgrows its chunk moves to a new one.
func (s *scanner) add(f ScanFrame, left uint32) {
	if len(s.pending) == cap(s.pending) {
		n := len(s.pending) + int(min(uint32(max(slabFrames, len(s.pending))), left))
		slab := make([]ScanFrame, len(s.pending), n)
		copy(slab, s.pending)
		s.pending = slab
	}
	s.pending = append(s.pending, f)
}

// slabFrames is the frames a chunk of the scan's slab holds at least.
const slabFrames = 1024

// need makes sure the file bytes [pos, pos+n) are in the current read:
// else it hands over the frames read so far and reads from pos on, at
// least n bytes (n fits the blob: the caller checked it against end).
func (s *scanner) need(pos, n, end uint64, i uint32) error {
	if pos >= s.start && pos+n <= s.start+uint64(len(s.win.Data)) {
		return nil
	}
	if err := s.flush(); err != nil {
		return err
	}
	size := min(max(uint64(s.chunk), n), end-pos)
	w, k, err := s.src.Read(int64(pos), int(size))
	s.read += int64(k)
	if k != int(size) {
		w.Done()
		return readErr(k, int(size), int64(pos), frameField(i)+".size", err)
	}
	s.win, s.start = w, pos
	return nil
}

// flush hands the frames of the current read and its window to fn, or
// releases a window without frames.
func (s *scanner) flush() error {
	w := s.win
	s.win = Window{}
	if len(s.pending) == 0 {
		w.Done()
		return nil
	}
	n := len(s.pending)
	err := s.fn(w, s.pending[:n:n])
	s.pending = s.pending[n:]
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
