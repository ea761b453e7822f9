package lint_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb/kerneldbtest"
)

// kerneldbCases holds the committed kernel-database builds
// (go test ./kerneldb -run TestCommittedTrees -update).
const kerneldbCases = "../../testdata/kerneldb"

// runCase checks a committed case with its policy; inputs default to the
// case's folders.
func runCase(t *testing.T, name string, deep bool, inputs ...string) []finding.Finding {
	t.Helper()
	pol, err := policy.Load(filepath.Join(kerneldbCases, name, "policies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) == 0 {
		for _, c := range kerneldbtest.Cases() {
			if c.Name == name {
				for _, in := range c.Inputs {
					inputs = append(inputs, filepath.Join(kerneldbCases, name, in))
				}
			}
		}
	}
	return runCheck(t, lint.Config{Policy: pol, Deep: deep}, inputs...)
}

func TestKernelDBCleanBuilds(t *testing.T) {
	for _, name := range []string{"rocblas-flat-lazy", "rocblas-per-arch", "rocblas-non-lazy", "hipblaslt-per-arch", "hipblaslt-flat", "miopen"} {
		for _, deep := range []bool{false, true} {
			if fs := runCase(t, name, deep); len(fs) != 0 {
				t.Errorf("%s (deep %v): %d findings, want none; first: %s", name, deep, len(fs), fs[0].Message)
			}
		}
	}
}

// oneFinding returns the only finding, failing otherwise.
func oneFinding(t *testing.T, fs []finding.Finding) finding.Finding {
	t.Helper()
	if len(fs) != 1 {
		var msgs []string
		for _, f := range fs {
			msgs = append(msgs, f.RuleID+" "+f.Message)
		}
		t.Fatalf("%d findings, want 1:\n%s", len(fs), strings.Join(msgs, "\n"))
	}
	return fs[0]
}

var gfx942Agents = []string{"gfx942:sramecc+:xnack+", "gfx942:sramecc+:xnack-", "gfx942:sramecc-:xnack+", "gfx942:sramecc-:xnack-"}

// TestTheRock5179: librocblas built for gfx942 whose library folder holds
// only *_fallback.dat files: rocBLAS aborts on every gfx942 agent.
func TestTheRock5179(t *testing.T) {
	f := oneFinding(t, runCase(t, "therock-5179", false))
	want := "The user sees: rocBLAS error: Cannot read lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx942"
	if f.RuleID != "KPL013" || f.Level != finding.LevelError || f.Effect != "aborts" || f.Library != "rocBLAS" ||
		!strings.Contains(f.Message, want) || !strings.HasPrefix(f.Message, "rocBLAS (lib/librocblas.so.5.4) has no Tensile library for gfx942 in lib/rocblas/library") ||
		f.Location.Path != "lib/librocblas.so.5.4" || !reflect.DeepEqual(f.Agents, gfx942Agents) ||
		!reflect.DeepEqual(f.Missing, []string{"lib/rocblas/library/TensileLibrary.dat"}) {
		t.Errorf("finding %+v", f)
	}
}

// TestTheRock5478: the base wheel and the gfx1100 device wheel of a pip
// install; the device wheel lacks hipBLASLt's index and helper code object.
func TestTheRock5478(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(kerneldbCases, "therock-5478")
	base, dev := filepath.Join(tmp, "rocm_sdk_libraries-7.0-py3-none-linux_x86_64.whl"), filepath.Join(tmp, "rocm_sdk_libraries_gfx1100-7.0-py3-none-linux_x86_64.whl")
	writeZip(t, base, treeFiles(t, filepath.Join(dir, "base")))
	writeZip(t, dev, treeFiles(t, filepath.Join(dir, "gfx1100")))
	for _, inputs := range [][]string{nil, {base, dev}} {
		f := oneFinding(t, runCase(t, "therock-5478", false, inputs...))
		if f.Level != finding.LevelError || f.Effect != "fails later" || f.Library != "hipBLASLt" || f.Location.Input != 0 ||
			!strings.Contains(f.Message, `rocblaslt error: Cannot read "lib/hipblaslt/library/TensileLibrary_lazy_gfx1100.dat" (or .zlib variant): No such file or directory`) ||
			!reflect.DeepEqual(f.Missing, []string{"lib/hipblaslt/library/Kernels.so-000-gfx1100.hsaco", "lib/hipblaslt/library/TensileLibrary_lazy_gfx1100.dat"}) {
			t.Errorf("inputs %v: finding %+v", inputs, f)
		}
	}
}

// TestRocmSystems7645: the gfx90a-xnack± folders were dropped while
// splitting; gfx942 still loads, gfx90a aborts.
func TestRocmSystems7645(t *testing.T) {
	f := oneFinding(t, runCase(t, "rocm-systems-7645", false))
	if f.Effect != "aborts" || len(f.Agents) != 4 || !strings.HasPrefix(f.Agents[0], "gfx90a:") ||
		!strings.Contains(f.Message, "for GPU arch : gfx90a") ||
		!strings.Contains(f.Message, "lib/rocblas/library has per-arch folders gfx942/ but none for gfx90a") {
		t.Errorf("finding %+v", f)
	}
}

// TestMIOpen1651: an MI210 (104 CUs) needs gfx90a68.kdb; only the MI250X's
// gfx90a6e files ship. A note: MIOpen compiles at run time.
func TestMIOpen1651(t *testing.T) {
	f := oneFinding(t, runCase(t, "miopen-1651", false))
	if f.Level != finding.LevelNote || f.Effect != "slows down" || f.Library != "MIOpen" ||
		!reflect.DeepEqual(f.Missing, []string{"share/miopen/db/gfx90a68.HIP.fdb.txt", "share/miopen/db/gfx90a68.db.txt", "share/miopen/db/gfx90a68.kdb"}) ||
		!strings.Contains(f.Message, "no kernel database for gfx90a with 104 CUs") {
		t.Errorf("finding %+v", f)
	}
	// Without cu_counts only the DbId-level name is derivable: say so.
	dir := filepath.Join(kerneldbCases, "miopen-1651", "tree")
	f = oneFinding(t, runCheck(t, lint.Config{Agents: []string{"gfx90a:sramecc+:xnack-"}}, dir))
	if f.Level != finding.LevelNote || !strings.Contains(f.Message, "the inputs hold only gfx90a6e.kdb") || !strings.Contains(f.Message, "give cu_counts.gfx90a in the policy") {
		t.Errorf("without cu_counts: %+v", f)
	}
}

// TestKernelDBSetsAndDeadWeight: a truncated per-arch set next to full
// ones is a warning; files for arches the build does not target a note.
func TestKernelDBSetsAndDeadWeight(t *testing.T) {
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	full := kerneldbtest.Tensile{Dir: "lib/rocblas/library", Arches: []string{"gfx90a", "gfx942", "gfx1201"}, PerArch: true, Lazy: true, Kernels: 12}
	tree.AddTensile(full)
	tree.AddTensile(kerneldbtest.Tensile{Dir: "lib/rocblas/library", Arches: []string{"gfx906"}, PerArch: true, Lazy: true})
	dir := t.TempDir()
	tree.Write(t, dir)
	fs := runCheck(t, lint.Config{Targets: []string{"gfx906", "gfx90a", "gfx942"}}, dir)
	if len(fs) != 2 {
		t.Fatalf("%d findings: %+v", len(fs), fs)
	}
	small, dead := fs[0], fs[1]
	if small.Level != finding.LevelWarning {
		small, dead = dead, small
	}
	if small.Level != finding.LevelWarning || small.Location.Path != "lib/rocblas/library/gfx906/Kernels.so-000-gfx906.hsaco" ||
		!strings.Contains(small.Message, "holds 2 files for gfx906, but a median of 26 for its other arches (gfx1201 26, gfx90a 26, gfx942 26)") {
		t.Errorf("small set: %+v", small)
	}
	if dead.Level != finding.LevelNote || !strings.Contains(dead.Message, "does not target: gfx1201 (26 files,") ||
		!strings.Contains(dead.Message, "(targets from --target: gfx906, gfx90a, gfx942)") {
		t.Errorf("dead weight: %+v", dead)
	}
}

// TestKernelDBTarballs: database files inside compressed tarballs are seen
// by name, and with --deep the lazy index is read from the stream.
func TestKernelDBTarballs(t *testing.T) {
	tmp := t.TempDir()
	tgz := filepath.Join(tmp, "rocm-therock-23.2.0.tar.gz")
	writeTarFile(t, tgz, treeFiles(t, filepath.Join(kerneldbCases, "therock-5179", "tree")))
	pol, err := policy.Load(filepath.Join(kerneldbCases, "therock-5179", "policies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if f := oneFinding(t, runCheck(t, lint.Config{Policy: pol}, tgz)); !reflect.DeepEqual(f.Missing, []string{"lib/rocblas/library/TensileLibrary.dat"}) {
		t.Errorf("tar.gz: %+v", f)
	}

	files := treeFiles(t, filepath.Join(kerneldbCases, "rocblas-per-arch", "tree"))
	gone := "lib/rocblas/library/gfx942/" + kerneldbtest.SubLibrary(1, "gfx942") + ".dat"
	delete(files, gone)
	zst := filepath.Join(tmp, "rocblas.tar.zst")
	writeTarFile(t, zst, files)
	opt := lint.Config{Targets: []string{"gfx90a", "gfx942"}, Agents: []string{"gfx942:sramecc+:xnack-"}}
	if fs := runCheck(t, opt, zst); len(fs) != 0 {
		t.Errorf("without --deep the index is not read: %+v", fs)
	}
	opt.Deep = true
	f := oneFinding(t, runCheck(t, opt, zst))
	if f.Effect != "crashes" || !reflect.DeepEqual(f.Missing, []string{gone}) || !strings.Contains(f.Message, "SIGSEGV in Tensile loadPlaceholderLibrary, TheRock#7790") {
		t.Errorf("tar.zst --deep: %+v", f)
	}
}

// TestKernelDBCompressedHipBLASLt (problem 1): a hipBLASLt build whose
// indexes, mappings and sub-libraries are .dat.zlib passes, --deep too.
func TestKernelDBCompressedHipBLASLt(t *testing.T) {
	tree := kerneldbtest.New()
	for _, c := range kerneldbtest.Cases() {
		if c.Name == "hipblaslt-per-arch" {
			tree = c.Trees["tree"]
		}
	}
	for p, data := range tree.Files {
		if strings.HasSuffix(p, ".dat") {
			var b bytes.Buffer
			w := zlib.NewWriter(&b)
			w.Write(data)
			w.Close()
			tree.Add(p+".zlib", b.Bytes())
			delete(tree.Files, p)
		}
	}
	dir := t.TempDir()
	tree.Write(t, dir)
	for _, deep := range []bool{false, true} {
		if fs := runCheck(t, lint.Config{Deep: deep, HIP: "7.12"}, dir); len(fs) != 0 { // before rocm-libraries PR 5354's guard
			t.Errorf("deep %v: %d findings; first %s", deep, len(fs), fs[0].Message)
		}
	}
}

// TestKernelDBBoundedFinding (problem 3): an index naming 1005 missing
// sub-libraries gives one finding that lists 1000 (MaxMissing), counts
// 1005, and whose message names five.
func TestKernelDBBoundedFinding(t *testing.T) {
	const dir = "lib/rocblas/library"
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	tree.AddTensile(kerneldbtest.Tensile{Dir: dir, Arches: []string{"gfx942"}, Lazy: true, Kernels: 1})
	var subs []string
	for i := range rules.MaxMissing + 5 {
		subs = append(subs, fmt.Sprintf("P%07d", i))
	}
	tree.Add(dir+"/TensileLibrary_lazy_gfx942.dat", kerneldbtest.Index("gfx942", subs, false))
	root := t.TempDir()
	tree.Write(t, root)
	f := oneFinding(t, runCheck(t, lint.Config{Deep: true, Targets: []string{"gfx942"}}, root))
	if len(f.Missing) != rules.MaxMissing || f.MissingTotal != rules.MaxMissing+5 || f.Effect != "crashes" ||
		len(f.Message) > 2000 || !strings.Contains(f.Message, dir+"/P0000007.dat ... and 997 more)") {
		t.Errorf("missing %d, total %d, effect %s, message (%d bytes) %.400s", len(f.Missing), f.MissingTotal, f.Effect, len(f.Message), f.Message)
	}
}

// TestKernelDBMessages (problem 11): the headline, effect and fix follow
// the most severe miss; files that exist are related, not missing; the
// build root is "/"; one file is "1 file".
func TestKernelDBMessages(t *testing.T) {
	const dir = "lib/rocblas/library"
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	tree.AddTensile(kerneldbtest.Tensile{Dir: dir, Arches: []string{"gfx942"}, Lazy: true, Kernels: 2})
	tree.Remove(dir + "/Kernels.so-000-gfx942.hsaco")                      // fails later
	tree.Remove(dir + "/" + kerneldbtest.SubLibrary(0, "gfx942") + ".dat") // crashes
	root := t.TempDir()
	tree.Write(t, root)
	opt := lint.Config{Deep: true, Targets: []string{"gfx942"}, Agents: []string{"gfx942:sramecc+:xnack-"}}
	f := oneFinding(t, runCheck(t, opt, root))
	if f.Effect != "crashes" || !strings.Contains(f.Message, "lacks files its index "+dir+"/TensileLibrary_lazy_gfx942.dat names on") ||
		!strings.Contains(f.Message, "Fix: ship every file the index names") {
		t.Errorf("lead miss: %s", f.Message)
	}

	bad := kerneldbtest.New()
	bad.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	bad.AddTensile(kerneldbtest.Tensile{Dir: dir, Arches: []string{"gfx942"}, Lazy: true, Kernels: 1})
	bad.Add(dir+"/TensileLibrary_lazy_gfx942.dat", []byte{0x81})
	root = t.TempDir()
	bad.Write(t, root)
	f = oneFinding(t, runCheck(t, opt, root))
	if len(f.Missing) != 0 || f.MissingTotal != 0 || len(f.Related) != 1 || f.Related[0].Path != dir+"/TensileLibrary_lazy_gfx942.dat" {
		t.Errorf("unparsable index: missing %v related %+v", f.Missing, f.Related)
	}

	opt = lint.Config{Agents: []string{"gfx942:sramecc+:xnack-"}, DBEnv: map[string]string{"ROCBLAS_TENSILE_LIBPATH": "//"}}
	f = oneFinding(t, runCheck(t, opt, filepath.Join(kerneldbCases, "rocblas-per-arch", "tree")))
	if !strings.Contains(f.Message, "has no Tensile library for gfx942 in / on") {
		t.Errorf("root: %s", f.Message)
	}

	one := kerneldbtest.New()
	one.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	one.AddTensile(kerneldbtest.Tensile{Dir: dir, Arches: []string{"gfx942", "gfx1100"}, PerArch: true, Lazy: true, Kernels: 12})
	one.Add(dir+"/gfx90a/TensileLibrary_lazy_gfx90a.dat", kerneldbtest.Index("gfx90a", nil, false))
	root = t.TempDir()
	one.Write(t, root)
	warned := false
	for _, f := range runCheck(t, lint.Config{Targets: []string{"gfx942", "gfx1100", "gfx90a"}, Agents: []string{"gfx942:sramecc+:xnack-"}}, root) {
		if f.Level == finding.LevelWarning {
			warned = true
			if !strings.Contains(f.Message, "holds 1 file for gfx90a,") {
				t.Errorf("small set: %s", f.Message)
			}
		}
	}
	if !warned {
		t.Error("no small-set warning for gfx90a's one file")
	}
}

// TestKernelDBSymlinkedFiles (problem 5): files replaced by symlinks to one
// copy (openSUSE %fdupes) count for their arch: no "looks truncated".
func TestKernelDBSymlinkedFiles(t *testing.T) {
	const dir = "lib/rocblas/library"
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	tree.AddTensile(kerneldbtest.Tensile{Dir: dir, Arches: []string{"gfx942", "gfx90a"}, PerArch: true, Kernels: 30})
	for p := range tree.Files {
		if strings.HasPrefix(p, dir+"/gfx942/TensileLibrary_gfx942_") && p != dir+"/gfx942/TensileLibrary_gfx942_0.co" {
			delete(tree.Files, p)
			tree.Link(p, "TensileLibrary_gfx942_0.co")
		}
	}
	root := t.TempDir()
	tree.Write(t, root)
	if fs := runCheck(t, lint.Config{Targets: []string{"gfx942", "gfx90a"}}, root); len(fs) != 0 {
		t.Errorf("%d findings; first %s", len(fs), fs[0].Message)
	}
}

// TestKernelDBOneFindingPerFolder: agents of two processors that miss
// the same folder are one root cause: one finding listing both agents and
// both processors, the user's message quoted for the first agent's.
func TestKernelDBOneFindingPerFolder(t *testing.T) {
	tree := kerneldbtest.New()
	tree.AddLibrary("lib", "librocblas", "5", "4", kerneldbtest.EnvRocBLAS)
	root := t.TempDir()
	tree.Write(t, root)
	fs := runCheck(t, lint.Config{Agents: []string{"gfx942:sramecc+:xnack-", "gfx90a:sramecc+:xnack-"}}, root)
	if len(fs) != 1 {
		t.Fatalf("%d findings", len(fs))
	}
	f := fs[0]
	if len(f.Agents) != 2 || !strings.Contains(f.Message, "has no Tensile library folder for gfx90a, gfx942 ") ||
		!strings.Contains(f.Message, "on gfx942: rocBLAS error: Cannot read") || !strings.Contains(f.Message, "for GPU arch : gfx942 ") ||
		!strings.Contains(f.Message, "(the same for gfx90a)") || !strings.Contains(f.Message, "their gfx90a, gfx942 device packages") {
		t.Errorf("%v: %s", f.Agents, f.Message)
	}
}

// TestKernelDBTruncatedCodeObject: a Tensile .co cut short in Debian's
// rocBLAS folder is a device code object, not a host binary (no KPL007);
// with --deep it is missing kernels for its arch on that GPU (rocBLAS
// 5.5.1 discards the load error), an error naming the agent.
func TestKernelDBTruncatedCodeObject(t *testing.T) {
	const lib = "usr/lib/x86_64-linux-gnu"
	tree := kerneldbtest.New()
	tree.Add(lib+"/librocblas.so.0.1", kerneldbtest.LibraryWithStrings(kerneldbtest.EnvRocBLAS, "librocblas.so.0", "/rocblas/2.47.0/library"))
	tree.Add(lib+"/rocblas/2.47.0/library/TensileLibrary.dat", []byte("x"))
	co := codeobjtest.CodeObject("gfx1100", strings.Repeat("\x00", 100))
	binary.LittleEndian.PutUint64(co[0x28:], 64) // e_shoff: 10 section headers from byte 64, past the end
	binary.LittleEndian.PutUint16(co[0x3a:], 64)
	binary.LittleEndian.PutUint16(co[0x3c:], 10)
	tree.Add(lib+"/rocblas/2.47.0/library/TensileLibrary_gfx1100.co", co)
	root := t.TempDir()
	tree.Write(t, root)
	for _, deep := range []bool{false, true} {
		fs := runCheck(t, lint.Config{Targets: []string{"gfx1100"}, Deep: deep}, root)
		var ids []string
		for _, f := range fs {
			ids = append(ids, f.RuleID)
		}
		want := []string(nil)
		if deep {
			want = []string{"KPL013"}
		}
		if !reflect.DeepEqual(ids, want) {
			t.Fatalf("deep %v: rules %v, want %v; %v", deep, ids, want, fs)
		}
		if deep && (fs[0].Effect != "fails later" || !strings.Contains(fs[0].Message, "truncated") || !reflect.DeepEqual(fs[0].Agents, []string{"gfx1100"})) {
			t.Errorf("deep: %s", fs[0].Message)
		}
	}
}
