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

// A switch left pending by an earlier run does not overwrite a later
// run's target: after both first cycles, the later run's percent holds.
func TestFirstCollectionLaterTwice(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	firstCollectionLater(firstGCPercent, 300)
	firstCollectionLater(firstGCPercent, 150)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if got := debug.SetGCPercent(-1); got != firstGCPercent {
			debug.SetGCPercent(got)
			if got != 150 {
				t.Fatalf("GOGC %d after the first cycle, want the later run's 150", got)
			}
			return
		}
		debug.SetGCPercent(firstGCPercent)
	}
	t.Error("the target never left firstGCPercent")
}
