package kerneldb_test

// Regression tests for the issue 11 tester's report, one per problem
// (problem numbers in the test names' comments).

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb/kerneldbtest"
)

func zlibBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// compressDats replaces every *.dat of the tree by *.dat.zlib, as current
// hipBLASLt builds install them.
func compressDats(t *testing.T, tree *kerneldbtest.Tree) {
	t.Helper()
	for p, data := range tree.Files {
		if strings.HasSuffix(p, ".dat") {
			tree.Add(p+".zlib", zlibBytes(t, data))
			delete(tree.Files, p)
		}
	}
}

const gfx950 = "gfx950:sramecc+:xnack-"

// TestHipBLASLtZlibIndexes (problem 1): hipBLASLt reads
// TensileLibrary_lazy_<proc>.dat.zlib (TensileLite fileToMsgObject probes
// the .zlib form), its mapping and sub-libraries too; rocBLAS's TestPath
// checks the .dat only.
func TestHipBLASLtZlibIndexes(t *testing.T) {
	tree := caseTree(t, "hipblaslt-per-arch", "tree")
	compressDats(t, tree)
	for _, deep := range []bool{false, true} {
		r := run(t, tree, []string{mi300xnackOff, gfx950}, kerneldb.Options{Deep: deep, HIP: "7.12"}) // before rocm-libraries PR 5354's guard
		for _, agent := range []string{mi300xnackOff, gfx950} {
			l := lookup(t, r, kerneldb.HipBLASLt, agent)
			want := "lib/hipblaslt/library/" + l.Processor + "/TensileLibrary_lazy_" + l.Processor + ".dat.zlib"
			if len(l.Misses) != 0 || l.Index != want || !l.Lazy {
				t.Errorf("deep %v %s: index %s misses %+v; want %s and none", deep, agent, l.Index, l.Misses, want)
			}
		}
		if got := r.Processors(); !reflect.DeepEqual(got, []string{"gfx942", "gfx950"}) {
			t.Errorf("processors %v", got)
		}
	}
	// The compressed index is parsed: a missing sub-library is found.
	gone := "lib/hipblaslt/library/gfx942/" + kerneldbtest.SubLibrary(1, "gfx942") + ".dat.zlib"
	delete(tree.Files, gone)
	l := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Deep: true, HIP: "7.12"}), kerneldb.HipBLASLt, mi300xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingPlaceholder}) ||
		l.Misses[0].Paths[0] != strings.TrimSuffix(gone, ".zlib") {
		t.Errorf("missing compressed sub-library: %+v", l.Misses)
	}

	rb := caseTree(t, "rocblas-per-arch", "tree")
	compressDats(t, rb)
	l = lookup(t, run(t, rb, []string{mi300xnackOff}, kerneldb.Options{}), kerneldb.RocBLAS, mi300xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingIndex}) || l.Misses[0].Effect != kerneldb.Abort {
		t.Errorf("rocBLAS with .dat.zlib only: %+v", l.Misses)
	}
}

// TestHipBLASLtMapping (problem 1): a lazy hipBLASLt reads
// TensileLiteLibrary_lazy_<proc>_Mapping.dat (older releases: the shared
// TensileLiteLibrary_lazy_Mapping.dat); the library's read-only data says
// which, and a missing one is reported.
func TestHipBLASLtMapping(t *testing.T) {
	tree := caseTree(t, "hipblaslt-per-arch", "tree")
	mapping := "lib/hipblaslt/library/gfx942/" + kerneldbtest.MappingFile("gfx942")
	delete(tree.Files, mapping)
	l := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{HIP: "7.12"}), kerneldb.HipBLASLt, mi300xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingMapping}) {
		t.Fatalf("misses %v", kinds(l))
	}
	m := l.Misses[0]
	if m.Effect != kerneldb.FailsLater || !reflect.DeepEqual(m.Paths, []string{mapping}) ||
		!strings.Contains(m.Text, "No library mapping found at "+mapping+" / rocblaslt error: Could not initialize Tensile library mapping") ||
		!reflect.DeepEqual(m.Tried, []string{mapping + ".zlib", mapping}) {
		t.Errorf("miss %+v", m)
	}

	// An older hipBLASLt names the shared file: the per-arch one does not count.
	old := kerneldbtest.New()
	old.Add("lib/libhipblaslt.so.0", hostbintest.ELFWith(hostbintest.ELFSection{Name: ".rodata", Type: 1, Flags: 2,
		Data: []byte(kerneldbtest.EnvHipBLASLt + "\x00TensileLiteLibrary_lazy_Mapping.dat\x00")}))
	old.AddTensile(kerneldbtest.Tensile{Dir: "lib/hipblaslt/library", Arches: []string{"gfx942"}, Lazy: true, Kernels: 1, Lite: true})
	l = lookup(t, run(t, old, []string{mi300xnackOff}, kerneldb.Options{}), kerneldb.HipBLASLt, mi300xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingMapping}) || l.Misses[0].Paths[0] != "lib/hipblaslt/library/TensileLiteLibrary_lazy_Mapping.dat" {
		t.Errorf("shared mapping: %+v", l.Misses)
	}
	old.Add("lib/hipblaslt/library/TensileLiteLibrary_lazy_Mapping.dat.zlib", zlibBytes(t, kerneldbtest.Mapping([]string{"x"})))
	if l := lookup(t, run(t, old, []string{mi300xnackOff}, kerneldb.Options{}), kerneldb.HipBLASLt, mi300xnackOff); len(l.Misses) != 0 {
		t.Errorf("shared mapping shipped compressed: %+v", l.Misses)
	}

	// A library that names no mapping, with none shipped: not checked.
	bare := kerneldbtest.New()
	bare.Add("lib/libhipblaslt.so.0", kerneldbtest.Library(kerneldbtest.EnvRocBLAS+"\x00"+kerneldbtest.EnvHipBLASLt))
	bare.AddTensile(kerneldbtest.Tensile{Dir: "lib/hipblaslt/library", Arches: []string{"gfx942"}, Lazy: true, Kernels: 1})
	if l := lookup(t, run(t, bare, []string{mi300xnackOff}, kerneldb.Options{}), kerneldb.HipBLASLt, mi300xnackOff); len(l.Misses) != 0 {
		t.Errorf("no mapping named or shipped: %+v", l.Misses)
	}
}

// TestRocBLASAborts (problem 2): no library folder at all (the tester's
// tree "a": only lib/librocblas.so.5.4), and with Deep a non-lazy code
// object that does not load (THROW_IF_HIP_ERROR_MESSAGE in the same
// catch): rocBLAS aborts in both.
func TestRocBLASAborts(t *testing.T) {
	tree := kerneldbtest.New()
	tree.Add("lib/librocblas.so.5.4", kerneldbtest.Library(kerneldbtest.EnvRocBLAS))
	l := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{}), kerneldb.RocBLAS, mi300xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingFolder}) || l.Misses[0].Effect != kerneldb.Abort ||
		!strings.Contains(l.Misses[0].Text, "rocBLAS error: Could not initialize Tensile host: filesystem error: directory iterator cannot open directory: No such file or directory [lib/rocblas/library]; rocblas_abort() follows") {
		t.Errorf("no folder: %+v", l.Misses)
	}

	nl := caseTree(t, "rocblas-non-lazy", "tree")
	nl.Add("lib/rocblas/library/TensileLibrary_gfx942_1.co", codeobjtest.CodeObject("gfx90a", "1"))
	l = lookup(t, run(t, nl, []string{mi300xnackOff}, kerneldb.Options{Deep: true}), kerneldb.RocBLAS, mi300xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.WrongCodeObject}) || l.Misses[0].Effect != kerneldb.Abort || !l.Misses[0].Exist ||
		!strings.Contains(l.Misses[0].Text, "loading code object: lib/rocblas/library/TensileLibrary_gfx942_1.co") {
		t.Errorf("non-lazy wrong code object: %+v", l.Misses)
	}
}

// TestDeepBounds (problem 3): an index over MaxPlaceholders or
// MaxIndexBytes (decompressed) is not read: a LimitHit miss names the
// limit; a miss keeps at most MaxMissPaths paths and its text names five.
func TestDeepBounds(t *testing.T) {
	const dir = "lib/rocblas/library"
	base := func() *kerneldbtest.Tree {
		tree := kerneldbtest.New()
		tree.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
		tree.AddTensile(kerneldbtest.Tensile{Dir: dir, Arches: []string{"gfx942"}, Lazy: true, Kernels: 1})
		return tree
	}
	names := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("P%07d", i)
		}
		return out
	}

	tree := base()
	tree.Add(dir+"/TensileLibrary_lazy_gfx942.dat", kerneldbtest.Index("gfx942", names(kerneldb.MaxPlaceholders+1), false))
	l := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Deep: true}), kerneldb.RocBLAS, mi300xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.LimitHit}) || l.Misses[0].Effect != kerneldb.NotChecked || !l.Misses[0].Exist ||
		!strings.Contains(l.Misses[0].Text, "more than 65536 distinct Placeholder sub-libraries (kerneldb.MaxPlaceholders)") {
		t.Errorf("placeholder limit: %+v", l.Misses)
	}

	n := kerneldb.MaxMissPaths + 5
	tree = base()
	tree.Add(dir+"/TensileLibrary_lazy_gfx942.dat", kerneldbtest.Index("gfx942", names(n), false))
	l = lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Deep: true}), kerneldb.RocBLAS, mi300xnackOff)
	m := l.Misses[0]
	if m.Kind != kerneldb.MissingPlaceholder || len(m.Paths) != kerneldb.MaxMissPaths || m.Count != n ||
		!strings.Contains(m.Text, fmt.Sprintf("names %d sub-libraries that are missing (%s/P0000000.dat, %s/P0000001.dat, %s/P0000002.dat, %s/P0000003.dat, %s/P0000004.dat, %s/P0000005.dat, %s/P0000006.dat, %s/P0000007.dat ... and %d more)", n, dir, dir, dir, dir, dir, dir, dir, dir, n-8)) {
		t.Errorf("capped miss: %d paths, count %d, text %.300s", len(m.Paths), m.Count, m.Text)
	}

	// A .dat.zlib that inflates past MaxIndexBytes (hipBLASLt).
	hb := caseTree(t, "hipblaslt-per-arch", "tree")
	idx := "lib/hipblaslt/library/gfx942/TensileLibrary_lazy_gfx942.dat"
	delete(hb.Files, idx)
	hb.Add(idx+".zlib", zlibBytes(t, make([]byte, kerneldb.MaxIndexBytes+1)))
	l = lookup(t, run(t, hb, []string{mi300xnackOff}, kerneldb.Options{Deep: true}), kerneldb.HipBLASLt, mi300xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.LimitHit}) || !strings.Contains(l.Misses[0].Text, "(kerneldb.MaxIndexBytes)") {
		t.Errorf("zlib bomb: %+v", l.Misses)
	}
}

// TestArchFolderHints (problem 4): the hint after a missing index says
// why the library did not find one, and names at most eight folders, of
// known processors only.
func TestArchFolderHints(t *testing.T) {
	// rocBLAS used gfx942/ and found no index in it.
	rb := caseTree(t, "rocblas-per-arch", "tree")
	delete(rb.Files, "lib/rocblas/library/gfx942/TensileLibrary_lazy_gfx942.dat")
	m := lookup(t, run(t, rb, []string{mi300xnackOff}, kerneldb.Options{}), kerneldb.RocBLAS, mi300xnackOff).Misses[0]
	if !strings.HasSuffix(m.Text, "(the per-arch folder lib/rocblas/library/gfx942 is used but holds no index for gfx942: an incomplete gfx942 package)") {
		t.Errorf("used folder: %s", m.Text)
	}
	// rocBLAS on an xnack+ device with only gfx90a-xnack-/.
	rb = caseTree(t, "rocblas-per-arch", "tree")
	rb.Remove("lib/rocblas/library/gfx90a-xnack+")
	m = lookup(t, run(t, rb, []string{mi210xnackOn}, kerneldb.Options{}), kerneldb.RocBLAS, mi210xnackOn).Misses[0]
	if !strings.Contains(m.Text, "(lib/rocblas/library has only gfx90a-xnack-/ for gfx90a: rocBLAS looks in gfx90a-xnack+/, then gfx90a/") {
		t.Errorf("other xnack mode: %s", m.Text)
	}
	// hipBLASLt with the variable at the base folder.
	hb := caseTree(t, "hipblaslt-per-arch", "tree")
	r := run(t, hb, []string{mi300xnackOff}, kerneldb.Options{Env: map[string]string{kerneldb.EnvHipBLASLt: "lib/hipblaslt/library"}})
	m = lookup(t, r, kerneldb.HipBLASLt, mi300xnackOff).Misses[0]
	if !strings.Contains(m.Text, "(HIPBLASLT_TENSILE_LIBPATH is set, so hipBLASLt uses it as given: it looks in a <proc>/ subfolder only when the variable is unset, "+
		"and the files for gfx942 are in lib/hipblaslt/library/gfx942/ (TheRock#7976); point the variable at lib/hipblaslt/library/gfx942 or unset it)") {
		t.Errorf("variable at the base: %s", m.Text)
	}
	// hipBLASLt never looks in xnack folders.
	hx := kerneldbtest.New()
	hx.AddLibrary("lib", "libhipblaslt", "1", "0", kerneldbtest.EnvHipBLASLt)
	hx.AddTensile(kerneldbtest.Tensile{Dir: "lib/hipblaslt/library", Arches: []string{"gfx942:xnack-"}, PerArch: true, Lazy: true, Kernels: 1, Lite: true})
	m = lookup(t, run(t, hx, []string{mi300xnackOff}, kerneldb.Options{}), kerneldb.HipBLASLt, mi300xnackOff).Misses[0]
	if !strings.Contains(m.Text, "(lib/hipblaslt/library has gfx942-xnack-/, but hipBLASLt looks only in gfx942/, not in xnack folders)") {
		t.Errorf("hipBLASLt xnack folder: %s", m.Text)
	}
	// Twenty known processors' folders and 50 that are no processor.
	many := kerneldbtest.New()
	many.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	var procs []string
	for _, p := range []string{"gfx900", "gfx906", "gfx908", "gfx90a", "gfx90c", "gfx950", "gfx1010", "gfx1011", "gfx1012", "gfx1030",
		"gfx1031", "gfx1032", "gfx1100", "gfx1101", "gfx1102", "gfx1150", "gfx1151", "gfx1200", "gfx1201", "gfx940"} {
		procs = append(procs, p)
		many.Add("lib/rocblas/library/"+p+"/TensileLibrary_lazy_"+p+".dat", kerneldbtest.Index(p, nil, false))
	}
	for i := range 50 {
		many.Add(fmt.Sprintf("lib/rocblas/library/gfx%d/x", 10000+i), nil)
	}
	m = lookup(t, run(t, many, []string{mi300xnackOff}, kerneldb.Options{}), kerneldb.RocBLAS, mi300xnackOff).Misses[0]
	slices.Sort(procs)
	want := fmt.Sprintf("has per-arch folders %s/, %s/, %s/, %s/, %s/, %s/, %s/, %s/, ... and 12 more but none for gfx942", procs[0], procs[1], procs[2], procs[3], procs[4], procs[5], procs[6], procs[7])
	if !strings.Contains(m.Text, want) || strings.Contains(m.Text, "gfx10000") {
		t.Errorf("many folders:\n%s\nwant %s", m.Text, want)
	}
}

// TestSymlinkedArchFiles (problem 5): a per-arch folder reached through a
// symlink counts for its arch (the tester's sl4: otherwise no default
// target and a silent pass), and so do files that are symlinks
// (openSUSE %fdupes).
func TestSymlinkedArchFiles(t *testing.T) {
	tree := caseTree(t, "rocblas-per-arch", "tree")
	tree.Remove("lib/rocblas/library/gfx90a-xnack-")
	tree.Remove("lib/rocblas/library/gfx90a-xnack+")
	for p, data := range tree.Files {
		if rest, ok := strings.CutPrefix(p, "lib/rocblas/library/gfx942/"); ok {
			delete(tree.Files, p)
			if rest == "TensileLibrary_lazy_gfx942.dat" {
				rest = "TensileLibrary_lazy_gfx942.dat.bak"
			}
			tree.Add("g942/"+rest, data)
		}
	}
	tree.Link("lib/rocblas/library/gfx942", "../../../g942")
	r := kerneldb.Scan(writeTree(t, tree), kerneldb.Options{})
	if got := r.Processors(); !reflect.DeepEqual(got, []string{"gfx942"}) {
		t.Fatalf("processors %v, want gfx942 (reached through the link)", got)
	}
	r.Simulate([]string{mi300xnackOff})
	if l := lookup(t, r, kerneldb.RocBLAS, mi300xnackOff); !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingIndex}) {
		t.Errorf("misses %v", kinds(l))
	}

	dup := caseTree(t, "rocblas-per-arch", "tree")
	keep := "TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx942.co"
	for p := range dup.Files {
		if rest, ok := strings.CutPrefix(p, "lib/rocblas/library/gfx942/"); ok && strings.HasSuffix(rest, ".co") && rest != keep {
			delete(dup.Files, p)
			dup.Link(p, keep)
		}
	}
	r = run(t, dup, nil, kerneldb.Options{})
	if a := r.Sites[0].Arches["gfx942"]; a.Count != 10 {
		t.Errorf("gfx942 files %d, want 10 (links counted)", a.Count)
	}
}

// TestMIOpenInexactPerfDB (problem 6): without the exact perf database
// MIOpen takes the SQLite "<DbId><CUs>.db" with the closest CU count;
// ".db.txt" files never match its extension() test.
func TestMIOpenInexactPerfDB(t *testing.T) {
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "libMIOpen", "1", "0", kerneldbtest.EnvMIOpen)
	tree.AddMIOpen("share/miopen/db", []string{"gfx90a6e"}, ".kdb", ".HIP.fdb.txt", ".db")
	tree.AddMIOpen("share/miopen/db", []string{"gfx90a"}, ".kdb")
	opt := kerneldb.Options{CUs: map[string][]int{"gfx90a": {104}}}
	l := lookup(t, run(t, tree, []string{mi210xnackOff}, opt), kerneldb.MIOpen, mi210xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingFindDB}) ||
		!slices.ContainsFunc(l.Steps, func(s kerneldb.Step) bool {
			return s.Path == "share/miopen/db/gfx90a6e.db" && strings.HasPrefix(s.Note, "used: inexact")
		}) {
		t.Errorf("misses %v steps %+v", kinds(l), l.Steps)
	}
	delete(tree.Files, "share/miopen/db/gfx90a6e.db")
	tree.AddMIOpen("share/miopen/db", []string{"gfx90a6e"}, ".db.txt")
	l = lookup(t, run(t, tree, []string{mi210xnackOff}, opt), kerneldb.MIOpen, mi210xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingFindDB, kerneldb.MissingPerfDB}) {
		t.Errorf(".db.txt for another CU count: %v", kinds(l))
	}
}

// TestSonameFolder (problem 7): the folder is the SONAME name's, read from
// DT_SONAME when the library has one.
func TestSonameFolder(t *testing.T) {
	tree := kerneldbtest.New()
	tree.Add("lib64/libhipblaslt.so.1.2", kerneldbtest.LibraryWithSoname(kerneldbtest.EnvHipBLASLt, "libhipblaslt.so.1"))
	tree.Link("lib/libhipblaslt.so.1", "../lib64/libhipblaslt.so.1.2")
	tree.Link("lib64/libhipblaslt.so.7", "libhipblaslt.so.1.2") // looks like a SONAME, is not the DT_SONAME: loads nothing
	tree.AddTensile(kerneldbtest.Tensile{Dir: "lib/hipblaslt/library", Arches: []string{"gfx942"}, Lazy: true, Kernels: 1, Lite: true})
	r := run(t, tree, []string{mi300xnackOff}, kerneldb.Options{})
	if len(r.Sites) != 1 {
		t.Fatalf("sites %d", len(r.Sites))
	}
	l := lookup(t, r, kerneldb.HipBLASLt, mi300xnackOff)
	if l.Site.Dir != "lib" || l.Site.Path != "lib/libhipblaslt.so.1" || len(l.Misses) != 0 {
		t.Errorf("site %s in %s, misses %+v", l.Site.Path, l.Site.Dir, l.Misses)
	}
}

// TestEmptyVariables (problem 8): rocBLAS and hipBLASLt test only
// if(env): an empty value is used (rocBLAS reads from "/", hipBLASLt from
// the working directory); MIOpen treats it as unset.
func TestEmptyVariables(t *testing.T) {
	env := map[string]string{kerneldb.EnvRocBLAS: "", kerneldb.EnvHipBLASLt: "", kerneldb.EnvMIOpen: ""}
	tree := caseTree(t, "rocblas-per-arch", "tree")
	for p, data := range caseTree(t, "hipblaslt-per-arch", "tree").Files {
		tree.Add(p, data)
	}
	for p, data := range caseTree(t, "miopen", "tree").Files {
		tree.Add(p, data)
	}
	r := run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Env: env, CUs: map[string][]int{"gfx942": {304}}})
	l := lookup(t, r, kerneldb.RocBLAS, mi300xnackOff)
	if l.Site.Base != "." || l.Site.BaseFrom != kerneldb.EnvRocBLAS || l.Misses[0].Effect != kerneldb.Abort ||
		!strings.HasPrefix(l.Misses[0].Text, "rocBLAS error: Cannot read TensileLibrary.dat:") {
		t.Errorf("rocBLAS: base %q from %s, misses %+v", l.Site.Base, l.Site.BaseFrom, l.Misses)
	}
	l = lookup(t, r, kerneldb.HipBLASLt, mi300xnackOff)
	if l.Dir != kerneldb.CwdDir || !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingIndex, kerneldb.MissingHelper}) ||
		l.Misses[0].Paths[0] != "./TensileLibrary_lazy_gfx942.dat" || !strings.Contains(l.Misses[0].Text, "HIPBLASLT_TENSILE_LIBPATH is set but empty") {
		t.Errorf("hipBLASLt: dir %s misses %+v", l.Dir, l.Misses)
	}
	if l = lookup(t, r, kerneldb.MIOpen, mi300xnackOff); l.Site.BaseFrom != "library location" || len(l.Misses) != 0 {
		t.Errorf("MIOpen: from %s misses %+v", l.Site.BaseFrom, l.Misses)
	}
}

// TestRepeatedCUs (problem 10): repeated CU counts are checked once.
func TestRepeatedCUs(t *testing.T) {
	tree := caseTree(t, "miopen-1651", "tree")
	l := lookup(t, run(t, tree, []string{mi210xnackOff}, kerneldb.Options{CUs: map[string][]int{"gfx90a": {104, 104, 0x68}}}), kerneldb.MIOpen, mi210xnackOff)
	if len(l.Misses) != 3 {
		t.Errorf("misses %v, want one kdb, find and perf miss", kinds(l))
	}
}

// TestVariableAtAFile (problem 11): a variable naming a file is "Not a
// directory", not a missing folder.
func TestVariableAtAFile(t *testing.T) {
	r := run(t, caseTree(t, "rocblas-per-arch", "tree"), []string{mi300xnackOff}, kerneldb.Options{Env: map[string]string{kerneldb.EnvRocBLAS: "lib/librocblas.so.5.4"}})
	m := lookup(t, r, kerneldb.RocBLAS, mi300xnackOff).Misses[0]
	if m.Kind != kerneldb.MissingFolder || !strings.HasPrefix(m.Text, "rocBLAS error: Cannot read lib/librocblas.so.5.4/TensileLibrary.dat: Not a directory") ||
		!strings.Contains(m.Text, "cannot open directory: Not a directory [lib/librocblas.so.5.4]") {
		t.Errorf("miss %+v", m)
	}
	if st := r.Sites[0].BaseSteps[0]; st.Found || !strings.HasSuffix(st.Note, "a file, not a folder") {
		t.Errorf("base step %+v", st)
	}
}

// TestBundledCodeObjects (problem 12): hipModuleLoad takes uncompressed
// and CCOB offload bundles and picks the entry for the device; neither is
// accepted nor refused without reading its entries.
func TestBundledCodeObjects(t *testing.T) {
	const helper = "lib/rocblas/library/gfx942/Kernels.so-000-gfx942.hsaco"
	for name, data := range map[string][]byte{
		"uncompressed": hostbintest.Bundle("hipv4-amdgcn-amd-amdhsa--gfx942:xnack-", hostbintest.HostEntry),
		"zstd":         hostbintest.CompressedBundle(false, "hipv4-amdgcn-amd-amdhsa--gfx942", hostbintest.HostEntry),
		"zlib":         hostbintest.CompressedBundle(true, "hipv4-amdgcn-amd-amdhsa--gfx9-4-generic", hostbintest.HostEntry),
	} {
		tree := caseTree(t, "rocblas-per-arch", "tree")
		tree.Add(helper, data)
		if l := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Deep: true}), kerneldb.RocBLAS, mi300xnackOff); len(l.Misses) != 0 {
			t.Errorf("%s bundle for gfx942: %+v", name, l.Misses)
		}
	}
	tree := caseTree(t, "rocblas-per-arch", "tree")
	tree.Add(helper, hostbintest.CompressedBundle(false, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", hostbintest.HostEntry))
	l := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Deep: true}), kerneldb.RocBLAS, mi300xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.WrongCodeObject}) || !strings.Contains(l.Misses[0].Text, "(an offload bundle for gfx90a:xnack- only)") {
		t.Errorf("bundle for gfx90a: %+v", l.Misses)
	}
	tree.Add(helper, hostbintest.Bundle("hipv4-amdgcn-amd-amdhsa--gfx1100"))
	l = lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Deep: true}), kerneldb.RocBLAS, mi300xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.WrongCodeObject}) {
		t.Errorf("uncompressed bundle for gfx1100 accepted: %+v", l.Misses)
	}
}

// TestHipBLASLtCodeObjectNames (problem 13): hipBLASLt's TensileLite loads
// <prefix>.co only; a sub-library with only a .hsaco has no code object.
func TestHipBLASLtCodeObjectNames(t *testing.T) {
	tree := caseTree(t, "hipblaslt-per-arch", "tree")
	co := "lib/hipblaslt/library/gfx942/" + kerneldbtest.SubLibrary(0, "gfx942") + ".co"
	tree.Add(strings.TrimSuffix(co, ".co")+".hsaco", tree.Files[co])
	delete(tree.Files, co)
	l := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Deep: true}), kerneldb.HipBLASLt, mi300xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingCodeObject}) || !reflect.DeepEqual(l.Misses[0].Paths, []string{co}) {
		t.Errorf("misses %+v", l.Misses)
	}
}

// TestPlaceholderSubfolder (problem 14): a Placeholder value holding "/"
// names a sub-library in a subfolder; Tensile opens it there.
func TestPlaceholderSubfolder(t *testing.T) {
	const dir = "lib/rocblas/library"
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	tree.AddTensile(kerneldbtest.Tensile{Dir: dir, Arches: []string{"gfx942"}, Lazy: true, Kernels: 1})
	tree.Add(dir+"/TensileLibrary_lazy_gfx942.dat", kerneldbtest.Index("gfx942", []string{"sub/x", "sub/y"}, false))
	tree.Add(dir+"/sub/x.dat", kerneldbtest.SubLibraryBytes("x", false))
	tree.Add(dir+"/sub/x.co", codeobjtest.CodeObject("gfx942", "x"))
	l := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Deep: true}), kerneldb.RocBLAS, mi300xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingPlaceholder}) || !reflect.DeepEqual(l.Misses[0].Paths, []string{dir + "/sub/y.dat"}) {
		t.Errorf("misses %+v", l.Misses)
	}
}

// TestMIOpenDeviceCU (problem 15): MIOPEN_DEVICE_CU above 0 replaces the
// device's CU count (Handle::GetMaxComputeUnits); 0 leaves it.
func TestMIOpenDeviceCU(t *testing.T) {
	tree := caseTree(t, "miopen-1651", "tree")
	opt := kerneldb.Options{Env: map[string]string{kerneldb.EnvMIOpenCUs: "110"}, CUs: map[string][]int{"gfx90a": {104}}}
	r := run(t, tree, []string{mi210xnackOff}, opt)
	if l := lookup(t, r, kerneldb.MIOpen, mi210xnackOff); len(l.Misses) != 0 || l.Steps[0].Path != kerneldb.EnvMIOpenCUs {
		t.Errorf("MIOPEN_DEVICE_CU=110: misses %+v steps %+v", l.Misses, l.Steps)
	}
	if got := kerneldb.WithoutCUs(r); got != nil {
		t.Errorf("WithoutCUs %v", got)
	}
	opt.Env[kerneldb.EnvMIOpenCUs] = "0"
	if l := lookup(t, run(t, tree, []string{mi210xnackOff}, opt), kerneldb.MIOpen, mi210xnackOff); len(l.Misses) != 3 {
		t.Errorf("MIOPEN_DEVICE_CU=0 uses cu_counts: %v", kinds(l))
	}
	for v, ok := range map[string]bool{"104": true, "0": true, "": true, "abc": false, "-1": false, "99999999": false} {
		if err := kerneldb.CheckEnv(kerneldb.EnvMIOpenCUs, v); (err == nil) != ok {
			t.Errorf("CheckEnv(%q) = %v", v, err)
		}
	}
}

// TestHipBLASLtWithoutBaseFolder (problem 17): with no hipblaslt/library,
// ../Tensile/library or library folder, rocblaslt_find_library_relative_path
// finds nothing and hipBLASLt reads relative to the working directory.
func TestHipBLASLtWithoutBaseFolder(t *testing.T) {
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "libhipblaslt", "1", "0", kerneldbtest.EnvHipBLASLt)
	tree.AddTensile(kerneldbtest.Tensile{Dir: "gfx942", Arches: []string{"gfx942"}, Lazy: true, Kernels: 1, Lite: true}) // at the build root: not the working directory
	r := run(t, tree, []string{mi300xnackOff}, kerneldb.Options{})
	l := lookup(t, r, kerneldb.HipBLASLt, mi300xnackOff)
	if l.Dir != kerneldb.CwdDir || l.Site.Folder() != "lib/hipblaslt/library" ||
		!reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingIndex, kerneldb.MissingHelper}) ||
		!strings.Contains(l.Misses[0].Text, "relative to the program's working directory: no hipblaslt/library, ../Tensile/library or library folder lies next to lib/libhipblaslt.so.1") {
		t.Errorf("dir %s folder %s misses %+v", l.Dir, l.Site.Folder(), l.Misses)
	}
}
