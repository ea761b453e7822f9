package benchtree_test

import (
	"bytes"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/benchtree"
	"github.com/rocm-tools/kpack-lint/policy"
)

// TestTheRockSizes: the full therock plan has issue 9's sizes (computed
// from the plan, nothing is written).
func TestTheRockSizes(t *testing.T) {
	tr, err := benchtree.Preset("therock", benchtree.Options{})
	if err != nil {
		t.Fatal(err)
	}
	archives, binaries, entries := 0, 0, 0.0
	for _, g := range tr.Groups {
		archives += len(g.Tags)
		binaries += len(g.Binaries)
		full := len(g.Tags) - len(g.Partial)
		entries += float64(len(g.Keys())) * (float64(full) + 0.4*float64(len(g.Partial)))
	}
	if len(tr.Groups) != 60 || archives != 504 || binaries != 5300 || len(tr.Tags()) != 15 || len(tr.Agents()) != 21 {
		t.Errorf("groups %d archives %d binaries %d tags %d agents %d, want 60 504 5300 15 21",
			len(tr.Groups), archives, binaries, len(tr.Tags()), len(tr.Agents()))
	}
	if math.Abs(entries-199000) > 2000 {
		t.Errorf("expected TOC entries %.0f, want 199,000 +- 2,000", entries)
	}
	largest := slices.MaxFunc(tr.Groups, func(a, b benchtree.Group) int { return len(a.Binaries) - len(b.Binaries) })
	if n := len(largest.Binaries); n < 1000 || n > 1600 {
		t.Errorf("largest group %s has %d binaries, want a TheRock-like 1,000-1,600", largest.Name, n)
	}
}

func TestSingleSize(t *testing.T) {
	tr, err := benchtree.Preset("single", benchtree.Options{})
	if err != nil {
		t.Fatal(err)
	}
	keys := len(tr.Groups[0].Keys())
	if len(tr.Groups) != 1 || len(tr.Groups[0].Tags) != 1 || keys != 12000 || keys*tr.MeanObject != 207000000 {
		t.Errorf("groups %d tags %v keys %d mean %d", len(tr.Groups), tr.Groups[0].Tags, keys, tr.MeanObject)
	}
}

func TestPresetErrors(t *testing.T) {
	for _, name := range []string{"", "therock2", "group", "group:0", "archive-only:x"} {
		if _, err := benchtree.Preset(name, benchtree.Options{}); err == nil {
			t.Errorf("Preset(%q): no error", name)
		}
	}
}

// TestDeterministic: one seed gives byte-identical trees whatever the
// number of workers; another seed gives other bytes.
func TestDeterministic(t *testing.T) {
	a := write(t, mini(t, 1), 1)
	b := write(t, mini(t, 1), 4)
	fa, fb := snapshot(t, a), snapshot(t, b)
	if len(fa) < 80 {
		t.Fatalf("only %d files", len(fa))
	}
	for p, data := range fa {
		if !bytes.Equal(data, fb[p]) {
			t.Errorf("%s differs between runs", p)
		}
	}
	if len(fa) != len(fb) {
		t.Errorf("%d files vs %d", len(fa), len(fb))
	}
	fc := snapshot(t, write(t, mini(t, 2), 2))
	same := 0
	for p, data := range fc {
		if bytes.Equal(data, fa[p]) {
			same++
		}
	}
	if same > len(fc)/3 { // headers and policies.yaml do not depend on the seed
		t.Errorf("seed 2 repeats %d of %d files of seed 1", same, len(fc))
	}
}

// mini is the therock shape cut to three projects (one with generic
// archives, one with xnack overlays, one datacenter-only), tiny sizes.
func mini(t *testing.T, seed int64) *benchtree.Tree {
	t.Helper()
	tr, err := benchtree.Preset("therock", benchtree.Options{Seed: seed, Scale: 0.02, Small: true})
	if err != nil {
		t.Fatal(err)
	}
	keep := []string{"prim_lib", "prim_test", "torch_lib", "torch_test", "ccl_lib", "ccl_test"}
	tr.Groups = slices.DeleteFunc(tr.Groups, func(g benchtree.Group) bool { return !slices.Contains(keep, g.Name) })
	tr.Plain = tr.Plain[:8]
	return tr
}

// TestSmallTreeLints: the generated archives and binaries are well formed
// (no KPL005, KPL007, KPL009, KPL010, also with --deep) and the model sees
// what the manifest counts. The findings are the tree's designed defects:
// missing archives (KPL006), partial overlays (KPL002, KPL004).
func TestSmallTreeLints(t *testing.T) {
	dir := write(t, mini(t, 1), 2)
	m, err := benchtree.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := vfs.Open([]string{filepath.Join(dir, benchtree.TreeDir)}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	b := model.Load(tree)
	entries := 0
	for _, a := range b.Archives {
		if a.Info == nil {
			t.Fatalf("%s: %v", a.Path, a.Err)
		}
		for _, arches := range a.Info.Kernels {
			entries += len(arches)
		}
	}
	if len(b.Archives) != m.Archives || len(b.Binaries) != m.Binaries || entries != m.Entries || len(b.Groups) != m.Groups {
		t.Errorf("model: %d archives, %d binaries, %d entries, %d groups; manifest %+v",
			len(b.Archives), len(b.Binaries), entries, len(b.Groups), m)
	}
	pol, err := policy.Load(filepath.Join(dir, benchtree.PolicyFile))
	if err != nil {
		t.Fatal(err)
	}
	res, err := lint.Run(b, lint.Config{Policy: pol, Deep: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Context.Agents) != 21 || res.Context.Deep.Bytes != m.ObjectBytes {
		t.Errorf("%d agents, %d bytes verified; want 21, %d", len(res.Context.Agents), res.Context.Deep.Bytes, m.ObjectBytes)
	}
	rules := map[string]int{}
	for _, f := range res.Findings {
		rules[f.RuleID]++
	}
	for id := range rules {
		if !slices.Contains([]string{"KPL002", "KPL004", "KPL006"}, id) {
			t.Errorf("unexpected %s: %+v", id, rules)
		}
	}
	if rules["KPL006"] == 0 || rules["KPL002"] == 0 {
		t.Errorf("the designed defects are missing: %v", rules)
	}
}

func write(t *testing.T, tr *benchtree.Tree, workers int) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := benchtree.Write(dir, tr, workers); err != nil {
		t.Fatal(err)
	}
	return dir
}

// snapshot maps every file's path under dir to its bytes (a symlink's
// to "-> target").
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[rel] = []byte("-> " + target)
			return err
		}
		out[rel], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
