package rules

import (
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/model"
)

func item(group, target string, kernels int, path string) model.InventoryItem {
	return model.InventoryItem{Group: group, Target: target, Kernels: kernels, Bytes: uint64(kernels) * 1000,
		Archives: []model.ArchiveRef{{Path: path}}}
}

// TestTheRockPR6362 replays TheRock PR 6362 (TheRock#5274): a stray
// 3-kernel blas_lib_gfx906 artifact overwrote the 646-kernel one.
func TestTheRockPR6362(t *testing.T) {
	c := &Context{
		InputNames: []string{"dist"},
		BaselineInventory: []model.InventoryItem{
			item("blas_lib", "gfx906", 646, "lib/.kpack/blas_lib_gfx906.kpack"),
			item("blas_lib", "gfx90a", 646, "lib/.kpack/blas_lib_gfx90a.kpack"),
			item("blas_lib", "gfx942", 100, "lib/.kpack/blas_lib_gfx942.kpack"),
			item("fft_lib", "gfx1151", 20, "lib/.kpack/fft_lib_gfx1151.kpack"),
		},
		Inventory: []model.InventoryItem{
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
