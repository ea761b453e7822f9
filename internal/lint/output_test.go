package lint

import (
	"testing"
	"time"
)

// TestWriteGuardStop: Stop waits for a file being replaced to be done
// (never part of a report), waits for a stream whose reader does not
// take it at most StreamWait and names it cut short, and stops every
// later write.
func TestWriteGuardStop(t *testing.T) {
	var g WriteGuard
	started := make(chan struct{})
	go g.write("r.sarif", false, func() error {
		close(started)
		time.Sleep(300 * time.Millisecond)
		return nil
	})
	<-started
	written, cut := g.Stop()
	if len(written) != 1 || written[0] != "r.sarif" || cut != "" {
		t.Errorf("a file being written: Stop = %v, %q; want [r.sarif] and no cut", written, cut)
	}

	var s WriteGuard
	block := make(chan struct{})
	defer close(block)
	started = make(chan struct{})
	go s.write("fifo", true, func() error {
		close(started)
		<-block // a reader that never reads
		return nil
	})
	<-started
	begin := time.Now()
	written, cut = s.Stop()
	if took := time.Since(begin); len(written) != 0 || cut != "fifo" || took > StreamWait+5*time.Second {
		t.Errorf("a stuck stream: Stop = %v, %q after %v; want none written, fifo cut, within %v", written, cut, took, StreamWait)
	}
	if err := s.write("later.json", false, func() error { t.Error("a write after Stop ran"); return nil }); err != errStopped {
		t.Errorf("a write after Stop: %v", err)
	}
}
