package lint

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"

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
		if err := g.write(r.path, func() error {
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
// report is written whole under its lock, and Stop takes the lock for
// good and names the reports written so far. The zero WriteGuard is
// ready; a nil one writes without a lock.
type WriteGuard struct {
	mu      sync.Mutex
	stopped bool
	written []string
}

// errStopped is write's error once Stop was called.
var errStopped = errors.New("interrupted")

// write runs do (writing the report at path, "-" for stdout) unless Stop
// was called, and records path.
func (g *WriteGuard) write(path string, do func() error) error {
	if g == nil {
		return do()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return errStopped
	}
	if err := do(); err != nil {
		return err
	}
	g.written = append(g.written, path)
	return nil
}

// Stop waits for a report being written, stops every later one (write
// returns an error and writes nothing) and returns the paths written
// ("-" for stdout), in order.
func (g *WriteGuard) Stop() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = true
	return slices.Clone(g.written)
}
