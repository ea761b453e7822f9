package verify_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/sim/verify"
)

// benchDir holds the generated corpus, shared by every run of the
// benchmark function and removed by TestMain.
var benchDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" && os.Getenv("KPACK_BENCH_KEEP") == "" {
		_ = os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

const (
	benchArchives = 8
	benchKernel   = 1 << 20 // bytes per code object
)

// benchTotal is 128 MiB of code objects, or 1 GiB with KPACK_BENCH_BIG=1.
func benchTotal() int {
	if os.Getenv("KPACK_BENCH_BIG") == "1" {
		return 1 << 30
	}
	return 128 << 20
}

// benchCorpus writes benchArchives zstd archives totalling total bytes of
// code objects, and the same frames concatenated as frames.zst (for
// `zstd -d -T1`), once per process.
func benchCorpus(b *testing.B, total int) string {
	if benchDir != "" {
		return benchDir
	}
	dir, err := os.MkdirTemp("", "deep-bench-")
	if err != nil {
		b.Fatal(err)
	}
	benchDir = dir
	gen := kpacktest.NewCodeLike(1)
	header := codeobjtest.CodeObject("gfx942", "")
	if err := os.MkdirAll(filepath.Join(dir, "tree"), 0o755); err != nil {
		b.Fatal(err)
	}
	zst, err := os.Create(filepath.Join(dir, "frames.zst"))
	if err != nil {
		b.Fatal(err)
	}
	defer zst.Close()
	per := total / benchArchives / benchKernel
	for i := range benchArchives {
		s := kpacktest.Spec{Group: "bench", Scheme: kpack.SchemeZstd}
		for j := range per {
			s.Kernels = append(s.Kernels, kpacktest.Kernel{Key: fmt.Sprintf("lib/libbench.so#%d", j), Arch: "gfx942",
				Data: gen.Bytes(header, benchKernel)})
		}
		data := kpacktest.Build(s)
		if err := os.WriteFile(filepath.Join(dir, "tree", fmt.Sprintf("bench_%d.kpack", i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
		writeFrames(b, zst, data)
	}
	return dir
}

// writeFrames copies the zstd frames of a kpacktest archive (blob at 64).
func writeFrames(b *testing.B, w *os.File, data []byte) {
	pos := kpack.HeaderSize
	n := binary.LittleEndian.Uint32(data[pos:])
	pos += 4
	for range n {
		size := int(binary.LittleEndian.Uint32(data[pos:]))
		if _, err := w.Write(data[pos+4 : pos+4+size]); err != nil {
			b.Fatal(err)
		}
		pos += 4 + size
	}
}

// BenchmarkVerify measures verify.Verify over benchArchives archives of
// zstd frames (128 MiB of code objects; 1 GiB with KPACK_BENCH_BIG=1).
// The corpus stays in the temp dir; its frames.zst holds the same frames
// for `zstd -d -T1 frames.zst -o /dev/null`. Throughput is decompressed
// bytes per second.
func BenchmarkVerify(b *testing.B) {
	total := benchTotal()
	dir := benchCorpus(b, total)
	if keep := os.Getenv("KPACK_BENCH_KEEP"); keep != "" {
		_ = os.WriteFile(keep, []byte(dir), 0o644) // lets a script find frames.zst
	}
	tree, err := vfs.Open([]string{filepath.Join(dir, "tree")}, vfs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	bld := model.Load(tree)
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(total))
			b.ReportAllocs()
			var res *verify.Result
			for b.Loop() {
				res = verify.Verify(bld, verify.Options{Workers: workers})
			}
			if res.Bytes != int64(total) || len(res.Problems) != 0 {
				b.Fatalf("verified %d bytes, problems %v", res.Bytes, res.Problems)
			}
			b.ReportMetric(float64(res.Peak)/(1<<20), "peakMiB")
		})
	}
}
