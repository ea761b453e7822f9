package report

import (
	"fmt"
	"io"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// BenchmarkWriteMany writes, as JSON and as SARIF, 20,000 findings of a
// TheRock-sized run (21 agents, 8 kernel keys each): what a nightly
// writes and its baseline reads back.
func BenchmarkWriteMany(b *testing.B) {
	agents := make([]string, 21)
	for i := range agents {
		agents[i] = fmt.Sprintf("gfx%d:sramecc+:xnack-", 900+i)
	}
	r := testRun("")
	for i := 0; i < 20000; i++ {
		ks := make([]string, 8)
		for j := range ks {
			ks[j] = fmt.Sprintf("lib/lib%05d.so#%d", i, j)
		}
		r.Findings = append(r.Findings, finding.Finding{RuleID: "KPL003", Message: "no archive", Subject: fmt.Sprint(i),
			Location: finding.Location{Path: fmt.Sprintf("lib/lib%05d.so", i)}, Agents: agents, Kernels: ks})
	}
	for _, format := range []string{"json", "sarif"} {
		b.Run(format, func(b *testing.B) {
			for range b.N {
				if err := Write(io.Discard, format, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
