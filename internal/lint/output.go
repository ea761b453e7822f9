package lint

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
	"github.com/rocm-tools/kpack-lint/report"
)

// write is the last stage: every report of cfg.Report.Outputs is rendered
// into memory first, so a failed render writes no file, then the files
// are written (each replaced whole: fsutil.WriteFile) and stdout. Only
// stdout (and "-") gets colours.
func write(cfg *Config, run report.Run) error {
	type rendered struct {
		path string
		data []byte
	}
	var all []rendered
	for _, o := range cfg.Report.Outputs {
		r := run
		r.Color = o.Path == "-" && cfg.Report.Color
		var buf bytes.Buffer
		if err := report.Write(&buf, o.Format, r); err != nil {
			return err
		}
		all = append(all, rendered{o.Path, buf.Bytes()})
	}
	g := cfg.Report.Guard
	for _, r := range all {
		stream := r.path == "-" || fsutil.WrittenInPlace(r.path)
		if err := g.write(r.path, stream, func() error {
			if r.path == "-" {
				_, err := cfg.Report.Stdout.Write(r.data)
				return err
			}
			return fsutil.WriteFile(r.path, r.data) // temp file + rename: a failed write keeps the old report
		}); err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
	}
	return nil
}

// WriteGuard orders the writing of reports with an interrupt: each
// report is written whole, and Stop stops the later ones and names the
// reports written so far. A file being replaced (a temporary file renamed
// over it) is finished before Stop returns, so an interrupt never leaves
// part of a report there; a stream (stdout, a FIFO, a device) can wait
// on its reader for ever, so Stop waits for it at most StreamWait and
// then names it as cut short. The zero WriteGuard is ready; a nil one
// writes without a lock.
type WriteGuard struct {
	mu      sync.Mutex
	stopped bool
	written []string
	busy    chan struct{} // closed when the write in progress ends; nil when none
	path    string        // the report being written
	stream  bool          // it is a stream
}

// StreamWait is how long Stop waits for a stream being written.
const StreamWait = 2 * time.Second

// errStopped is write's error once Stop was called.
var errStopped = errors.New("interrupted")

// write runs do (writing the report at path, "-" for stdout; stream when
// it is written in place) unless Stop was called, and records path.
func (g *WriteGuard) write(path string, stream bool, do func() error) error {
	if g == nil {
		return do()
	}
	g.mu.Lock()
	if g.stopped {
		g.mu.Unlock()
		return errStopped
	}
	done := make(chan struct{})
	g.busy, g.path, g.stream = done, path, stream
	g.mu.Unlock()
	err := do()
	g.mu.Lock()
	defer g.mu.Unlock()
	close(done)
	g.busy = nil
	if err == nil {
		g.written = append(g.written, path)
	}
	return err
}

// Stop stops every later report (write returns an error and writes
// nothing), waits for the one being written (a stream at most
// StreamWait) and returns the paths written ("-" for stdout), in order,
// and the stream it stopped waiting for ("" when none).
func (g *WriteGuard) Stop() (written []string, cut string) {
	g.mu.Lock()
	g.stopped = true
	busy, path, stream := g.busy, g.path, g.stream
	g.mu.Unlock()
	if busy != nil {
		if !stream {
			<-busy
		} else {
			select {
			case <-busy:
			case <-time.After(StreamWait):
				cut = path
			}
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.written), cut
}
