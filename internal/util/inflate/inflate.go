// Package inflate holds a run's budget of decompressed bytes: one
// allowance that every decoder of one kpack-lint run draws on, whatever
// it decodes (xz, gzip and zstd tarball, .deb and rpm payloads, deflated
// and zstd zip members, compressed ELF sections, compressed offload
// bundles, the zstd frames of kpack archives under --deep) and however
// many goroutines decode at once.
//
// Each decoder has its own bound besides (a member's declared size, a
// section's MaxInflate, a kernel's MaxKernelSize); the budget bounds their
// sum, which a small input can otherwise make huge: 950 KB of xz stream
// decompress to 6 GiB of zeros in 74 s of CPU, members that are never
// kept but must be decoded to reach the next header.
//
// The budget is an atomic counter charged in chunks: a Meter gathers one
// goroutine's bytes and charges them Chunk at a time (and what is left on
// Flush), so the counter costs one atomic add per MiB decoded. Whether a
// run passes the limit depends only on what it decodes, not on the order
// its goroutines run in; once it is passed, every later charge fails, so
// every decoder stops at its next chunk with a *LimitError.
//
// A decoder joins the budget at the reader level: its output is wrapped in
// a Reader (Budget.Reader for a stream of its own, Meter.Reader to share a
// goroutine's meter), or it calls Meter.Add with what it produced (one
// frame decoded in place). Any decoder can be wrapped so, a whole stream
// or one block of an indexed one.
package inflate

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// DefaultMaxBytes is the budget of a run when none is given (New(0)):
// 4 GiB. The largest real builds measured fit it: a check of Debian 13's
// librocblas0 5.5.1 draws 2.31 GB (its data.tar.xz, read once), of all
// nine of Debian 13's ROCm library packages in one run 4.28 GB, and
// `check --deep` of the TheRock-sized generated build (benchtree therock,
// scale 1) 3.45 GB (its code objects). At xz's 6-12 s of CPU per GiB
// (github.com/ulikunitz/xz), a stream spending it takes 25-50 s.
const DefaultMaxBytes int64 = 4 << 30

// Chunk is how many bytes a Meter gathers before it charges the budget.
const Chunk = 1 << 20

// Budget is one run's allowance of decompressed bytes. It is safe for
// concurrent use. A nil *Budget is no budget: every charge succeeds.
type Budget struct {
	limit int64
	used  atomic.Int64

	mu    sync.Mutex
	first *LimitError // the first charge that passed the limit
}

// New returns a budget of limit bytes; limit <= 0 means DefaultMaxBytes.
func New(limit int64) *Budget {
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	return &Budget{limit: limit}
}

// Limit is the budget's size in bytes (0 for a nil budget: no limit).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Used is the bytes charged so far (bytes a Meter still gathers are not
// counted until it charges them).
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// Spent reports whether a charge has passed the limit.
func (b *Budget) Spent() bool { return b != nil && b.used.Load() > b.limit }

// Err is the *LimitError of the first charge that passed the limit, nil
// while none has.
func (b *Budget) Err() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.first == nil {
		return nil
	}
	return b.first
}

// Charge adds n decompressed bytes of the stream named what and fails
// with a *LimitError naming it when the total passes the limit (and on
// every charge after that one). n <= 0 charges nothing and never fails.
func (b *Budget) Charge(n int64, what string) error {
	if b == nil || n <= 0 {
		return nil
	}
	if b.used.Add(n) <= b.limit {
		return nil
	}
	return b.exceeded(what)
}

// exceeded records and returns the error of a charge past the limit.
func (b *Budget) exceeded(what string) error {
	e := &LimitError{Limit: b.limit, What: what}
	b.mu.Lock()
	if b.first == nil {
		b.first = e
	}
	b.mu.Unlock()
	return e
}

// LimitError is a stream whose bytes passed the run's budget: Limit is the
// budget in bytes, What names the stream ("input bomb.rpm", "zstd frames
// of archive .kpack/x.kpack").
type LimitError struct {
	Limit int64
	What  string
}

// Error names the stream and the budget.
func (e *LimitError) Error() string {
	return fmt.Sprintf("decompressing %s passed the run's budget of %s of decompressed data (inflate.Budget); it was not read further",
		e.What, Size(e.Limit))
}

// Size renders a byte count in the largest binary unit that divides it
// ("4 GiB", "1536 MiB", "100 bytes").
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// Meter gathers the decompressed bytes of one goroutine's streams and
// charges them to a budget Chunk at a time. It is not safe for concurrent
// use: each decoding goroutine has its own. The zero Meter (or one of a
// nil budget) charges nothing.
type Meter struct {
	b            *Budget
	prefix, what string // the stream is named prefix+what
	pending      int64
}

// Meter returns a meter charging b for the stream named what.
func (b *Budget) Meter(what string) *Meter { return &Meter{b: b, what: what} }

// Name sets what the meter's next charges name (the stream a worker
// decodes next); it charges what was gathered for the previous one first.
func (m *Meter) Name(what string) error {
	err := m.Flush()
	m.what = what
	return err
}

// Prefix sets what goes before every name of the meter's streams
// ("host binary " before each path Name sets), joined only when an error
// names one.
func (m *Meter) Prefix(p string) { m.prefix = p }

// charge is Budget.Charge for the meter's stream.
func (m *Meter) charge(n int64) error {
	if n <= 0 || m.b == nil {
		return nil
	}
	if m.b.used.Add(n) <= m.b.limit {
		return nil
	}
	return m.b.exceeded(m.prefix + m.what)
}

// Add counts n decompressed bytes, charging the budget once Chunk bytes
// are gathered. It fails with a *LimitError when the budget is passed,
// and at the start of each chunk when another stream passed it already,
// so that every decoder stops within a chunk.
func (m *Meter) Add(n int) error {
	if m == nil || m.b == nil || n <= 0 {
		return nil
	}
	if m.pending == 0 && m.b.Spent() {
		return m.charge(1)
	}
	m.pending += int64(n)
	if m.pending < Chunk {
		return nil
	}
	return m.Flush()
}

// Check fails with a *LimitError when the budget is already passed: what
// a decoder asks before work it cannot stop halfway (one frame decoded in
// place).
func (m *Meter) Check() error {
	if m == nil || !m.b.Spent() {
		return nil
	}
	return m.charge(1)
}

// Flush charges the bytes gathered so far.
func (m *Meter) Flush() error {
	if m == nil || m.b == nil {
		return nil
	}
	n := m.pending
	m.pending = 0
	return m.charge(n)
}

// Reader counts what it reads from a decoder with a Meter. A read that
// passes the budget returns its bytes with the *LimitError, and every
// later read fails with it. Close charges what is left and closes the
// decoder when it is an io.Closer.
type Reader struct {
	r   io.Reader
	m   *Meter
	err error
}

// Reader returns r counted against b as the stream named what, with a
// meter of its own.
func (b *Budget) Reader(r io.Reader, what string) *Reader {
	return &Reader{r: r, m: b.Meter(what)}
}

// Reader returns r counted with m (nil: not counted); the meter's owner
// flushes it, or the Reader's Close does.
func (m *Meter) Reader(r io.Reader) *Reader { return &Reader{r: r, m: m} }

// Read reads from the decoder and counts the bytes.
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.r.Read(p)
	if e := r.m.Add(n); e != nil {
		r.err = e
		return n, e
	}
	if err != nil {
		if e := r.m.Flush(); e != nil {
			r.err = e
			return n, e
		}
	}
	return n, err
}

// Close charges the bytes not charged yet and closes the decoder if it
// has a Close method; the charge's error comes first.
func (r *Reader) Close() error {
	err := r.m.Flush()
	if c, ok := r.r.(io.Closer); ok {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
