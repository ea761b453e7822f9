package kerneldb_test

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/rocm-tools/kpack-lint/sim/kerneldb/kerneldbtest"
)

var update = flag.Bool("update", false, "rewrite testdata/kerneldb from kerneldbtest.Cases")

// casesDir holds the committed test builds.
const casesDir = "../../testdata/kerneldb"

// TestCommittedTrees keeps testdata/kerneldb equal to what the generator
// writes (go test ./kerneldb -run TestCommittedTrees -update rewrites it).
func TestCommittedTrees(t *testing.T) {
	for _, c := range kerneldbtest.Cases() {
		dir := filepath.Join(casesDir, c.Name)
		if *update {
			writeCase(t, c, dir)
		}
		for _, in := range c.Inputs {
			compareTree(t, c.Trees[in], filepath.Join(dir, in))
		}
		pol, err := os.ReadFile(filepath.Join(dir, "policies.yaml"))
		if err != nil || string(pol) != c.Policy {
			t.Errorf("%s/policies.yaml differs from the generator (err %v); run with -update", c.Name, err)
		}
	}
}

func writeCase(t *testing.T, c kerneldbtest.Case, dir string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, in := range c.Inputs {
		c.Trees[in].Write(t, filepath.Join(dir, in))
	}
	if err := os.WriteFile(filepath.Join(dir, "policies.yaml"), []byte(c.Policy), 0o644); err != nil {
		t.Fatal(err)
	}
}

// compareTree checks that dir holds exactly the tree's files and links.
func compareTree(t *testing.T, want *kerneldbtest.Tree, dir string) {
	t.Helper()
	var got []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		got = append(got, rel)
		if target, ok := want.Links[rel]; ok {
			if l, err := os.Readlink(p); err != nil || l != target {
				t.Errorf("%s: link %q, want %q (err %v)", p, l, target, err)
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(data, want.Files[rel]) {
			t.Errorf("%s differs from the generator (err %v); run go test ./kerneldb -update", p, err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%v (generate with go test ./kerneldb -update)", err)
	}
	sort.Strings(got)
	if w := want.Paths(); !slices.Equal(got, w) {
		t.Errorf("%s: %d files, generator has %d; run go test ./kerneldb -update", dir, len(got), len(w))
	}
}
