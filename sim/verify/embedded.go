package verify

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rocm-tools/kpack-lint/input/codeobj"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
	"github.com/rocm-tools/kpack-lint/internal/util/par"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// Embedded device code (check --deep): the code objects in the offload
// bundles of HIPF wrappers, decoded as thoroughly as the archives' ones.
// Every HIP entry ("hipv4-amdgcn-amd-amdhsa--<target-id>") of every
// distinct bundle that reads is read (an uncompressed bundle in place, a
// CCOB one decompressed as a stream, hostbin.BundleCode) and its ELF
// decoded (input/codeobj): whole when it fits the memory budget
// (Options.MaxMemory, shared with the workers of Verify's kind) and
// Options.MaxKernelSize, else its 64-byte ELF header only, as Verify
// streams a large archive object.

// EmbeddedObject is what --deep learned about one HIP entry of an offload
// bundle.
type EmbeddedObject struct {
	// Entry is the entry's index in the bundle's table; ID its ID.
	Entry int
	ID    string
	// Size is the entry's size as the table declares it.
	Size uint64
	// Target is the target ID the code object's ELF header gives
	// ("gfx1100", "gfx9-4-generic:xnack+"); "" when Err or Limit is set.
	Target string
	// Err says why the entry's bytes are not a usable AMDGPU code object:
	// they do not read (past the end of the bundle, a decompression
	// error) or are not an AMDGPU HSA code object; "" when they are one.
	Err string
	// Limit is set when a limit of this run (hostbin.MaxEmbeddedInflate,
	// or the run's budget of decompressed bytes: Options.Budget) stopped
	// the check before the entry: it was not verified.
	Limit string
	// HeaderOnly is set when the entry was larger than the memory budget
	// (or MaxKernelSize): only its ELF header was decoded.
	HeaderOnly bool
}

// EmbeddedResult holds the verified entries of every embedded offload
// bundle, by binary path and bundle file offset.
type EmbeddedResult struct {
	bundles map[embeddedKey][]EmbeddedObject
	// Bundles counts the distinct bundles read, Entries the entries
	// verified, Bytes the code-object bytes decoded (held or streamed).
	Bundles, Entries int
	Bytes            int64
	// Peak is the most code-object bytes held at once, as accounted
	// against Options.MaxMemory.
	Peak int64
}

type embeddedKey struct {
	binary string
	offset int64
}

// Objects returns the verified HIP entries of bundle bd of bin, in table
// order; nil when the bundle was not verified (it does not read, was not
// selected, or holds no HIP entry).
func (r *EmbeddedResult) Objects(bin *model.Binary, bd hostbin.Bundle) []EmbeddedObject {
	if r == nil {
		return nil
	}
	return r.bundles[embeddedKey{bin.Path, bd.Offset}]
}

// embeddedJob is one distinct bundle of one parsed binary.
type embeddedJob struct {
	bin     *model.Binary
	bundle  hostbin.Bundle
	inflate *atomic.Int64
	out     []EmbeddedObject
}

// VerifyEmbedded reads and decodes the HIP entries of every distinct
// offload bundle of the build's binaries with embedded device code (keep,
// when set, selects the binaries: check --shard), opt.Workers bundles at
// a time within opt.MaxMemory. The bundles early (nil: none) verified
// while the build was read are taken from it. It never fails: what does
// not read is an object's Err, a limit its Limit. Binaries sharing one
// parsed file (hard links) are read once.
func VerifyEmbedded(b *model.Build, opt Options, keep func(*model.Binary) bool, early *Early) *EmbeddedResult {
	opt = opt.withDefaults()
	if opt.Budget == nil {
		opt.Budget = b.Tree.Budget()
	}
	res := &EmbeddedResult{bundles: map[embeddedKey][]EmbeddedObject{}}
	type shared struct {
		info   *hostbin.Binary
		offset int64
	}
	var jobs []*embeddedJob
	first := map[shared]*embeddedJob{}
	var aliases [][2]any // (key, job) of bundles read through another path
	for _, bin := range b.Binaries {
		if bin.Info == nil || !bin.Info.Embedded() || (keep != nil && !keep(bin)) {
			continue
		}
		inflate := hostbin.NewInflateBudget()
		for _, bd := range bin.Info.Bundles {
			if bd.Err != "" || bd.Offset < 0 || !hasHIPEntry(bd.Entries) {
				continue
			}
			k := embeddedKey{bin.Path, bd.Offset}
			if j := first[shared{bin.Info, bd.Offset}]; j != nil {
				if j.bin != bin {
					aliases = append(aliases, [2]any{k, j})
				}
				continue
			}
			j := &embeddedJob{bin: bin, bundle: bd, inflate: inflate}
			first[shared{bin.Info, bd.Offset}] = j
			jobs = append(jobs, j)
		}
	}
	mem := newBudget(opt.MaxMemory)
	var bytes atomic.Int64
	var mu sync.Mutex
	par.Each(len(jobs), opt.Workers, 1, func() *bundleWorker { return newBundleWorker(opt) }, func(bw *bundleWorker, i int) {
		j := jobs[i]
		var n int64
		if r, ok := early.take(j.bin.Info, j.bundle); ok {
			j.out, n = r.out, r.bytes
		} else {
			n = verifyBundle(j, opt, mem, bw)
		}
		bytes.Add(n)
		mu.Lock()
		res.bundles[embeddedKey{j.bin.Path, j.bundle.Offset}] = j.out
		mu.Unlock()
	})
	for _, a := range aliases {
		k, j := a[0].(embeddedKey), a[1].(*embeddedJob)
		res.bundles[k] = j.out
	}
	res.Bundles = len(jobs)
	for _, j := range jobs {
		res.Entries += len(j.out)
	}
	res.Bytes, res.Peak = bytes.Load(), max(mem.peak, early.peak())
	return res
}

// hasHIPEntry reports whether a bundle has an entry HIP may load for a
// device of one target.
func hasHIPEntry(ids []string) bool {
	for _, id := range ids {
		if _, ok := hip.EntryTarget(id); ok {
			return true
		}
	}
	return false
}

// bundleWorker is what one goroutine of VerifyEmbedded reuses: the
// buffer of the entry it decodes and the meter counting what it
// decompresses against the run's budget.
type bundleWorker struct {
	buf   []byte
	meter *inflate.Meter
}

func newBundleWorker(opt Options) *bundleWorker { return &bundleWorker{meter: opt.Budget.Meter("")} }

// verifyBundle reads and decodes the HIP entries of one bundle in offset
// order into j.out (table order), and returns the code-object bytes
// decoded. bw.buf is the worker's reused buffer; what it holds is taken
// from mem while an entry is decoded.
func verifyBundle(j *embeddedJob, opt Options, mem *budget, bw *bundleWorker) int64 {
	r, err := j.bin.Entry.Open()
	if err != nil {
		j.out = failedObjects(j.bundle, "the binary does not read: "+err.Error(), "")
		return 0
	}
	defer r.Close()
	out, n := verifyBundleAt(r, j.bin.Path, j.bin.Info, j.bundle, j.inflate, opt, mem, bw)
	j.out = out
	return n
}

// failedObjects is an object with Err msg (or Limit limit) for every HIP
// entry of bd.
func failedObjects(bd hostbin.Bundle, msg, limit string) []EmbeddedObject {
	var out []EmbeddedObject
	for i, id := range bd.Entries {
		if _, ok := hip.EntryTarget(id); ok {
			out = append(out, EmbeddedObject{Entry: i, ID: id, Err: msg, Limit: limit})
		}
	}
	return out
}

// verifyBundleAt is verifyBundle reading the binary at path (parsed as
// info) through r: the HIP entries of bundle bd in table order, and the
// code-object bytes decoded. left is the binary's budget of decompressed
// bytes (hostbin.NewInflateBudget).
func verifyBundleAt(r io.ReaderAt, path string, info *hostbin.Binary, bd hostbin.Bundle, left *atomic.Int64, opt Options, mem *budget, bw *bundleWorker) ([]EmbeddedObject, int64) {
	var le *inflate.LimitError
	bw.meter.Name(fmt.Sprintf("the offload bundle at offset %d of %s", bd.Offset, path))
	defer bw.meter.Flush()
	bc, err := hostbin.OpenBundleCode(r, info, bd, left, bw.meter)
	if errors.As(err, &le) {
		return failedObjects(bd, "", err.Error()), 0
	}
	if err != nil {
		return failedObjects(bd, err.Error(), ""), 0
	}
	defer bc.Close()
	var out []EmbeddedObject
	var n int64
	for _, i := range bc.Order() {
		e := bc.Entries[i]
		if _, ok := hip.EntryTarget(e.ID); !ok {
			continue
		}
		o := EmbeddedObject{Entry: i, ID: e.ID, Size: e.Size}
		n += decodeEntry(bc, i, &o, opt, mem, bw)
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b EmbeddedObject) int { return a.Entry - b.Entry })
	return out, n
}

// decodeEntry reads entry i whole when it fits the budget and
// MaxKernelSize (else its first codeobj.HeaderSize bytes) and decodes its
// ELF target into o; it returns the bytes read.
func decodeEntry(bc *hostbin.BundleCode, i int, o *EmbeddedObject, opt Options, mem *budget, bw *bundleWorker) int64 {
	buf := &bw.buf
	size := o.Size
	whole := size <= opt.MaxKernelSize && int64(size) <= mem.total
	want := uint64(codeobj.HeaderSize)
	if whole {
		want = size
	}
	want = min(want, size)
	if uint64(cap(*buf)) < want {
		*buf = make([]byte, want)
	}
	held := mem.acquire(int64(cap(*buf)))
	defer mem.release(held)
	data := (*buf)[:want]
	k, err := bc.ReadEntry(i, data)
	var le *inflate.LimitError
	switch {
	case errors.Is(err, hostbin.ErrInflateLimit), errors.As(err, &le):
		o.Limit = err.Error()
		return 0
	case err != nil:
		o.Err = err.Error()
		return int64(k)
	}
	var id targetid.ID
	if whole {
		id, err = codeobj.DecodeCodeObject(data, bw.meter)
	} else {
		o.HeaderOnly = true
		id, err = codeobj.DecodeHeader(data, size)
	}
	if err != nil {
		o.Err = err.Error()
	} else {
		o.Target = id.String()
	}
	if uint64(cap(*buf)) > uint64(mem.total)/uint64(max(opt.Workers, 1)) {
		*buf = nil // one big entry does not keep its buffer
	}
	return int64(k)
}

// VerifyBundle reads and decodes the HIP entries of one offload bundle bd
// of bin as VerifyEmbedded does (explain's embedded keys), within
// opt.MaxMemory; nil when the bundle does not read.
func VerifyBundle(bin *model.Binary, bd hostbin.Bundle, opt Options) []EmbeddedObject {
	if bin.Info == nil || bd.Err != "" || bd.Offset < 0 {
		return nil
	}
	opt = opt.withDefaults()
	j := &embeddedJob{bin: bin, bundle: bd, inflate: hostbin.NewInflateBudget()}
	verifyBundle(j, opt, newBudget(opt.MaxMemory), newBundleWorker(opt))
	return j.out
}
