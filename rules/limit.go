package rules

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rocm-tools/kpack-lint/finding"
)

// MaxFindingsPerFile bounds the findings one rule reports about one file.
// Past it the rest are merged into one finding that keeps every kernel key
// and agent ISA (SARIF properties.kernels/agents), so a hostile build with
// 200,000 distinct orphan kernel names gives a report in proportion to its
// TOC, not 200,000 findings of a few KB each (1-3.5 GiB of memory).
const MaxFindingsPerFile = 100

// capPerFile keeps the first MaxFindingsPerFile findings (in the order
// given: sorted) of each rule and file and merges the rest into one.
func capPerFile(fs []finding.Finding) []finding.Finding {
	type fileKey struct {
		rule  string
		input int
		path  string
	}
	count := map[fileKey]int{}
	merged := map[fileKey]int{} // index in out of the merged finding
	out := fs[:0:0]
	for _, f := range fs {
		k := fileKey{f.RuleID, f.Location.Input, f.Location.Path}
		count[k]++
		switch n := count[k]; {
		case n <= MaxFindingsPerFile:
			out = append(out, f)
		case n == MaxFindingsPerFile+1:
			merged[k] = len(out)
			out = append(out, mergedFinding(f))
		default:
			addToMerged(&out[merged[k]], f)
		}
	}
	for k, i := range merged {
		m := &out[i]
		more := count[k] - MaxFindingsPerFile
		m.Message = fmt.Sprintf("%s merged into this one (the limit is %d per rule and file; "+
			"every kernel and agent they name is listed). The first of them: %s", mergedWords(more, k.rule, k.path), MaxFindingsPerFile, m.Message)
		finding.SortKernels(m.Kernels)
		m.Kernels = slices.Compact(m.Kernels)
		slices.Sort(m.Agents)
		m.Agents = slices.Compact(m.Agents)
	}
	return out
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

func addToMerged(m *finding.Finding, f finding.Finding) {
	m.Kernels = append(m.Kernels, f.Kernels...)
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
