// Command benchtree writes the benchmark builds of internal/testutil/benchtree and
// manages their page cache for cold-cache timings (scripts/bench-vs-python.sh).
//
//	benchtree gen (-out DIR | -root DIR) [-shape therock] [-scale 1] [-seed 1] [-small] [-workers N] [-machines N]
//	benchtree evict PATH...     drop the files under PATH from the page cache
//	benchtree resident PATH...  print the bytes of the files under PATH in the page cache
//
// gen writes DIR/tree, DIR/policies.yaml and DIR/benchtree.json (the
// manifest: counts and sizes); with -root, DIR is ROOT/<shape-scale-seed>,
// the directory the benchmarks use under KPACK_BENCH_DIR=ROOT; -machines N
// also writes DIR/machines.yaml, the policy with N machines
// (Tree.MachinesPolicy, BenchmarkMachines). It reuses
// DIR when it already holds the same tree, prints DIR on stdout and a
// summary on stderr. Exit 0 on success, 2 on usage errors, 1 on other
// errors.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/testutil/benchtree"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage: benchtree gen (-out DIR | -root DIR) [-shape SHAPE] [-scale F] [-seed N] [-small] [-workers N] [-machines N]
       benchtree evict PATH...
       benchtree resident PATH...
shapes: ` + "therock, single, group:N, archive-only:N"

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "gen":
		err = gen(args[1:], stdout, stderr)
	case "evict":
		err = walkFiles(args[1:], func(p string, _ int64) error { return evict(p) })
	case "resident":
		err = printResident(args[1:], stdout)
	default:
		fmt.Fprintf(stderr, "benchtree: unknown command %q\n%s\n", args[0], usage)
		return 2
	}
	var ue usageError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "benchtree: %v\n%s\n", err, usage)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "benchtree: %v\n", err)
		return 1
	}
	return 0
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func gen(args []string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("gen", flag.ContinueOnError)
	fset.SetOutput(stderr)
	out := fset.String("out", "", "directory to write (tree/, policies.yaml, benchtree.json)")
	root := fset.String("root", "", "write into ROOT/<shape-scale-seed> instead of -out")
	shape := fset.String("shape", "therock", "preset: "+strings.Join(benchtree.Shapes, ", "))
	scale := fset.Float64("scale", 1, "multiplies binaries and TOC entries (or N)")
	seed := fset.Int64("seed", 1, "seed of the generator")
	small := fset.Bool("small", false, "512-byte code objects, 256-byte host code (same structure)")
	workers := fset.Int("workers", runtime.GOMAXPROCS(0), "files built at once (the bytes do not depend on it)")
	machines := fset.Int("machines", 0, "also write machines.yaml: the policy with N machines (policy machines:)")
	if err := fset.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if (*out == "") == (*root == "") || fset.NArg() > 0 {
		return usageError{"gen: want one of -out DIR or -root DIR, and no arguments"}
	}
	t, err := benchtree.Preset(*shape, benchtree.Options{Seed: *seed, Scale: *scale, Small: *small})
	if err != nil {
		return usageError{err.Error()}
	}
	dir := *out
	if *root != "" {
		dir = filepath.Join(*root, t.DirName())
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m, err := benchtree.Ensure(dir, t, *workers)
	if err != nil {
		return err
	}
	if *machines > 0 {
		if err := os.WriteFile(filepath.Join(dir, "machines.yaml"), []byte(t.MachinesPolicy(*machines)), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "benchtree: %s: %d groups, %d archives (%.1f MB), %d TOC entries (%.1f MB of code objects), %d host binaries, %d agents\n",
		dir, m.Groups, m.Archives, float64(m.ArchiveBytes)/1e6, m.Entries, float64(m.ObjectBytes)/1e6, m.Binaries, len(m.Agents))
	_, err = fmt.Fprintln(stdout, dir)
	return err
}

// walkFiles calls f for every regular file under the paths (symlinks are
// not followed).
func walkFiles(paths []string, f func(path string, size int64) error) error {
	if len(paths) == 0 {
		return usageError{"want at least one PATH"}
	}
	for _, root := range paths {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			return f(p, info.Size())
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func printResident(paths []string, stdout io.Writer) error {
	var cached, total int64
	err := walkFiles(paths, func(p string, size int64) error {
		n, err := resident(p, size)
		cached += n
		total += size
		return err
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%d of %d bytes in the page cache\n", cached, total)
	return err
}
