package rules

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/vfs"
)

// checkInputs reports entries of input archives (wheels, tarballs) that
// were refused or could not be read: an absolute path, a path that climbs
// out with "..", a symlink loop, a corrupt member. They are KPL005
// (malformed-archive) findings on the input, never silently dropped.
func checkInputs(c *Context) []finding.Finding {
	var out []finding.Finding
	for _, p := range c.Build.Tree.Problems {
		name := inputBase(c, p.Input)
		what := name
		if p.Path != "" {
			what = fmt.Sprintf("%s: entry %q", name, p.Path)
		}
		out = append(out, finding.Finding{
			Message: fmt.Sprintf("Input %s: %s. "+
				"Fix: ship only regular files, folders and relative symlinks (none in wheels), with member paths inside the package.", what, p.Msg),
			Location: finding.Location{Input: p.Input, Path: name},
			Subject:  subject("input", name, p.Path, p.Msg),
		})
	}
	return append(out, archiveLinks(c)...)
}

// archiveLinks reports symlinks in the loader's domain (named *.kpack or
// inside a .kpack folder) that cannot serve an archive from the package:
// an absolute target names a file of the machine the package lands on
// (warning: not relocatable); a target outside the package, or a loop, is
// an error. The loader then sees no archive there (KPL006/KPL001 follow).
func archiveLinks(c *Context) []finding.Finding {
	var out []finding.Finding
	for _, e := range c.Build.Tree.Files() {
		if !e.IsLink() || !(finding.IsArchiveName(e.Path) || strings.Contains(e.Path, ".kpack/")) {
			continue
		}
		lvl, why := linkProblem(c, e)
		if why == "" {
			continue
		}
		out = append(out, finding.Finding{
			Level: lvl,
			Message: fmt.Sprintf("%s is a symlink to %q, which %s. Fix: ship the archive itself, or a relative link to a file inside the package.",
				e.Path, e.Link, why),
			Location: finding.Location{Input: e.Input, Path: e.Path},
			Subject:  subject("link", e.Path),
		})
	}
	return out
}

func linkProblem(c *Context, e *vfs.Entry) (finding.Level, string) {
	if strings.HasPrefix(e.Link, "/") {
		return finding.LevelWarning, "is absolute: it resolves on the installing machine, not inside the package"
	}
	_, _, err := c.Build.Tree.Lookup(e.Path)
	switch {
	case errors.Is(err, vfs.ErrOutsideRoot):
		return finding.LevelError, "points outside the package"
	case errors.Is(err, vfs.ErrSymlinkLoop):
		return finding.LevelError, "is part of a symlink loop"
	}
	return "", ""
}

// inputBase is how findings name input i: c.InputNames[i], or "input-N"
// (N counting from 1) when the context names no such input.
func inputBase(c *Context, i int) string {
	if i >= 0 && i < len(c.InputNames) && c.InputNames[i] != "" {
		return c.InputNames[i]
	}
	return fmt.Sprintf("input-%d", i+1)
}
