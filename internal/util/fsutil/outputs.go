package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Resolved is name as WriteFile reaches it: its folder made absolute with
// every symlink resolved (filepath.EvalSymlinks), joined with its last
// element, which WriteFile never follows. Folders that do not exist (yet)
// are kept as given below the longest part that resolves.
func Resolved(name string) string {
	abs, err := filepath.Abs(name)
	if err != nil {
		return filepath.Clean(name)
	}
	dir, rest := filepath.Dir(abs), filepath.Base(abs)
	for {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		dir, rest = parent, filepath.Join(filepath.Base(dir), rest)
	}
}

// resolvedFully is name with every symlink resolved, its last element's
// too (Resolved when it does not resolve).
func resolvedFully(name string) string {
	if real, err := filepath.EvalSymlinks(name); err == nil {
		if abs, err := filepath.Abs(real); err == nil {
			return abs
		}
	}
	return Resolved(name)
}

// within reports whether path is root or lies under it (both absolute
// and clean).
func within(path, root string) bool {
	return path == root || strings.HasPrefix(path, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// CheckOutput tells, before anything is read, why the report file name
// must not be written: it is one of the files read (inputs: the build's
// inputs, the policy, the baseline, the shards) or lies inside an input
// folder, so writing it would change what is checked (or destroy it); or
// workspace is set, name as given lies inside it, and a folder on the way
// to name is a symlink that leads out of it (a pull request can commit
// reports -> /home/runner). Every path is compared as the system resolves
// it (Resolved), so a symlinked folder leading into an input is caught;
// an input that is a symlink is compared both as the link and as what it
// points at. Empty inputs are skipped.
func CheckOutput(name string, inputs []string, workspace string) error {
	out := Resolved(name)
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		link, real := Resolved(in), resolvedFully(in)
		switch {
		case out == link || out == real:
			return fmt.Errorf("it is the input %s: writing it would replace what is checked", in)
		case within(out, link) || within(out, real):
			return fmt.Errorf("it lies inside the input %s: writing it would change what is checked", in)
		}
	}
	if workspace == "" {
		return nil
	}
	ws := resolvedFully(workspace)
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil
	}
	if (within(abs, filepath.Clean(workspace)) || within(abs, ws)) && !within(out, ws) {
		return fmt.Errorf("a folder on the way to it is a symlink out of the workspace %s (to %s): write the report to a real folder", workspace, filepath.Dir(out))
	}
	return nil
}

// SameOutput reports whether a and b name the same report file as
// WriteFile reaches it (./r.sarif and r.sarif, or through a symlinked
// folder).
func SameOutput(a, b string) bool {
	if a == b {
		return true
	}
	ra, rb := Resolved(a), Resolved(b)
	if ra == rb {
		return true
	}
	fa, errA := os.Lstat(ra)
	fb, errB := os.Lstat(rb)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
