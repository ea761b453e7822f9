package lint_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
	"github.com/rocm-tools/kpack-lint/sim"
)

// long-kernel-name-keys: a 60 KiB kernel_name with 1,000 co_indexes would
// be 60 MB of kernel keys; the binary's first co_indexes that fit
// rules.MaxSiteKeyBytes are simulated and KPL007 reports the rest.
func TestLongKernelNameKeysBounded(t *testing.T) {
	name := "bin/" + strings.Repeat("k", 60000)
	dir := testtree.Write(t, map[string][]byte{
		"bin/x":                 binaryELF(name, "../.kpack/g_@GFXARCH@.kpack", 1000),
		".kpack/g_gfx942.kpack": zstdArchive("g", "gfx942", "other", 1),
	})
	fs := runCheck(t, lint.Config{Targets: []string{"gfx942"}}, dir)
	keep := sim.MaxSiteKeyBytes / (len(name) + len("#4294967295"))
	var dropped, unreachable bool
	for _, f := range fs {
		switch {
		case f.RuleID == "KPL007" && strings.Contains(f.Message, fmt.Sprintf("only the first %d were simulated and %d were not checked", keep, 1000-keep)):
			dropped = true
		case f.RuleID == "KPL001" || f.RuleID == "KPL006":
			unreachable = unreachable || len(f.Kernels) == keep
		}
	}
	if !dropped || !unreachable {
		for _, f := range fs {
			t.Logf("%s: %d kernels: %.200s", f.RuleID, len(f.Kernels), f.Message)
		}
		t.Fatalf("want KPL007 naming %d simulated of 1000 and a load finding over %d keys", keep, keep)
	}
}
