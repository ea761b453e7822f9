package kerneldb_test

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb/kerneldbtest"
)

// aotritonLib is a libaotriton_v2.so whose .rodata holds strings (the
// images' folder names, "aotriton.images").
func aotritonLib(strs ...string) []byte {
	return hostbintest.ELFWith(hostbintest.ELFSection{Name: ".rodata", Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Align: 16,
		Data: []byte(strings.Join(strs, "\x00") + "\x00")})
}

// TestAOTritonPerVersion: the image folder an agent needs follows the
// AOTriton version's table (0.9: amd-gfx110x for Navi31/32; 0.10-0.11:
// amd-gfx11xx for every gfx11; 0.12: amd-gfx110x and amd-gfx115x; 0.13:
// amd-gfx1250 too), the version told by the library's name, the folders
// its read-only data names, or those shipped; a missing or empty folder
// fails SDPA later and names the wheel holding it; a processor the
// version does not know, or the build does not name, is a note.
func TestAOTritonPerVersion(t *testing.T) {
	const lib = "torch/lib/libaotriton_v2.so"
	img := func(folder string) string { return "torch/lib/aotriton.images/" + folder + "/flash/attn_fwd/k.aks2" }
	for _, tc := range []struct {
		name   string
		lib    string // the library's file name in torch/lib
		rodata []string
		images []string // image files shipped
		agent  string
		kind   kerneldb.Kind // "" for none
		effect kerneldb.Effect
		text   []string
	}{
		{"0.10-0.11 from rodata, no images (pytorch#194498)", "libaotriton_v2.so", []string{"aotriton.images", "amd-gfx11xx", "amd-gfx120x", "amd-gfx942"}, nil,
			"gfx1100", kerneldb.MissingImages, kerneldb.FailsLater,
			[]string{"torch/lib/aotriton.images/amd-gfx11xx is missing", "hipErrorInvalidValue", "amd-torch-device-gfx11 (the family wheel next to the per-arch amd-torch-device-gfx1100)"}},
		{"0.10-0.11, images shipped", "libaotriton_v2.so", []string{"aotriton.images", "amd-gfx11xx"}, []string{img("amd-gfx11xx")}, "gfx1151", "", "", nil},
		{"0.12 from rodata: gfx115x", "libaotriton_v2.so", []string{"aotriton.images", "amd-gfx110x", "amd-gfx115x"}, []string{img("amd-gfx110x")},
			"gfx1151", kerneldb.MissingImages, kerneldb.FailsLater, []string{"aotriton.images/amd-gfx115x is missing", "amd-torch-device-gfx115x"}},
		{"0.12: gfx110x shipped", "libaotriton_v2.so", []string{"aotriton.images", "amd-gfx110x", "amd-gfx115x"}, []string{img("amd-gfx110x")}, "gfx1100", "", "", nil},
		{"0.12 has no gfx1250", "libaotriton_v2.so", []string{"aotriton.images", "amd-gfx110x", "amd-gfx115x"}, nil,
			"gfx1250", kerneldb.UnsupportedArch, kerneldb.Slow, []string{"AOTriton 0.12 does not support gfx1250", "falls back to the MATH backend"}},
		{"0.13 from rodata: gfx1250", "libaotriton_v2.so", []string{"aotriton.images", "amd-gfx1250", "amd-gfx950"}, nil,
			"gfx1250", kerneldb.MissingImages, kerneldb.FailsLater, []string{"aotriton.images/amd-gfx1250 is missing", "amd-torch-device-gfx1250"}},
		{"version from the name beats the folders shipped", "libaotriton_v2.so.0.11.2", []string{"aotriton.images"}, []string{img("amd-gfx110x")},
			"gfx1100", kerneldb.MissingImages, kerneldb.FailsLater, []string{"aotriton.images/amd-gfx11xx is missing"}},
		{"version from the folders shipped", "libaotriton_v2.so", []string{"aotriton.images"}, []string{img("amd-gfx110x"), img("amd-gfx115x")},
			"gfx1100", "", "", nil},
		{"gfx120x wheel", "libaotriton_v2.so", []string{"aotriton.images", "amd-gfx11xx", "amd-gfx120x"}, nil,
			"gfx1201", kerneldb.MissingImages, kerneldb.FailsLater, []string{"amd-torch-device-gfx12-0"}},
		{"a processor AOTriton does not know", "libaotriton_v2.so", []string{"aotriton.images", "amd-gfx11xx"}, nil,
			"gfx1030", kerneldb.UnsupportedArch, kerneldb.Slow, []string{"AOTriton 0.10-0.11 does not support gfx1030"}},
		{"a build without the family", "libaotriton_v2.so", []string{"aotriton.images", "amd-gfx942", "amd-gfx11xx"}, nil,
			"gfx1201", kerneldb.UnsupportedArch, kerneldb.Slow, []string{"libaotriton_v2.so was built without amd-gfx120x images"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := kerneldbtest.New()
			tree.Add("torch/lib/"+tc.lib, aotritonLib(tc.rodata...))
			for _, p := range tc.images {
				tree.Add(p, []byte("AKS2"))
			}
			l := lookup(t, run(t, tree, []string{tc.agent}, kerneldb.Options{}), kerneldb.AOTriton, tc.agent)
			if tc.kind == "" {
				if len(l.Misses) > 0 {
					t.Fatalf("misses %+v", l.Misses)
				}
				return
			}
			if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{tc.kind}) || l.Misses[0].Effect != tc.effect {
				t.Fatalf("misses %+v", l.Misses)
			}
			for _, w := range tc.text {
				if !strings.Contains(l.Misses[0].Text, w) {
					t.Errorf("text lacks %q: %s", w, l.Misses[0].Text)
				}
			}
			if l.Site.Path != "torch/lib/"+tc.lib && tc.lib != "libaotriton_v2.so.0.11.2" {
				t.Errorf("site %s, want %s", l.Site.Path, lib)
			}
		})
	}
}

// TestAOTritonJudged: an empty family folder fails like a missing one; a
// library naming no aotriton.images, with no folder shipped, is not
// judged.
func TestAOTritonJudged(t *testing.T) {
	tree := kerneldbtest.New()
	tree.Add("torch/lib/libaotriton_v2.so", aotritonLib("aotriton.images", "amd-gfx942"))
	dir := t.TempDir()
	tree.Write(t, dir)
	if err := os.MkdirAll(filepath.Join(dir, "torch/lib/aotriton.images/amd-gfx942"), 0o755); err != nil {
		t.Fatal(err)
	}
	vt, err := vfs.Open([]string{dir}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vt.Close()
	const agent = "gfx942:sramecc+:xnack-"
	l := lookup(t, kerneldb.Check(vt, []string{agent}, kerneldb.Options{}), kerneldb.AOTriton, agent)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingImages}) || !strings.Contains(l.Misses[0].Text, "amd-gfx942 is empty") {
		t.Errorf("empty folder: %+v", l.Misses)
	}

	bare := kerneldbtest.New()
	bare.Add("torch/lib/libaotriton_v2.so", aotritonLib("nothing"))
	r := run(t, bare, []string{agent}, kerneldb.Options{})
	if len(r.Sites) != 0 || len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0].Why, "does not name aotriton.images") {
		t.Errorf("sites %d, skipped %+v", len(r.Sites), r.Skipped)
	}
}

// TestDeviceWheelRequirements: a device wheel whose METADATA requires a
// wheel no METADATA of the inputs is for (names compared as PEP 503
// normalises them; requirements under an extra do not count) is listed;
// other wheels are not.
func TestDeviceWheelRequirements(t *testing.T) {
	tree := kerneldbtest.New()
	tree.Add("torch-2.10.0.dist-info/METADATA", []byte("Metadata-Version: 2.1\nName: torch\nVersion: 2.10.0\n"+
		"Requires-Dist: amd-torch-device-gfx1100 == 2.10.0; extra == \"device-gfx1100\"\nRequires-Dist: filelock\n\nbody: Requires-Dist: x\n"))
	tree.Add("amd_torch_device_gfx1100-2.10.0.dist-info/METADATA", []byte("Metadata-Version: 2.1\nName: amd-torch-device-gfx1100\n"+
		"Requires-Dist: torch ==2.10.0\nRequires-Dist: rocm-sdk-device-gfx1100 == 7.1\nRequires-Dist: amd_torch_device_gfx11 (==2.10.0)\n"+
		"Requires-Dist: pytest; extra == \"test\"\n"))
	tree.Add("amd_torch_device_gfx110x-2.10.0.dist-info/METADATA", []byte("Name: Amd.Torch.Device-gfx110x\nRequires-Dist: torch\n"))
	r := kerneldb.Requirements(writeTree(t, tree))
	if len(r) != 1 || r[0].Wheel != "amd-torch-device-gfx1100" || r[0].Metadata != "amd_torch_device_gfx1100-2.10.0.dist-info/METADATA" ||
		!reflect.DeepEqual(r[0].Missing, []string{"amd_torch_device_gfx11", "rocm-sdk-device-gfx1100"}) {
		t.Errorf("requirements %+v", r)
	}
}

// manyRequires is a METADATA of a device wheel within maxMetadataBytes
// holding n distinct Requires-Dist lines r0..r<n-1>, each written twice.
func manyRequires(n int) []byte {
	var b strings.Builder
	b.WriteString("Name: amd-torch-device-gfx1100\n")
	for range 2 {
		for i := range n {
			fmt.Fprintf(&b, "Requires-Dist: r%d\n", i)
		}
	}
	return []byte(b.String())
}

// TestDeviceWheelRequirementsMany: 24,000 distinct requirements written
// twice (a 1 MiB METADATA) are counted once each; the first
// MaxMissingRequirements in sort order are kept.
func TestDeviceWheelRequirementsMany(t *testing.T) {
	tree := kerneldbtest.New()
	tree.Add("amd_torch_device_gfx1100-2.10.0.dist-info/METADATA", manyRequires(24000))
	r := kerneldb.Requirements(writeTree(t, tree))
	want := []string{"r0", "r1", "r10", "r100", "r1000", "r10000", "r10001", "r10002"}
	if len(r) != 1 || r[0].MissingTotal != 24000 || !reflect.DeepEqual(r[0].Missing, want) {
		t.Fatalf("requirements: %d, first %+v", len(r), r[0].Missing)
	}
}
