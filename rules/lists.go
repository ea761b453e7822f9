package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxListed is how many items a message names before it says
// "... and N more". Finding properties (Kernels, Agents, Trace) keep every
// item; only the words people read are capped.
const MaxListed = 8

// capList joins items with sep, naming at most n of them:
// "a, b, c ... and 997 more".
func capList(items []string, n int, sep string) string {
	if len(items) <= n {
		return strings.Join(items, sep)
	}
	return strings.Join(items[:n], sep) + fmt.Sprintf(" ... and %d more", len(items)-n)
}

// CapWords joins items with spaces, naming at most MaxListed of them.
func CapWords(items []string) string { return capList(items, MaxListed, " ") }

// ShortKernels is CompactKernels for messages: at most MaxListed ranges
// ("bin/x#0-2,57"), then "... and N more" counting the kernel keys left out.
func ShortKernels(keys []string) string {
	full := CompactKernels(keys)
	names := strings.Fields(full)
	var parts []string
	shown := 0
	for _, name := range names {
		prefix, ranges, ok := strings.Cut(name, "#")
		if !ok {
			if shown == MaxListed {
				break
			}
			parts = append(parts, name)
			shown++
			continue
		}
		var rs []string
		for _, r := range strings.Split(ranges, ",") {
			if shown == MaxListed {
				break
			}
			rs = append(rs, r)
			shown++
		}
		if len(rs) == 0 {
			break
		}
		parts = append(parts, prefix+"#"+strings.Join(rs, ","))
	}
	out := strings.Join(parts, " ")
	if left := countKeys(full) - countKeys(out); left > 0 {
		out += fmt.Sprintf(" ... and %d more", left)
	}
	return out
}

// countKeys counts the kernel keys a compact list names ("a#0-2,5 b#1" is 5).
func countKeys(compact string) int {
	n := 0
	for _, name := range strings.Fields(compact) {
		_, ranges, ok := strings.Cut(name, "#")
		if !ok {
			n++
			continue
		}
		for _, r := range strings.Split(ranges, ",") {
			lo, hi, ok := parseRange(r)
			if !ok {
				var c int
				c, _ = fmt.Sscanf(r, "%d-%d", &lo, &hi)
				ok = c == 2
			}
			if ok && hi >= lo {
				n += int(hi-lo) + 1
			} else {
				n++
			}
		}
	}
	return n
}

// parseRange reads "lo-hi" written in decimal digits only, as
// CompactKernels writes ranges; ok is false for anything else (which
// countKeys then scans as fmt.Sscanf("%d-%d") does).
func parseRange(r string) (lo, hi uint64, ok bool) {
	a, b, cut := strings.Cut(r, "-")
	if !cut {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseUint(a, 10, 64)
	hi, err2 := strconv.ParseUint(b, 10, 64)
	return lo, hi, err1 == nil && err2 == nil
}
