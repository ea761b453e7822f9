package vfs

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// zeros is an endless stream of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// writeLargeTarGz streams members x size bytes of zeros into a tar.gz.
func writeLargeTarGz(t testing.TB, members int, size int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "large.tar.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	zw, _ := gzip.NewWriterLevel(bw, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	for i := range members {
		h := &tar.Header{Name: fmt.Sprintf("lib/big%03d.so", i), Mode: 0o644, Size: size, Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := io.CopyN(tw, zeros{}, size); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []io.Closer{tw, zw} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	return p
}

// peakMem samples runtime memory until stop is called and returns the peak
// HeapInuse and the growth of Sys since the call, in bytes (Sys never
// shrinks, so earlier tests of the package would count otherwise).
func peakMem() (stop func() (heap, sys uint64)) {
	var mu sync.Mutex
	var heap, sys uint64
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			mu.Lock()
			heap, sys = max(heap, ms.HeapInuse), max(sys, ms.Sys)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() (uint64, uint64) {
		close(done)
		wg.Wait()
		return heap, sys - min(sys, ms0.Sys)
	}
}

// vmHWM returns the process's peak resident set from /proc, or "".
func vmHWM() string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	return ""
}

// TestLargeTarGzMemory indexes a 200 MiB tar.gz (25 members of 8 MiB) and
// reports peak Go memory, first keeping every member (they go to the
// spill file), then keeping none.
func TestLargeTarGzMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 200 MiB tar.gz")
	}
	p := writeLargeTarGz(t, 25, 8<<20)
	for _, mode := range []string{"keep-all", "keep-none"} {
		opt := Options{}
		if mode == "keep-none" {
			opt.Want = func(string, []byte) bool { return false }
		}
		runtime.GC()
		stop := peakMem()
		start := time.Now()
		tr, err := Open([]string{p}, opt)
		if err != nil {
			t.Fatal(err)
		}
		elapsed := time.Since(start)
		if n := len(tr.Files()); n != 25 {
			t.Errorf("%d files", n)
		}
		ok, err := SameContent(tr.Files()[0], tr.Files()[24])
		if err != nil || !ok {
			t.Errorf("SameContent = %v, %v", ok, err)
		}
		heap, sys := stop()
		tr.Close()
		t.Logf("%s: 200 MiB indexed in %v; peak HeapInuse %.1f MiB, Sys grew %.1f MiB, VmHWM %s",
			mode, elapsed.Round(time.Millisecond), float64(heap)/(1<<20), float64(sys)/(1<<20), vmHWM())
		if sys > 150<<20 {
			t.Errorf("%s: Sys grew %d MiB, more than 150 MiB", mode, sys>>20)
		}
	}
}
