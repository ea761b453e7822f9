package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// TestKernelDatabaseDetails: a KPL013 finding's library, effect and
// missing files reach every format.
func TestKernelDatabaseDetails(t *testing.T) {
	r := testRun("seed")
	r.Findings = []finding.Finding{{
		RuleID: "KPL003", Level: finding.LevelError, Message: "rocBLAS has no Tensile library for gfx942",
		Location: finding.Location{Path: "lib/librocblas.so.5"},
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

// maxMissing is how many missing files a KPL013 finding lists at most
// (maxMissing).
const maxMissing = 1000

// TestMissingCut (problem 3): a finding whose Missing list was cut at
// maxMissing prints eight missing lines and "... and N more" in
// text, and carries missingTotal in JSON and SARIF, which Read gives back.
func TestMissingCut(t *testing.T) {
	r := testRun("seed")
	var missing []string
	for i := range maxMissing {
		missing = append(missing, fmt.Sprintf("lib/rocblas/library/P%07d.dat", i))
	}
	r.Findings = []finding.Finding{{
		RuleID: "KPL003", Level: finding.LevelError, Message: "rocBLAS lacks files its index names",
		Location: finding.Location{Path: "lib/librocblas.so.5"}, Library: "rocBLAS", Effect: "crashes",
		Missing: missing, MissingTotal: 1000000, Subject: "db",
	}}
	var b bytes.Buffer
	if err := Write(&b, "text", r); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "  missing: lib/"); n != finding.MaxListed || !strings.Contains(b.String(), "  missing: ... and 999992 more\n") {
		t.Errorf("text: %d missing lines\n%s", n, b.String())
	}
	for _, format := range []string{"json", "sarif"} {
		b.Reset()
		if err := Write(&b, format, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), `"missingTotal": 1000000`) {
			t.Errorf("%s lacks missingTotal", format)
		}
		back, _, err := Read(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if f := back.Findings[0]; f.MissingTotal != 1000000 || len(f.Missing) != maxMissing {
			t.Errorf("%s read back: total %d, %d listed", format, f.MissingTotal, len(f.Missing))
		}
	}
	// Not cut: no property, and the total is the list's length.
	r.Findings[0].Missing, r.Findings[0].MissingTotal = missing[:2], 2
	b.Reset()
	if err := Write(&b, "sarif", r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "missingTotal") {
		t.Error("missingTotal written for an uncut list")
	}
}
