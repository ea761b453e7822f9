package gate

import (
	"fmt"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// compareFindings is n findings of a TheRock-sized run: each on 21
// agents with 8 kernel keys of its own binary.
func compareFindings(n int) []finding.Finding {
	agents := make([]string, 21)
	for i := range agents {
		agents[i] = fmt.Sprintf("gfx%d:sramecc+:xnack-", 900+i)
	}
	fs := make([]finding.Finding, n)
	for i := range fs {
		ks := make([]string, 8)
		for j := range ks {
			ks[j] = fmt.Sprintf("lib/lib%05d.so#%d", i, j)
		}
		fs[i] = finding.Finding{RuleID: "KPL006", Subject: fmt.Sprintf("g%d\x00lib/lib%05d.so", i%60, i),
			Location: finding.Location{Path: fmt.Sprintf("lib/lib%05d.so", i)}, Agents: agents, Kernels: ks}
	}
	return fs
}

// BenchmarkCompare judges 20,000 findings against a baseline of the same
// 20,000 (a nightly where nothing changed), fingerprints already read
// back as a baseline's are.
func BenchmarkCompare(b *testing.B) {
	cur := compareFindings(20000)
	base := compareFindings(20000)
	for i := range base {
		base[i].Fingerprint = finding.Fingerprint(base[i])
	}
	b.ResetTimer()
	for range b.N {
		Compare(cur, base, nil, 1)
	}
}
