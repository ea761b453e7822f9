package verify

import "sync"

// budget is a counting semaphore over bytes of decompressed data. A request
// larger than the whole budget is clamped to it, so it waits until every
// other holder has released and then runs alone.
type budget struct {
	mu    sync.Mutex
	cond  *sync.Cond
	total int64
	free  int64
	peak  int64 // most bytes held at once
}

func newBudget(total int64) *budget {
	b := &budget{total: total, free: total}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// acquire blocks until n bytes (clamped to the total) are free, takes them
// and returns the amount taken, to be passed to release.
func (b *budget) acquire(n int64) int64 {
	n = min(max(n, 0), b.total)
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.free < n {
		b.cond.Wait()
	}
	b.free -= n
	b.peak = max(b.peak, b.total-b.free)
	return n
}

// release returns n bytes taken by acquire.
func (b *budget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	b.cond.Broadcast()
}
