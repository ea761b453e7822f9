package kerneldb_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb/kerneldbtest"
)

// hipblaslt adds a hipBLASLt library with the given DT_SONAME ("" for
// none: the file is then named libhipblaslt.so.<major>.0) in lib/.
func hipblaslt(t *kerneldbtest.Tree, soname, major string) {
	if soname == "" {
		t.Add("lib/libhipblaslt.so."+major+".0", kerneldbtest.Library(kerneldbtest.EnvRocBLAS+"\x00"+kerneldbtest.EnvHipBLASLt))
		t.Link("lib/libhipblaslt.so."+major, "libhipblaslt.so."+major+".0")
		return
	}
	t.Add("lib/"+soname+".0", kerneldbtest.LibraryWithSoname(kerneldbtest.EnvHipBLASLt, soname))
	t.Link("lib/"+soname, soname+".0")
}

// TestHipBLASLtRelease: the SONAME decides the lookup (libhipblaslt.so.0:
// ROCm 5.5-6.4, libhipblaslt.so.1: 7.x), then the 7.x read-only data,
// then a versioned name; nothing: 7.x.
func TestHipBLASLtRelease(t *testing.T) {
	for _, tc := range []struct {
		name, soname, major, want, from string
	}{
		{"soname 0", "libhipblaslt.so.0", "", kerneldb.Release6, "its SONAME libhipblaslt.so.0"},
		{"soname 1", "libhipblaslt.so.1", "", kerneldb.Release7, "its SONAME libhipblaslt.so.1"},
		{"name 0", "", "0", kerneldb.Release6, "its name libhipblaslt.so.0"},
		{"name 1", "", "1", kerneldb.Release7, "its name libhipblaslt.so.1"},
	} {
		tree := kerneldbtest.New()
		hipblaslt(tree, tc.soname, tc.major)
		tree.AddTensile(kerneldbtest.Tensile{Dir: "lib/hipblaslt/library", Arches: []string{"gfx942"}, Lazy: true, Kernels: 1})
		s := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{}), kerneldb.HipBLASLt, mi300xnackOff).Site
		if s.Release != tc.want || s.ReleaseFrom != tc.from {
			t.Errorf("%s: %s from %s, want %s from %s", tc.name, s.Release, s.ReleaseFrom, tc.want, tc.from)
		}
	}
	// No SONAME, a 6.x-looking name, 7.x strings: 7.x.
	tree := kerneldbtest.New()
	tree.Add("lib/libhipblaslt.so.0", kerneldbtest.Library(kerneldbtest.EnvHipBLASLt))
	s := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Env: map[string]string{kerneldb.EnvHipBLASLt: "lib"}}), kerneldb.HipBLASLt, mi300xnackOff).Site
	if s.Release != kerneldb.Release7 || !strings.Contains(s.ReleaseFrom, "read-only data") {
		t.Errorf("7.x strings: %s from %s", s.Release, s.ReleaseFrom)
	}
}

// TestHipBLASLtLookupPerRelease: the same trees through the 6.x and the
// 7.x lookups, as each release's tensile_host.cpp does them.
func TestHipBLASLtLookupPerRelease(t *testing.T) {
	co := codeobjtest.CodeObject("gfx942", "x")
	idx := kerneldbtest.Index("gfx942", nil, false)
	type want struct {
		dir    string
		misses []kerneldb.Kind
		text   string // in the first miss
	}
	for _, tc := range []struct {
		name   string
		files  map[string][]byte
		env    map[string]string
		v6, v7 want
	}{
		{"non-lazy, one index for all arches (6.x name)",
			map[string][]byte{"lib/hipblaslt/library/TensileLibrary.dat": idx, "lib/hipblaslt/library/TensileLibrary_gfx942_0.co": co}, nil,
			want{"lib/hipblaslt/library", nil, ""},
			want{"lib/hipblaslt/library", []kerneldb.Kind{kerneldb.MissingIndex}, `Cannot read "lib/hipblaslt/library/TensileLibrary_gfx942.dat" (or .zlib variant)`}},
		{"non-lazy, per-arch index (7.x name)",
			map[string][]byte{"lib/hipblaslt/library/TensileLibrary_gfx942.dat": idx, "lib/hipblaslt/library/TensileLibrary_gfx942_0.co": co}, nil,
			want{"lib/hipblaslt/library", []kerneldb.Kind{kerneldb.MissingIndex}, "rocblaslt error: Cannot read lib/hipblaslt/library/TensileLibrary.dat: No such file or directory;"},
			want{"lib/hipblaslt/library", nil, ""}},
		{"non-lazy, no code object for the processor",
			map[string][]byte{"lib/hipblaslt/library/TensileLibrary.dat": idx, "lib/hipblaslt/library/TensileLibrary_gfx90a_0.co": co}, nil,
			want{"lib/hipblaslt/library", []kerneldb.Kind{kerneldb.NoCodeObjects}, "rocblaslt warning: No paths matched lib/hipblaslt/library/*gfx942*co."},
			want{"lib/hipblaslt/library", []kerneldb.Kind{kerneldb.MissingIndex}, ""}},
		{"../Tensile/library comes first in 6.x, last but one in 7.x",
			map[string][]byte{"Tensile/library/TensileLibrary.dat": idx, "Tensile/library/TensileLibrary_gfx942_0.co": co,
				"lib/hipblaslt/library/TensileLibrary_gfx942.dat": idx, "lib/hipblaslt/library/TensileLibrary_gfx942_0.co": co}, nil,
			want{"Tensile/library", nil, ""}, want{"lib/hipblaslt/library", nil, ""}},
		{"lib/library: 6.x tests liblibrary (no '/') and never takes it",
			map[string][]byte{"lib/library/TensileLibrary.dat": idx, "lib/library/TensileLibrary_gfx942.dat": idx, "lib/library/TensileLibrary_gfx942_0.co": co}, nil,
			want{"lib/hipblaslt/library", []kerneldb.Kind{kerneldb.MissingIndex}, "Cannot read lib/hipblaslt/library/TensileLibrary.dat: No such file or directory"},
			want{"lib/library", nil, ""}},
		{"no folder: 7.x reads the working directory, 6.x the untested default",
			map[string][]byte{"lib/README": nil}, nil,
			want{"lib/hipblaslt/library", []kerneldb.Kind{kerneldb.MissingIndex}, "Cannot read lib/hipblaslt/library/TensileLibrary.dat: No such file or directory"},
			want{kerneldb.CwdDir, []kerneldb.Kind{kerneldb.MissingIndex, kerneldb.MissingHelper}, "relative to the program's working directory"}},
		{"lazy index compressed only: 6.x reads no .zlib",
			map[string][]byte{"lib/hipblaslt/library/TensileLibrary_lazy_gfx942.dat.zlib": idx,
				"lib/hipblaslt/library/Kernels.so-000-gfx942.hsaco": co, "lib/hipblaslt/library/TensileLiteLibrary_lazy_gfx942_Mapping.dat": idx}, nil,
			want{"lib/hipblaslt/library", []kerneldb.Kind{kerneldb.MissingIndex}, "Cannot read lib/hipblaslt/library/TensileLibrary_lazy_gfx942.dat: No such file or directory"},
			want{"lib/hipblaslt/library", nil, ""}},
		{"TheRock#7976: files in library/gfx942/, variable unset: both probe <proc>/",
			map[string][]byte{"lib/hipblaslt/library/gfx942/TensileLibrary_lazy_gfx942.dat": idx,
				"lib/hipblaslt/library/gfx942/Kernels.so-000-gfx942.hsaco": co, "lib/hipblaslt/library/gfx942/TensileLiteLibrary_lazy_gfx942_Mapping.dat": idx}, nil,
			want{"lib/hipblaslt/library/gfx942", nil, ""}, want{"lib/hipblaslt/library/gfx942", nil, ""}},
		{"TheRock#7976: files in library/gfx942/, variable set: neither looks there",
			map[string][]byte{"lib/hipblaslt/library/gfx942/TensileLibrary_lazy_gfx942.dat": idx,
				"lib/hipblaslt/library/gfx942/Kernels.so-000-gfx942.hsaco": co, "lib/hipblaslt/library/gfx942/TensileLiteLibrary_lazy_gfx942_Mapping.dat": idx},
			map[string]string{kerneldb.EnvHipBLASLt: "lib/hipblaslt/library"},
			want{"lib/hipblaslt/library", []kerneldb.Kind{kerneldb.MissingIndex, kerneldb.MissingHelper}, "it looks in a <proc>/ subfolder only when the variable is unset, and the files for gfx942 are in lib/hipblaslt/library/gfx942/ (TheRock#7976); point the variable at lib/hipblaslt/library/gfx942 or unset it"},
			want{"lib/hipblaslt/library", []kerneldb.Kind{kerneldb.MissingIndex, kerneldb.MissingHelper}, "point the variable at lib/hipblaslt/library/gfx942 or unset it"}},
	} {
		for _, rel := range []struct {
			soname string
			want   want
		}{{"libhipblaslt.so.0", tc.v6}, {"libhipblaslt.so.1", tc.v7}} {
			tree := kerneldbtest.New()
			hipblaslt(tree, rel.soname, "")
			for p, d := range tc.files {
				tree.Add(p, d)
			}
			l := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Env: tc.env}), kerneldb.HipBLASLt, mi300xnackOff)
			got := kinds(l)
			if len(got) == 0 {
				got = nil
			}
			if l.Dir != rel.want.dir || !reflect.DeepEqual(got, rel.want.misses) {
				t.Errorf("%s (%s): dir %s, misses %v; want %s, %v", tc.name, rel.soname, l.Dir, got, rel.want.dir, rel.want.misses)
				continue
			}
			if rel.want.text != "" && !strings.Contains(l.Misses[0].Text, rel.want.text) {
				t.Errorf("%s (%s): miss text lacks %q:\n%s", tc.name, rel.soname, rel.want.text, l.Misses[0].Text)
			}
		}
	}
}
