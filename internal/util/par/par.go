// Package par runs independent work items on a few goroutines. Results go
// into slots the caller indexes by item, so output does not depend on
// scheduling.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers returns n if it is positive, else runtime.GOMAXPROCS(0).
func Workers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// Each calls do(state, i) for every i in [0, n), on at most workers
// goroutines (fewer when n is small; the caller's goroutine when one
// suffices). Each goroutine gets its own state from newState (nil for
// none). Items are handed out in order, chunk items at a time (chunk < 1
// means 1), fewer when n is too small for every worker to get four
// chunks: a build of an archive and a host binary reads them on two
// goroutines. It returns when every call has returned.
func Each[S any](n, workers, chunk int, newState func() S, do func(s S, i int)) {
	workers = Workers(workers)
	chunk = max(min(chunk, n/(4*workers)), 1)
	workers = min(workers, (n+chunk-1)/chunk)
	state := func() (s S) {
		if newState != nil {
			s = newState()
		}
		return s
	}
	if workers <= 1 {
		s := state()
		for i := range n {
			do(s, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := state()
			for {
				start := int(next.Add(int64(chunk))) - chunk
				if start >= n {
					return
				}
				for i := start; i < min(start+chunk, n); i++ {
					do(s, i)
				}
			}
		}()
	}
	wg.Wait()
}
