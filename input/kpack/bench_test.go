package kpack_test

import (
	"bytes"
	"flag"
	"fmt"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
)

var bigBench = flag.Bool("kpack.bigbench", false, "run the 1 GiB BenchmarkVerify variant")

func benchArchive(total, per int) []byte {
	gen := kpacktest.NewCodeLike(1)
	s := kpacktest.Spec{Group: "bench", Family: "gfx94X", Scheme: kpack.SchemeZstd}
	for i := 0; i < total/per; i++ {
		s.Kernels = append(s.Kernels, kpacktest.Kernel{Key: fmt.Sprintf("lib/libbench.so#%d", i), Arch: "gfx942", Data: gen.Bytes(nil, per)})
	}
	return kpacktest.Build(s)
}

func BenchmarkVerify(b *testing.B) {
	sizes := []struct {
		name       string
		total, per int
	}{
		{"64MiB", 64 << 20, 1 << 20},
		{"1GiB", 1 << 30, 4 << 20},
	}
	for _, sz := range sizes {
		b.Run(sz.name, func(b *testing.B) {
			if sz.total > 64<<20 && !*bigBench {
				b.Skip("pass -kpack.bigbench to run")
			}
			data := benchArchive(sz.total, sz.per)
			r := bytes.NewReader(data)
			a, err := kpack.Open(r, int64(len(data)))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(sz.total))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res := a.Verify(r, kpack.VerifyOptions{})
				if len(res.Failures) != 0 || res.Decoded != int64(sz.total) {
					b.Fatalf("Verify = %+v", res)
				}
			}
			b.ReportMetric(float64(len(data))/float64(sz.total), "ratio")
		})
	}
}
