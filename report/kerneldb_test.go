package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/rules"
)

// TestKernelDatabaseDetails: a KPL013 finding's library, effect and
// missing files reach every format.
func TestKernelDatabaseDetails(t *testing.T) {
	r := testRun("seed")
	r.Findings = []rules.Finding{{
		RuleID: "KPL003", Level: rules.LevelError, Message: "rocBLAS has no Tensile library for gfx942",
		Location: rules.Location{Path: "lib/librocblas.so.5"},
		Agents:   []string{"gfx942:sramecc+:xnack-"},
		Library:  "rocBLAS", Effect: "aborts",
		Missing: []string{"lib/rocblas/library/TensileLibrary.dat", "lib/rocblas/library/Kernels.so-000-gfx942.hsaco"},
		Subject: "db",
	}}
	want := map[string][]string{
		"text":  {"  library: rocBLAS\n", "  effect: aborts\n", "  missing: lib/rocblas/library/TensileLibrary.dat\n", "  missing: lib/rocblas/library/Kernels.so-000-gfx942.hsaco\n"},
		"json":  {`"library": "rocBLAS"`, `"effect": "aborts"`, `"missing": [`},
		"sarif": {`"library": "rocBLAS"`, `"effect": "aborts"`, `"missing": [`},
	}
	for format, parts := range want {
		var b bytes.Buffer
		if err := Write(&b, format, r); err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			if !strings.Contains(b.String(), p) {
				t.Errorf("%s output lacks %q", format, p)
			}
		}
	}
}
