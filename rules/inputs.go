package rules

import (
	"fmt"
	"path"
	"strings"
)

// checkInputs reports entries of input archives (wheels, tarballs) that
// were refused or could not be read: an absolute path, a path that climbs
// out with "..", a symlink loop, a corrupt member. They are KPL005
// (malformed-archive) findings on the input, never silently dropped.
func checkInputs(c *Context) []Finding {
	var out []Finding
	for _, p := range c.Build.Tree.Problems {
		name := inputBase(c, p.Input)
		what := name
		if p.Path != "" {
			what = fmt.Sprintf("%s: entry %q", name, p.Path)
		}
		out = append(out, Finding{
			RuleID: "KPL005",
			Message: fmt.Sprintf("Input %s: %s. The entry was not read, so anything it holds was not checked. "+
				"Fix: ship only regular files, folders and relative symlinks, with member paths inside the package.", what, p.Msg),
			Location: Location{Input: p.Input, Path: name},
			Subject:  subject("input", name, p.Path, p.Msg),
		})
	}
	return out
}

func inputBase(c *Context, i int) string {
	if i >= 0 && i < len(c.InputNames) {
		if b := path.Base(strings.ReplaceAll(c.InputNames[i], `\`, "/")); b != "." && b != "/" {
			return b
		}
	}
	return fmt.Sprintf("input-%d", i+1)
}
