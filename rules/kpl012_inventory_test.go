package rules

import (
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim"
)

func item(group, target string, kernels int, path string) finding.InventoryItem {
	return finding.InventoryItem{Group: group, Target: target, Kernels: kernels, Bytes: uint64(kernels) * 1000,
		Archives: []finding.ArchiveRef{{Path: path}}}
}

// TestTheRockPR6362 replays TheRock PR 6362 (TheRock#5274): a stray
// 3-kernel blas_lib_gfx906 artifact overwrote the 646-kernel one.
func TestTheRockPR6362(t *testing.T) {
	c := &Context{
		Inputs: []string{"dist"}, InputNames: []string{"dist"},
		BaselineInventory: []finding.InventoryItem{
			item("blas_lib", "gfx906", 646, "lib/.kpack/blas_lib_gfx906.kpack"),
			item("blas_lib", "gfx90a", 646, "lib/.kpack/blas_lib_gfx90a.kpack"),
			item("blas_lib", "gfx942", 100, "lib/.kpack/blas_lib_gfx942.kpack"),
			item("fft_lib", "gfx1151", 20, "lib/.kpack/fft_lib_gfx1151.kpack"),
		},
		Inventory: []finding.InventoryItem{
			item("blas_lib", "gfx906", 3, "lib/.kpack/blas_lib_gfx906.kpack"),
			item("blas_lib", "gfx90a", 646, "lib/.kpack/blas_lib_gfx90a.kpack"),
			item("blas_lib", "gfx942", 91, "lib/.kpack/blas_lib_gfx942.kpack"),  // 9% lost: under 10%
			item("blas_lib", "gfx950", 646, "lib/.kpack/blas_lib_gfx950.kpack"), // new: fine
		},
		MaxKernelLoss: DefaultMaxKernelLoss,
	}
	fs := checkInventory(c)
	if len(fs) != 2 {
		t.Fatalf("%d findings, want 2: %+v", len(fs), fs)
	}
	lost, gone := fs[0], fs[1]
	if lost.Group != "blas_lib" || lost.Location.Path != "lib/.kpack/blas_lib_gfx906.kpack" ||
		!strings.Contains(lost.Message, "lost 643 of its 646 kernel keys for gfx906") || !strings.Contains(lost.Message, "99.5%") ||
		!strings.Contains(lost.Message, "TheRock PR 6362") || !strings.Contains(lost.Message, "hipErrorInvalidImage") {
		t.Errorf("loss finding = %+v", lost)
	}
	if gone.Group != "fft_lib" || !strings.Contains(gone.Message, "no longer ships gfx1151") || !strings.Contains(gone.Message, "20 kernel keys") {
		t.Errorf("gone finding = %+v", gone)
	}
	if lost.Subject == gone.Subject || lost.Subject != subject("blas_lib", "gfx906", "inventory") {
		t.Errorf("subjects %q %q", lost.Subject, gone.Subject)
	}

	c.MaxKernelLoss = 0.05
	if n := len(checkInventory(c)); n != 3 {
		t.Errorf("with a 5%% allowance: %d findings, want 3 (gfx942 lost 9%%)", n)
	}
	c.BaselineInventory = nil
	if n := len(checkInventory(c)); n != 0 {
		t.Errorf("without a baseline: %d findings", n)
	}
}

// Newcomer report 10: KPL012 says what the loss means in this run: loads
// of the group that fail on agents running the target's code, else that
// the loader serves them from other archives (fewer kernels for the
// target than the baseline), never "find no code object" when they load.
func TestInventoryEffectFromSimulation(t *testing.T) {
	site := &sim.Site{Group: "fft_lib", Path: "lib/libfft.so"}
	gfx1151 := &sim.Agent{ISA: "gfx1151", Targets: []string{"gfx1151"}}
	c := &Context{
		Inputs:            []string{"dist"},
		InputNames:        []string{"dist"},
		Result:            sim.Result{Agents: []*sim.Agent{gfx1151, {ISA: "gfx942:sramecc+:xnack-", Targets: []string{"gfx942"}}}},
		Loader:            finding.Fallthrough,
		BaselineInventory: []finding.InventoryItem{item("fft_lib", "gfx1151", 20, "lib/.kpack/fft_lib_gfx1151.kpack")},
		MaxKernelLoss:     DefaultMaxKernelLoss,
	}
	fs := checkInventory(c)
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "No simulated load of the group fails on gfx1151: the loader serves them from other archives of the group, "+
		"with code not built for gfx1151, so the build has fewer kernels for gfx1151 than the baseline.") || strings.Contains(fs[0].Message, "find no code object") {
		t.Errorf("served elsewhere: %+v", fs)
	}
	failed := &resolver.Result{Code: kpack.ArchiveNotFound}
	c.Outcomes = []sim.Outcome{{Site: site, Key: "lib/libfft.so#0", Agent: gfx1151, Fallthrough: failed, Legacy: failed},
		{Site: site, Key: "lib/libfft.so#1", Agent: gfx1151, Fallthrough: failed, Legacy: failed}}
	if fs := checkInventory(c); len(fs) != 1 || !strings.Contains(fs[0].Message, "2 kernel loads of kpack group fft_lib fail on gfx1151 (see KPL001 and KPL006).") {
		t.Errorf("failing loads: %+v", fs)
	}
	c.Agents, c.Outcomes = c.Agents[1:], nil
	if fs := checkInventory(c); len(fs) != 1 || !strings.Contains(fs[0].Message, "No simulated agent runs code built for gfx1151; devices that do get fewer kernels than with the baseline.") {
		t.Errorf("no agent: %+v", fs)
	}
}
