package lint_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
)

// notELFTree is kpackTree with the code objects of the archives for
// the targets in bad replaced by bytes that are not an ELF file.
func notELFTree(t *testing.T, n int, archs []string, bad string) string {
	files := map[string][]byte{"lib/libk.so": binaryELF("lib/libk.so", ".kpack/k_@GFXARCH@.kpack", n)}
	for _, arch := range archs {
		var ks []kpacktest.Kernel
		for i := range n {
			key := fmt.Sprintf("lib/libk.so#%d", i)
			data := codeObject(key, arch)
			if arch == bad {
				data = []byte("not a code object at all: " + key)
			}
			ks = append(ks, kpacktest.Kernel{Key: key, Arch: arch, Data: data})
		}
		files["lib/.kpack/k_"+arch+".kpack"] = kpacktest.Build(kpacktest.Spec{Group: "k", Scheme: kpack.SchemeZstd, Kernels: ks})
	}
	return testtree.Write(t, files)
}

// TestMachineServedNotELF: with --deep the machines know a load returned a
// buffer that is not an ELF file, which HIP's AddDevProgram rejects
// (rocclr Program::addDeviceProgram: isElfMagic, CL_INVALID_BINARY) with
// hipErrorInvalidKernelFile: newest rolls every device back
// (rollback_kpack_state), PR 2622 (10.0) fails its one load for all.
// Without --deep the bytes are not read, and the machine is clean.
func TestMachineServedNotELF(t *testing.T) {
	dir := notELFTree(t, 2, []string{"gfx942", "gfx1100"}, "gfx942")
	const two = "gfx942,gfx1100"
	tests := []struct {
		hip, machine string
		deep         bool
		want         []got
	}{
		{"newest", two, true, []got{{"KPL001", two, "0", "no-code", "hipErrorInvalidKernelFile"}, {"KPL014", two, "1", "failed-by-other", "hipErrorInvalidKernelFile"}}},
		{"newest", "gfx942", true, []got{{"KPL001", "gfx942", "0", "no-code", "hipErrorInvalidKernelFile"}}},
		{"10.0", two, true, []got{{"KPL001", two, "0", "no-code", "hipErrorInvalidKernelFile"}, {"KPL001", two, "1", "no-code", "hipErrorInvalidKernelFile"}}},
		{"10.0", "gfx942", true, []got{{"KPL001", "gfx942", "0", "no-code", "hipErrorInvalidKernelFile"}}},
		{"newest", two, false, nil},
	}
	for _, tt := range tests {
		fs := runCheck(t, lint.Config{Machines: []string{tt.machine}, HIP: tt.hip, Deep: tt.deep}, dir)
		sameGot(t, fmt.Sprintf("%s %s deep=%v", tt.hip, tt.machine, tt.deep), machineFindings(fs), tt.want)
		for _, f := range fs {
			if f.Machine == nil || f.Machine.Machine == "" {
				continue
			}
			if !strings.Contains(f.Message, "not an ELF file") || !strings.Contains(f.Message, "returns SUCCESS") || !strings.Contains(f.Message, "AddDevProgram") {
				t.Errorf("%s %s: %s does not say the served buffer is rejected: %s", tt.hip, tt.machine, f.RuleID, f.Message)
			}
			if f.KpackError != "" {
				t.Errorf("%s: kpack error %q for a SUCCESS load", f.RuleID, f.KpackError)
			}
		}
	}
}

// TestKPL014QuotesTheLoad: a device rolled back by another device's
// KERNEL_NOT_FOUND (PR 9167) is told that load's result, not its own
// SUCCESS.
func TestKPL014QuotesTheLoad(t *testing.T) {
	dir := kpackTree(t, 2, map[string][]int{"gfx942": nil, "gfx1100": {0}})
	fs := runCheck(t, lint.Config{Machines: []string{"gfx942,gfx1100"}}, dir)
	n := 0
	for _, f := range byRule(fs, "KPL014") {
		n++
		if !strings.Contains(f.Message, "returns KERNEL_NOT_FOUND, which HIP newest treats as fatal") || strings.Contains(f.Message, "returns SUCCESS") {
			t.Errorf("KPL014 quotes the wrong load: %s", f.Message)
		}
		if f.KpackError != "KPACK_ERROR_KERNEL_NOT_FOUND" {
			t.Errorf("KPL014 kpack error %q", f.KpackError)
		}
	}
	if n != 1 {
		t.Errorf("%d KPL014 findings, want 1", n)
	}
}
