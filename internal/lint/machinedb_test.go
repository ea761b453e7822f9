package lint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/lint"
)

// TestMachineKernelDatabases: rocm-jax#389 / rocm-libraries#7026: a Radeon
// VII (gfx906, device 0) and an MI100 (gfx908) in one process, rocBLAS
// without gfx906's Tensile index. The first GEMM on gfx906 aborts the
// process (rocblas_abort), so gfx908's work stops too: KPL013 for the
// gfx906, KPL014 for the gfx908, whose files are there; hiding the gfx906
// (ROCR_VISIBLE_DEVICES=1 in the report) makes it clean, and so does the
// override that makes the gfx906 report gfx908 (same generation).
func TestMachineKernelDatabases(t *testing.T) {
	dir := scenarioTree("rocm-jax-389-gfx906-gfx908")
	const m = "gfx906,gfx908"
	tests := []struct {
		name     string
		machines []string
		env      map[string]string
		want     []got
	}{
		{"the report", []string{m}, nil, []got{{"KPL013", m, "0", "aborted", ""}, {"KPL014", m, "1", "failed-by-other", ""}}},
		{"ROCR_VISIBLE_DEVICES=1", []string{m}, map[string]string{"ROCR_VISIBLE_DEVICES": "1"}, nil},
		{"HIP_VISIBLE_DEVICES=1", []string{m}, map[string]string{"HIP_VISIBLE_DEVICES": "1"}, nil},
		{"the MI100 alone", []string{"gfx908"}, nil, nil},
		{"two Radeon VII", []string{"gfx906,gfx906"}, nil, []got{{"KPL013", "gfx906,gfx906", "0,1", "aborted", ""}}},
		{"gfx906 reporting gfx908", []string{m}, map[string]string{"HSA_OVERRIDE_GFX_VERSION_1": "9.0.8"}, nil},
	}
	for _, tt := range tests {
		fs := runCheck(t, lint.Config{Machines: tt.machines, HIP: "7.2", MachineEnv: tt.env}, dir)
		sameGot(t, tt.name, machineFindings(fs), tt.want)
		if tt.name != "the report" {
			continue
		}
		for _, f := range fs {
			switch f.RuleID {
			case "KPL013":
				if f.Library != "rocBLAS" || f.Effect != "aborts" || f.Location.Path != "lib/librocblas.so" ||
					!strings.Contains(f.Message, "for GPU arch : gfx906") || !strings.Contains(f.Message, "device 1 (gfx908:sramecc+:xnack-)") ||
					!strings.Contains(strings.Join(f.Machine.Fixes, "|"), "HIP_VISIBLE_DEVICES=1") || strings.Contains(f.Message, "drop gfx906 from the targets") {
					t.Errorf("KPL013: %+v", f)
				}
			case "KPL014":
				if f.Machine.OtherDevice == nil || *f.Machine.OtherDevice != 0 || f.Machine.DeviceISA != "gfx908:sramecc+:xnack-" ||
					!strings.Contains(f.Message, "the process aborts on device 0 (gfx906:sramecc+:xnack-)") {
					t.Errorf("KPL014: %+v", f)
				}
			}
		}
	}
}

// TestCrossGenerationOverride: ROCm 6.4 (the 7.2 row) with the global
// HSA_OVERRIDE_GFX_VERSION=10.3.0 on two RX 9060 (gfx1200) and an RX 6600
// (gfx1032), ROCm/legacy-rocm-build#5069: before rocm-systems PR 5686 the
// gfx1200s report gfx1030 and get gfx10 code: one KPL009 for both, whose
// fix is the per-node variable of the gfx1032 (KFD node 3); 10.0 refuses
// the override and reports nothing.
func TestCrossGenerationOverride(t *testing.T) {
	dir := kpackTree(t, 2, map[string][]int{"gfx1030": nil, "gfx1200": nil})
	env := map[string]string{"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}
	const m = "gfx1200,gfx1200,gfx1032"
	fs := runCheck(t, lint.Config{Machines: []string{m}, HIP: "6.4", MachineEnv: env}, dir)
	gen := byRule(fs, "KPL009")
	if len(gen) != 1 {
		t.Fatalf("%d KPL009, want 1: %+v", len(gen), fs)
	}
	f := gen[0]
	if f.Machine.RealISA != "gfx1200" || f.Machine.DeviceISA != "gfx1030" || fmt.Sprint(f.Machine.Devices) != "[0 1]" ||
		!strings.Contains(f.Message, "HIP 7.2 predates rocm-systems PR 5686") || !strings.Contains(f.Message, "code built for gfx1030, gfx10-3-generic (gfx10)") ||
		len(f.Machine.Fixes) != 1 || !strings.Contains(f.Machine.Fixes[0], "unset HSA_OVERRIDE_GFX_VERSION and set HSA_OVERRIDE_GFX_VERSION_3=10.3.0") {
		t.Errorf("KPL009: %+v", f)
	}
	if fs := byRule(runCheck(t, lint.Config{Machines: []string{m}, HIP: "10.0", MachineEnv: env}, dir), "KPL009"); len(fs) != 0 {
		t.Errorf("10.0 refuses the override, yet: %+v", fs)
	}
	fixed := map[string]string{"HSA_OVERRIDE_GFX_VERSION_3": "10.3.0"}
	if fs := runCheck(t, lint.Config{Machines: []string{m}, HIP: "6.4", MachineEnv: fixed}, dir); len(byRule(fs, "KPL009")) != 0 {
		t.Errorf("the per-node fix leaves %+v", fs)
	}
}

// TestMachineKernelDatabasesPerRelease: each machine looks its libraries
// up as its own HIP release's rocBLAS does. rocblas-per-arch ships
// gfx90a's Tensile files only under gfx90a-xnack+/ and gfx90a-xnack-/,
// which newest rocBLAS enters and the 7.2 row does not: on an xnack+
// MI210 the machine of HIP 7.2 aborts at the first GEMM, the machine of
// newest is clean, in one run.
func TestMachineKernelDatabasesPerRelease(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../testdata/kerneldb/rocblas-per-arch/tree")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"librocblas.so.5.4", "librocblas.so.5", "librocblas.so"} {
		os.Remove(filepath.Join(dir, "lib", name))
	}
	// the library without a SONAME version: the HIP release alone picks the row
	src, err := os.ReadFile("../../testdata/kerneldb/rocblas-per-arch/tree/lib/librocblas.so.5.4")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lib", "librocblas.so"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	pol := mustPolicy(t, "machines:\n  old:\n    devices: [\"gfx90a:sramecc+:xnack+\"]\n    hip: \"7.2\"\n"+
		"  new:\n    devices: [\"gfx90a:sramecc+:xnack+\"]\n    hip: newest\n")
	fs := runCheck(t, lint.Config{Policy: pol}, dir)
	sameGot(t, "per release", machineFindings(byRule(fs, "KPL013")), []got{{"KPL013", "old", "0", "aborted", ""}})
}
