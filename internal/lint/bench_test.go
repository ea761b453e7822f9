package lint_test

import (
	"fmt"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
)

// BenchmarkCheckLargeBuild lints a TheRock-sized slice: 100 libraries of 500
// kernels (50,000 kernel keys) in 100 groups, archives for five targets,
// checked on every agent ISA of those targets (13 agents) with both loaders.
func BenchmarkCheckLargeBuild(b *testing.B) {
	files := map[string][]byte{}
	targets := []string{"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1151"}
	for i := 0; i < 100; i++ {
		name := fmt.Sprintf("lib/lib%03d.so", i)
		group := fmt.Sprintf("g%03d", i)
		files[name] = binaryELF(name, ".kpack/"+group+"_@GFXARCH@.kpack", 500)
		for _, t := range targets {
			files["lib/.kpack/"+group+"_"+t+".kpack"] = zstdArchive(group, t, name, 500)
		}
	}
	dir := testtree.Write(b, files)
	b.ResetTimer()
	loads := 0
	for i := 0; i < b.N; i++ {
		tree, err := vfs.Open([]string{dir}, vfs.Options{})
		if err != nil {
			b.Fatal(err)
		}
		res, err := lint.Run(model.Load(tree), lint.Config{Targets: targets})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Findings) != 0 {
			b.Fatalf("clean build has findings: %s", res.Findings[0].Message)
		}
		loads = res.Loads
		tree.Close()
	}
	b.ReportMetric(float64(loads), "loads/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*loads), "ns/load")
}
