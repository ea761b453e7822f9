package kpacklint_test

// The floors of the code (docs/architecture.md, "Floors"): a package imports only
// packages of its own floor or a lower one, the packages that write
// reports and the gate depend on nothing that parses inputs, reads
// policies or simulates, and only a main package calls os.Exit.

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/rocm-tools/kpack-lint"

// floors maps package paths (relative to the module, as regular
// expressions) to their floor, lowest first. A test helper package
// (…test) lives on the floor of the package it helps.
var floors = []struct {
	re    string
	floor int
}{
	{`^internal/util/`, 0},
	{`^internal/version$`, 0},
	{`^targetid$`, 0},
	{`^finding$`, 0},
	{`^input/`, 1},
	{`^policy$`, 1},
	{`^resolver$`, 2},
	{`^sim(/|$)`, 2},
	{`^rules$`, 3},
	{`^report$`, 4},
	{`^gate$`, 4},
	{`^internal/lint$`, 5},
	{`^internal/cli$`, 6},
	{`^cmd/`, 7},
}

// exempt are the packages allowed to import from any floor: the test
// helpers under internal/testutil (benchtree drives the whole CLI for the
// benchmarks, testtree writes file trees for any package's tests) and
// this test itself.
var exempt = regexp.MustCompile(`^(internal/testutil/|$)`)

// reporters are the packages that write SARIF, JSON, text, markdown and
// GitHub output, and the gate; forbidden is what they must not depend on.
var (
	reporters = []string{"finding", "report", "gate"}
	forbidden = regexp.MustCompile(`^(debug/elf|debug/pe|archive/.*|gopkg\.in/yaml.*|github\.com/klauspost/compress(/.*)?|` +
		regexp.QuoteMeta(module) + `/(input/.*|sim(/.*)?|resolver|rules|policy))$`)
)

type pkg struct {
	ImportPath, Dir, Name      string
	Imports, Deps              []string
	TestImports, XTestImports  []string
	GoFiles, TestGoFiles       []string
	XTestGoFiles, IgnoredFiles []string
}

// listPackages runs go list over the module. It first reads every folder
// and Go file of the module itself, which go test records, so a change to
// any of them runs the test again instead of reusing a cached result (go
// test cannot see what the go list it starts reads).
func listPackages(t *testing.T) []pkg {
	t.Helper()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata"):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".go"):
			_, err = os.ReadFile(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderrOf(err))
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	return pkgs
}

// floorOf returns the floor of a module package (its path relative to the
// module) and whether it is exempt.
func floorOf(t *testing.T, rel string) (int, bool) {
	if exempt.MatchString(rel) {
		return 0, true
	}
	for _, f := range floors {
		if regexp.MustCompile(f.re).MatchString(rel) {
			return f.floor, false
		}
	}
	t.Errorf("package %s is on no floor: add it to floors (and to the map in docs/architecture.md)", rel)
	return 0, true
}

func rel(p string) (string, bool) {
	if p == module {
		return "", true
	}
	r, ok := strings.CutPrefix(p, module+"/")
	return r, ok
}

// TestFloors fails when a package, or its tests, imports a package of a
// higher floor.
func TestFloors(t *testing.T) {
	for _, p := range listPackages(t) {
		from, _ := rel(p.ImportPath)
		f, skip := floorOf(t, from)
		if skip {
			continue
		}
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			to, ok := rel(imp)
			if !ok || imp == p.ImportPath {
				continue
			}
			g, skipTo := floorOf(t, to)
			if !skipTo && g > f {
				t.Errorf("%s (floor %d) imports %s (floor %d)", from, f, to, g)
			}
		}
	}
}

// TestFindingIsALeaf: the finding vocabulary imports only the standard
// library and internal/util.
func TestFindingIsALeaf(t *testing.T) {
	for _, p := range listPackages(t) {
		if p.ImportPath != module+"/finding" {
			continue
		}
		for _, imp := range p.Imports {
			if strings.Contains(strings.Split(imp, "/")[0], ".") && !strings.HasPrefix(imp, module+"/internal/util/") {
				t.Errorf("finding imports %s", imp)
			}
		}
		return
	}
	t.Fatal("no package finding")
}

// TestReportersDependOnNoParser: the reporters and the gate link nothing
// that parses inputs, reads policies or simulates.
func TestReportersDependOnNoParser(t *testing.T) {
	args := []string{"list", "-deps"}
	for _, r := range reporters {
		args = append(args, "./"+r)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderrOf(err))
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/finding") {
		t.Fatalf("go list -deps lists no finding: %q", deps)
	}
	for _, d := range deps {
		if forbidden.MatchString(d) {
			t.Errorf("%s depends on %s", strings.Join(reporters, ", "), d)
		}
	}
}

// cliMay is what the command line (internal/cli) may import of the
// module: the pipeline, the report and finding vocabulary and the
// utilities. It parses flags into a lint.Config; whatever decides (policy
// discovery and trust, the environment, targets, rules, formats) is
// internal/lint's, which it asks.
var cliMay = regexp.MustCompile(`^(internal/lint|report|finding|internal/util/.*|internal/version)$`)

// TestCommandLineOnlyParses: internal/cli imports no simulation, rule,
// resolver, policy or input package, only the pipeline and what it
// shares (cliMay); its tests may import anything below it.
func TestCommandLineOnlyParses(t *testing.T) {
	for _, p := range listPackages(t) {
		if p.ImportPath != module+"/internal/cli" {
			continue
		}
		if !slices.Contains(p.Imports, module+"/internal/lint") {
			t.Fatalf("internal/cli imports no internal/lint: %q", p.Imports)
		}
		for _, imp := range p.Imports {
			if r, ok := rel(imp); ok && !cliMay.MatchString(r) {
				t.Errorf("internal/cli imports %s: ask internal/lint instead", r)
			}
		}
		return
	}
	t.Fatal("no package internal/cli")
}

// TestOSExitOnlyInMain: library code returns errors; only a main package
// ends the process.
func TestOSExitOnlyInMain(t *testing.T) {
	fset := token.NewFileSet()
	for _, p := range listPackages(t) {
		if p.Name == "main" {
			continue
		}
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if s, ok := n.(*ast.SelectorExpr); ok && s.Sel.Name == "Exit" {
					if x, ok := s.X.(*ast.Ident); ok && x.Name == "os" {
						t.Errorf("%s: os.Exit outside a main package", fset.Position(s.Pos()))
					}
				}
				return true
			})
		}
	}
}

func stderrOf(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}
