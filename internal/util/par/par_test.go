package par

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestEach: every item runs once, whatever the workers and chunk, and each
// goroutine's state is its own.
func TestEach(t *testing.T) {
	for _, tc := range []struct{ n, workers, chunk int }{{0, 4, 1}, {1, 4, 1}, {100, 1, 3}, {100, 4, 1}, {1000, 3, 7}, {5, 8, 0}} {
		hits := make([]atomic.Int32, tc.n)
		var states atomic.Int32
		Each(tc.n, tc.workers, tc.chunk, func() *int { states.Add(1); return new(int) }, func(s *int, i int) {
			*s++ // a data race here would mean shared state
			hits[i].Add(1)
		})
		for i := range hits {
			if hits[i].Load() != 1 {
				t.Fatalf("%+v: item %d ran %d times", tc, i, hits[i].Load())
			}
		}
		if tc.n > 0 && (states.Load() < 1 || int(states.Load()) > max(tc.workers, 1)) {
			t.Errorf("%+v: %d states", tc, states.Load())
		}
	}
}

// TestEachSmall: two items with a chunk of 16 still run on two
// goroutines (each waits for the other to start), so a build of one
// archive and one host binary reads them at once.
func TestEachSmall(t *testing.T) {
	var started sync.WaitGroup
	started.Add(2)
	done := make(chan struct{})
	go func() {
		Each(2, 2, 16, nil, func(_ any, i int) {
			started.Done()
			started.Wait() // deadlocks if one goroutine runs both
		})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("two items ran on one goroutine")
	}
}
