package lint_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
)

// A library moved into lib/rocblas/ with a symlink left behind loads from
// its real folder: KPL006 says so, names the symlink, the folder the
// runtime resolves from and where the group's archives are.
func TestMissingArchiveThroughSymlink(t *testing.T) {
	dir := testtree.Write(t, map[string][]byte{
		"lib/rocblas/librocblas.so.5":       binaryELF("lib/librocblas.so.5", ".kpack/blas_lib_@GFXARCH@.kpack", 2),
		"lib/.kpack/blas_lib_gfx1100.kpack": zstdArchive("blas_lib", "gfx1100", "lib/librocblas.so.5", 2),
	})
	if err := os.Symlink("rocblas/librocblas.so.5", filepath.Join(dir, "lib", "librocblas.so.5")); err != nil {
		t.Fatal(err)
	}
	fs := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, dir), "KPL006")
	if len(fs) != 1 {
		t.Fatalf("want one KPL006, got %+v", fs)
	}
	msg := fs[0].Message
	for _, want := range []string{
		"opens for lib/rocblas/librocblas.so.5 (kernel keys lib/librocblas.so.5#0-1)",
		"it looks for lib/rocblas/.kpack/blas_lib_gfx1100.kpack",
		"The binary is loaded through 1 symlink (lib/librocblas.so.5): the runtime resolves its kpack_search_paths from the folder of the file it loads, lib/rocblas (as /proc/self/maps names it), not from the symlink's, lib.",
		"Group blas_lib's archives are in lib/.kpack.",
		"Fix: install the binary itself at lib/librocblas.so.5 (not a symlink to lib/rocblas/librocblas.so.5), move group blas_lib's archives to lib/rocblas/.kpack",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if fs[0].Location.Path != "lib/rocblas/librocblas.so.5" {
		t.Errorf("location %s", fs[0].Location.Path)
	}
}

// A copy in lib64/ is named by its own path, says it is a copy and where
// the archives are; the original in lib/ loads.
func TestMissingArchiveOfACopy(t *testing.T) {
	lib := binaryELF("lib/libx.so", ".kpack/g_@GFXARCH@.kpack", 3)
	dir := testtree.Write(t, map[string][]byte{
		"lib/libx.so":                lib,
		"lib64/libx.so":              lib,
		"lib/.kpack/g_gfx1100.kpack": zstdArchive("g", "gfx1100", "lib/libx.so", 3),
	})
	fs := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, dir), "KPL006")
	if len(fs) != 1 || fs[0].Location.Path != "lib64/libx.so" {
		t.Fatalf("want one KPL006 about lib64/libx.so, got %+v", fs)
	}
	for _, want := range []string{
		"opens for lib64/libx.so (kernel keys lib/libx.so#0-2)",
		"The binary is a copy of lib/libx.so (the same kernel_name), and a copy looks for archives from its own folder, lib64.",
		"Group g's archives are in lib/.kpack.",
	} {
		if !strings.Contains(fs[0].Message, want) {
			t.Errorf("message lacks %q:\n%s", want, fs[0].Message)
		}
	}
}
