package lint_test

import (
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
)

// TestNameTagMessage: a valid file-name tag that gfx_arches does not list
// is worded as such (what the loader reads), not as an ID LLVM rejects; an
// invalid tag still is.
func TestNameTagMessage(t *testing.T) {
	for _, tc := range []struct {
		name, file, arch string
		want, absent     []string
	}{
		{"valid tag, other target", "rand_lib_gfx906.kpack", "gfx906:xnack-",
			[]string{"the file-name tag gfx906 is a valid target ID but names a different target than gfx_arches [gfx906:xnack-]",
				"The loader reads only gfx_arches", "name the archive after its gfx_arches (rand_lib_gfx906:xnack-.kpack)"},
			[]string{"LLVM rejects"}},
		{"invalid tag", "rand_lib_gfx906:xnack.kpack", "gfx906:xnack-",
			[]string{`file-name tag "gfx906:xnack" is not a valid target ID`, "LLVM rejects such target IDs"},
			[]string{"is a valid target ID"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testtree.Write(t, map[string][]byte{".kpack/" + tc.file: zstdArchive("rand_lib", tc.arch, "k", 1)})
			fs := byRule(runCheck(t, lint.Config{Targets: []string{"gfx906:xnack-"}}, dir), "KPL010")
			if len(fs) != 1 {
				t.Fatalf("want one KPL010, got %+v", fs)
			}
			for _, w := range tc.want {
				if !strings.Contains(fs[0].Message, w) {
					t.Errorf("message lacks %q: %s", w, fs[0].Message)
				}
			}
			for _, w := range tc.absent {
				if strings.Contains(fs[0].Message, w) {
					t.Errorf("message has %q: %s", w, fs[0].Message)
				}
			}
		})
	}
}

// TestMissingArchiveNearMiss: a KPL006 names the archive whose name
// differs from one looked for only by ':' stored as '_', the case or the
// extension, when it holds the kernels, with a did-you-mean and the file
// as a related location; an archive that holds none of them is not named.
func TestMissingArchiveNearMiss(t *testing.T) {
	bin := binaryELF("lib/librand.so", ".kpack/rand_lib_@GFXARCH@.kpack", 2)
	for _, tc := range []struct {
		name, file string
		holds      bool
		want       []string
	}{
		{"colon as underscore", "rand_lib_gfx90a_xnack-.kpack", true,
			[]string{"did you mean lib/.kpack/rand_lib_gfx90a_xnack-.kpack (rand_lib_gfx90a:xnack-.kpack with ':' replaced by '_'; it holds lib/librand.so#0-1 for gfx_arches [gfx90a:xnack-])?",
				"Fix: install lib/.kpack/rand_lib_gfx90a_xnack-.kpack as rand_lib_gfx90a:xnack-.kpack (a store or file system that rejects ':'"}},
		{"case", "Rand_Lib_gfx90a:xnack-.kpack", true,
			[]string{"did you mean lib/.kpack/Rand_Lib_gfx90a:xnack-.kpack (rand_lib_gfx90a:xnack-.kpack in another case; it holds"}},
		{"extension", "rand_lib_gfx90a:xnack-.KPACK", true,
			[]string{"did you mean lib/.kpack/rand_lib_gfx90a:xnack-.KPACK (rand_lib_gfx90a:xnack-.kpack with another extension; a kpack archive by its magic, not read as one"}},
		{"other kernels", "rand_lib_gfx90a_xnack-.kpack", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "lib/librand.so"
			if !tc.holds {
				name = "lib/libother.so"
			}
			dir := testtree.Write(t, map[string][]byte{
				"lib/librand.so":        bin,
				"lib/.kpack/" + tc.file: zstdArchive("rand_lib", "gfx90a:xnack-", name, 2),
			})
			fs := byRule(runCheck(t, lint.Config{Targets: []string{"gfx90a:xnack-"}}, dir), "KPL006")
			if len(fs) != 1 {
				t.Fatalf("want one KPL006, got %+v", fs)
			}
			f := fs[0]
			if !tc.holds {
				if strings.Contains(f.Message, "did you mean") || len(f.Related) > 0 {
					t.Errorf("an archive without the kernels is named: %s", f.Message)
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(f.Message, w) {
					t.Errorf("message lacks %q:\n%s", w, f.Message)
				}
			}
			if len(f.Related) != 1 || f.Related[0].Path != "lib/.kpack/"+tc.file {
				t.Errorf("related %+v, want the near miss", f.Related)
			}
		})
	}
}
