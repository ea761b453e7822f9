// Package verify verifies kpack archives byte by byte for `check --deep`:
// every blob or zstd frame the TOC references is read and decompressed, and
// every code object's ELF header is decoded into a target ID.
//
// One goroutine reads each zstd archive front to back in large reads,
// checking its frame chain as kpack_open does, and hands the frames of
// every read to a pool of workers, so one large archive is decoded on all
// of them and reading overlaps decoding. Each worker keeps one reused zstd
// decoder and output buffer; the decompressed bytes held at once across
// workers are bounded by Options.MaxMemory. Results are kept per TOC
// entry, so they do not depend on scheduling.
package verify

import (
	"fmt"
	"io"
	"runtime"
	"sort"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
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
	// NotELF is set when the fetched bytes do not start with the ELF
	// magic (codeobj.HasELFMagic): HIP's AddDevProgram rejects such a
	// buffer with hipErrorInvalidKernelFile.
	NotELF bool
	// Size is the decompressed size in bytes (0 on fetch failure).
	Size uint64
	// Sum is the sha256 of the decompressed bytes, when Hashed. Objects are
	// hashed only where a digest can tell something: when another stored
	// object of the same kernel key in the same kpack group has the same
	// size (a possible duplicate or conflicting copy), or with
	// Options.HashAll. Two objects of one key and group with equal Size are
	// therefore both hashed.
	Sum    [32]byte
	Hashed bool
	// Ordinal is the TOC entry's ordinal: the blob index (none) or frame
	// index (zstd-per-kernel). Entries of one archive that share an ordinal
	// share storage.
	Ordinal uint32
}

// OK reports whether the object was fetched and is an AMDGPU code object.
func (o Object) OK() bool { return o.Code == Success && o.Err == "" }

// Success is kpack.Success, re-exported for brevity in callers.
const Success = kpack.Success

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
	// HashAll computes every object's sha256, not only where an object of
	// the same key and size is stored elsewhere (see Object.Sum).
	HashAll bool
	// Budget is the run's budget of decompressed bytes that the frames
	// and CCOB bundles decoded draw on (nil: the build's, its
	// vfs.Tree.Budget, for Verify and VerifyEmbedded; none for VerifyOne
	// and VerifyBundle). Past it an object is not verified: Code
	// OUT_OF_MEMORY with Skipped (Err names the budget), and every
	// worker stops at its next frame.
	Budget *inflate.Budget
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
// unreadable data becomes an Object's Code and a Problem, and a zstd
// archive whose frame chain runs past zstd_size is listed in Unopened, as
// kpack_open refuses it. Safe on hostile bytes; memory is bounded as
// Options documents.
func Verify(b *model.Build, opt Options) *Result {
	opt = opt.withDefaults()
	if opt.Budget == nil {
		opt.Budget = b.Tree.Budget()
	}
	res := &Result{Problems: map[string][]kpack.Problem{}, Unopened: map[string]error{}, byPath: map[string]*objects{}}
	var archives []*objects
	var total int64
	byInfo := map[*kpack.Archive]*objects{}
	var aliases []*model.Archive // paths of an archive verified through another (hard links)
	for _, a := range b.Archives {
		if a.Info != nil && (opt.Keep == nil || opt.Keep(a)) {
			if s := byInfo[a.Info]; s != nil {
				res.byPath[a.Path] = s
				aliases = append(aliases, a)
				continue
			}
			s := newObjects(a)
			byInfo[a.Info] = s
			archives = append(archives, s)
			res.byPath[a.Path] = s
			total += a.Info.Size
		}
	}
	// Which objects to hash is worked out while the first frames decode:
	// a worker waits for it only when it has an object to hash or not.
	marked := make(chan struct{})
	go func() {
		markHashed(b, res, opt.HashAll)
		close(marked)
	}()
	prog := newProgress(opt.Progress, total, len(archives))
	defer prog.finish()
	run(archives, opt, res, prog, marked)
	<-marked
	for _, s := range archives {
		if res.Unopened[s.a.Path] != nil {
			delete(res.byPath, s.a.Path)
			continue
		}
		if len(s.problems) > 0 {
			sortProblems(s.problems)
			res.Problems[s.a.Path] = s.problems
		}
	}
	// A path sharing another's parsed archive (model reads a file reached
	// by several paths once) reads the same bytes: it gets that archive's
	// verdict.
	for _, a := range aliases {
		first := byInfo[a.Info].a.Path
		if err := res.Unopened[first]; err != nil {
			res.Unopened[a.Path] = err
			delete(res.byPath, a.Path)
		} else if p := res.Problems[first]; p != nil {
			res.Problems[a.Path] = p
		}
	}
	res.Archives = len(archives)
	return res
}

// markHashed marks the objects whose sha256 a rule may need: within a
// kpack group, those whose kernel key and stored size another object of a
// different archive or ordinal shares (KPL004: conflicting copies of a
// key, identical copies under several tags).
func markHashed(b *model.Build, res *Result, all bool) {
	if all {
		for _, s := range res.byPath {
			for i := range s.hash {
				s.hash[i] = true
			}
		}
		return
	}
	type keySize struct {
		key  string
		size uint64
	}
	type unit struct {
		s       *objects
		index   uint32
		ordinal uint32
	}
	most := 0 // entries of the largest group: the map is sized once
	for _, g := range b.Groups {
		n := 0
		for _, a := range g.Archives {
			if s := res.byPath[a.Path]; s != nil && s.a == a {
				n += a.Info.Entries
			}
		}
		most = max(most, n)
	}
	first := make(map[keySize]unit, most) // one map for every group: clear keeps its room
	for _, g := range b.Groups {
		clear(first)
		for _, a := range g.Archives {
			s := res.byPath[a.Path]
			if s == nil || s.a != a {
				continue
			}
			for key, list := range a.Info.Kernels {
				for _, ae := range list {
					k := keySize{key, storedSize(a.Info, ae.Entry)}
					f, ok := first[k]
					switch {
					case !ok:
						first[k] = unit{s, ae.Index, ae.Ordinal}
					case f.s != s || f.ordinal != ae.Ordinal:
						f.s.hash[f.index], s.hash[ae.Index] = true, true
					}
				}
			}
		}
	}
}

// storedSize is the size an entry's object has when it fetches: the blob
// size for scheme none (the runtime ignores original_size), else
// original_size.
func storedSize(info *kpack.Archive, e kpack.Entry) uint64 {
	if info.EffectiveScheme() == kpack.SchemeNone && int(e.Ordinal) < len(info.Blobs) {
		return info.Blobs[e.Ordinal].Size
	}
	return e.OriginalSize
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
	s := newObjects(a)
	s.hash[e.Index] = true
	w := newWorker(opt, newBudget(opt.MaxMemory), nil)
	defer w.close()
	w.verifyOne(s, ref{key, arch, e})
	o, _ := s.object(e.Index)
	return o
}
