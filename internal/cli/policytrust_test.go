//go:build unix

package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// planted is a policy another user could leave in a shared folder: it
// waives every finding.
const planted = "version: 1\nwaivers: [{group: \"*\", reason: planted}]\n"

// trustTree is a build with an error finding for gfx942 (a partial
// archive) at root/pub/build, in a repository whose root is root, with
// HOME above root; it returns root/pub and the build, and runs from the
// build.
func trustTree(t *testing.T) (pub, build string) {
	t.Helper()
	root := t.TempDir()
	pub = filepath.Join(root, "pub")
	build = filepath.Join(pub, "build")
	writeBuild(t, build, map[string]int{"blas_lib": 2}, []string{"gfx942"}, map[string]string{"blas_lib": "gfx942"})
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	t.Setenv("HOME", filepath.Dir(root))
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	os.Chdir(build)
	return pub, build
}

// A policies.yaml in a parent folder writable by every user (sticky like
// /tmp, or not) is not read: the findings it would waive fail the gate,
// the report says why and stderr names the file and --policy.
func TestPolicyInWorldWritableParent(t *testing.T) {
	for _, mode := range []fs.FileMode{0o777 | fs.ModeSticky, 0o777} {
		pub, _ := trustTree(t)
		writeFile(t, filepath.Join(pub, "policies.yaml"), planted)
		if code, _, _ := run(t, "check", "--target", "gfx942", "."); code != ExitOK {
			t.Fatalf("the waiver of a trusted parent does not apply: exit %d", code)
		}
		if err := os.Chmod(pub, mode); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := run(t, "check", "--target", "gfx942", ".")
		want := "with no policy (none found: no policies.yaml in the working directory or in the parents of the input . up to the repository root; " +
			"skipped ../policies.yaml: .. is writable by every user)"
		if code != ExitFindings || !strings.Contains(out, want) {
			t.Errorf("mode %v: exit %d, want 1 and %q:\n%s", mode, code, want, out)
		}
		p := filepath.Join(pub, "policies.yaml")
		if w := "kpack-lint: warning: skipped " + p + ": " + pub + " is writable by every user (pass --policy " + p + " to read it anyway)\n"; stderr != w {
			t.Errorf("stderr %q\nwant   %q", stderr, w)
		}
		if code, _, _ := run(t, "check", "--policy", p, "--target", "gfx942", "."); code != ExitOK {
			t.Errorf("--policy does not read it: exit %d", code)
		}
	}
}

// A policies.yaml in a world-writable working directory is skipped too,
// and so is one next to an input file in such a folder.
func TestPolicyInWorldWritableWorkingDir(t *testing.T) {
	pub, build := trustTree(t)
	writeFile(t, filepath.Join(build, "policies.yaml"), planted)
	os.Chmod(build, 0o1777)
	code, out, _ := run(t, "check", "--target", "gfx942", ".")
	if want := "skipped policies.yaml in the working directory: the working directory is writable by every user)"; code != ExitFindings || !strings.Contains(out, want) {
		t.Errorf("exit %d, want 1 and %q:\n%s", code, want, out)
	}
	lib := filepath.Join(build, "lib")
	writeFile(t, filepath.Join(lib, "policies.yaml"), planted)
	os.Chmod(lib, 0o1777)
	os.Chdir(pub)
	code, out, _ = run(t, "check", "--target", "gfx942", filepath.Join(lib, "libblas_lib.so"))
	if want := "skipped policies.yaml in the input's folder: the input's folder is writable by every user; " +
		"skipped policies.yaml in the folder 1 level up: the folder 1 level up is writable by every user)"; code != ExitFindings || !strings.Contains(out, want) {
		t.Errorf("input file: exit %d, want 1 and %q:\n%s", code, want, out)
	}
}

// Names that are not regular files are skipped without being opened (a
// FIFO would block), and discovery goes on to the parents: here the
// trusted policy two levels up is found.
func TestPolicyNotARegularFile(t *testing.T) {
	pub, _ := trustTree(t)
	top := writeFile(t, filepath.Join(filepath.Dir(pub), "policies.yaml"), "version: 1\nvariants:\n  top: {targets: [gfx942]}\n")
	p := filepath.Join(pub, "policies.yaml")
	kinds := map[string]func() error{
		"a FIFO":                            func() error { return syscall.Mkfifo(p, 0o644) },
		"a folder":                          func() error { return os.Mkdir(p, 0o755) },
		"a symlink to nothing readable":     func() error { return os.Symlink("missing.yaml", p) },
		"a symlink to a device":             func() error { return os.Symlink("/dev/zero", p) },
		"a symlink to a regular file, read": func() error { return os.Symlink(top, p) },
	}
	for what, make := range kinds {
		os.RemoveAll(p)
		if err := make(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		code, out, stderr := run(t, "check", "--target", "gfx942", ".")
		if strings.HasSuffix(what, ", read") {
			if !strings.Contains(out, "with policy ../policies.yaml (found in .., a parent of the input .), variant top") {
				t.Errorf("%s: %s", what, out)
			}
			continue
		}
		want := "variant top (found in ../.., a parent of the input .; skipped ../policies.yaml: " + what + ", not a regular file)"
		if code == ExitUsage || !strings.Contains(out, "with policy ../../policies.yaml (found in ../.., a parent of the input .; skipped ../policies.yaml: "+what+", not a regular file), variant top") {
			t.Errorf("%s: exit %d, want %q:\n%s%s", what, code, want, out, stderr)
		}
		if w := "kpack-lint: warning: skipped " + p + ": " + what + ", not a regular file\n"; stderr != w {
			t.Errorf("%s: stderr %q", what, stderr)
		}
	}
}
