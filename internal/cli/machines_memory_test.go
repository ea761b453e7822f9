package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocm-tools/kpack-lint/sim"
)

// The machines x binaries a fleet check judges (issue 17's simulation at
// its limits): every machine x failing binary is an outcome of a few
// dozen bytes, and only the findings a report can show are worded.

// fleetPolicy writes a policy of n machines, each an iGPU (gfx1036) and
// one of ten GPUs on one of five HIP releases.
func fleetPolicy(t *testing.T, n int) string {
	t.Helper()
	isas := []string{"gfx1100", "gfx1036", "gfx942", "gfx90a", "gfx1151", "gfx1030", "gfx906", "gfx908", "gfx950", "gfx1201"}
	hips := []string{"5.2", "6.2", "6.3", "7.2", "newest"}
	var b strings.Builder
	b.WriteString("version: 1\nvariants:\n  release:\n    targets: [gfx1100]\nmachines:\n")
	for i := range n {
		fmt.Fprintf(&b, "  m%d:\n    devices: [gfx1036, %s]\n    hip: '%s'\n", i, isas[i%len(isas)], hips[i%len(hips)])
	}
	p := filepath.Join(t.TempDir(), "fleet.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fleetTree writes bins copies of therock-5543's libtorch_hip.so
// (embedded code for gfx1100-gfx1103), each with a byte of its own.
func fleetTree(t *testing.T, bins int) string {
	t.Helper()
	lib, err := os.ReadFile(filepath.Join(scenario("therock-5543-igpu-first"), "tree", "torch", "lib", "libtorch_hip.so"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "torch", "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range bins {
		data := append(append([]byte(nil), lib...), byte(i))
		if err := os.WriteFile(filepath.Join(dir, "torch", "lib", fmt.Sprintf("libx%d.so", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// peakHeap samples HeapInuse until stop, which returns its peak growth
// over the heap when peakHeap was called (after a collection).
func peakHeap() (stop func() uint64) {
	runtime.GC()
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var mu sync.Mutex
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			mu.Lock()
			peak = max(peak, ms.HeapInuse)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak - min(peak, ms0.HeapInuse)
	}
}

// fleetGC collects at twice the live heap for the test (check keeps
// GOGC when it is set), so the peak measures what the run holds.
func fleetGC(t *testing.T) {
	t.Setenv("GOGC", "100")
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })
}

// TestFleetMemory: 4,096 machines x 64 failing binaries (about 480,000
// outcomes, each binary's findings past 100 merged) check within a
// bounded heap; wording every finding first took about 1.5 GiB.
func TestFleetMemory(t *testing.T) {
	fleetGC(t)
	pol, dir := fleetPolicy(t, 4096), fleetTree(t, 64)
	out := filepath.Join(t.TempDir(), "report.txt")
	var stderr strings.Builder
	stop := peakHeap()
	code := Run(context.Background(), []string{"kpack-lint", "check", "--policy", pol, "--quiet", "--output", "text=" + out, dir}, io.Discard, &stderr)
	grew := stop()
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	report, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("4096 machines x 64 binaries: peak HeapInuse grew %d MiB", grew>>20)
	for _, w := range []string{
		"error KPL001 unreachable-kernel: 7272 more KPL001 findings about torch/lib/libx0.so were merged into this one",
		"machine m4095: HIP 5.2; devices 0 gfx1036, 1 gfx1030: 64 binaries: 0 clean, 64 failing (aborted 64)",
	} {
		if !strings.Contains(string(report), w) {
			t.Errorf("report does not say %q", w)
		}
	}
	if limit := uint64(256 << 20); grew > limit {
		t.Errorf("peak HeapInuse grew %d MiB, more than %d MiB", grew>>20, limit>>20)
	}
}

// TestFleetLimit: a run whose machines find more than
// rules.MaxMachineOutcomes outcomes stops judging and exits 2 naming the
// limit and the ways out, never a pass or an out-of-memory crash.
func TestFleetLimit(t *testing.T) {
	fleetGC(t)
	pol, dir := fleetPolicy(t, 4096), fleetTree(t, 150)
	stop := peakHeap()
	code, _, stderr := run(t, "check", "--policy", pol, dir)
	grew := stop()
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d: %s", code, ExitUsage, stderr)
	}
	t.Logf("4096 machines x 150 binaries: peak HeapInuse grew %d MiB", grew>>20)
	for _, w := range []string{fmt.Sprintf("the 4096 simulated machines found more than %d groups of devices", sim.MaxMachineOutcomes),
		"--machine", "--shard I/N"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr does not say %q: %s", w, stderr)
		}
	}
	if limit := uint64(256 << 20); grew > limit {
		t.Errorf("peak HeapInuse grew %d MiB, more than %d MiB", grew>>20, limit>>20)
	}
}
