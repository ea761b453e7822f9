package rules

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// cluster gathers (kernel, agent) pairs that share one root cause.
type cluster struct {
	cause  string
	first  *Outcome // a representative outcome, for messages
	agents map[string]map[string]bool
}

// clusters collects pairs by cause, keeping causes in first-seen order.
type clusters struct {
	order []string
	byKey map[string]*cluster
}

func newClusters() *clusters { return &clusters{byKey: map[string]*cluster{}} }

func (cs *clusters) add(cause string, o *Outcome) {
	c := cs.byKey[cause]
	if c == nil {
		c = &cluster{cause: cause, first: o, agents: map[string]map[string]bool{}}
		cs.byKey[cause] = c
		cs.order = append(cs.order, cause)
	}
	if c.agents[o.Key] == nil {
		c.agents[o.Key] = map[string]bool{}
	}
	c.agents[o.Key][o.Agent.ISA] = true
}

// part is one aggregated finding: kernels that fail on the same agents for
// the same cause.
type part struct {
	first   *Outcome
	kernels []string
	agents  []string
}

// parts splits every cluster into groups of kernels with identical agent
// sets, so each finding's kernel x agent product is exactly what failed.
func (cs *clusters) parts() []part {
	var out []part
	for _, k := range cs.order {
		c := cs.byKey[k]
		byAgents := map[string]*part{}
		var keys []string
		for kernel, set := range c.agents {
			agents := sortedKeys(set)
			sig := strings.Join(agents, "\x00")
			p := byAgents[sig]
			if p == nil {
				p = &part{first: c.first, agents: agents}
				byAgents[sig] = p
				keys = append(keys, sig)
			}
			p.kernels = append(p.kernels, kernel)
		}
		sort.Strings(keys)
		for _, sig := range keys {
			p := byAgents[sig]
			SortKernels(p.kernels)
			out = append(out, *p)
		}
	}
	return out
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SplitKey splits a kernel key "name#co_index"; ok is false when the key
// has no numeric index.
func SplitKey(key string) (name string, co uint64, ok bool) {
	i := strings.LastIndexByte(key, '#')
	if i < 0 {
		return key, 0, false
	}
	n, err := strconv.ParseUint(key[i+1:], 10, 32)
	if err != nil {
		return key, 0, false
	}
	return key[:i], n, true
}

// SortKernels sorts kernel keys by name, then numerically by co_index.
func SortKernels(keys []string) {
	sort.Slice(keys, func(i, j int) bool {
		ni, ci, _ := SplitKey(keys[i])
		nj, cj, _ := SplitKey(keys[j])
		if ni != nj {
			return ni < nj
		}
		if ci != cj {
			return ci < cj
		}
		return keys[i] < keys[j]
	})
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

// listAgents renders agents for a message: all of them up to four, else the
// first three and a count.
func listAgents(agents []string) string {
	if len(agents) <= 4 {
		return strings.Join(agents, ", ")
	}
	return capList(agents, 3, ", ")
}
