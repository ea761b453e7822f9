package verify

import (
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/vfs"
)

// job is work for one worker: the frames of one read of a zstd archive
// (slices of win, which the worker releases), or a whole scheme none
// archive.
type job struct {
	s      *objects
	refs   *entries
	frames []kpack.ScanFrame
	win    kpack.Window
	whole  bool
}

// readSize is how much of a zstd blob one read takes: the frames of one
// read are one job.
const readSize = 1 << 20

// run verifies archives: this goroutine reads each zstd archive front to
// back (kpack.Archive.ScanFrames, which also checks the frame chain) and
// hands every read's frames to opt.Workers workers; a scheme none archive
// is one job. Reading overlaps decoding, and one large archive keeps every
// worker busy. Reads in flight are bounded by the job queue. A read of a
// file on disk maps it (vfs.Map) instead of copying it into a buffer:
// reading 1.25 GB of archives through read(2) cost 0.22 s of CPU.
func run(archives []*objects, opt Options, res *Result, prog *progress, marked <-chan struct{}) {
	jobs := make(chan job, opt.Workers)
	bufs := newBufPool(2*opt.Workers + 2)
	mem := newBudget(opt.MaxMemory)
	var bytes, read atomic.Int64
	var wg sync.WaitGroup
	for range opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // a mapped file that shrinks
			w := newWorker(opt, mem, prog)
			w.marked = marked
			defer w.close()
			for j := range jobs {
				ar := w.doSafe(j)
				j.win.Done()
				bytes.Add(ar.bytes)
				read.Add(ar.read) // scheme none; zstd reads are counted by the scan
			}
		}()
	}
	for _, s := range archives {
		n, err := scanSafe(s, bufs, jobs, opt)
		read.Add(n)
		if err != nil {
			res.Unopened[s.a.Path] = err
		}
		prog.archiveDone(s.a.Info.Size)
	}
	close(jobs)
	wg.Wait()
	res.Bytes, res.Read, res.Peak = bytes.Load(), read.Load(), mem.peak
}

// bufPool keeps the buffers of reads that could not map the file.
type bufPool chan []byte

func newBufPool(n int) bufPool { return make(bufPool, n) }

func (p bufPool) get(n int) []byte {
	if n > readSize {
		return make([]byte, n)
	}
	select {
	case b := <-p:
		return b
	default:
		return make([]byte, readSize)
	}
}

func (p bufPool) put(b []byte) {
	if cap(b) == readSize {
		select {
		case p <- b[:readSize]:
		default:
		}
	}
}

// source reads an archive for ScanFrames: a view of the file where it
// maps (vfs.Map), else a pooled buffer. last is the latest view, the one
// ScanFrames reads size prefixes from (nil after a buffered read).
type source struct {
	r    vfs.ReaderAt
	bufs bufPool
	last []byte
}

func (src *source) Read(off int64, n int) (kpack.Window, int, error) {
	if data, unmap, ok := vfs.Map(src.r, off, n); ok {
		src.last = data
		return kpack.Window{Data: data, Release: unmap}, n, nil
	}
	src.last = nil
	buf := src.bufs.get(n)[:n]
	k, err := src.r.ReadAt(buf, off)
	return kpack.Window{Data: buf, Release: func() { src.bufs.put(buf) }}, k, err
}

// scanSafe is scan, with a file that shrinks under a mapped read (a
// memory fault in the view being scanned) reported as the read error it
// is; any other panic is not caught.
func scanSafe(s *objects, bufs bufPool, jobs chan<- job, opt Options) (n int64, err error) {
	src := &source{bufs: bufs}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if v := recover(); v != nil {
			if !vfs.IsFault(v, src.last) {
				panic(v)
			}
			err = shrank(s.a.Info)
		}
	}()
	return scan(s, src, jobs, opt)
}

// shrank is the error of an archive that got shorter while it was read.
func shrank(info *kpack.Archive) error {
	return &kpack.FormatError{Offset: int64(info.ZstdOffset), Field: "zstd blob", Code: kpack.IOError, Err: io.ErrUnexpectedEOF,
		Msg: "the file got shorter while it was read (a memory fault on its mapping): is another process writing it?"}
}

// scan queues the jobs of one archive and returns the bytes it read and
// the error kpack_open would fail with (a zstd frame chain running past
// zstd_size, or a read that fails): the archive does not open.
func scan(s *objects, src *source, jobs chan<- job, opt Options) (int64, error) {
	refs := newEntries(s.a.Info)
	info := s.a.Info
	if info.EffectiveScheme() != kpack.SchemeZstd {
		jobs <- job{s: s, refs: refs, whole: true}
		return 0, nil
	}
	r, err := s.a.Entry.Open()
	if err != nil {
		failOpen(refs.refs, err, &archiveResult{s: s})
		return 0, nil
	}
	defer r.Close()
	src.r = r
	n, err := info.ScanFrames(src, readSize, opt.MaxKernelSize, func(w kpack.Window, frames []kpack.ScanFrame) error {
		jobs <- job{s: s, refs: refs, frames: frames, win: w}
		return nil
	})
	if err != nil {
		return n, err
	}
	ar := archiveResult{s: s}
	for _, rf := range refs.from(info.FrameCount) {
		ar.set(rf, Object{Code: kpack.KernelNotFound,
			Err: fmt.Sprintf("kpack: ordinal %d is outside the zstd frame table (%d frames)", rf.e.Ordinal, info.FrameCount)})
	}
	return n, nil
}
