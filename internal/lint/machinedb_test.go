package lint_test

import (
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
