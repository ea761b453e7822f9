package rules

import (
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/rocm-tools/kpack-lint/finding"
)

// MaxFindingsPerFile bounds the findings one rule reports about one file.
// Past it the rest are merged into one finding that keeps every kernel key
// and agent ISA (SARIF properties.kernels/agents), so a hostile build with
// 200,000 distinct orphan kernel names gives a report in proportion to its
// TOC, not 200,000 findings of a few KB each (1-3.5 GiB of memory).
// A check with many findings about one file (the machines': machines x
// failing binaries) words only the ones that can come first and hands
// the rest over as a tail (tails), so they are never held as findings.
const MaxFindingsPerFile = 100

// fileKey is one rule's findings about one file.
type fileKey struct {
	rule  string
	input int
	path  string
}

// capPerFile keeps the first MaxFindingsPerFile findings (in the order
// given: sorted) of each rule and file and merges the rest into one (its
// targets in the run's order), with the tails of the findings checks did
// not word (Run: by rule and file).
func capPerFile(c *Context, fs []finding.Finding, folded map[fileKey]*tail) []finding.Finding {
	count := map[fileKey]int{}
	merged := map[fileKey]int{} // index in out of the merged finding
	last := map[fileKey]int{}   // index in out of the last finding, for a tail
	kernels := map[fileKey]*keySet{}
	out := fs[:0:0]
	for _, f := range fs {
		k := fileKey{f.RuleID, f.Location.Input, f.Location.Path}
		count[k]++
		switch n := count[k]; {
		case n <= MaxFindingsPerFile:
			last[k] = len(out)
			out = append(out, f)
		case n == MaxFindingsPerFile+1:
			merged[k] = len(out)
			out = append(out, mergedFinding(f))
			kernels[k] = &keySet{}
		default:
			m := &out[merged[k]]
			kernels[k].add(f.Kernels)
			addToMerged(m, f)
		}
	}
	more := map[fileKey]int{}
	for k := range merged {
		more[k] = count[k] - MaxFindingsPerFile
	}
	var targets map[string][]string
	for k, t := range folded {
		i, ok := merged[k]
		if !ok { // its worded findings were merged by cause below the limit: the last stands for the rest
			i, ok = last[k]
			if !ok {
				continue
			}
			out[i] = mergedFinding(out[i])
			merged[k], kernels[k], more[k] = i, &keySet{}, 1
		}
		if targets == nil {
			targets = agentTargets(c)
		}
		m := &out[i]
		more[k] += t.n
		kernels[k].add(t.kernels.list)
		m.Agents = append(m.Agents, t.agents...)
		m.Targets = appendNew(m.Targets, targetsOf(c, targets, t.agents))
	}
	for k, i := range merged {
		m := &out[i]
		m.Message = fmt.Sprintf("%s merged into this one (the limit is %d per rule and file; "+
			"every kernel and agent they name is listed). The first of them: %s", mergedWords(more[k], k.rule, k.path), MaxFindingsPerFile, m.Message)
		m.Kernels = append(m.Kernels, kernels[k].list...)
		finding.SortKernels(m.Kernels)
		m.Kernels = slices.Compact(m.Kernels)
		slices.Sort(m.Agents)
		m.Agents = slices.Compact(m.Agents)
		m.Targets = inRunOrder(c, m.Targets)
	}
	return out
}

// inRunOrder puts targets in the run's order (orderTargets).
func inRunOrder(c *Context, targets []string) []string {
	set := make(map[string]bool, len(targets))
	for _, t := range targets {
		set[t] = true
	}
	return orderTargets(c, set)
}

// mergedFinding starts the finding that stands for the findings of one
// rule and file past the limit.
func mergedFinding(f finding.Finding) finding.Finding {
	m := f
	m.Kernels = append([]string(nil), f.Kernels...)
	m.Agents = append([]string(nil), f.Agents...)
	m.Targets = append([]string(nil), f.Targets...)
	m.Related, m.Trace = nil, nil
	m.Subject = subject(f.RuleID, strconv.Itoa(f.Location.Input), f.Location.Path, "more")
	return m
}

// addToMerged adds f's agents, targets and level to the merged finding
// m (its kernels go to a keySet).
func addToMerged(m *finding.Finding, f finding.Finding) {
	m.Agents = append(m.Agents, f.Agents...)
	m.Targets = appendNew(m.Targets, f.Targets)
	if f.Level.Rank() > m.Level.Rank() {
		m.Level = f.Level
	}
}

// mergedWords counts the findings merged: "1 more KPL001 finding about
// lib/x.so was", "N more KPL001 findings about lib/x.so were".
func mergedWords(n int, rule, path string) string {
	if n == 1 {
		return "1 more " + rule + " finding about " + path + " was"
	}
	return fmt.Sprintf("%d more %s findings about %s were", n, rule, path)
}

// keySet gathers kernel keys, each once: sorted and compacted whenever
// it doubles, so the findings merged past the limit, which mostly name
// the same keys, hold them once rather than once per finding.
type keySet struct {
	list []string
	done int // the length after the last compaction
}

func (s *keySet) add(keys []string) {
	s.list = append(s.list, keys...)
	if len(s.list) >= 2*s.done+1024 {
		slices.Sort(s.list)
		s.list = slices.Compact(s.list)
		s.done = len(s.list)
	}
}

// tails holds, per worded finding that stands first for them (its
// Subject and file: tailKey), the findings of a machine check about one
// file that it did not word because at least MaxFindingsPerFile+1 of
// its worded ones come before each of them (machineFindings): Run adds
// them to the finding that merges the file's findings past the limit.
// Safe for concurrent use.
type tails struct {
	mu     sync.Mutex
	byHead map[tailKey]*tail
}

// tailKey is the worded finding a tail is filed under.
type tailKey struct {
	subject string
	input   int
	path    string
}

// tail is findings not worded: how many, their kernel keys and agents.
type tail struct {
	n       int
	kernels keySet
	agents  []string
}

// file files t under the worded finding head.
func (ts *tails) file(head finding.Finding, t *tail) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.byHead[tailKey{head.Subject, head.Location.Input, head.Location.Path}] = t
}

// take returns the tails filed under fs (their rule, by file), each
// once, and drops the others (a rule turned off).
func (ts *tails) take(fs []finding.Finding) map[fileKey]*tail {
	if ts == nil {
		return nil
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.byHead) == 0 {
		return nil
	}
	defer clear(ts.byHead)
	out := map[fileKey]*tail{}
	for _, f := range fs {
		hk := tailKey{f.Subject, f.Location.Input, f.Location.Path}
		t := ts.byHead[hk]
		if t == nil {
			continue
		}
		delete(ts.byHead, hk)
		k := fileKey{f.RuleID, f.Location.Input, f.Location.Path}
		if have := out[k]; have != nil {
			have.n += t.n
			have.kernels.add(t.kernels.list)
			have.agents = append(have.agents, t.agents...)
			continue
		}
		out[k] = t
	}
	return out
}
