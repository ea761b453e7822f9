package lint

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
			os.MkdirAll(filepath.Join(root, "out/dist/lib"), 0o755) // the build: discovery reads only its folders
			writeFile(t, filepath.Join(root, "out/dist/lib/x.whl"), "")
			t.Setenv("HOME", home)
			t.Setenv("GITHUB_WORKSPACE", "")
			for k, v := range c.env {
				t.Setenv(k, filepath.Join(root, v))
			}
			os.Mkdir(filepath.Join(base, "cwd"), 0o755)
			os.Chdir(filepath.Join(base, "cwd"))
			input := c.setup(t, root)
			src := FindPolicy("", false, []string{input})
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

func writeFile(t *testing.T, p, s string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
