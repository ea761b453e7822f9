package rules

import (
	"fmt"
	"slices"
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
// Keys sorted as SortKernels sorts them and distinct, as Finding.Kernels
// are, are read only as far as the ranges shown (a finding may list a
// million keys); other lists are compacted whole first.
func ShortKernels(keys []string) string {
	if !sortedKernels(keys) {
		keys = distinctKernelKeys(keys)
	}
	var parts []string
	shown, i := 0, 0
	for i < len(keys) && shown < MaxListed {
		name, _, ok := SplitKey(keys[i])
		if !ok {
			parts = append(parts, keys[i])
			shown, i = shown+1, i+1
			continue
		}
		var rs []string
		for shown < MaxListed && i < len(keys) {
			n, lo, ok := SplitKey(keys[i])
			if !ok || n != name {
				break
			}
			hi := lo
			for i++; i < len(keys); i++ {
				n2, c2, ok2 := SplitKey(keys[i])
				if !ok2 || n2 != name || c2 != hi+1 {
					break
				}
				hi = c2
			}
			rs = append(rs, rangeText(lo, hi))
			shown++
		}
		parts = append(parts, name+"#"+strings.Join(rs, ","))
	}
	out := strings.Join(parts, " ")
	if left := len(keys) - i; left > 0 {
		out += fmt.Sprintf(" ... and %d more", left)
	}
	return out
}

// rangeText writes "lo" or "lo-hi".
func rangeText(lo, hi uint64) string {
	if hi == lo {
		return strconv.FormatUint(lo, 10)
	}
	return strconv.FormatUint(lo, 10) + "-" + strconv.FormatUint(hi, 10)
}

// sortedKernels reports whether keys are strictly increasing in
// SortKernels order (sorted and distinct).
func sortedKernels(keys []string) bool {
	for i := 1; i < len(keys); i++ {
		if !kernelLess(keys[i-1], keys[i]) {
			return false
		}
	}
	return true
}

// distinctKernelKeys returns a sorted, distinct copy of keys.
func distinctKernelKeys(keys []string) []string {
	out := append([]string(nil), keys...)
	SortKernels(out)
	return slices.Compact(out)
}
