package verify

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
)

// Result holds every verified object and the per-archive problems found.
// Objects are kept per archive in the order of the TOC entries
// (kpack.Entry.Index), 24 bytes each: a build has millions.
type Result struct {
	// Problems maps archive path to the defects found only by reading the
	// data: frames that fail to decompress (DECOMPRESSION_FAILED), blobs
	// that cannot be read (IO_ERROR), sizes that differ from original_size.
	// Each list is sorted by Offset, then Field.
	Problems map[string][]kpack.Problem
	// Unopened maps the path of an archive whose zstd frame chain runs
	// past zstd_size (or cannot be read) to kpack_open's error: the runtime
	// never opens it. Its objects are not kept. check then reports the
	// archive as one that does not open (model.Build.Unopen).
	Unopened map[string]error
	// Bytes counts decompressed bytes verified; Read counts bytes read from
	// the archives (compressed data and size prefixes).
	Bytes, Read int64
	// Archives counts the archives verified.
	Archives int
	// Peak is the most decompressed bytes held at once across workers, as
	// accounted against Options.MaxMemory.
	Peak int64

	byPath map[string]*objects
}

// objects are the verified objects of one archive, by entry index.
type objects struct {
	a       *model.Archive
	records []record
	hash    []bool // by entry index: compute the object's sha256
	// known is s.targets as last published, while it has at most
	// scanTargets targets: set reads it without the lock.
	known atomic.Pointer[[]string]

	mu       sync.Mutex           // guards the fields below: several workers verify one archive
	targets  []string             // record.target - 1 indexes it
	byTarget map[string]uint32    // record.target by target, past scanTargets targets
	errs     []string             // record.err - 1 indexes it
	sums     map[uint32]*[32]byte // by entry index, for the objects hashed
	problems []kpack.Problem
}

// record is an Object as stored: 24 bytes and no pointers, so that the
// collector never scans (and the kernel never maps a zero page under) the
// one record per TOC entry that a build of millions of entries holds. The
// strings it refers to are the archive's: target through objects.targets,
// err through objects.errs (an archive's objects seldom fail).
type record struct {
	size    uint64
	ordinal uint32
	target  uint32 // 1 + index in objects.targets; 0: none
	err     uint32 // 1 + index in objects.errs; 0: none
	code    int8
	skipped bool
	set     bool
	notELF  bool
}

func newObjects(a *model.Archive) *objects {
	return &objects{a: a, records: make([]record, a.Info.Entries), hash: make([]bool, a.Info.Entries)}
}

// set stores o for the entry with index i.
func (s *objects) set(i uint32, o Object) {
	r := record{size: o.Size, ordinal: o.Ordinal, code: int8(o.Code), skipped: o.Skipped, set: true, notELF: o.NotELF}
	var known bool
	r.target, known = s.knownTarget(o.Target)
	if !known || o.Err != "" || o.Hashed {
		s.mu.Lock()
		if !known {
			r.target = s.targetIndex(o.Target)
		}
		if o.Err != "" {
			// Entries sharing a frame get one error: keep it once.
			if n := len(s.errs); n == 0 || s.errs[n-1] != o.Err {
				s.errs = append(s.errs, o.Err)
			}
			r.err = uint32(len(s.errs))
		}
		if o.Hashed {
			if s.sums == nil {
				s.sums = map[uint32]*[32]byte{}
			}
			sum := o.Sum
			s.sums[i] = &sum
		}
		s.mu.Unlock()
	}
	s.records[i] = r
}

// knownTarget returns record.target for target t without the lock, and
// whether it could: t is "" or one of the targets published in s.known.
// An archive's objects mostly name targets met before, so the workers
// decoding one archive seldom wait for each other.
func (s *objects) knownTarget(t string) (uint32, bool) {
	if t == "" {
		return 0, true
	}
	if p := s.known.Load(); p != nil {
		return position(*p, t)
	}
	return 0, false
}

// position returns 1 + the index of t in list, and whether it is there.
func position(list []string, t string) (uint32, bool) {
	for i, have := range list {
		if have == t {
			return uint32(i + 1), true
		}
	}
	return 0, false
}

// targetIndex returns record.target for target t, adding t to s.targets
// when it is new. An archive holds a handful of targets, found by a scan;
// past scanTargets (a hostile archive: the ELF header allows hundreds)
// they are also indexed by a map. s.mu must be held.
func (s *objects) targetIndex(t string) uint32 {
	if t == "" {
		return 0
	}
	if s.byTarget != nil {
		if i, ok := s.byTarget[t]; ok {
			return i
		}
	} else if i, ok := position(s.targets, t); ok {
		// another worker added t since the caller's knownTarget
		return i
	}
	s.targets = append(s.targets, t)
	n := uint32(len(s.targets))
	if n <= scanTargets {
		// Appends never change the published elements: readers of the
		// snapshot only read below its length.
		published := s.targets
		s.known.Store(&published)
	}
	switch {
	case s.byTarget != nil:
		s.byTarget[t] = n
	case n > scanTargets:
		s.byTarget = make(map[string]uint32, 2*n)
		for i, have := range s.targets {
			s.byTarget[have] = uint32(i + 1)
		}
	}
	return n
}

// scanTargets is how many distinct targets an archive's objects may have
// before targetIndex indexes them by a map.
const scanTargets = 8

func (s *objects) object(i uint32) (Object, bool) {
	r := s.records[i]
	if !r.set {
		return Object{}, false
	}
	o := Object{Code: kpack.Code(r.code), Skipped: r.skipped, Size: r.size, Ordinal: r.ordinal, NotELF: r.notELF}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.target != 0 {
		o.Target = s.targets[r.target-1]
	}
	if r.err != 0 {
		o.Err = s.errs[r.err-1]
	}
	if sum := s.sums[i]; sum != nil {
		o.Sum, o.Hashed = *sum, true
	}
	return o, true
}

func (s *objects) problem(p kpack.Problem) {
	s.mu.Lock()
	s.problems = append(s.problems, p)
	s.mu.Unlock()
}

// Object returns what verification learned about the object at k; false
// when it was not verified (its archive does not open, was not selected,
// or has no such entry).
func (r *Result) Object(k Key) (Object, bool) {
	s := r.byPath[k.Archive]
	if s == nil {
		return Object{}, false
	}
	e, ok := s.a.Info.Lookup(k.Kernel, k.Arch)
	if !ok {
		return Object{}, false
	}
	return s.object(e.Index)
}

// ObjectAt returns the verified object of archive a's entry with index i
// (kpack.Entry.Index).
func (r *Result) ObjectAt(a *model.Archive, i uint32) (Object, bool) {
	s := r.byPath[a.Path]
	if s == nil || s.a != a || int(i) >= len(s.records) {
		return Object{}, false
	}
	return s.object(i)
}

// Len counts the verified objects.
func (r *Result) Len() int {
	n := 0
	for _, s := range r.byPath {
		for i := range s.records {
			if s.records[i].set {
				n++
			}
		}
	}
	return n
}

// Each calls fn for every verified object with its archive and entry
// index (kpack.Entry.Index): archives in path order, a archive's objects
// in no particular order (callers sort what they keep).
func (r *Result) Each(fn func(k Key, a *model.Archive, index uint32, o Object)) {
	paths := make([]string, 0, len(r.byPath))
	for p := range r.byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		s := r.byPath[p]
		for key, list := range s.a.Info.Kernels {
			for _, ae := range list {
				if o, ok := s.object(ae.Index); ok {
					fn(Key{Archive: p, Kernel: key, Arch: ae.Arch}, s.a, ae.Index, o)
				}
			}
		}
	}
}

// Sorted returns the keys of the verified objects sorted by archive,
// kernel, arch.
func (r *Result) Sorted() []Key {
	var keys []Key
	r.Each(func(k Key, _ *model.Archive, _ uint32, _ Object) { keys = append(keys, k) })
	SortKeys(keys)
	return keys
}

// SortKeys sorts keys by archive, kernel, arch.
func SortKeys(keys []Key) { slices.SortFunc(keys, CompareKeys) }

// CompareKeys orders keys by archive, kernel, arch.
func CompareKeys(a, b Key) int {
	return cmp.Or(strings.Compare(a.Archive, b.Archive), strings.Compare(a.Kernel, b.Kernel), strings.Compare(a.Arch, b.Arch))
}

// Hashed reports whether the object of archive a's entry i is one whose
// digest verification computes (Object.Sum): a possible copy of another.
func (r *Result) Hashed(a *model.Archive, i uint32) bool {
	s := r.byPath[a.Path]
	return s != nil && s.a == a && int(i) < len(s.hash) && s.hash[i]
}

// Fetch returns the recorded result of fetching kernel key for arch from a,
// falling back to model.TOCFetch for objects not verified (including
// Skipped ones). It is a model.FetchFunc: a stored object whose Code is
// not Success makes the simulated load fail with that code.
func (r *Result) Fetch(a *model.Archive, key, arch string) kpack.Code {
	e, ok := a.Info.Lookup(key, arch)
	if s := r.byPath[a.Path]; ok && s != nil && s.a == a {
		if rec := s.records[e.Index]; rec.set && !rec.skipped {
			return kpack.Code(rec.code)
		}
	}
	return model.EntryCode(a.Info, e, ok)
}
