package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyDiscoveryLayouts runs discovery on one layout per case and
// checks the file it takes (path, relative to the working directory
// top/cwd), what the reports say, or the refusal (exit 2) and its words:
//
//	top/repo = root/  .git (a repository), policies.yaml [top]
//	root/out/        policies.yaml [parent]
//	root/out/dist/   the input (a directory), policies.yaml [in input]
//	root/out/dist/lib/x.whl
func TestPolicyDiscoveryLayouts(t *testing.T) {
	type want struct {
		path, found, none, refused string
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, root string) (input string) // files beyond the build; the input to check
		env   map[string]string                              // relative values are joined to root
		want  want
	}{
		{"in the input", func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "out/dist/policies.yaml"), pol)
			writeFile(t, filepath.Join(root, "out/policies.yaml"), pol) // never reached: the input's own comes first
			return "../repo/out/dist"
		}, nil, want{refused: "../repo/out/dist/policies.yaml is in the input ../repo/out/dist: policy discovery never reads a policy the checked build carries"}},
		{"below the input (working directory)", func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "out/dist/lib/policies.yaml"), pol)
			os.Chdir(filepath.Join(root, "out/dist/lib"))
			return ".."
		}, nil, want{refused: "policies.yaml is inside the input ..: "}},
		{"next to an input file", func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "out/dist/lib/policies.yaml"), pol)
			return "../repo/out/dist/lib/x.whl"
		}, nil, want{refused: "../repo/out/dist/lib/policies.yaml is next to the input ../repo/out/dist/lib/x.whl: "}},
		{"in a parent inside the repository", func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "out/policies.yaml"), pol)
			writeFile(t, filepath.Join(root, "policies.yaml"), pol)
			return "../repo/out/dist"
		}, nil, want{path: "../repo/out/policies.yaml", found: "in ../repo/out, a parent of the input ../repo/out/dist"}},
		{"at the repository root", func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "policies.yaml"), pol)
			return "../repo/out/dist"
		}, nil, want{path: "../repo/policies.yaml", found: "in ../repo, a parent of the input ../repo/out/dist"}},
		{"above the repository root", func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(filepath.Dir(root), "policies.yaml"), pol)
			return "../repo/out/dist"
		}, nil, want{none: "no policies.yaml in the working directory or in the parents of the input ../repo/out/dist up to the repository root"}},
		{"a .git inside the input is no repository root", func(t *testing.T, root string) string {
			os.Mkdir(filepath.Join(root, "out/dist/.git"), 0o755)
			writeFile(t, filepath.Join(root, "out/policies.yaml"), pol)
			return "../repo/out/dist"
		}, nil, want{path: "../repo/out/policies.yaml", found: "in ../repo/out, a parent of the input ../repo/out/dist"}},
		{"at the workspace root, no repository", func(t *testing.T, root string) string {
			os.Remove(filepath.Join(root, ".git"))
			writeFile(t, filepath.Join(root, "policies.yaml"), pol)
			writeFile(t, filepath.Join(filepath.Dir(root), "policies.yaml"), pol)
			return "../repo/out/dist"
		}, map[string]string{"GITHUB_WORKSPACE": "."}, want{path: "../repo/policies.yaml", found: "in ../repo, a parent of the input ../repo/out/dist"}},
		{"the workspace root stops before the repository root", func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "policies.yaml"), pol)
			return "../repo/out/dist"
		}, map[string]string{"GITHUB_WORKSPACE": "out"}, want{none: "no policies.yaml in the working directory or in the parents of the input ../repo/out/dist up to the workspace root"}},
		{"outside the repository and the workspace", func(t *testing.T, root string) string {
			os.Remove(filepath.Join(root, ".git"))
			writeFile(t, filepath.Join(root, "out/policies.yaml"), pol) // an earlier step's file, 1 level up
			return "../repo/out/dist"
		}, map[string]string{"GITHUB_WORKSPACE": "ws"}, want{none: "no policies.yaml in the working directory; the input ../repo/out/dist is outside any repository and the workspace, " +
			"so its parents are not looked in (pass --policy FILE)"}},
		{"the working directory", func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "out/dist/policies.yaml"), pol) // not met: the working directory comes first
			writeFile(t, filepath.Join(root, "policies.yaml"), pol)
			os.Chdir(root)
			return "out/dist"
		}, nil, want{path: "policies.yaml", found: "in the working directory"}},
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			base := filepath.Join(home, "top") // above the repository, below the home folder
			root := filepath.Join(base, "repo")
			os.MkdirAll(filepath.Join(root, ".git"), 0o755)
			os.MkdirAll(filepath.Join(root, "ws"), 0o755)
			writeBuild(t, filepath.Join(root, "out/dist"), map[string]int{"blas_lib": 2}, []string{"gfx942"}, nil)
			writeFile(t, filepath.Join(root, "out/dist/lib/x.whl"), "")
			t.Setenv("HOME", home)
			t.Setenv("GITHUB_WORKSPACE", "")
			for k, v := range c.env {
				t.Setenv(k, filepath.Join(root, v))
			}
			os.Mkdir(filepath.Join(base, "cwd"), 0o755)
			os.Chdir(filepath.Join(base, "cwd"))
			input := c.setup(t, root)
			src := findPolicy("", false, []string{input})
			got := want{path: src.path, found: src.found, none: src.none}
			if src.refused != nil {
				got.refused = src.refused.Error()
			}
			if c.want.refused != "" {
				if !strings.HasPrefix(got.refused, c.want.refused) || !strings.HasSuffix(got.refused, "to use it anyway, --policy FILE for the repository's own, or --no-policy for none") ||
					src.path != "" {
					t.Errorf("got %+v\nwant refused %q", got, c.want.refused)
				}
				return
			}
			if got != c.want {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// pol is a policy that parses.
const pol = "version: 1\nvariants:\n  release: {targets: [gfx942]}\n"

// The planted build-output policy of the waive-all recipe (group "*",
// every path depth, year 9999) waives nothing: check exits 2 naming it,
// with no report on stdout, and --no-policy (the control) finds both
// errors.
func TestPlantedDistPolicyRefused(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("HOME", filepath.Dir(ws))
	t.Setenv("GITHUB_WORKSPACE", ws)
	dist := filepath.Join(ws, "dist")
	writeBuild(t, dist, map[string]int{"blas_lib": 2}, []string{"gfx942"}, map[string]string{"blas_lib": "gfx942"})
	writeFile(t, filepath.Join(dist, "policies.yaml"), "version: 1\nvariants:\n  release:\n    targets: [gfx942]\nwaivers:\n"+
		"  - {path: \"*\", reason: \"tracked elsewhere\", expires: 9999-12-31}\n  - {group: \"*\", reason: \"tracked elsewhere\", expires: 9999-12-31}\n")
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(ws)
	code, out, stderr := run(t, "check", "--format", "github", "dist")
	if code != ExitUsage || out != "" || !strings.HasPrefix(stderr, "kpack-lint: dist/policies.yaml is in the input dist: ") ||
		!strings.Contains(stderr, "pass --policy dist/policies.yaml to use it anyway, --policy FILE for the repository's own, or --no-policy for none") {
		t.Errorf("exit %d, want 2\nstdout %q\nstderr %q", code, out, stderr)
	}
	if code, out, _ := run(t, "check", "--no-policy", "--target", "gfx942", "dist"); code != ExitFindings || !strings.Contains(out, "1 finding: 1 error") {
		t.Errorf("--no-policy: exit %d\n%s", code, out)
	}
}

// A waiver that matches everything or expires in year 9999 is a warning
// at its file:line in every report; --max-waiver-days moves the limit.
func TestBroadWaiverWarning(t *testing.T) {
	dir := t.TempDir()
	build := filepath.Join(dir, "build")
	writeBuild(t, build, map[string]int{"blas_lib": 2}, []string{"gfx942"}, map[string]string{"blas_lib": "gfx942"})
	w := writeFile(t, filepath.Join(dir, "w.yaml"), "waivers:\n  - {rule: KPL001, group: blas_lib, reason: known, expires: 2026-03-01}\n"+
		"  - {group: \"*\", reason: \"tracked elsewhere\", expires: 9999-12-31}\n")
	args := []string{"check", "--no-policy", "--target", "gfx942", "--today", "2026-01-01", "--waivers", w}
	code, out, _ := run(t, append(args, build)...)
	want := `w.yaml:3: warning waiver (group *) is too broad: it names no rule (it waives every rule's findings); group "*" matches every kpack group; ` +
		"it expires on 9999-12-31, 2912442 days ahead (more than 365). Fix: "
	if code != ExitOK || !strings.Contains(out, want) || strings.Count(out, "is too broad") != 1 {
		t.Errorf("exit %d, want 0 and one line %q:\n%s", code, want, out)
	}
	_, out, _ = run(t, append(append(args, "--format", "github"), build)...)
	if !strings.Contains(out, "::warning file=") || !strings.Contains(out, "is too broad: it names no rule") {
		t.Errorf("github:\n%s", out)
	}
	// 59 days ahead passes 365, not 30.
	_, out, _ = run(t, append(append(args, "--max-waiver-days", "30"), build)...)
	if !strings.Contains(out, "w.yaml:2: warning waiver (KPL001, group blas_lib) is too broad: it expires on 2026-03-01, 59 days ahead (more than 30). Fix: give an expires date at most 30 days ahead") {
		t.Errorf("--max-waiver-days 30:\n%s", out)
	}
	if code, _, stderr := run(t, append(append(args, "--max-waiver-days", "-1"), build)...); code != ExitUsage || !strings.Contains(stderr, "--max-waiver-days -1: want a number of days") {
		t.Errorf("--max-waiver-days -1: exit %d %s", code, stderr)
	}
}
