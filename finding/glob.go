package finding

import (
	"path"
	"strings"
)

// CheckGlob reports a malformed glob (path.Match syntax, `**` allowed only
// as a whole final element): waiver selectors and policy owner globs.
func CheckGlob(g string) error {
	_, err := path.Match(strings.TrimSuffix(g, "/**"), "")
	return err
}

// MatchGlob reports whether name (slash-separated, relative) matches glob g:
// path.Match syntax, where a final `/**` also matches everything below the
// prefix.
func MatchGlob(g, name string) bool {
	if prefix, ok := strings.CutSuffix(g, "/**"); ok {
		if ok, _ := path.Match(prefix, name); ok {
			return true
		}
		for dir := path.Dir(name); dir != "." && dir != "/"; dir = path.Dir(dir) {
			if ok, _ := path.Match(prefix, dir); ok {
				return true
			}
		}
		return false
	}
	ok, _ := path.Match(g, name)
	return ok
}
