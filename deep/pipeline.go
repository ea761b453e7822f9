package deep

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/rocm-tools/kpack-lint/kpack"
)

// job is work for one worker: the frames of one read of a zstd archive
// (slices of buf), or a whole scheme none archive.
type job struct {
	s      *objects
	refs   *entries
	frames []kpack.ScanFrame
	buf    []byte
	whole  bool
}

// readSize is how much of a zstd blob one read takes: the frames of one
// read are one job.
const readSize = 1 << 20

// run verifies archives: this goroutine reads each zstd archive front to
// back (kpack.Archive.ScanFrames, which also checks the frame chain) and
// hands every read's frames to opt.Workers workers; a scheme none archive
// is one job. Reading overlaps decoding, and one large archive keeps every
// worker busy. Reads in flight are bounded by the job queue.
func run(archives []*objects, opt Options, res *Result, prog *progress) {
	jobs := make(chan job, opt.Workers)
	free := make(chan []byte, 2*opt.Workers+2) // reads' buffers, reused
	mem := newBudget(opt.MaxMemory)
	var bytes, read atomic.Int64
	var wg sync.WaitGroup
	for range opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(opt, mem, prog)
			defer w.close()
			for j := range jobs {
				ar := w.do(j)
				bytes.Add(ar.bytes)
				read.Add(ar.read) // scheme none; zstd reads are counted by the scan
				if cap(j.buf) == readSize {
					select {
					case free <- j.buf[:readSize]:
					default:
					}
				}
			}
		}()
	}
	get := func(n int) []byte {
		if n > readSize {
			return make([]byte, n)
		}
		select {
		case b := <-free:
			return b
		default:
			return make([]byte, readSize)
		}
	}
	for _, s := range archives {
		n, err := scan(s, get, jobs, opt)
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

// scan queues the jobs of one archive and returns the bytes it read and
// the error kpack_open would fail with (a zstd frame chain running past
// zstd_size, or a read that fails): the archive does not open.
func scan(s *objects, get func(int) []byte, jobs chan<- job, opt Options) (int64, error) {
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
	n, err := info.ScanFrames(r, readSize, opt.MaxKernelSize, get, func(buf []byte, frames []kpack.ScanFrame) error {
		jobs <- job{s: s, refs: refs, frames: frames, buf: buf}
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
