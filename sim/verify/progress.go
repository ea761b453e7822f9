package verify

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress shows archives done, throughput (MB/s of archive bytes) and ETA
// on a terminal. A nil *progress is silent.
type progress struct {
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	done  int
	total int
}

// newProgress returns nil when w is nil.
func newProgress(w io.Writer, bytes int64, archives int) *progress {
	if w == nil {
		return nil
	}
	bar := progressbar.NewOptions64(bytes,
		progressbar.OptionSetWriter(w),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetDescription(describe(0, archives)),
		progressbar.OptionClearOnFinish())
	return &progress{bar: bar, total: archives}
}

func describe(done, total int) string {
	return fmt.Sprintf("deep: %d/%d archives", done, total)
}

// add counts n archive bytes read.
func (p *progress) add(n int64) {
	if p == nil || n <= 0 {
		return
	}
	_ = p.bar.Add64(n)
}

// archiveDone counts one archive and the rest of its bytes not yet added.
func (p *progress) archiveDone(rest int64) {
	if p == nil {
		return
	}
	p.add(rest)
	p.mu.Lock()
	p.done++
	p.bar.Describe(describe(p.done, p.total))
	p.mu.Unlock()
}

func (p *progress) finish() {
	if p == nil {
		return
	}
	_ = p.bar.Finish()
}
