package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// The collector's target is firstGCPercent until its first cycle, then
// the one asked for.
func TestFirstCollectionLater(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	firstCollectionLater(firstGCPercent, 200)
	if got := debug.SetGCPercent(firstGCPercent); got != firstGCPercent {
		t.Fatalf("before the first cycle: GOGC %d, want %d", got, firstGCPercent)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(time.Millisecond)
		got := debug.SetGCPercent(firstGCPercent)
		debug.SetGCPercent(got)
		if got == 200 {
			return
		}
	}
	t.Errorf("after collections GOGC is %d, want 200", debug.SetGCPercent(old))
}
