package finding

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// MaxListed is how many items a message names before it says
// "... and N more". Finding properties (Kernels, Agents, Trace) keep every
// item; only the words people read are capped.
const MaxListed = 8

// CapList joins items with sep, naming at most n of them:
// "a, b, c ... and 997 more".
func CapList(items []string, n int, sep string) string {
	if len(items) <= n {
		return strings.Join(items, sep)
	}
	return strings.Join(items[:n], sep) + fmt.Sprintf(" ... and %d more", len(items)-n)
}

// CapWords joins items with spaces, naming at most MaxListed of them.
func CapWords(items []string) string { return CapList(items, MaxListed, " ") }

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

// FirstKernelRange is the first range ShortKernels prints ("bin/x#0-2"
// of "bin/x#0-2,57 lib/y#3"), taken from the keys themselves, so that a
// kernel name holding a space or a comma stays whole (explain's KEY
// argument); "" for no keys.
func FirstKernelRange(keys []string) string {
	if !sortedKernels(keys) {
		keys = distinctKernelKeys(keys)
	}
	if len(keys) == 0 {
		return ""
	}
	name, lo, ok := SplitKey(keys[0])
	if !ok {
		return keys[0]
	}
	hi := lo
	for _, k := range keys[1:] {
		n, c, ok := SplitKey(k)
		if !ok || n != name || c != hi+1 {
			break
		}
		hi = c
	}
	return name + "#" + rangeText(lo, hi)
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
	if len(keys) < 2 {
		return true
	}
	pn, pc, _ := SplitKey(keys[0])
	for i := 1; i < len(keys); i++ { // kernelLess(keys[i-1], keys[i]), each key split once
		n, c, _ := SplitKey(keys[i])
		if pn > n || pn == n && (pc > c || pc == c && keys[i-1] >= keys[i]) {
			return false
		}
		pn, pc = n, c
	}
	return true
}

// distinctKernelKeys returns a sorted, distinct copy of keys.
func distinctKernelKeys(keys []string) []string {
	out := append([]string(nil), keys...)
	SortKernels(out)
	return slices.Compact(out)
}

// NamesFile reports whether a kernel key's name (a host binary's
// kernel_name) names the file at path p: p itself, or p under an
// install prefix the name leaves out ("bin/x" names "opt/rocm/bin/x").
// A copy of the binary elsewhere ("lib64/x" for "lib/x") is not named.
func NamesFile(name, p string) bool {
	return name == p || strings.HasSuffix(p, "/"+name)
}

// SplitKey splits a kernel key "name#co_index"; ok is false when the key
// has no numeric index.
func SplitKey(key string) (name string, co uint64, ok bool) {
	i := strings.LastIndexByte(key, '#')
	if i < 0 {
		return key, 0, false
	}
	digits := key[i+1:]
	if digits == "" {
		return key, 0, false
	}
	for j := 0; j < len(digits); j++ { // strconv.ParseUint(digits, 10, 32), without its error value
		d := digits[j] - '0'
		if d > 9 {
			return key, 0, false
		}
		co = co*10 + uint64(d)
		if co > 1<<32-1 {
			return key, 0, false
		}
	}
	return key[:i], co, true
}

// SortKernels sorts kernel keys by name, then numerically by co_index.
func SortKernels(keys []string) {
	sort.Slice(keys, func(i, j int) bool { return kernelLess(keys[i], keys[j]) })
}

// KernelLess is the order of SortKernels: by name, then numerically by
// co_index, then as strings.
func KernelLess(a, b string) bool { return kernelLess(a, b) }

// kernelLess orders kernel keys by name, then numerically by co_index,
// then as strings.
func kernelLess(a, b string) bool {
	na, ca, _ := SplitKey(a)
	nb, cb, _ := SplitKey(b)
	if na != nb {
		return na < nb
	}
	if ca != cb {
		return ca < cb
	}
	return a < b
}

// CompactKernels shortens kernel keys ("name#co_index") for people: keys
// are grouped by name, names sorted, and each name's co_indexes sorted
// numerically and written as ranges: ["a#0", "a#1", "a#2", "a#57", "b#3"]
// gives "a#0-2,57 b#3". Duplicates are written once; a key without a
// "#<u32>" suffix is written as it is.
func CompactKernels(keys []string) string {
	indexes := map[string][]uint64{}
	var parts []string
	for _, k := range keys {
		name, co, ok := SplitKey(k)
		if !ok {
			parts = append(parts, k)
			continue
		}
		indexes[name] = append(indexes[name], co)
	}
	for name, cos := range indexes {
		slices.Sort(cos)
		parts = append(parts, name+"#"+ranges(slices.Compact(cos)))
	}
	slices.Sort(parts) // map order is random; sorting fixes it
	return strings.Join(slices.Compact(parts), " ")
}

// ranges writes sorted, distinct numbers as "0-2,57".
func ranges(cos []uint64) string {
	var parts []string
	for start := 0; start < len(cos); {
		end := start
		for end+1 < len(cos) && cos[end+1] == cos[end]+1 {
			end++
		}
		part := strconv.FormatUint(cos[start], 10)
		if end > start {
			part += "-" + strconv.FormatUint(cos[end], 10)
		}
		parts = append(parts, part)
		start = end + 1
	}
	return strings.Join(parts, ",")
}

// EmbeddedMark follows a binary's path in the kernel keys findings give an
// embedded wrapper of it (HIPF, loaded by HIP without kpack):
// "<path>[embedded]#<wrapper index>".
const EmbeddedMark = "[embedded]#"

// IsEmbeddedKey reports whether a kernel key names an embedded wrapper
// (EmbeddedMark).
func IsEmbeddedKey(key string) bool { return strings.Contains(key, EmbeddedMark) }
