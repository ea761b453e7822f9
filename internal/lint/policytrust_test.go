//go:build unix

package lint

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ownedBy makes the trust checks see the files in owned (by path) as
// owned by the given user ids: tests cannot chown unless root.
func ownedBy(t *testing.T, owned map[string]int) {
	t.Helper()
	stats := map[string]fs.FileInfo{}
	for p := range owned {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		stats[p] = fi
	}
	old := policyTrustFor
	t.Cleanup(func() { policyTrustFor = old })
	policyTrustFor = func() policyTrust {
		tr := systemTrust()
		tr.uid = 1000
		tr.owner = func(fi fs.FileInfo) (int, bool) {
			for p, st := range stats {
				if os.SameFile(fi, st) {
					return owned[p], true
				}
			}
			return 1000, true
		}
		return tr
	}
}

// A parent's policies.yaml owned by another user than the current one
// (1000 here) is skipped unless that user is root or owns the folder (a
// CI checkout the runner user owns, checked by root in a container): the
// reports say why, stderr names the file and --policy.
func TestPolicyOwnedByAnotherUser(t *testing.T) {
	root := t.TempDir()
	pub := filepath.Join(root, "pub")
	build := filepath.Join(pub, "build")
	os.MkdirAll(build, 0o755)
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	t.Setenv("HOME", filepath.Dir(root))
	t.Setenv("GITHUB_WORKSPACE", "")
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	os.Chdir(build)
	p := writeFile(t, filepath.Join(pub, "policies.yaml"), "version: 1\nwaivers: [{group: \"*\", reason: planted}]\n")
	ownedBy(t, map[string]int{p: 4242})
	src := FindPolicy("", false, []string{"."})
	want := "none found: no policies.yaml in the working directory or in the parents of the input . up to the repository root; " +
		"skipped ../policies.yaml: owned by user 4242, not by you (user 1000), root or the owner of .."
	if src.Path() != "" || src.Describe() != want {
		t.Errorf("path %q, described %q\nwant %q", src.Path(), src.Describe(), want)
	}
	var stderr strings.Builder
	src.Warn(&stderr)
	if w := "kpack-lint: warning: skipped " + p + ": owned by user 4242, not by you (user 1000), root or the owner of " + pub + " (pass --policy " + p + " to read it anyway)\n"; stderr.String() != w {
		t.Errorf("stderr %q\nwant   %q", stderr.String(), w)
	}
	for name, owners := range map[string]map[string]int{"root": {p: 0}, "folder owner": {p: 4242, pub: 4242}} {
		ownedBy(t, owners)
		src := FindPolicy("", false, []string{"."})
		if src.Path() != "../policies.yaml" || src.Describe() != "found in .., a parent of the input ." {
			t.Errorf("%s: path %q, described %q", name, src.Path(), src.Describe())
		}
	}
}
