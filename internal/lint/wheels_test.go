package lint_test

import (
	"debug/elf"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
)

// TestTorchDeviceWheels (pytorch/pytorch#194498): the host torch wheel
// with libaotriton_v2.so and the per-arch device wheel, without the family
// wheel: KPL013 for gfx1100 names aotriton's missing amd-gfx11xx folder
// and the wheel holding it, and the device wheel's Requires-Dist on the
// family wheel, not among the inputs, is a KPL013 note; with the family
// wheel among the inputs both are gone.
func TestTorchDeviceWheels(t *testing.T) {
	lib := hostbintest.ELFWith(hostbintest.ELFSection{Name: ".rodata", Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Align: 16,
		Data: []byte("aotriton.images\x00amd-gfx11xx\x00amd-gfx942\x00")})
	host := testtree.Write(t, map[string][]byte{
		"torch/lib/libaotriton_v2.so":                 lib,
		"torch-2.10.0.dist-info/METADATA":             []byte("Name: torch\nVersion: 2.10.0\n"),
		"torch/lib/libtorch_hip.so":                   binaryELF("torch/lib/libtorch_hip.so", "../.kpack/torch_@GFXARCH@.kpack", 1),
		"torch/.kpack/torch_gfx942.kpack":             zstdArchive("torch", "gfx942", "torch/lib/libtorch_hip.so", 1),
		"torch/.kpack/torch_gfx1100.kpack":            zstdArchive("torch", "gfx1100", "torch/lib/libtorch_hip.so", 1),
		"amd_torch_device_gfx1100.dist-info/METADATA": []byte("Name: amd-torch-device-gfx1100\nRequires-Dist: torch == 2.10.0\nRequires-Dist: amd-torch-device-gfx11 == 2.10.0\n"),
	})
	family := testtree.Write(t, map[string][]byte{
		"amd_torch_device_gfx11-2.10.0.dist-info/METADATA":          []byte("Name: amd-torch-device-gfx11\nRequires-Dist: torch == 2.10.0\n"),
		"torch/lib/aotriton.images/amd-gfx11xx/flash/attn_fwd.aks2": []byte("AKS2"),
	})
	fs := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, host), "KPL013")
	if len(fs) != 2 {
		t.Fatalf("want 2 KPL013 (images, requirement), got %+v", fs)
	}
	var images, note finding.Finding
	for _, f := range fs {
		if f.Level == finding.LevelNote {
			note = f
		} else {
			images = f
		}
	}
	for _, w := range []string{"AOTriton (torch/lib/libaotriton_v2.so) has no AOTriton images for gfx1100 (torch/lib/aotriton.images/amd-gfx11xx)", "amd-torch-device-gfx11"} {
		if !strings.Contains(images.Message, w) {
			t.Errorf("images finding lacks %q: %s", w, images.Message)
		}
	}
	if images.Effect != "fails later" || images.Library != "AOTriton" || strings.Join(images.Missing, " ") != "torch/lib/aotriton.images/amd-gfx11xx" {
		t.Errorf("images finding %+v", images)
	}
	if !strings.Contains(note.Message, "The device wheel amd-torch-device-gfx1100 (amd_torch_device_gfx1100.dist-info/METADATA) requires amd-torch-device-gfx11, which is not among the inputs") ||
		note.Location.Path != "amd_torch_device_gfx1100.dist-info/METADATA" {
		t.Errorf("requirement note %+v", note)
	}
	if fs := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, host, family), "KPL013"); len(fs) != 0 {
		t.Errorf("with the family wheel: %+v", fs)
	}
}
