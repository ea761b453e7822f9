// Package deep verifies kpack archives byte by byte for `check --deep`:
// every blob or zstd frame the TOC references is read and decompressed, and
// every code object's ELF header is decoded into a target ID.
//
// Verification streams archive by archive over a pool of workers, each with
// one reused zstd decoder and one reused output buffer. The decompressed
// bytes held at once across all workers are bounded by Options.MaxMemory.
// Results are keyed by Key, so they do not depend on scheduling.
package deep

import (
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/rocm-tools/kpack-lint/kpack"
	"github.com/rocm-tools/kpack-lint/model"
)

// DefaultMaxMemory is Options.MaxMemory when zero: 256 MiB of decompressed
// code objects held at once across all workers.
const DefaultMaxMemory int64 = 256 << 20

// Key names one stored code object: archive real path (model.Archive.Path,
// slash-separated inside the tree), kernel key ("name#co_index") and the TOC
// arch it is filed under.
type Key struct {
	Archive, Kernel, Arch string
}

// Object is what deep verification learned about one stored code object.
type Object struct {
	// Code is Success, or the kpack_error_t kpack_get_kernel returns for the
	// entry (KERNEL_NOT_FOUND, DECOMPRESSION_FAILED, IO_ERROR, OUT_OF_MEMORY,
	// INVALID_FORMAT), as kpack.Archive.Fetch documents. OUT_OF_MEMORY also
	// marks objects this run did not verify (see Skipped).
	Code kpack.Code
	// Skipped is set (with Code OUT_OF_MEMORY) when the object was not
	// decoded because its zstd window exceeds Options.MaxMemory: a limit of
	// this run, not a defect of the archive. Result.Fetch treats such an
	// object as not verified; `check` then exits 2 naming --deep-memory.
	Skipped bool
	// Target is the target ID decoded from the ELF header, e.g.
	// "gfx90a:xnack-" or "gfx9-4-generic"; "" when the fetch failed or the
	// bytes are not a valid AMDGPU code object.
	Target string
	// Err says why the object cannot be used: the fetch error when Code is
	// not Success, else why the bytes are not an AMDGPU HSA code object
	// ("" when they are one).
	Err string
	// Size is the decompressed size in bytes (0 on fetch failure).
	Size uint64
	// Sum is the sha256 of the decompressed bytes (zero on fetch failure).
	Sum [32]byte
	// Ordinal is the TOC entry's ordinal: the blob index (none) or frame
	// index (zstd-per-kernel). Entries of one archive that share an ordinal
	// share storage.
	Ordinal uint32
}

// OK reports whether the object was fetched and is an AMDGPU code object.
func (o Object) OK() bool { return o.Code == Success && o.Err == "" }

// Success is kpack.Success, re-exported for brevity in callers.
const Success = kpack.Success

// Result holds every verified object and the per-archive problems found.
type Result struct {
	// Objects has one entry per toc[kernel][arch] of every archive that
	// opens (model.Archive.Info != nil).
	Objects map[Key]Object
	// Problems maps archive path to the defects found only by reading the
	// data: frames that fail to decompress (DECOMPRESSION_FAILED), blobs
	// that cannot be read (IO_ERROR), sizes that differ from original_size.
	// Each list is sorted by Offset, then Field.
	Problems map[string][]kpack.Problem
	// Bytes counts decompressed bytes verified; Read counts bytes read from
	// the archives (compressed data and size prefixes).
	Bytes, Read int64
	// Archives counts the archives verified.
	Archives int
	// Peak is the most decompressed bytes held at once across workers, as
	// accounted against Options.MaxMemory.
	Peak int64
}

// Options bounds verification. Zero values pick documented defaults.
type Options struct {
	// Workers is how many archives are verified in parallel; 0 means
	// runtime.GOMAXPROCS(0).
	Workers int
	// MaxMemory bounds the decompressed bytes (and zstd history) held at
	// once across workers, give or take one 128 KiB block per worker; 0
	// means DefaultMaxMemory. An object larger than MaxMemory is streamed
	// instead of held: hashed, counted and only its ELF header decoded
	// (section headers are not parsed), which needs the frame's window in
	// memory. A frame whose window exceeds MaxMemory (a single-segment
	// frame's window is its content size) and whose original_size is too
	// large to decode in place (about MaxMemory*4/9: the output buffer may
	// grow once) is not decoded: its object gets Code OUT_OF_MEMORY and
	// Skipped. A scheme none blob larger than MaxMemory is streamed like a
	// large zstd object.
	MaxMemory int64
	// MaxKernelSize is the largest code object (bytes) decompressed; larger
	// ones are recorded as OUT_OF_MEMORY without reading them. 0 means
	// kpack.DefaultMaxKernelSize.
	MaxKernelSize uint64
	// Progress receives a progress bar (archives done, MB/s, ETA); it
	// should be a terminal. nil means silent.
	Progress io.Writer
	// Keep, when set, selects the archives to verify (check --shard
	// verifies only its kpack groups).
	Keep func(*model.Archive) bool
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.MaxMemory <= 0 {
		o.MaxMemory = DefaultMaxMemory
	}
	if o.MaxKernelSize == 0 {
		o.MaxKernelSize = kpack.DefaultMaxKernelSize
	}
	return o
}

// Verify reads every blob or zstd frame referenced by every archive of b
// that opens, and decodes each code object's ELF header. It never fails:
// unreadable data becomes an Object's Code and a Problem. Safe on hostile
// bytes; memory is bounded as Options documents.
func Verify(b *model.Build, opt Options) *Result {
	opt = opt.withDefaults()
	var archives []*model.Archive
	var total int64
	for _, a := range b.Archives {
		if a.Info != nil && (opt.Keep == nil || opt.Keep(a)) {
			archives = append(archives, a)
			total += a.Info.Size
		}
	}
	res := &Result{Objects: map[Key]Object{}, Problems: map[string][]kpack.Problem{}}
	prog := newProgress(opt.Progress, total, len(archives))
	defer prog.finish()
	run(archives, opt, res, prog)
	res.Archives = len(archives)
	return res
}

// run verifies archives on opt.Workers goroutines and merges their results.
func run(archives []*model.Archive, opt Options, res *Result, prog *progress) {
	jobs := make(chan *model.Archive)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var bytes, read atomic.Int64
	mem := newBudget(opt.MaxMemory)
	for range min(opt.Workers, max(len(archives), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(opt, mem, prog)
			defer w.close()
			for a := range jobs {
				ar := w.verify(a)
				bytes.Add(ar.bytes)
				read.Add(ar.read)
				mu.Lock()
				merge(res, a.Path, ar)
				mu.Unlock()
			}
		}()
	}
	for _, a := range archives {
		jobs <- a
	}
	close(jobs)
	wg.Wait()
	res.Bytes, res.Read, res.Peak = bytes.Load(), read.Load(), mem.peak
}

func merge(res *Result, path string, ar archiveResult) {
	for k, o := range ar.objects {
		res.Objects[Key{Archive: path, Kernel: k.kernel, Arch: k.arch}] = o
	}
	if len(ar.problems) > 0 {
		sortProblems(ar.problems)
		res.Problems[path] = ar.problems
	}
}

func sortProblems(ps []kpack.Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Offset != ps[j].Offset {
			return ps[i].Offset < ps[j].Offset
		}
		return ps[i].Field < ps[j].Field
	})
}

// VerifyOne verifies the one code object filed under key and arch in
// archive a (which must open: a.Info != nil) as Verify would, within
// opt.MaxMemory: what `explain` needs from the kernel it loads. An entry
// the TOC lacks gives KernelNotFound.
func VerifyOne(a *model.Archive, key, arch string, opt Options) Object {
	opt = opt.withDefaults()
	e, ok := a.Info.Lookup(key, arch)
	if !ok {
		return Object{Code: kpack.KernelNotFound, Err: fmt.Sprintf("kpack: no toc entry for %q on %s", key, arch)}
	}
	w := newWorker(opt, newBudget(opt.MaxMemory), nil)
	defer w.close()
	ar := w.verifyRefs(a, map[uint32][]ref{e.Ordinal: {{key, arch, e}}})
	return ar.objects[objKey{key, arch}]
}

// Fetch returns the recorded result of fetching kernel key for arch from a,
// falling back to model.TOCFetch for objects not verified (including
// Skipped ones). It is a
// model.FetchFunc: a stored object whose Code is not Success makes the
// simulated load fail with that code.
func (r *Result) Fetch(a *model.Archive, key, arch string) kpack.Code {
	if o, ok := r.Objects[Key{Archive: a.Path, Kernel: key, Arch: arch}]; ok && !o.Skipped {
		return o.Code
	}
	return model.TOCFetch(a, key, arch)
}

// Sorted returns the keys of r.Objects sorted by archive, kernel, arch.
func (r *Result) Sorted() []Key {
	keys := make([]Key, 0, len(r.Objects))
	for k := range r.Objects {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.Archive != b.Archive {
			return a.Archive < b.Archive
		}
		if a.Kernel != b.Kernel {
			return a.Kernel < b.Kernel
		}
		return a.Arch < b.Arch
	})
	return keys
}
