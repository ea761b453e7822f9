package model

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/input/vfs"
)

func TestSplitArchiveName(t *testing.T) {
	for _, tt := range []struct{ in, group, tag string }{
		{".kpack/torch_gfx90a:xnack-.kpack", "torch", "gfx90a:xnack-"},
		{"lib/.kpack/blas_lib_gfx1151.kpack", "blas_lib", "gfx1151"},
		{"rocm-gfx110X.kpack", "", ""},
		{"_gfx900.kpack", "", ""},
		{"x_.kpack", "", ""},
	} {
		g, tag := finding.SplitArchiveName(tt.in)
		if g != tt.group || tag != tt.tag {
			t.Errorf("SplitArchiveName(%q) = %q, %q; want %q, %q", tt.in, g, tag, tt.group, tt.tag)
		}
	}
}

func TestGroupFromSearchPaths(t *testing.T) {
	for in, want := range map[string]string{
		"../.kpack/fft_test_@GFXARCH@.kpack": "fft_test",
		`..\.kpack\blas_lib_@GFXARCH@.kpack`: "blas_lib",
		".kpack/fixed.kpack":                 "",
	} {
		if got := groupFromSearchPaths([]string{in}); got != want {
			t.Errorf("%q: group %q, want %q", in, got, want)
		}
	}
}

func TestWanted(t *testing.T) {
	if !Wanted("a/x.kpack", []byte("KPAK\x01")) || Wanted("a/x.kpack", []byte("\x00\x00")) {
		t.Error("archives are wanted by name and magic")
	}
	if !Wanted("lib/x.so", []byte("\x7fELF")) || !Wanted("bin/x.dll", []byte("MZ\x90\x00")) || Wanted("doc/x.txt", []byte("text")) {
		t.Error("host binaries are wanted by magic only")
	}
}

// TestTOCFetch predicts kpack_get_kernel's codes from the TOC alone.
func TestTOCFetch(t *testing.T) {
	dir := t.TempDir()
	k := []kpacktest.Kernel{{Key: "lib/x.so#0", Arch: "gfx1100", Data: []byte("code object")}}
	write := func(name string, s kpacktest.Spec) {
		s.Group, s.Kernels = "g", k
		if err := os.WriteFile(filepath.Join(dir, name), kpacktest.Build(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("none.kpack", kpacktest.Spec{})
	write("zstd.kpack", kpacktest.Spec{Scheme: kpack.SchemeZstd})
	write("noblobs.kpack", kpacktest.Spec{Mutate: func(toc map[string]any) { delete(toc, "blobs") }})
	write("past.kpack", kpacktest.Spec{Mutate: func(toc map[string]any) {
		toc["blobs"] = []any{map[string]any{"offset": 64, "size": 1 << 20}}
	}})
	os.WriteFile(filepath.Join(dir, "x.so"), hostbintest.ELF(hostbintest.RefBytes("lib/x.so", "g_@GFXARCH@.kpack"), hostbintest.HIPK(1)), 0o755)
	tree, err := vfs.Open([]string{dir}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	b := Load(tree)
	if len(b.Archives) != 4 || len(b.Binaries) != 1 || b.Binaries[0].Group != "g" {
		t.Fatalf("archives %d, binaries %d", len(b.Archives), len(b.Binaries))
	}
	for _, tt := range []struct {
		archive, key string
		want         kpack.Code
	}{
		{"none.kpack", "lib/x.so#0", kpack.Success},
		{"zstd.kpack", "lib/x.so#0", kpack.Success},
		{"none.kpack", "lib/x.so#1", kpack.KernelNotFound},
		{"noblobs.kpack", "lib/x.so#0", kpack.KernelNotFound},
		{"past.kpack", "lib/x.so#0", kpack.IOError},
	} {
		if got := b.Fetch(tt.archive, tt.key, "gfx1100"); got != tt.want {
			t.Errorf("%s %s: %v, want %v", tt.archive, tt.key, got, tt.want)
		}
	}
	if _, ok := b.Open("missing.kpack"); ok {
		t.Error("a missing path opened")
	}
}

// TestInventoryShared: a group x target held by two archives counts each
// kernel key once (the keys of the first archive are set aside only when
// the second arrives) and lists both archives; a target only declared in
// gfx_arches lists its archive with no kernels.
func TestInventoryShared(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, arches []string, keys ...string) {
		var ks []kpacktest.Kernel
		for _, k := range keys {
			ks = append(ks, kpacktest.Kernel{Key: k, Arch: "gfx942", Data: []byte("0123456789")})
		}
		s := kpacktest.Spec{Group: "g", Arches: arches, Kernels: ks}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), kpacktest.Build(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/g_gfx942.kpack", []string{"gfx942", "gfx950"}, "x#0", "x#1")
	write("b/g_gfx942.kpack", []string{"gfx942"}, "x#1", "x#2", "x#3")
	tree, err := vfs.Open([]string{dir}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	inv := Load(tree).Inventory(nil)
	if len(inv) != 2 {
		t.Fatalf("inventory %+v, want gfx942 and gfx950", inv)
	}
	if it := inv[0]; it.Target != "gfx942" || it.Kernels != 4 || it.Bytes != 50 || len(it.Archives) != 2 {
		t.Errorf("gfx942: %+v, want 4 kernels, 50 bytes, 2 archives", it)
	}
	if it := inv[1]; it.Target != "gfx950" || it.Kernels != 0 || len(it.Archives) != 1 || it.Archives[0].Path != "a/g_gfx942.kpack" {
		t.Errorf("gfx950: %+v, want a/g_gfx942.kpack with no kernels", it)
	}
}

// TestInventoryTotals: the inventory taken from each archive's arch
// totals (and key sets only where two archives share a group x target)
// is the one a walk over every TOC entry gives, on random builds of fat
// and split archives sharing groups and targets, with copies.
func TestInventoryTotals(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	arches := []string{"gfx90a", "gfx942", "gfx1100", "gfx1201:xnack+"}
	for round := range 6 {
		dir := t.TempDir()
		for i := range 8 {
			g := fmt.Sprintf("g%d", rng.IntN(3))
			var ks []kpacktest.Kernel
			for k := range 1 + rng.IntN(30) {
				for _, a := range arches {
					if rng.IntN(3) > 0 {
						ks = append(ks, kpacktest.Kernel{Key: fmt.Sprintf("lib/x%d.so#%d", rng.IntN(3), k), Arch: a, Data: make([]byte, 1+rng.IntN(50))})
					}
				}
			}
			ks = slices.CompactFunc(ks, func(x, y kpacktest.Kernel) bool { return x.Key == y.Key && x.Arch == y.Arch })
			data := kpacktest.Build(kpacktest.Spec{Group: g, Arches: arches[:1+rng.IntN(len(arches))], Kernels: ks})
			for c := range 1 + rng.IntN(2) { // a copy in another folder
				writeFile(t, dir, fmt.Sprintf("d%d/c%d/%s_%d.kpack", i, c, g, i), data)
			}
		}
		tree, err := vfs.Open([]string{dir}, vfs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := Load(tree)
		if got, want := b.Inventory(nil), walkedInventory(b); !reflect.DeepEqual(got, want) {
			t.Errorf("round %d: inventory\n%+v\nwalking every entry gives\n%+v", round, got, want)
		}
		tree.Close()
	}
}

// walkedInventory is Inventory computed from every TOC entry of every
// archive, with a key set per item.
func walkedInventory(b *Build) []finding.InventoryItem {
	type acc struct {
		it   finding.InventoryItem
		keys map[string]bool
	}
	items := map[[2]string]*acc{}
	get := func(g, t string, ref finding.ArchiveRef) *acc {
		x := items[[2]string{g, t}]
		if x == nil {
			x = &acc{it: finding.InventoryItem{Group: g, Target: t}, keys: map[string]bool{}}
			items[[2]string{g, t}] = x
		}
		if !slices.Contains(x.it.Archives, ref) {
			x.it.Archives = append(x.it.Archives, ref)
		}
		return x
	}
	for _, a := range b.Archives {
		g := a.Group()
		if a.Info == nil || g == "" {
			continue
		}
		ref := finding.ArchiveRef{Input: a.Entry.Input, Path: a.Path}
		for _, t := range a.Info.Arches {
			get(g, t, ref)
		}
		for key, entries := range a.Info.Kernels {
			for _, e := range entries {
				x := get(g, e.Arch, ref)
				x.keys[key] = true
				x.it.Bytes += e.OriginalSize
			}
		}
	}
	var out []finding.InventoryItem
	for _, x := range items {
		x.it.Kernels = len(x.keys)
		slices.SortFunc(x.it.Archives, func(p, q finding.ArchiveRef) int {
			return cmp.Or(cmp.Compare(p.Input, q.Input), strings.Compare(p.Path, q.Path))
		})
		out = append(out, x.it)
	}
	slices.SortFunc(out, func(x, y finding.InventoryItem) int {
		return cmp.Or(strings.Compare(x.Group, y.Group), strings.Compare(x.Target, y.Target))
	})
	return out
}

// TestSharedCopies: copies of an archive in two folders (the same size),
// read one after the other, share one parsed TOC through the loader; an
// archive of a size no other .kpack file has is parsed on its own.
func TestSharedCopies(t *testing.T) {
	var ks []kpacktest.Kernel
	for i := range 3000 {
		ks = append(ks, kpacktest.Kernel{Key: fmt.Sprintf("lib/libx.so#%d", i), Arch: "gfx942", Data: []byte("code")})
	}
	data := kpacktest.Build(kpacktest.Spec{Group: "g", Kernels: ks})
	other := kpacktest.Build(kpacktest.Spec{Group: "h", Kernels: append(ks, kpacktest.Kernel{Key: "lib/liby.so#0", Arch: "gfx942", Data: []byte("more")})})
	dir := t.TempDir()
	for name, b := range map[string][]byte{"a/g_gfx942.kpack": data, "b/g_gfx942.kpack": data, "c/h_gfx942.kpack": other} {
		writeFile(t, dir, name, b)
	}
	tree, err := vfs.Open([]string{dir}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	b := LoadOptions(tree, Options{Workers: 1}) // sharing is best effort: copies parsed at once each parse
	a1, a2, h := b.ArchiveAt("a/g_gfx942.kpack"), b.ArchiveAt("b/g_gfx942.kpack"), b.ArchiveAt("c/h_gfx942.kpack")
	if a1 == nil || a2 == nil || h == nil || a1.Info == nil || a2.Info == nil || h.Info == nil {
		t.Fatalf("archives: %v %v %v", a1, a2, h)
	}
	if a1.Info.TOCSize < kpack.MinSharedTOC || a1.Info.TOCID() != a2.Info.TOCID() {
		t.Errorf("the two copies do not share their TOC (%d bytes)", a1.Info.TOCSize)
	}
	if h.Info.TOCID() == a1.Info.TOCID() || len(h.Info.Kernels) != 3001 {
		t.Errorf("the other archive shares a TOC or lost kernels: %d", len(h.Info.Kernels))
	}
}

// writeFile writes data at the slash path name under dir, making its
// folders.
func writeFile(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
