package kerneldb_test

import (
	"encoding/binary"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb/kerneldbtest"
)

// citation is a file:line@tag (or a commit) of the rocBLAS sources.
var citation = regexp.MustCompile(`(tensile_host\.cpp|HipSolutionAdapter\.cpp):[0-9]+(-[0-9]+)?@(rocm-[0-9.]+|release-staging/rocm-rel-6\.3)|rocm-libraries projects/rocblas/library/src/tensile_host\.cpp .*at (00255b93|e61e87e0)`)

// TestRocBLASRowsCite: every cell of every row cites its source; cells
// not read in the row's own release say "inferred".
func TestRocBLASRowsCite(t *testing.T) {
	rows := kerneldb.RocBLASRows()
	var names []string
	for _, r := range rows {
		names = append(names, r.Name)
		for field, src := range map[string]string{
			"Bases": r.Bases.Source, "GluedLibrary": r.GluedLibrary.Source, "ArchWithEnv": r.ArchWithEnv.Source,
			"XnackDir": r.XnackDir.Source, "LazyIndex": r.LazyIndex.Source, "SkipOther": r.SkipOther.Source,
			"LoadFails": r.LoadFails.Source, "ArchText": r.ArchText.Source,
		} {
			if !citation.MatchString(src) {
				t.Errorf("%s.%s cites %q", r.Name, field, src)
			}
		}
		if r.Name == "7.x" && !strings.Contains(r.Covers, "inferred") {
			t.Errorf("7.x covers %q: not read in those releases' own source", r.Covers)
		}
	}
	if want := []string{"5.2", "5.3-5.5", "5.6", "5.7", "6.0", "6.1-6.3", "7.x", "newest"}; !slices.Equal(names, want) {
		t.Errorf("rows %v, want %v", names, want)
	}
}

// TestRocBLASRowCells asserts each row's values, as read at its tag.
func TestRocBLASRowCells(t *testing.T) {
	type cells struct {
		bases                                          string
		glued, archEnv, xnackDir, lazy, skip, archText bool
		loadFails                                      kerneldb.Effect
	}
	want := map[string]cells{
		// tensile_host.cpp:580-585,587,592-601,646@rocm-5.2.3
		"5.2": {"../../Tensile/library library rocblas/library", true, false, false, false, false, false, kerneldb.FailsLater},
		// :596-601,603,610-625,678@rocm-5.5.1
		"5.3-5.5": {"../../Tensile/library library rocblas/library", true, false, false, true, false, false, kerneldb.FailsLater},
		// :619,707-711@rocm-5.6.1
		"5.6": {"../../Tensile/library library rocblas/library", true, false, false, true, true, false, kerneldb.FailsLater},
		// :663 (the '/' fixed), :696 (for GPU arch)@rocm-5.7.1
		"5.7": {"../../Tensile/library library rocblas/library", false, false, false, true, true, true, kerneldb.FailsLater},
		// :725 (../rocblas/library), :732 (inside the else of if(env))@rocm-6.0.2
		"6.0": {"../../Tensile/library library ../rocblas/library rocblas/library", false, false, false, true, true, true, kerneldb.FailsLater},
		// :738@rocm-6.1.2, :791@rocm-6.2.2 (after the base, whatever set it)
		"6.1-6.3": {"../../Tensile/library library ../rocblas/library rocblas/library", false, true, false, true, true, true, kerneldb.FailsLater},
		// rocm-libraries e61e87e0 (../Tensile/library added), inferred for 7.x
		"7.x": {"../../Tensile/library library ../rocblas/library ../Tensile/library rocblas/library", false, true, false, true, true, true, kerneldb.FailsLater},
		// rocm-libraries 00255b93 (xnack folders; THROW_IF_HIP_ERROR_MESSAGE)
		"newest": {"../../Tensile/library library ../rocblas/library ../Tensile/library rocblas/library", false, true, true, true, true, true, kerneldb.Abort},
	}
	for _, r := range kerneldb.RocBLASRows() {
		got := cells{strings.Join(r.Bases.Value, " "), r.GluedLibrary.Value, r.ArchWithEnv.Value, r.XnackDir.Value,
			r.LazyIndex.Value, r.SkipOther.Value, r.ArchText.Value, r.LoadFails.Value}
		if got != want[r.Name] {
			t.Errorf("%s: %+v, want %+v", r.Name, got, want[r.Name])
		}
	}
}

// TestRocBLASReleaseChoice: the library's version decides, then its
// SONAME's range narrowed by --hip, then --hip, then the newest.
func TestRocBLASReleaseChoice(t *testing.T) {
	env := kerneldbtest.EnvRocBLAS
	for _, c := range []struct {
		name, soname, hip string
		strs              []string
		row, from         string
	}{
		{"debian", "librocblas.so.0", "", []string{"/rocblas/2.47.0/library"}, "5.3-5.5", "Debian's versioned folder"},
		{"debian-hip-newest", "librocblas.so.0", "newest", []string{"/rocblas/2.47.0/library"}, "5.3-5.5", "rocBLAS 2.47"},
		{"version-string", "librocblas.so.0", "", []string{"2.44.0."}, "5.2", "its version string 2.44.0"},
		{"version-disagrees", "librocblas.so.4", "", []string{"2.44.0."}, "6.1-6.3", "librocblas.so.4"},
		{"soname-hip", "librocblas.so.3", "5.6", nil, "5.6", "--hip 5.6"},
		{"soname-newest-of-range", "librocblas.so.3", "", nil, "5.7", "the newest taken"},
		{"soname-hip-outside", "librocblas.so.4", "7.2", nil, "6.1-6.3", "not --hip 7.2's"},
		{"hip-only", "", "5.7", nil, "5.7", "--hip 5.7"},
		{"nothing", "", "", nil, "newest", "the newest"},
		{"rocm7-hip-7.2", "librocblas.so.5", "7.2", nil, "7.x", "--hip 7.2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tree := kerneldbtest.New()
			tree.Add("lib/librocblas.so", kerneldbtest.LibraryWithStrings(env, c.soname, c.strs...))
			tree.Add("lib/rocblas/library/TensileLibrary.dat", []byte("x"))
			r := run(t, tree, nil, kerneldb.Options{HIP: c.hip})
			s := r.Sites[0]
			if !strings.HasPrefix(s.Release, "rocBLAS "+c.row+" (") || !strings.Contains(s.ReleaseFrom, c.from) {
				t.Errorf("release %q from %q, want row %s from ...%s...", s.Release, s.ReleaseFrom, c.row, c.from)
			}
		})
	}
}

// debianTree is Debian 13's librocblas0 layout: lib/x86_64-linux-gnu/
// librocblas.so.0.1 naming "/rocblas/2.47.0/library" (Debian's
// 0006-move-tensile-library-into-versioned-subdir), a non-lazy flat
// TensileLibrary.dat and *_<proc>.co code objects there.
func debianTree(cos map[string][]byte) *kerneldbtest.Tree {
	const lib = "usr/lib/x86_64-linux-gnu"
	tree := kerneldbtest.New()
	tree.Add(lib+"/librocblas.so.0.1", kerneldbtest.LibraryWithStrings(kerneldbtest.EnvRocBLAS, "librocblas.so.0", "/rocblas/2.47.0/library", "/../../Tensile/library", "/rocblas/library"))
	tree.Link(lib+"/librocblas.so.0", "librocblas.so.0.1")
	tree.Add(lib+"/rocblas/2.47.0/library/TensileLibrary.dat", []byte("x"))
	for n, b := range cos {
		tree.Add(lib+"/rocblas/2.47.0/library/"+n, b)
	}
	return tree
}

// TestDebianVersionedFolder: the versioned folder read from the library's
// strings is the base; agents without code objects there lack kernels
// (no abort), the others are clean.
func TestDebianVersionedFolder(t *testing.T) {
	tree := debianTree(map[string][]byte{"TensileLibrary_gfx90a.co": []byte("x"), "Kernels.so-000-gfx90a-xnack+.hsaco": []byte("x")})
	r := run(t, tree, []string{"gfx90a:xnack+", "gfx942:sramecc+:xnack-"}, kerneldb.Options{})
	s := r.Sites[0]
	if s.Base != "usr/lib/x86_64-linux-gnu/rocblas/2.47.0/library" || s.BaseSteps[0].Note == "" || !s.BaseSteps[0].Found {
		t.Fatalf("base %q, steps %+v", s.Base, s.BaseSteps)
	}
	if l := lookup(t, r, kerneldb.RocBLAS, "gfx90a:xnack+"); len(l.Misses) != 0 {
		t.Errorf("gfx90a: %+v", l.Misses)
	}
	l := lookup(t, r, kerneldb.RocBLAS, "gfx942:sramecc+:xnack-")
	if !slices.Equal(kinds(l), []kerneldb.Kind{kerneldb.NoCodeObjects}) || l.Misses[0].Effect != kerneldb.FailsLater {
		t.Errorf("gfx942: %+v", l.Misses)
	}
}

// TestDebianEnvNoArchFolder: 5.5.1 with ROCBLAS_TENSILE_LIBPATH set probes
// no <proc>/ subfolder (tensile_host.cpp:603@rocm-5.5.1, inside the else
// of if(env)); 6.1 does (:738@rocm-6.1.2).
func TestDebianEnvNoArchFolder(t *testing.T) {
	tree := debianTree(map[string][]byte{"gfx942/TensileLibrary.dat": []byte("x"), "gfx942/TensileLibrary_gfx942.co": []byte("x")})
	env := map[string]string{kerneldb.EnvRocBLAS: "usr/lib/x86_64-linux-gnu/rocblas/2.47.0/library"}
	l := lookup(t, run(t, tree, []string{"gfx942"}, kerneldb.Options{Env: env}), kerneldb.RocBLAS, "gfx942")
	if l.Dir != env[kerneldb.EnvRocBLAS] || !slices.Equal(kinds(l), []kerneldb.Kind{kerneldb.NoCodeObjects}) {
		t.Errorf("5.5.1: dir %s, misses %+v", l.Dir, l.Misses)
	}
	tree.Add("usr/lib/x86_64-linux-gnu/librocblas.so.0.1", kerneldbtest.LibraryWithStrings(kerneldbtest.EnvRocBLAS, "librocblas.so.4", "4.1.0."))
	l = lookup(t, run(t, tree, []string{"gfx942"}, kerneldb.Options{Env: env}), kerneldb.RocBLAS, "gfx942")
	if !strings.HasSuffix(l.Dir, "/gfx942") || len(l.Misses) != 0 {
		t.Errorf("6.1: dir %s, misses %+v", l.Dir, l.Misses)
	}
}

// TestGluedLibraryCandidate: 5.2-5.6 test "<dir>library" (no '/'), so
// lib/library is not found on Linux (tensile_host.cpp:598@rocm-5.5.1), but
// 5.7 finds it (:663@rocm-5.7.1); a Windows folder ends in a separator,
// so bin\library is found there in every release.
func TestGluedLibraryCandidate(t *testing.T) {
	for _, c := range []struct {
		lib, soname, dir, want string
	}{
		{"lib/librocblas.so", "librocblas.so.0", "lib/library", "lib/rocblas/library"},
		{"lib/librocblas.so", "librocblas.so.3", "lib/library", "lib/library"},
	} {
		tree := kerneldbtest.New()
		tree.Add(c.lib, kerneldbtest.LibraryWithStrings(kerneldbtest.EnvRocBLAS, c.soname, map[string]string{"librocblas.so.0": "2.47.0.", "librocblas.so.3": "3.1.0."}[c.soname]))
		tree.Add(c.dir+"/TensileLibrary.dat", []byte("x"))
		if s := run(t, tree, nil, kerneldb.Options{}).Sites[0]; s.Base != c.want {
			t.Errorf("%s: base %q, want %q (steps %+v)", c.soname, s.Base, c.want, s.BaseSteps)
		}
	}
	tree := kerneldbtest.New()
	tree.Add("bin/rocblas.dll", kerneldbtest.DLL(kerneldb.EnvRocBLAS))
	tree.Add("bin/library/TensileLibrary.dat", []byte("x"))
	if s := run(t, tree, nil, kerneldb.Options{HIP: "5.2"}).Sites[0]; s.Base != "bin/library" {
		t.Errorf("windows 5.2: base %q (steps %+v)", s.Base, s.BaseSteps)
	}
}

// TestWindowsLayouts: rocblas.dll with bin/rocblas/library, hipblaslt.dll
// with bin/hipblaslt/library (TheRock#2847: no gfx1102 index), MIOpen.dll
// skipped without MIOPEN_SYSTEM_DB_PATH (it reads the working directory).
func TestWindowsLayouts(t *testing.T) {
	tree := kerneldbtest.New()
	tree.Add("bin/rocblas.dll", kerneldbtest.DLL(kerneldb.EnvRocBLAS))
	tree.Add("bin/rocblas/library/TensileLibrary_lazy_gfx1100.dat", []byte("x"))
	tree.Add("bin/rocblas/library/Kernels.so-000-gfx1100.hsaco", []byte("x"))
	tree.Add("bin/hipblaslt.dll", kerneldbtest.DLL(kerneldb.EnvHipBLASLt, "(or .zlib variant)"))
	tree.Add("bin/hipblaslt/library/TensileLibrary_lazy_gfx1100.dat", []byte("x"))
	tree.Add("bin/hipblaslt/library/Kernels.so-000-gfx1100.hsaco", []byte("x"))
	tree.Add("bin/MIOpen.dll", kerneldbtest.DLL(kerneldb.EnvMIOpen))
	tree.Add("share/miopen/db/gfx1100.kdb", []byte("x"))
	r := run(t, tree, []string{"gfx1100", "gfx1102"}, kerneldb.Options{})
	if len(r.Sites) != 2 || len(r.Skipped) != 1 || r.Skipped[0].Library != kerneldb.MIOpen ||
		!strings.Contains(r.Skipped[0].Why, "working directory") || !strings.Contains(r.Skipped[0].Why, "share/miopen/db") {
		t.Fatalf("sites %d, skipped %+v", len(r.Sites), r.Skipped)
	}
	for _, lib := range []kerneldb.Library{kerneldb.RocBLAS, kerneldb.HipBLASLt} {
		if l := lookup(t, r, lib, "gfx1100"); len(l.Misses) != 0 {
			t.Errorf("%s gfx1100: %+v", lib, l.Misses)
		}
		l := lookup(t, r, lib, "gfx1102")
		if len(l.Misses) == 0 || l.Misses[0].Kind != kerneldb.MissingIndex {
			t.Errorf("%s gfx1102: %+v", lib, l.Misses)
		}
	}
	if s := lookup(t, r, kerneldb.RocBLAS, "gfx1100").Site; s.Base != "bin/rocblas/library" {
		t.Errorf("rocblas.dll base %q", s.Base)
	}
	r = run(t, tree, []string{"gfx1100"}, kerneldb.Options{Env: map[string]string{kerneldb.EnvMIOpen: "share/miopen/db"}})
	if len(r.Skipped) != 0 || len(r.Sites) != 3 {
		t.Errorf("with %s: sites %d, skipped %d", kerneldb.EnvMIOpen, len(r.Sites), len(r.Skipped))
	}
}

// truncatedCodeObject is a code object whose header is intact but whose
// section header table (10 entries at offset 64) lies past its end: what
// a copy cut short leaves.
func truncatedCodeObject(target string) []byte {
	b := codeobjtest.CodeObject(target, strings.Repeat("\x00", 100))
	binary.LittleEndian.PutUint64(b[0x28:], 64) // e_shoff
	binary.LittleEndian.PutUint16(b[0x3a:], 64) // e_shentsize
	binary.LittleEndian.PutUint16(b[0x3c:], 10) // e_shnum
	return b
}

// TestBrokenCodeObjectPerRelease: a truncated Tensile .co in a non-lazy
// folder is missing kernels for its arch: 5.5.1 discards the load error
// (tensile_host.cpp:678@rocm-5.5.1, HipSolutionAdapter.cpp:100), the
// newest aborts (THROW_IF_HIP_ERROR_MESSAGE). The other xnack mode's
// helper beside a loadable sibling costs nothing.
func TestBrokenCodeObjectPerRelease(t *testing.T) {
	good := codeobjtest.CodeObject("gfx90a:xnack-", "")
	truncated := truncatedCodeObject("gfx90a")
	tree := debianTree(map[string][]byte{
		"TensileLibrary_gfx90a.co":           truncated,
		"Kernels.so-000-gfx90a-xnack-.hsaco": good,
		"Kernels.so-000-gfx90a-xnack+.hsaco": codeobjtest.CodeObject("gfx90a:xnack+", ""),
	})
	l := lookup(t, run(t, tree, []string{"gfx90a:xnack-"}, kerneldb.Options{Deep: true}), kerneldb.RocBLAS, "gfx90a:xnack-")
	if len(l.Misses) != 1 || l.Misses[0].Kind != kerneldb.WrongCodeObject || l.Misses[0].Effect != kerneldb.FailsLater ||
		!slices.Equal(l.Misses[0].Paths, []string{"usr/lib/x86_64-linux-gnu/rocblas/2.47.0/library/TensileLibrary_gfx90a.co"}) {
		t.Fatalf("5.5.1: %+v", l.Misses)
	}
	tree.Add("usr/lib/x86_64-linux-gnu/librocblas.so.0.1", kerneldbtest.LibraryWithStrings(kerneldbtest.EnvRocBLAS, "librocblas.so.5"))
	tree.Add("usr/lib/x86_64-linux-gnu/rocblas/library/TensileLibrary.dat", []byte("x"))
	tree.Add("usr/lib/x86_64-linux-gnu/rocblas/library/TensileLibrary_gfx90a.co", truncated)
	l = lookup(t, run(t, tree, []string{"gfx90a:xnack-"}, kerneldb.Options{Deep: true}), kerneldb.RocBLAS, "gfx90a:xnack-")
	if len(l.Misses) != 1 || l.Misses[0].Effect != kerneldb.Abort {
		t.Errorf("newest: %+v", l.Misses)
	}
}

// theRock7976 is TheRock#7976's layout: hipBLASLt's library/gfx1250/
// holds only .dat.zlib files.
func theRock7976() *kerneldbtest.Tree {
	tree := kerneldbtest.New()
	tree.Add("lib/libhipblaslt.so.1", kerneldbtest.LibraryWithStrings(kerneldbtest.EnvHipBLASLt, "libhipblaslt.so.1", "TensileLiteLibrary_lazy_", "_Mapping.dat"))
	const dir = "lib/hipblaslt/library/gfx1250/"
	tree.Add(dir+"TensileLibrary_lazy_gfx1250.dat.zlib", []byte("x"))
	tree.Add(dir+"TensileLiteLibrary_lazy_gfx1250_Mapping.dat.zlib", []byte("x"))
	tree.Add(dir+"Kernels.so-000-gfx1250.hsaco", []byte("x"))
	return tree
}

// TestHipBLASLtPR5354Guard: 7.13 and later enter library/<proc>/ only
// when its uncompressed mapping file is there (inferred from TheRock#7976);
// the miss says so and names HIPBLASLT_TENSILE_LIBPATH. 7.12 enters it.
func TestHipBLASLtPR5354Guard(t *testing.T) {
	tree := theRock7976()
	for _, hip := range []string{"", "7.13", "newest"} {
		l := lookup(t, run(t, tree, []string{"gfx1250"}, kerneldb.Options{HIP: hip}), kerneldb.HipBLASLt, "gfx1250")
		if l.Site.HipBLASLtRow != kerneldb.HipBLASLt5354 || l.Dir != "lib/hipblaslt/library" || len(l.Misses) == 0 ||
			l.Misses[0].Kind != kerneldb.MissingIndex || !strings.Contains(l.Misses[0].Text, `Cannot read "lib/hipblaslt/library/TensileLibrary_lazy_gfx1250.dat" (or .zlib variant)`) ||
			!strings.Contains(l.Misses[0].Text, "HIPBLASLT_TENSILE_LIBPATH=lib/hipblaslt/library/gfx1250") {
			t.Errorf("--hip %q: row %s dir %s misses %+v", hip, l.Site.HipBLASLtRow, l.Dir, l.Misses)
		}
	}
	if l := lookup(t, run(t, tree, []string{"gfx1250"}, kerneldb.Options{HIP: "7.12"}), kerneldb.HipBLASLt, "gfx1250"); l.Dir != "lib/hipblaslt/library/gfx1250" || len(l.Misses) != 0 {
		t.Errorf("7.12: dir %s misses %+v", l.Dir, l.Misses)
	}
	tree.Add("lib/hipblaslt/library/gfx1250/TensileLiteLibrary_lazy_gfx1250_Mapping.dat", []byte("x"))
	if l := lookup(t, run(t, tree, []string{"gfx1250"}, kerneldb.Options{}), kerneldb.HipBLASLt, "gfx1250"); l.Dir != "lib/hipblaslt/library/gfx1250" || len(l.Misses) != 0 {
		t.Errorf("with the .dat mapping: dir %s misses %+v", l.Dir, l.Misses)
	}
}

// TestHipBLASLt6Rows: 5.5-6.1 read TensileLibrary.dat only; 6.2-6.4 read
// the lazy index and run the "*<proc>*co" glob in lazy builds too, its
// "No paths matched" warning a step, not a miss.
func TestHipBLASLt6Rows(t *testing.T) {
	tree := kerneldbtest.New()
	tree.Add("lib/libhipblaslt.so.0", kerneldbtest.LibraryWithStrings(kerneldbtest.EnvHipBLASLt, "libhipblaslt.so.0"))
	const dir = "lib/hipblaslt/library/"
	tree.Add(dir+"TensileLibrary_lazy_gfx942.dat", []byte("x"))
	tree.Add(dir+"Kernels.so-000-gfx942.hsaco", []byte("x"))
	l := lookup(t, run(t, tree, []string{"gfx942"}, kerneldb.Options{HIP: "6.2"}), kerneldb.HipBLASLt, "gfx942")
	if l.Site.HipBLASLtRow != kerneldb.HipBLASLt62 || !l.Lazy || len(l.Misses) != 0 {
		t.Fatalf("6.2: row %s lazy %v misses %+v", l.Site.HipBLASLtRow, l.Lazy, l.Misses)
	}
	if g := globNote(l); !strings.Contains(g, "1 code object loaded up front") { // Kernels.so-000-gfx942.hsaco ends in "co"
		t.Errorf("6.2 lazy glob step %q", g)
	}
	delete(tree.Files, dir+"Kernels.so-000-gfx942.hsaco")
	l = lookup(t, run(t, tree, []string{"gfx942"}, kerneldb.Options{HIP: "6.3"}), kerneldb.HipBLASLt, "gfx942")
	if g := globNote(l); !strings.Contains(g, "No paths matched lib/hipblaslt/library/*gfx942*co") || !slices.Equal(kinds(l), []kerneldb.Kind{kerneldb.MissingHelper}) {
		t.Errorf("6.3 lazy glob step %q, misses %v", g, kinds(l))
	}
	l = lookup(t, run(t, tree, []string{"gfx942"}, kerneldb.Options{HIP: "6.1"}), kerneldb.HipBLASLt, "gfx942")
	if l.Site.HipBLASLtRow != kerneldb.HipBLASLt55 || l.Lazy || len(l.Misses) != 1 || l.Misses[0].Paths[0] != dir+"TensileLibrary.dat" {
		t.Errorf("6.1: row %s lazy %v misses %+v", l.Site.HipBLASLtRow, l.Lazy, l.Misses)
	}
}

func globNote(l *kerneldb.Lookup) string {
	for _, st := range l.Steps {
		if strings.HasSuffix(st.Path, "*co") {
			return st.Note
		}
	}
	return ""
}

// TestLookupAgent: the per-device entry point (machines) takes the agent
// ISA, the HIP release and the environment, each (release, environment)
// resolving the sites on its own.
func TestLookupAgent(t *testing.T) {
	r := kerneldb.Scan(writeTree(t, theRock7976()), kerneldb.Options{})
	for _, c := range []struct {
		release string
		env     map[string]string
		dir     string
		misses  int
	}{
		{"", nil, "lib/hipblaslt/library", 2},
		{"7.12", nil, "lib/hipblaslt/library/gfx1250", 0},
		{"newest", map[string]string{kerneldb.EnvHipBLASLt: "lib/hipblaslt/library/gfx1250"}, "lib/hipblaslt/library/gfx1250", 0},
		{"", nil, "lib/hipblaslt/library", 2}, // cached variants do not leak
	} {
		ls, err := r.LookupAgent("gfx1250", c.release, c.env)
		if err != nil || len(ls) != 1 || ls[0].Dir != c.dir || len(ls[0].Misses) != c.misses {
			t.Errorf("%q %v: %v %+v", c.release, c.env, err, ls)
		}
	}
	if _, err := r.LookupAgent("gfx9x", "", nil); err == nil {
		t.Error("invalid agent ISA accepted")
	}
	if len(r.Lookups) != 0 {
		t.Errorf("LookupAgent changed Lookups: %d", len(r.Lookups))
	}
}

// TestHIPReleaseCovered: --hip takes a release a row covers (6.4 is the
// 7.2 row), as sim/hip does.
func TestHIPReleaseCovered(t *testing.T) {
	tree := kerneldbtest.New()
	tree.Add("lib/librocblas.so", kerneldbtest.LibraryWithStrings(kerneldbtest.EnvRocBLAS, ""))
	tree.Add("lib/rocblas/library/TensileLibrary.dat", []byte("x"))
	if s := run(t, tree, nil, kerneldb.Options{HIP: "6.4"}).Sites[0]; !strings.HasPrefix(s.Release, "rocBLAS 7.x ") {
		t.Errorf("--hip 6.4: %s (%s)", s.Release, s.ReleaseFrom)
	}
}
