package kerneldb_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb/kerneldbtest"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// run writes tree to a temporary folder and checks it.
func run(t *testing.T, tree *kerneldbtest.Tree, agents []string, opt kerneldb.Options) *kerneldb.Result {
	t.Helper()
	return kerneldb.Check(writeTree(t, tree), agents, opt)
}

// writeTree writes tree to a temporary folder and opens it.
func writeTree(t *testing.T, tree *kerneldbtest.Tree) *vfs.Tree {
	t.Helper()
	dir := t.TempDir()
	tree.Write(t, dir)
	vt, err := vfs.Open([]string{dir}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vt.Close() })
	return vt
}

// lookup returns the one lookup of library lib for agent.
func lookup(t *testing.T, r *kerneldb.Result, lib kerneldb.Library, agent string) *kerneldb.Lookup {
	t.Helper()
	var found *kerneldb.Lookup
	for _, l := range r.Lookups {
		if l.Site.Library == lib && l.Agent == agent {
			if found != nil {
				t.Fatalf("several %s lookups for %s", lib, agent)
			}
			found = l
		}
	}
	if found == nil {
		t.Fatalf("no %s lookup for %s (sites %d, skipped %d)", lib, agent, len(r.Sites), len(r.Skipped))
	}
	return found
}

func kinds(l *kerneldb.Lookup) []kerneldb.Kind {
	var out []kerneldb.Kind
	for _, m := range l.Misses {
		out = append(out, m.Kind)
	}
	return out
}

func caseTree(t *testing.T, name, input string) *kerneldbtest.Tree {
	t.Helper()
	for _, c := range kerneldbtest.Cases() {
		if c.Name == name {
			return c.Trees[input]
		}
	}
	t.Fatalf("no case %s", name)
	return nil
}

const (
	mi300xnackOff = "gfx942:sramecc+:xnack-"
	mi210xnackOff = "gfx90a:sramecc+:xnack-"
	mi210xnackOn  = "gfx90a:sramecc+:xnack+"
)

func TestRocBLASPerArchFolders(t *testing.T) {
	r := run(t, caseTree(t, "rocblas-per-arch", "tree"), []string{mi210xnackOff, mi210xnackOn, mi300xnackOff}, kerneldb.Options{Deep: true})
	for agent, dir := range map[string]string{
		mi210xnackOff: "lib/rocblas/library/gfx90a-xnack-",
		mi210xnackOn:  "lib/rocblas/library/gfx90a-xnack+",
		mi300xnackOff: "lib/rocblas/library/gfx942",
	} {
		l := lookup(t, r, kerneldb.RocBLAS, agent)
		if l.Dir != dir || !l.Lazy || l.Index != dir+"/TensileLibrary_lazy_"+l.Processor+".dat" || len(l.Misses) != 0 {
			t.Errorf("%s: dir %s, index %s, lazy %v, misses %v; want %s and no misses", agent, l.Dir, l.Index, l.Lazy, kinds(l), dir)
		}
	}
	s := r.Sites[0]
	if s.Path != "lib/librocblas.so.5.4" || s.Base != "lib/rocblas/library" || s.BaseFrom != "library location" ||
		!reflect.DeepEqual(s.Names, []string{"lib/librocblas.so", "lib/librocblas.so.5", "lib/librocblas.so.5.4"}) {
		t.Errorf("site %+v", s)
	}
	// 3 sub-libraries (.dat + .co), the fallback (.dat + .hsaco), index, helper: 10 per folder.
	if got := s.Arches["gfx90a"].Count; got != 20 || s.Arches["gfx942"].Count != 10 {
		t.Errorf("gfx90a files %d (want 20, two xnack folders), gfx942 %d (want 10)", got, s.Arches["gfx942"].Count)
	}
}

func TestRocBLASIndexOrder(t *testing.T) {
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	tree.AddTensile(kerneldbtest.Tensile{Dir: "lib/rocblas/library", Arches: []string{"gfx942"}, Kernels: 1})
	tree.Add("lib/rocblas/library/TensileLibrary.dat", kerneldbtest.Index("", nil, false))
	tree.Add("lib/rocblas/library/TensileLibrary_gfx1100_0.co", codeobjtest.CodeObject("gfx1100", ""))
	r := run(t, tree, []string{mi300xnackOff, "gfx1100", "gfx1030"}, kerneldb.Options{})
	if l := lookup(t, r, kerneldb.RocBLAS, mi300xnackOff); l.Index != "lib/rocblas/library/TensileLibrary_gfx942.dat" || l.Lazy {
		t.Errorf("gfx942 index %s lazy %v; want the non-lazy per-arch index", l.Index, l.Lazy)
	}
	if l := lookup(t, r, kerneldb.RocBLAS, "gfx1100"); l.Index != "lib/rocblas/library/TensileLibrary.dat" || len(l.Misses) != 0 {
		t.Errorf("gfx1100 index %s misses %v; want the generic TensileLibrary.dat", l.Index, kinds(l))
	}
	l := lookup(t, r, kerneldb.RocBLAS, "gfx1030")
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.NoCodeObjects}) ||
		!strings.HasPrefix(l.Misses[0].Text, "rocBLAS warning: No paths matched lib/rocblas/library/*gfx1030*co.") {
		t.Errorf("gfx1030 misses %+v; want the glob warning", l.Misses)
	}
}

func TestRocBLASMissingIndexAborts(t *testing.T) {
	r := run(t, caseTree(t, "therock-5179", "tree"), []string{mi300xnackOff}, kerneldb.Options{})
	l := lookup(t, r, kerneldb.RocBLAS, mi300xnackOff)
	if len(l.Misses) != 1 {
		t.Fatalf("misses %v", kinds(l))
	}
	m := l.Misses[0]
	want := "rocBLAS error: Cannot read lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx942 / List of available TensileLibrary Files : (none)"
	if m.Kind != kerneldb.MissingIndex || m.Effect != kerneldb.Abort || !strings.HasPrefix(m.Text, want) ||
		!reflect.DeepEqual(m.Tried, []string{"lib/rocblas/library/TensileLibrary_lazy_gfx942.dat", "lib/rocblas/library/TensileLibrary_gfx942.dat", "lib/rocblas/library/TensileLibrary.dat"}) {
		t.Errorf("miss %+v", m)
	}
	if len(r.Sites[0].Arches) != 0 {
		t.Errorf("arch-less *_fallback.dat attributed: %v", r.Sites[0].Processors())
	}
}

func TestRocBLASListsLazyLibraries(t *testing.T) {
	r := run(t, caseTree(t, "rocblas-flat-lazy", "tree"), []string{"gfx1201"}, kerneldb.Options{})
	m := lookup(t, r, kerneldb.RocBLAS, "gfx1201").Misses[0]
	if !strings.Contains(m.Text, "List of available TensileLibrary Files : TensileLibrary_lazy_gfx1100.dat, TensileLibrary_lazy_gfx90a.dat, TensileLibrary_lazy_gfx942.dat;") {
		t.Errorf("text %q", m.Text)
	}
}

// TestRocBLASMissingFolderAborts: the folder listing after "Cannot read"
// throws (fs::directory_iterator); get_library_and_adapter catches it,
// prints "Could not initialize Tensile host" and calls rocblas_abort().
func TestRocBLASMissingFolderAborts(t *testing.T) {
	r := run(t, caseTree(t, "rocblas-flat-lazy", "tree"), []string{mi300xnackOff},
		kerneldb.Options{Env: map[string]string{kerneldb.EnvRocBLAS: "/opt/elsewhere"}})
	l := lookup(t, r, kerneldb.RocBLAS, mi300xnackOff)
	if l.Site.BaseFrom != kerneldb.EnvRocBLAS || l.Site.Base != "opt/elsewhere" {
		t.Errorf("base %s from %s", l.Site.Base, l.Site.BaseFrom)
	}
	m := l.Misses[0]
	if m.Kind != kerneldb.MissingFolder || m.Effect != kerneldb.Abort ||
		!strings.Contains(m.Text, "directory iterator cannot open directory: No such file or directory [opt/elsewhere]") {
		t.Errorf("miss %+v", m)
	}
}

func TestRocBLASBaseProbing(t *testing.T) {
	tree := kerneldbtest.New()
	// ASAN packaging: lib/asan/librocblas.so reads ../rocblas/library.
	tree.Add("lib/asan/librocblas.so.5", kerneldbtest.Library(kerneldbtest.EnvRocBLAS))
	tree.AddTensile(kerneldbtest.Tensile{Dir: "lib/rocblas/library", Arches: []string{"gfx942"}, Lazy: true, Kernels: 1})
	// A build tree: build/library/src/librocblas.so reads ../../Tensile/library first.
	tree.Add("build/library/src/librocblas.so", kerneldbtest.Library(kerneldbtest.EnvRocBLAS))
	tree.AddTensile(kerneldbtest.Tensile{Dir: "build/Tensile/library", Arches: []string{"gfx942"}, Lazy: true, Kernels: 1})
	r := run(t, tree, []string{mi300xnackOff}, kerneldb.Options{})
	bases := map[string]string{}
	for _, s := range r.Sites {
		bases[s.Path] = s.Base
	}
	want := map[string]string{"lib/asan/librocblas.so.5": "lib/asan/../rocblas/library", "build/library/src/librocblas.so": "build/library/src/../../Tensile/library"}
	if !reflect.DeepEqual(bases, want) {
		t.Errorf("bases %v, want %v", bases, want)
	}
	for _, l := range r.Lookups {
		if len(l.Misses) != 0 {
			t.Errorf("%s: misses %v", l.Site.Path, kinds(l))
		}
	}
}

func TestLibraryWithoutDatabaseIsSkipped(t *testing.T) {
	tree := kerneldbtest.New()
	tree.Add("lib/librocblas.so.5", []byte("\x7fELF not a library that reads any database"))
	tree.Add("lib/libhipblaslt.so.1", kerneldbtest.Library(kerneldbtest.EnvHipBLASLt))
	r := run(t, tree, []string{mi300xnackOff}, kerneldb.Options{})
	if len(r.Skipped) != 1 || r.Skipped[0].Library != kerneldb.RocBLAS || !strings.Contains(r.Skipped[0].Why, "does not read ROCBLAS_TENSILE_LIBPATH") {
		t.Fatalf("skipped %+v", r.Skipped)
	}
	l := lookup(t, r, kerneldb.HipBLASLt, mi300xnackOff)
	if !slices.Contains(kinds(l), kerneldb.MissingIndex) {
		t.Errorf("hipBLASLt reads HIPBLASLT_TENSILE_LIBPATH but ships no library folder: misses %v", kinds(l))
	}
}

// TestSymlinksAndCopies: rocBLAS and hipBLASLt look next to the name the
// process loaded (dlpi_name, dli_fname: the SONAME link, not resolved);
// MIOpen resolves it. A copy without a SONAME name looks next to itself.
func TestSymlinksAndCopies(t *testing.T) {
	tree := kerneldbtest.New()
	// The SONAME link lives in lib/ with the database, the file in lib64/
	// (the tester's xs tree).
	tree.Add("lib64/librocblas.so.5.4", kerneldbtest.Library(kerneldbtest.EnvRocBLAS))
	tree.Link("lib/librocblas.so.5", "../lib64/librocblas.so.5.4")
	tree.AddTensile(kerneldbtest.Tensile{Dir: "lib/rocblas/library", Arches: []string{"gfx942"}, Lazy: true, Kernels: 1})
	// MIOpen canonicalises: its database is found from the file's folder.
	tree.Add("lib64/libMIOpen.so.1.0", kerneldbtest.Library(kerneldbtest.EnvMIOpen))
	tree.Link("lib/libMIOpen.so.1", "../lib64/libMIOpen.so.1.0")
	tree.AddMIOpen("share/miopen/db", []string{"gfx942"}, ".kdb")
	// A wheel's copy looks next to itself (TheRock PR 5768 for kpack).
	tree.Add("torch/lib/librocblas.so", kerneldbtest.Library(kerneldbtest.EnvRocBLAS))
	r := run(t, tree, []string{mi300xnackOff}, kerneldb.Options{})
	if len(r.Sites) != 3 {
		t.Fatalf("sites %d", len(r.Sites))
	}
	for _, l := range r.Lookups {
		switch l.Site.Path {
		case "lib/librocblas.so.5":
			if len(l.Misses) != 0 || l.Site.Dir != "lib" || !reflect.DeepEqual(l.Site.Names, []string{"lib/librocblas.so.5", "lib64/librocblas.so.5.4"}) {
				t.Errorf("SONAME link site: dir %s names %v misses %v", l.Site.Dir, l.Site.Names, kinds(l))
			}
		case "lib64/libMIOpen.so.1.0":
			if len(l.Misses) != 0 || l.Site.Base != "lib64/../share/miopen/db" {
				t.Errorf("MIOpen: base %s misses %v", l.Site.Base, kinds(l))
			}
		case "torch/lib/librocblas.so":
			if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingFolder}) || l.Dir != "torch/lib/rocblas/library" {
				t.Errorf("copy: dir %s misses %v", l.Dir, kinds(l))
			}
		default:
			t.Errorf("unexpected site %s", l.Site.Path)
		}
	}
}

func TestHipBLASLtEnvAddsNoSubfolder(t *testing.T) {
	tree := caseTree(t, "hipblaslt-per-arch", "tree")
	for env, wantMiss := range map[string]bool{"lib/hipblaslt/library": true, "lib/hipblaslt/library/gfx942": false} {
		r := run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Env: map[string]string{kerneldb.EnvHipBLASLt: env}})
		l := lookup(t, r, kerneldb.HipBLASLt, mi300xnackOff)
		if got := slices.Contains(kinds(l), kerneldb.MissingIndex); got != wantMiss || l.Dir != env {
			t.Errorf("HIPBLASLT_TENSILE_LIBPATH=%s: dir %s, missing index %v, want %v", env, l.Dir, got, wantMiss)
		}
	}
}

func TestHipBLASLtTheRock5478(t *testing.T) {
	dir := t.TempDir()
	c := kerneldbtest.Cases()
	var inputs []string
	for _, cs := range c {
		if cs.Name == "therock-5478" {
			for _, in := range cs.Inputs {
				cs.Trees[in].Write(t, dir+"/"+in)
				inputs = append(inputs, dir+"/"+in)
			}
		}
	}
	vt, err := vfs.Open(inputs, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vt.Close()
	r := kerneldb.Check(vt, []string{"gfx1100"}, kerneldb.Options{})
	l := lookup(t, r, kerneldb.HipBLASLt, "gfx1100")
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingIndex, kerneldb.MissingHelper}) {
		t.Fatalf("misses %v", kinds(l))
	}
	want := `rocblaslt error: Cannot read "lib/hipblaslt/library/TensileLibrary_lazy_gfx1100.dat" (or .zlib variant): No such file or directory`
	if m := l.Misses[0]; m.Effect != kerneldb.FailsLater || !strings.HasPrefix(m.Text, want) {
		t.Errorf("index miss %+v", m)
	}
	if m := l.Misses[1]; !reflect.DeepEqual(m.Paths, []string{"lib/hipblaslt/library/Kernels.so-000-gfx1100.hsaco"}) || len(m.Tried) != 3 {
		t.Errorf("helper miss %+v", m)
	}
}

func TestDeepPlaceholders(t *testing.T) {
	const dir = "lib/rocblas/library"
	sub0 := kerneldbtest.SubLibrary(0, "gfx942")
	sub1 := kerneldbtest.SubLibrary(1, "gfx942")
	sub2 := kerneldbtest.SubLibrary(2, "gfx942")
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	tree.AddTensile(kerneldbtest.Tensile{Dir: dir, Arches: []string{"gfx942"}, Lazy: true, Kernels: 3, Fallback: true})
	tree.Remove(dir + "/" + sub0 + ".dat")                                                 // TheRock#7790
	tree.Remove(dir + "/" + sub1 + ".co")                                                  // code object missing
	tree.Add(dir+"/"+sub2+".co", codeobjtest.CodeObject("gfx1100", "rocm-libraries#3413")) // wrong processor
	if r := run(t, tree, []string{mi300xnackOff}, kerneldb.Options{}); len(lookup(t, r, kerneldb.RocBLAS, mi300xnackOff).Misses) != 0 {
		t.Fatal("without Deep the index is not read")
	}
	l := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Deep: true}), kerneldb.RocBLAS, mi300xnackOff)
	want := []kerneldb.Kind{kerneldb.MissingPlaceholder, kerneldb.MissingCodeObject, kerneldb.WrongCodeObject}
	if !reflect.DeepEqual(kinds(l), want) {
		t.Fatalf("misses %v, want %v", kinds(l), want)
	}
	checks := []struct {
		path   string
		effect kerneldb.Effect
	}{
		{dir + "/" + sub0 + ".dat", kerneldb.Crash},
		{dir + "/" + sub1 + ".{co,hsaco}", kerneldb.FailsLater},
		{dir + "/" + sub2 + ".co", kerneldb.FailsLater},
	}
	for i, c := range checks {
		if m := l.Misses[i]; !reflect.DeepEqual(m.Paths, []string{c.path}) || m.Effect != c.effect || m.Exist != (i == 2) {
			t.Errorf("miss %d: %v %s exist %v, want %s %s", i, m.Paths, m.Effect, m.Exist, c.path, c.effect)
		}
	}
	if !strings.Contains(l.Misses[2].Text, sub2+".co (built for gfx1100)") || strings.Contains(l.Misses[2].Text, mi300xnackOff) {
		t.Errorf("wrong code object text names the reason, not one agent: %s", l.Misses[2].Text)
	}
}

func TestDeepXnackVariants(t *testing.T) {
	r := run(t, caseTree(t, "rocblas-flat-lazy", "tree"), []string{mi210xnackOff, mi210xnackOn}, kerneldb.Options{Deep: true})
	for _, agent := range []string{mi210xnackOff, mi210xnackOn} {
		l := lookup(t, r, kerneldb.RocBLAS, agent)
		if len(l.Misses) != 0 {
			t.Errorf("%s: %+v", agent, l.Misses)
		}
	}
	tree := caseTree(t, "rocblas-flat-lazy", "tree")
	tree.Remove("lib/rocblas/library/Kernels.so-000-gfx90a-xnack+.hsaco")
	l := lookup(t, run(t, tree, []string{mi210xnackOn}, kerneldb.Options{Deep: true}), kerneldb.RocBLAS, mi210xnackOn)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.WrongCodeObject}) || !l.Misses[0].Exist ||
		l.Misses[0].Paths[0] != "lib/rocblas/library/Kernels.so-000-gfx90a-xnack-.hsaco" ||
		!strings.Contains(l.Misses[0].Text, "Kernels.so-000-gfx90a-xnack-.hsaco (built for gfx90a:xnack-)") {
		t.Errorf("xnack+ agent with only the xnack- helper: %+v", l.Misses)
	}
}

func TestDeepBadIndex(t *testing.T) {
	tree := caseTree(t, "hipblaslt-per-arch", "tree")
	tree.Add("lib/hipblaslt/library/gfx942/TensileLibrary_lazy_gfx942.dat", []byte{0x82, 0xa4, 't', 'y', 'p', 'e'}) // truncated map
	l := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Deep: true}), kerneldb.HipBLASLt, mi300xnackOff)
	if len(l.Misses) != 1 || l.Misses[0].Kind != kerneldb.BadIndex || l.Misses[0].Effect != kerneldb.FailsLater ||
		!strings.HasPrefix(l.Misses[0].Text, `rocblaslt error: Could not load "lib/hipblaslt/library/gfx942/TensileLibrary_lazy_gfx942.dat"`) {
		t.Errorf("misses %+v", l.Misses)
	}
}

func TestYAMLIndex(t *testing.T) {
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	tree.AddTensile(kerneldbtest.Tensile{Dir: "lib/rocblas/library", Arches: []string{"gfx942"}, Lazy: true, Kernels: 2, Fallback: true, YAML: true})
	l := lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Deep: true}), kerneldb.RocBLAS, mi300xnackOff)
	if l.Index != "lib/rocblas/library/TensileLibrary_lazy_gfx942.yaml" || len(l.Misses) != 0 {
		t.Fatalf("index %s misses %+v", l.Index, l.Misses)
	}
	tree.Remove("lib/rocblas/library/" + kerneldbtest.FallbackSubLibrary + ".yaml")
	l = lookup(t, run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Deep: true}), kerneldb.RocBLAS, mi300xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.MissingPlaceholder}) {
		t.Errorf("misses %v", kinds(l))
	}
}

func TestMIOpenNames(t *testing.T) {
	for _, c := range []struct {
		agent, dbID string
		cus         int
		base        string
	}{
		{"gfx942:sramecc+:xnack-", "gfx942", 304, "gfx942130"},
		{"gfx90a:sramecc+:xnack-", "gfx90a", 104, "gfx90a68"},
		{"gfx90a:sramecc+:xnack+", "gfx90a_xnack", 110, "gfx90a_xnack6e"},
		{"gfx906:sramecc-:xnack-", "gfx906_nosramecc", 60, "gfx906_nosramecc_60"},
		{"gfx908:sramecc+:xnack-", "gfx908", 120, "gfx90878"},
		{"gfx1151", "gfx1151", 20, "gfx1151_20"},
		{"gfx1030", "gfx1030", 36, "gfx1030_36"},
		{"gfx1100", "gfx1100", 64, "gfx1100_64"},
		{"gfx1100", "gfx1100", 65, "gfx110041"},
	} {
		id := targetid.MustParse(c.agent)
		if got := kerneldb.DbID(id); got != c.dbID {
			t.Errorf("DbID(%s) = %s, want %s", c.agent, got, c.dbID)
		}
		if got := kerneldb.DbBasename(c.dbID, c.cus); got != c.base {
			t.Errorf("DbBasename(%s, %d) = %s, want %s", c.dbID, c.cus, got, c.base)
		}
	}
}

func TestMIOpenCUCounts(t *testing.T) {
	tree := caseTree(t, "miopen-1651", "tree")
	withCUs := kerneldb.Options{CUs: map[string][]int{"gfx90a": {104, 110}}}
	l := lookup(t, run(t, tree, []string{mi210xnackOff}, withCUs), kerneldb.MIOpen, mi210xnackOff)
	want := []kerneldb.Kind{kerneldb.MissingKernelDB, kerneldb.MissingFindDB, kerneldb.MissingPerfDB}
	if !reflect.DeepEqual(kinds(l), want) || l.Misses[0].Paths[0] != "share/miopen/db/gfx90a68.kdb" ||
		!reflect.DeepEqual(l.Misses[0].Tried, []string{"share/miopen/db/gfx90a68.kdb", "share/miopen/db/gfx90a.kdb"}) {
		t.Errorf("with CU counts: %+v", l.Misses)
	}
	for _, m := range l.Misses {
		if m.Effect != kerneldb.Slow {
			t.Errorf("%s: effect %s, want %s", m.Kind, m.Effect, kerneldb.Slow)
		}
	}
	r := run(t, tree, []string{mi210xnackOff}, kerneldb.Options{})
	l = lookup(t, r, kerneldb.MIOpen, mi210xnackOff)
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.UnknownCUs}) || !strings.Contains(l.Misses[0].Text, "the inputs hold only gfx90a6e.kdb") {
		t.Errorf("without CU counts: %+v", l.Misses)
	}
	if got := kerneldb.WithoutCUs(r); !reflect.DeepEqual(got, []string{"gfx90a"}) {
		t.Errorf("WithoutCUs = %v", got)
	}
	tree.Add("share/miopen/db/gfx90a.kdb", []byte("kdb"))
	if l := lookup(t, run(t, tree, []string{mi210xnackOff}, kerneldb.Options{}), kerneldb.MIOpen, mi210xnackOff); len(l.Misses) != 0 {
		t.Errorf("gfx90a.kdb serves every CU count: %+v", l.Misses)
	}
}

func TestArchAttribution(t *testing.T) {
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "libMIOpen", "1", "0", kerneldbtest.EnvMIOpen)
	tree.AddMIOpen("share/miopen/db", []string{"gfx90a68", "gfx90878", "gfx1030_36", "gfx942130"}, ".kdb")
	tree.Add("share/miopen/db/gfx908_ConvAsm1x1U_decoder.ktn.model", nil)
	tree.Add("share/miopen/db/readme.txt", nil)
	r := run(t, tree, nil, kerneldb.Options{})
	got := map[string]int{}
	for p, a := range r.Sites[0].Arches {
		got[p] = a.Count
	}
	want := map[string]int{"gfx90a": 1, "gfx908": 2, "gfx1030": 1, "gfx942": 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MIOpen attribution %v, want %v", got, want)
	}
}

func TestLazyIndexName(t *testing.T) {
	for p, want := range map[string]bool{
		"lib/rocblas/library/TensileLibrary_lazy_gfx942.dat":         true,
		"lib/rocblas/library/gfx942/TensileLibrary_lazy_gfx942.yaml": true,
		"lib/rocblas/library/TensileLibrary_gfx942.dat":              false,
		"lib/rocblas/library/TensileLibrary_lazy_gfx942.co":          false,
		"lib/hipblaslt/library/TensileLibrary_lazy_gfx942.dat.zlib":  true,
	} {
		if got := kerneldb.IsLazyIndex(p); got != want {
			t.Errorf("IsLazyIndex(%s) = %v", p, got)
		}
	}
}

// TestSymlinkedLibraryFolder: a library folder that is a symlink (a shared
// data folder) resolves like open(2) and its files are attributed.
func TestSymlinkedLibraryFolder(t *testing.T) {
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	tree.AddTensile(kerneldbtest.Tensile{Dir: "share/rocblas/library", Arches: []string{"gfx942"}, PerArch: true, Lazy: true, Kernels: 2})
	tree.Link("lib/rocblas", "../share/rocblas")
	r := run(t, tree, []string{mi300xnackOff}, kerneldb.Options{Deep: true})
	l := lookup(t, r, kerneldb.RocBLAS, mi300xnackOff)
	if len(l.Misses) != 0 || l.Dir != "lib/rocblas/library/gfx942" || r.Sites[0].Arches["gfx942"].Count != 6 {
		t.Errorf("dir %s misses %+v arches %v", l.Dir, l.Misses, r.Sites[0].Processors())
	}
}

func TestHipBLASLtNonLazy(t *testing.T) {
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "libhipblaslt", "1", "0", kerneldbtest.EnvHipBLASLt)
	tree.AddTensile(kerneldbtest.Tensile{Dir: "lib/hipblaslt/library", Arches: []string{"gfx942", "gfx950"}, Kernels: 2})
	tree.Remove("lib/hipblaslt/library/TensileLibrary_gfx950_0.co")
	tree.Remove("lib/hipblaslt/library/TensileLibrary_gfx950_1.co")
	r := run(t, tree, []string{mi300xnackOff, "gfx950:sramecc+:xnack-"}, kerneldb.Options{})
	if l := lookup(t, r, kerneldb.HipBLASLt, mi300xnackOff); l.Lazy || l.Index != "lib/hipblaslt/library/TensileLibrary_gfx942.dat" || len(l.Misses) != 0 {
		t.Errorf("gfx942: index %s lazy %v misses %+v", l.Index, l.Lazy, l.Misses)
	}
	l := lookup(t, r, kerneldb.HipBLASLt, "gfx950:sramecc+:xnack-")
	if !reflect.DeepEqual(kinds(l), []kerneldb.Kind{kerneldb.NoCodeObjects}) ||
		!strings.HasPrefix(l.Misses[0].Text, `rocblaslt warning: No paths matched "lib/hipblaslt/library". Make sure that HIPBLASLT_TENSILE_LIBPATH is set correctly.`) {
		t.Errorf("gfx950 (Kernels.so only, no .co): %+v", l.Misses)
	}
}
