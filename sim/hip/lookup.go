package hip

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/xrash/smetrics"
)

// NewestName is the name of the newest modelled release, the default.
const NewestName = "newest"

// Releases returns a copy of the release table, oldest first; the last row
// is Newest.
func Releases() []Release { return append([]Release(nil), releases...) }

// Names returns the row names --hip takes, oldest first.
func Names() []string {
	out := make([]string, len(releases))
	for i, r := range releases {
		out[i] = r.Name
	}
	return out
}

// Newest returns the newest modelled release, the default of --hip and of
// a machine without hip:.
func Newest() Release { return releases[len(releases)-1] }

// row returns the row named name.
func row(name string) (Release, bool) {
	for _, r := range releases {
		if r.Name == name {
			return r, true
		}
	}
	return Release{}, false
}

// covered maps the releases a row stands for, by (major, minor), to the
// row; see each row's Covers. TheRock 7.9-7.11 and classic ROCm 6.4-7.2
// behave alike (no kpack, generic targets); TheRock 7.14 shares 10.0's
// rocm-systems branch point behaviour (2622, stop at first); 10.1 is the
// first TheRock release after PRs 9167, 9498 and 9741 (inferred from its
// branch point, develop of 2026-08-10).
var covered = []struct {
	fromMajor, fromMinor, toMajor, toMinor int
	row                                    string
}{
	{4, 5, 5, 3, "5.2"},
	{5, 4, 5, 6, "5.6"},
	{5, 7, 5, 7, "5.7"},
	{6, 0, 6, 1, "6.1"},
	{6, 2, 6, 2, "6.2"},
	{6, 3, 6, 3, "6.3"},
	{6, 4, 6, 4, "7.2"},
	{7, 0, 7, 2, "7.2"},
	{7, 9, 7, 11, "7.2"},
	{7, 12, 7, 12, "7.12"},
	{7, 13, 7, 13, "7.13"},
	{7, 14, 7, 14, "10.0"},
	{10, 0, 10, 0, "10.0"},
	{10, 1, 10, 1, NewestName},
}

// versionRE reads "5.2", "5.2.3", "rocm-6.2.0", "therock-7.13",
// "7.13.0a20260508" (a TheRock nightly), "v7.2".
var versionRE = regexp.MustCompile(`^(?:rocm-?|therock-|v)?(\d{1,3})\.(\d{1,3})(?:\.\d{1,5})*(?:(?:a|rc|\.dev|-|\+)[0-9A-Za-z.+-]*)?$`)

// UnknownReleaseError is Lookup's error for a name that is no row and no
// release a row covers. Suggestion is the nearest row ("" when none is
// close).
type UnknownReleaseError struct {
	Name       string
	Suggestion string
}

// Error lists the values --hip takes.
func (e *UnknownReleaseError) Error() string {
	hint := ""
	if e.Suggestion != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", e.Suggestion)
	}
	return fmt.Sprintf("unknown HIP release %q%s: the modelled releases are %s, or a release one covers (5.2.3, 6.4, 7.14, ...)",
		e.Name, hint, strings.Join(Names(), ", "))
}

// Lookup returns the row for a --hip or policy hip: value: a row name
// ("7.13", "newest"; "latest" is newest), or a release a row covers,
// patch level and prefixes ignored ("5.2.3" and "rocm-5.2.3" are 5.2,
// "6.4" and "7.11" are 7.2, "7.14.1" is 10.0, "10.1" newest). "" gives
// Newest. Anything else is an *UnknownReleaseError.
func Lookup(name string) (Release, error) {
	s := strings.ToLower(strings.TrimSpace(name))
	switch s {
	case "", NewestName, "latest":
		return Newest(), nil
	}
	if r, ok := row(s); ok {
		return r, nil
	}
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return Release{}, &UnknownReleaseError{Name: name, Suggestion: nearestName(s)}
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	for _, c := range covered {
		if versionIn(major, minor, c.fromMajor, c.fromMinor, c.toMajor, c.toMinor) {
			r, _ := row(c.row)
			return r, nil
		}
	}
	return Release{}, &UnknownReleaseError{Name: name, Suggestion: nearestVersion(major, minor)}
}

// versionIn reports whether major.minor lies in [from, to].
func versionIn(major, minor, fromMajor, fromMinor, toMajor, toMinor int) bool {
	v, from, to := major*1000+minor, fromMajor*1000+fromMinor, toMajor*1000+toMinor
	return v >= from && v <= to
}

// nearestVersion names the row covering the release nearest to
// major.minor: among the releases of its major version, else of every
// major version (9.9 is nearest 10.0, 3.0 the 5.2 row's 4.5).
func nearestVersion(major, minor int) string {
	if best := nearestInMajor(major, minor); best != "" {
		return best
	}
	best, dist := "", -1
	v := major*1000 + minor
	for _, c := range covered {
		for _, edge := range []int{c.fromMajor*1000 + c.fromMinor, c.toMajor*1000 + c.toMinor} {
			if d := abs(v - edge); dist < 0 || d < dist {
				best, dist = c.row, d
			}
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// nearestInMajor names the row covering the release of major nearest
// to major.minor, "" when no row covers one of that major version.
func nearestInMajor(major, minor int) string {
	best, dist := "", -1
	for _, c := range covered {
		if c.fromMajor != major && c.toMajor != major {
			continue
		}
		for _, edge := range [][2]int{{c.fromMajor, c.fromMinor}, {c.toMajor, c.toMinor}} {
			if edge[0] != major {
				continue
			}
			d := minor - edge[1]
			if d < 0 {
				d = -d
			}
			if dist < 0 || d < dist {
				best, dist = c.row, d
			}
		}
	}
	return best
}

// nearestName is the row name within two edits of s, "" when none is.
func nearestName(s string) string {
	best, dist := "", 3
	for _, n := range append(Names(), "latest") {
		if d := smetrics.WagnerFischer(s, n, 1, 1, 1); d < dist {
			best, dist = n, d
		}
	}
	if best == "latest" {
		best = NewestName
	}
	return best
}
