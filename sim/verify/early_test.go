package verify_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/testutil/pkgbuild"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
	"github.com/rocm-tools/kpack-lint/sim/verify"
)

// noise is n bytes of random letters (xz keeps about three quarters).
func noise(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 5))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + rng.IntN(26))
	}
	return string(b)
}

// earlyFiles is a library with four embedded bundles of two HIP entries
// of about 40 KiB each (and a host entry): its bytes span several of the
// 64 KiB xz blocks of earlyInputs.
func earlyFiles() []pkgbuild.File {
	var bundles [][]byte
	for i := range 4 {
		bundles = append(bundles, hostbintest.BundleOf(
			hostbintest.Entry{ID: hostbintest.HostEntry, Data: []byte("host")},
			hostbintest.Entry{ID: "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", Data: codeobjtest.CodeObject("gfx942:sramecc+:xnack-", noise(40<<10, uint64(2*i)))},
			hostbintest.Entry{ID: "hipv4-amdgcn-amd-amdhsa--gfx1100", Data: codeobjtest.CodeObject(fmt.Sprintf("gfx11%02d", i), noise(40<<10, uint64(2*i+1)))},
		))
	}
	return []pkgbuild.File{pkgbuild.Dir("lib"), pkgbuild.Reg("lib/libx.so", hostbintest.EmbeddedELF(bundles, true))}
}

// loadEarly opens path and loads its model with an Early verifying while
// it reads.
func loadEarly(t *testing.T, path string, opt verify.Options) (*model.Build, *verify.Early) {
	t.Helper()
	tree, err := vfs.Open([]string{path}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tree.Close() })
	early := verify.NewEarly(opt, tree.Budget(), nil)
	return model.LoadOptions(tree, model.Options{Bundles: early.Hook}), early
}

// TestEarlyInPlace: the bundles of a library read in place (a .tar.xz cut
// into blocks) are verified while the library is read, with the results
// VerifyEmbedded gives alone; a library in a folder is left to
// VerifyEmbedded.
func TestEarlyInPlace(t *testing.T) {
	files := earlyFiles()
	xz := pkgbuild.Write(t, "in.tar.xz", pkgbuild.CompressBlocks(t, pkgbuild.Tar(t, files), 64<<10))
	opt := verify.Options{Workers: 2}
	b, early := loadEarly(t, xz, opt)
	if len(b.Binaries) != 1 || !b.Binaries[0].Entry.InPlace() {
		t.Fatalf("binaries %v: want lib/libx.so read in place", b.Binaries)
	}
	if early.Verified() != 4 {
		t.Fatalf("%d bundles verified while reading, want 4", early.Verified())
	}
	got := verify.VerifyEmbedded(b, opt, nil, early)
	want := verify.VerifyEmbedded(b, opt, nil, nil)
	bin := b.Binaries[0]
	for _, bd := range bin.Info.Bundles {
		g, w := got.Objects(bin, bd), want.Objects(bin, bd)
		if len(g) != 2 || !reflect.DeepEqual(g, w) {
			t.Errorf("bundle %d: early %+v, alone %+v", bd.Wrapper, g, w)
		}
	}
	if got.Bundles != 4 || got.Entries != 8 || got.Bytes != want.Bytes {
		t.Errorf("early: %d bundles, %d entries, %d bytes; alone %d, %d, %d", got.Bundles, got.Entries, got.Bytes, want.Bundles, want.Entries, want.Bytes)
	}
	if o := got.Objects(bin, bin.Info.Bundles[3]); o[1].Target != "gfx1103" || o[0].Target != "gfx942:sramecc+:xnack-" {
		t.Errorf("bundle 4: %+v", o)
	}

	dir := testtree.Write(t, map[string][]byte{files[1].Path: files[1].Data})
	_, early = loadEarly(t, dir, opt)
	if early.Verified() != 0 {
		t.Errorf("%d bundles of a folder's library verified while reading, want 0", early.Verified())
	}
}
