package verify

import (
	"io"
	"sync"
	"sync/atomic"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// Early verifies the embedded offload bundles of host binaries read in
// place (vfs.Entry.InPlace: a member of a .deb, .rpm or .tar.xz whose xz
// stream is cut into blocks) while check reads the binaries' tables
// (Hook: model.Options.Bundles, hostbin.Hooks.Bundle). A bundle's code objects
// follow its entry table, so the blocks holding them are decoded once,
// front to back; a later pass (VerifyEmbedded alone) decodes again every
// block the cache (--deep-memory) dropped in between, which for a binary
// larger than the cache is every block the tables touched (Debian 13's
// librocsolver0: 0.5 GB of its 1.5 GB decoded twice). VerifyEmbedded
// given an Early takes its results and reads only the other bundles: the
// results are the same either way. An Early is safe for concurrent use by
// the goroutines of model.LoadOptions.
type Early struct {
	opt  Options
	keep func(path string) bool
	mem  *budget
	pool sync.Pool // *bundleWorker

	mu   sync.Mutex
	done map[earlyKey]earlyResult
}

// earlyKey names a bundle of a parsed binary (shared by the paths of a
// file read once: hard links) by its file offset.
type earlyKey struct {
	info   *hostbin.Binary
	offset int64
}

// earlyResult is what verifying one bundle gave.
type earlyResult struct {
	out   []EmbeddedObject
	bytes int64
}

// NewEarly returns an Early verifying within opt (its MaxMemory,
// MaxKernelSize and Workers, as VerifyEmbedded) and the run's budget of
// decompressed bytes, budget (vfs.Tree.Budget) unless opt.Budget is set;
// keep (nil: all) selects the binaries by path (check --shard).
func NewEarly(opt Options, budget *inflate.Budget, keep func(path string) bool) *Early {
	opt = opt.withDefaults()
	if opt.Budget == nil {
		opt.Budget = budget
	}
	x := &Early{opt: opt, keep: keep, mem: newBudget(opt.MaxMemory), done: map[earlyKey]earlyResult{}}
	x.pool.New = func() any { return newBundleWorker(x.opt) }
	return x
}

// Hook is model.Options.Bundles: for an entry read in place that keep
// selects, the function verifying each of its bundles (bundle), which
// share one budget of decompressed bytes (hostbin.NewInflateBudget, as
// VerifyEmbedded gives each binary); nil for others. The model reads a
// file once (hard links share it) and hostbin calls the function once
// per distinct bundle.
func (x *Early) Hook(e *vfs.Entry) model.BundleFunc {
	if x == nil || !e.InPlace() || x.keep != nil && !x.keep(e.Path) {
		return nil
	}
	left := hostbin.NewInflateBudget()
	return func(b *hostbin.Binary, bd hostbin.Bundle, r io.ReaderAt) { x.bundle(e.Path, b, bd, r, left) }
}

// bundle verifies bundle bd of binary b (at path, read through r; left is
// the binary's budget of decompressed bytes) when it has a HIP entry,
// first asking r (a hostbin.Prefetcher) to decode the bundle and what
// follows it, up to a quarter of MaxMemory, on the background workers.
func (x *Early) bundle(path string, b *hostbin.Binary, bd hostbin.Bundle, r io.ReaderAt, left *atomic.Int64) {
	if !hasHIPEntry(bd.Entries) {
		return
	}
	if pf, ok := r.(hostbin.Prefetcher); ok && b.BundleSection != nil {
		end := b.BundleSection.Offset + b.BundleSection.FileSize
		pf.Prefetch(bd.Offset, min(end-bd.Offset, x.opt.MaxMemory/4))
	}
	bw := x.pool.Get().(*bundleWorker)
	out, n := verifyBundleAt(r, path, b, bd, left, x.opt, x.mem, bw)
	x.pool.Put(bw)
	x.mu.Lock()
	x.done[earlyKey{b, bd.Offset}] = earlyResult{out, n}
	x.mu.Unlock()
}

// take returns the result of bundle bd of b, if Bundle verified it.
func (x *Early) take(b *hostbin.Binary, bd hostbin.Bundle) (earlyResult, bool) {
	if x == nil {
		return earlyResult{}, false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	r, ok := x.done[earlyKey{b, bd.Offset}]
	return r, ok
}

// Verified is the number of bundles verified so far.
func (x *Early) Verified() int {
	if x == nil {
		return 0
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.done)
}

// peak is the most code-object bytes bundle held at once.
func (x *Early) peak() int64 {
	if x == nil {
		return 0
	}
	return x.mem.peak
}
