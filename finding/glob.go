package finding

import (
	"fmt"
	"path"
	"strings"
)

// MaxGlobLen bounds a glob of a policy or waiver file (path, group and
// kernel selectors, project globs): path.Match costs up to the glob's
// length at every position of the name, and kernel keys run to 64 KiB.
// A longer glob is refused (exit 2 naming the key).
const MaxGlobLen = 1024

// CheckGlob reports a malformed glob (path.Match syntax, `**` allowed only
// as a whole final element) or one longer than MaxGlobLen: waiver
// selectors and policy owner globs.
func CheckGlob(g string) error {
	if len(g) > MaxGlobLen {
		return fmt.Errorf("glob of %d bytes, more than %d (finding.MaxGlobLen)", len(g), MaxGlobLen)
	}
	_, err := path.Match(strings.TrimSuffix(g, "/**"), "")
	return err
}

// MatchGlob reports whether name (slash-separated, relative) matches glob g:
// path.Match syntax, where a final `/**` also matches everything below the
// prefix.
func MatchGlob(g, name string) bool {
	if prefix, ok := strings.CutSuffix(g, "/**"); ok {
		if match(prefix, name) {
			return true
		}
		for dir := path.Dir(name); dir != "." && dir != "/"; dir = path.Dir(dir) {
			if match(prefix, dir) {
				return true
			}
		}
		return false
	}
	return match(g, name)
}

// match is path.Match(g, name) without the error (globs are checked when
// loaded). A glob of literal bytes, '*' and '/' only, the usual kind
// ("bin/*", "lib/libfoo.so#*"), is matched in time linear in the name and
// the glob: path.Match commits each chunk after a star to its leftmost
// match, which strings.Index finds; path.Match itself retries the chunk at
// every position (a 32 KB chunk against a 64 KB kernel key: 2 * 10^9
// steps). Globs with '?', classes or escapes go to path.Match.
func match(g, name string) bool {
	if strings.ContainsAny(g, `?[\`) {
		ok, _ := path.Match(g, name)
		return ok
	}
	for len(g) > 0 {
		star := false
		for len(g) > 0 && g[0] == '*' {
			g, star = g[1:], true
		}
		chunk := g
		if i := strings.IndexByte(g, '*'); i >= 0 {
			chunk = g[:i]
		}
		g = g[len(chunk):]
		if star && chunk == "" {
			return strings.IndexByte(name, '/') < 0 // a trailing star takes the rest but a slash
		}
		last := len(g) == 0
		// The chunk matches at offset 0, or after a star at the leftmost
		// offset up to the first slash of the name (the star cannot take
		// one); as the last chunk it must end the name.
		if strings.HasPrefix(name, chunk) && (!last || len(name) == len(chunk)) {
			name = name[len(chunk):]
			continue
		}
		if !star {
			return false
		}
		reach := strings.IndexByte(name, '/') // the star may skip name[:reach]
		if reach < 0 {
			reach = len(name)
		}
		if last {
			at := len(name) - len(chunk)
			return at >= 1 && at <= reach && name[at:] == chunk
		}
		if len(name) == 0 {
			return false
		}
		at := strings.Index(name[1:], chunk) + 1
		if at < 1 || at > reach {
			return false
		}
		name = name[at+len(chunk):]
	}
	return len(name) == 0
}
