//go:build unix

package vfs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
)

// TestDirWalkOrder: folders listed on several goroutines give the tree a
// walk in name order gives (filepath.WalkDir), with the problems (here
// named pipes, skipped) in that walk's order, whatever the schedule; the
// input's entry count is the same too.
func TestDirWalkOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	root := t.TempDir()
	for i := range 12 {
		top := filepath.Join(root, fmt.Sprintf("d%02d", i))
		if err := os.MkdirAll(top, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"a.fifo", "t.fifo"} { // before and after the subfolders s0..s3
			if err := syscall.Mkfifo(filepath.Join(top, f), 0o644); err != nil {
				t.Skipf("no named pipes here: %v", err)
			}
		}
		for j := range 4 {
			dir := filepath.Join(root, fmt.Sprintf("d%02d", i), fmt.Sprintf("s%d", j))
			if err := os.MkdirAll(filepath.Join(dir, "deep"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"a.so", "deep/b.kpack", "z.txt"} {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := syscall.Mkfifo(filepath.Join(dir, "m.fifo"), 0o644); err != nil {
				t.Skipf("no named pipes here: %v", err)
			}
			if err := os.Symlink("a.so", filepath.Join(dir, "l.so")); err != nil {
				t.Fatal(err)
			}
		}
	}
	var wantFiles, wantProblems []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeNamedPipe != 0:
			wantProblems = append(wantProblems, rel)
		case !d.IsDir():
			wantFiles = append(wantFiles, rel)
		}
		return nil
	})
	for run := range 5 {
		tr, err := Open([]string{root}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var files, problems []string
		for _, e := range tr.Files() {
			files = append(files, e.Path)
		}
		for _, p := range tr.Problems {
			problems = append(problems, p.Path)
		}
		slices.Sort(files) // Files is sorted by path already; WalkDir's order is by name per folder
		want := slices.Sorted(slices.Values(wantFiles))
		if !slices.Equal(files, want) || !slices.Equal(problems, wantProblems) || tr.Inputs[0].Entries != len(wantFiles) {
			t.Fatalf("run %d: %d files (want %d), %d entries, problems %v\nwant %v", run, len(files), len(want), tr.Inputs[0].Entries, problems, wantProblems)
		}
		tr.Close()
	}
}
