package benchtree_test

// Benchmarks over generated trees (docs/performance.md). The therock and
// single shapes run at scale 0.1 unless KPACK_BENCH_BIG=1 (full size:
// ~1.25 GB and ~100 MB of archives, about 25 s to generate) or
// KPACK_BENCH_SCALE=F. Trees are cached in KPACK_BENCH_DIR when set
// (scripts/bench-vs-python.sh shares its trees that way), else in a
// temporary folder removed on exit.
//
//	KPACK_BENCH_BIG=1 go test ./internal/testutil/benchtree -run '^$' -bench . -benchtime 3x
//	go test ./internal/testutil/benchtree -run '^$' -bench 'Simulate' -cpu 1

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/cli"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/benchtree"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim"
)

var benchTmp string // the temporary cache, removed by TestMain

func TestMain(m *testing.M) {
	code := m.Run()
	if benchTmp != "" {
		_ = os.RemoveAll(benchTmp)
	}
	os.Exit(code)
}

func big() bool { return os.Getenv("KPACK_BENCH_BIG") == "1" }

// benchScale is KPACK_BENCH_SCALE, else 1 with KPACK_BENCH_BIG=1, else 0.1.
func benchScale(b *testing.B) float64 {
	if s := os.Getenv("KPACK_BENCH_SCALE"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f <= 0 {
			b.Fatalf("KPACK_BENCH_SCALE=%q: want a positive number", s)
		}
		return f
	}
	if big() {
		return 1
	}
	return 0.1
}

// benchTree returns the directory and manifest of a shape, generating it
// on first use; therock and single are scaled (benchScale).
func benchTree(b *testing.B, shape string) (string, *benchtree.Manifest) {
	b.Helper()
	opt := benchtree.Options{}
	if shape == "therock" || shape == "single" {
		opt.Scale = benchScale(b)
	}
	t, err := benchtree.Preset(shape, opt)
	if err != nil {
		b.Fatal(err)
	}
	root := os.Getenv("KPACK_BENCH_DIR")
	if root == "" {
		if benchTmp == "" {
			if benchTmp, err = os.MkdirTemp("", "benchtree-"); err != nil {
				b.Fatal(err)
			}
		}
		root = benchTmp
	}
	dir := filepath.Join(root, t.DirName())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	m, err := benchtree.Ensure(dir, t, runtime.GOMAXPROCS(0))
	if err != nil {
		b.Fatal(err)
	}
	return dir, m
}

// BenchmarkCheck runs `kpack-lint check` in-process (text report to
// io.Discard), as scripts/bench-vs-python.sh runs the binary.
func BenchmarkCheck(b *testing.B) {
	for _, shape := range []string{"single", "therock"} {
		b.Run(shape, func(b *testing.B) { benchCLI(b, shape) })
	}
}

// BenchmarkCheckDeep runs `kpack-lint check --deep`; throughput is
// decompressed code-object bytes.
func BenchmarkCheckDeep(b *testing.B) {
	for _, shape := range []string{"single", "therock"} {
		b.Run(shape, func(b *testing.B) { benchCLI(b, shape, "--deep") })
	}
}

// BenchmarkGroupScaling checks one kpack group of N test binaries (4
// kernels each, 2 archives): the per-entry cost should not grow with N.
func BenchmarkGroupScaling(b *testing.B) {
	for _, n := range []int{100, 200, 400, 800, 1600} {
		b.Run(fmt.Sprintf("binaries=%d", n), func(b *testing.B) { benchCLI(b, fmt.Sprintf("group:%d", n)) })
	}
}

// BenchmarkArchiveOnly checks one group of N kernel names with no host
// binary (each name is its own project); up to 5,000 unless big().
func BenchmarkArchiveOnly(b *testing.B) {
	for _, n := range []int{1250, 2500, 5000, 10000, 20000} {
		b.Run(fmt.Sprintf("names=%d", n), func(b *testing.B) {
			if n > 5000 && !big() {
				b.Skip("KPACK_BENCH_BIG=1 runs it")
			}
			benchCLI(b, fmt.Sprintf("archive-only:%d", n))
		})
	}
}

// BenchmarkRuleScaling times each rule of check (rules.Context.RuleTimes,
// one worker) on one group of N binaries and on an archive-only group of
// N names; the metric <rule>-ns/entry should not grow with N. Each shape
// runs in two modes: mode=load reads the tree anew before every run (as a
// CLI run does: the rules run once per process, after the load and the
// simulation touched the same tables), mode=steady runs back to back on
// one loaded model (collections triggered by the previous runs' garbage
// land inside the rules; in the large runs more of them, as the small
// runs' heap stays under the runtime's 4 MB minimum). A third mode, a
// collection before every run, was dropped: the runtime then gives freed
// memory back to the system while the next run works, and the wall-clock
// rule times absorbed that work and the page faults after it (a rule
// 5x dearer in one run, not in the next).
func BenchmarkRuleScaling(b *testing.B) {
	for _, shape := range []string{"group:100", "group:1600", "archive-only:1250", "archive-only:20000"} {
		for _, mode := range []string{"load", "steady"} {
			b.Run(strings.ReplaceAll(shape, ":", "=")+"/mode="+mode, func(b *testing.B) {
				if shape == "archive-only:20000" && !big() {
					b.Skip("KPACK_BENCH_BIG=1 runs it")
				}
				ruleTimes(b, shape, mode)
			})
		}
	}
}

// ruleTimes runs check on the shape's tree in the mode and reports each
// rule's time per TOC entry.
func ruleTimes(b *testing.B, shape, mode string) {
	dir, m := benchTree(b, shape)
	pol, err := policy.Load(filepath.Join(dir, benchtree.PolicyFile))
	if err != nil {
		b.Fatal(err)
	}
	load := func() (*model.Build, func()) {
		tree, err := vfs.Open([]string{filepath.Join(dir, benchtree.TreeDir)}, vfs.Options{Want: model.Wanted})
		if err != nil {
			b.Fatal(err)
		}
		return model.Load(tree), func() { tree.Close() }
	}
	bld, done := load()
	defer func() { done() }()
	times := map[string]time.Duration{}
	for b.Loop() {
		if mode == "load" {
			done()
			bld, done = load()
		}
		if _, err := lint.Run(bld, lint.Config{Policy: pol, Workers: 1, RuleTimes: times}); err != nil {
			b.Fatal(err)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(times)) {
		b.ReportMetric(float64(times[id].Nanoseconds())/float64(b.N)/float64(m.Entries), id+"-ns/entry")
	}
}

func benchCLI(b *testing.B, shape string, flags ...string) {
	dir, m := benchTree(b, shape)
	args := append([]string{"kpack-lint", "check", "--policy", filepath.Join(dir, benchtree.PolicyFile), "--format", "text"}, flags...)
	args = append(args, filepath.Join(dir, benchtree.TreeDir))
	if len(flags) > 0 {
		b.SetBytes(m.ObjectBytes)
	}
	var stderr bytes.Buffer
	cpu0 := cpuTime()
	for b.Loop() {
		stderr.Reset()
		if code := cli.Run(context.Background(), args, io.Discard, &stderr); code > cli.ExitFindings {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
	reportPerEntry(b, m.Entries, cpu0)
}

// reportPerEntry adds ns/entry (per TOC entry), the CPU time per entry
// since cpu0 (user + system, all threads: steadier than wall time when
// other jobs share the machine) and the entry count.
func reportPerEntry(b *testing.B, entries int, cpu0 time.Duration) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(entries), "ns/entry")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(entries), "cpu-ns/entry")
	}
	b.ReportMetric(float64(entries), "entries")
}

// BenchmarkMachines times `kpack-lint check` of the therock tree with its
// policy (plain) and with the same policy and 64 machines
// (Tree.MachinesPolicy), in-process as BenchmarkCheck; the goal is at
// most twice the plain check (issue 17). Alternate the two in rounds on a
// shared machine and compare them with benchstat.
func BenchmarkMachines(b *testing.B) {
	dir, m := benchTree(b, "therock")
	t, err := benchtree.Preset("therock", benchtree.Options{Scale: benchScale(b)})
	if err != nil {
		b.Fatal(err)
	}
	machines := filepath.Join(b.TempDir(), "machines.yaml")
	if err := os.WriteFile(machines, []byte(t.MachinesPolicy(64)), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, policy string }{{"plain", filepath.Join(dir, benchtree.PolicyFile)}, {"machines=64", machines}} {
		b.Run(c.name, func(b *testing.B) {
			args := []string{"kpack-lint", "check", "--policy", c.policy, "--format", "text", filepath.Join(dir, benchtree.TreeDir)}
			var stderr bytes.Buffer
			cpu0 := cpuTime()
			for b.Loop() {
				stderr.Reset()
				if code := cli.Run(context.Background(), args, io.Discard, &stderr); code > cli.ExitFindings {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
			reportPerEntry(b, m.Entries, cpu0)
		})
	}
}

// BenchmarkLoad reads the tree into the model (archive headers and TOCs,
// host binaries), as check does before simulating.
func BenchmarkLoad(b *testing.B) {
	for _, shape := range []string{"single", "therock"} {
		b.Run(shape, func(b *testing.B) {
			dir, m := benchTree(b, shape)
			cpu0 := cpuTime()
			for b.Loop() {
				tree, err := vfs.Open([]string{filepath.Join(dir, benchtree.TreeDir)}, vfs.Options{Want: model.Wanted})
				if err != nil {
					b.Fatal(err)
				}
				if bld := model.Load(tree); len(bld.Archives) != m.Archives {
					b.Fatalf("%d archives, want %d", len(bld.Archives), m.Archives)
				}
				tree.Close()
			}
			reportPerEntry(b, m.Entries, cpu0)
		})
	}
}

// BenchmarkSimulate times the simulation of the therock tree. "check" is
// sim.Simulate as check runs it (one plan per agent shared by the sites
// of a folder, each archive x target fetched once per kernel); "plan.Load"
// is resolver.Plan.Load per kernel, agent and loader with the plans built
// beforehand (the per-load API explain uses). Run with -cpu 1 for
// simulations per second per core; both loaders count.
func BenchmarkSimulate(b *testing.B) {
	dir, _ := benchTree(b, "therock")
	c := checkContext(b, dir).Context
	type unit struct {
		plan *resolver.Plan
		keys []string
	}
	var units []unit
	loads := 0
	for _, s := range c.Sites {
		for _, a := range c.Agents {
			req := s.Request
			req.ArchList = a.ArchList
			units = append(units, unit{resolver.NewPlan(c.Build, req), s.Kernels})
			loads += 2 * len(s.Kernels)
		}
	}
	b.Run("check", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			run := c.Result
			run.Outcomes = nil
			sim.Simulate(c.Build, &run, nil, 0)
		}
		reportSims(b, loads, cpu0)
	})
	b.Run("plan.Load", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			for _, u := range units {
				for _, key := range u.keys {
					u.plan.Load(c.Build, key, finding.Legacy)
					u.plan.Load(c.Build, key, finding.Fallthrough)
				}
			}
		}
		reportSims(b, loads, cpu0)
	})
}

func reportSims(b *testing.B, loads int, cpu0 time.Duration) {
	b.ReportMetric(float64(loads)*float64(b.N)/b.Elapsed().Seconds(), "sims/s")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(loads)*float64(b.N)/cpu.Seconds(), "sims/cpu-s")
	}
	b.ReportMetric(float64(loads), "sims")
}

// checkContext runs check once (policy targets, no --deep) for its sites
// and agents.
func checkContext(b *testing.B, dir string) *lint.Result {
	b.Helper()
	tree, err := vfs.Open([]string{filepath.Join(dir, benchtree.TreeDir)}, vfs.Options{Want: model.Wanted})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tree.Close() })
	pol, err := policy.Load(filepath.Join(dir, benchtree.PolicyFile))
	if err != nil {
		b.Fatal(err)
	}
	res, err := lint.Run(model.Load(tree), lint.Config{Policy: pol})
	if err != nil {
		b.Fatal(err)
	}
	return res
}

// BenchmarkTOCParse opens archives from memory as check does (kpack.Open
// with SkipFrameChain: header, TOC, zstd frame count); throughput is TOC
// bytes. scripts/bench-vs-python.sh times msgpack.unpackb on the same TOC
// bytes.
func BenchmarkTOCParse(b *testing.B) {
	for _, shape := range []string{"single", "therock"} {
		b.Run(shape, func(b *testing.B) {
			dir, m := benchTree(b, shape)
			files, tocBytes := readArchives(b, filepath.Join(dir, benchtree.TreeDir))
			b.SetBytes(tocBytes)
			cpu0 := cpuTime()
			for b.Loop() {
				for _, data := range files {
					if _, err := kpack.OpenOptions(bytes.NewReader(data), int64(len(data)), kpack.Options{SkipFrameChain: true}); err != nil {
						b.Fatal(err)
					}
				}
			}
			reportPerEntry(b, m.Entries, cpu0)
		})
	}
}

// readArchives reads every .kpack file under root and sums their TOC sizes.
func readArchives(b *testing.B, root string) ([][]byte, int64) {
	var files [][]byte
	var toc int64
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || filepath.Ext(p) != ".kpack" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, data)
		toc += int64(len(data)) - int64(binary.LittleEndian.Uint64(data[8:]))
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return files, toc
}

// zstdFrameCap bounds the compressed frame bytes BenchmarkZstdFrames takes,
// as ZSTD_CAP does in scripts/benchlib/python_reader.py: archives in order
// of their slash path relative to the tree until the cap is passed.
const zstdFrameCap = 256 << 20

// BenchmarkZstdFrames decodes, on one goroutine and in memory, the zstd
// frames that `python_reader.py zstd` decodes with libzstd (the upstream
// reader's decompressor), through kpack.FrameDecoder as check --deep does:
// the decoder's speed alone, against libzstd's on the same bytes.
func BenchmarkZstdFrames(b *testing.B) {
	for _, shape := range []string{"single", "therock"} {
		b.Run(shape, func(b *testing.B) {
			dir, _ := benchTree(b, shape)
			frames, sizes := zstdFrames(b, filepath.Join(dir, benchtree.TreeDir))
			var out int64
			var largest uint64
			for _, n := range sizes {
				out += int64(n)
				largest = max(largest, n)
			}
			fd := kpack.NewFrameDecoder(0)
			buf := make([]byte, 0, largest+kpack.FrameSlack)
			b.SetBytes(out)
			for b.Loop() {
				for i, f := range frames {
					if _, err := fd.Decode(f, sizes[i], buf); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(frames)), "ns/frame")
			b.ReportMetric(float64(len(frames)), "frames")
		})
	}
}

// BenchmarkFrameBudget is BenchmarkZstdFrames with the decoder's meter
// off and on (counting against a run's budget of decompressed bytes, as
// check --deep decodes): what the budget costs per frame.
func BenchmarkFrameBudget(b *testing.B) {
	for _, shape := range []string{"single", "therock"} {
		dir, _ := benchTree(b, shape)
		frames, sizes := zstdFrames(b, filepath.Join(dir, benchtree.TreeDir))
		var largest uint64
		for _, n := range sizes {
			largest = max(largest, n)
		}
		for _, metered := range []bool{false, true} {
			name := shape + "/meter=off"
			if metered {
				name = shape + "/meter=on"
			}
			b.Run(name, func(b *testing.B) {
				fd := kpack.NewFrameDecoder(0)
				defer fd.Close()
				if metered {
					fd.SetMeter(inflate.New(1 << 62).Meter("bench"))
				}
				buf := make([]byte, 0, largest+kpack.FrameSlack)
				for b.Loop() {
					for i, f := range frames {
						if _, err := fd.Decode(f, sizes[i], buf); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(frames)), "ns/frame")
			})
		}
	}
}

// zstdFrames returns the frames of root's zstd archives, taken as
// zstdFrameCap says, with each frame's original_size.
func zstdFrames(b *testing.B, root string) (frames [][]byte, sizes []uint64) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && filepath.Ext(p) == ".kpack" {
			rel, _ := filepath.Rel(root, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(paths)
	taken := 0
	for _, p := range paths {
		if taken >= zstdFrameCap {
			break
		}
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			b.Fatal(err)
		}
		a, err := kpack.OpenOptions(bytes.NewReader(data), int64(len(data)), kpack.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if a.Scheme != kpack.SchemeZstd {
			continue
		}
		size := map[uint32]uint64{}
		for _, list := range a.Kernels {
			for _, ae := range list {
				size[ae.Ordinal] = ae.OriginalSize
			}
		}
		src := kpack.ReaderSource(bytes.NewReader(data), func(n int) []byte { return make([]byte, n) })
		_, err = a.ScanFrames(src, 1<<20, math.MaxUint64, func(_ kpack.Window, fs []kpack.ScanFrame) error {
			for _, f := range fs {
				frames, sizes = append(frames, f.Data), append(sizes, size[f.Ordinal])
				taken += len(f.Data)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return frames, sizes
}
