package report

import "github.com/rocm-tools/kpack-lint/finding"

// baselineWords is a finding's baseline state for people: "unchanged",
// "new", or for a finding new because it grew, "new, grown since the
// baseline: now also on gfx90a (4 agents: ...)" (finding.Growth.Words).
func baselineWords(f finding.Finding) string {
	if w := f.Grown.Words(); w != "" && f.Baseline == finding.BaselineNew {
		return f.Baseline + ", grown since the baseline: " + w
	}
	return f.Baseline
}

// grownNote is what a grown finding's annotation and summary line add:
// "Grown since the baseline: now also on ...", "" for another finding.
func grownNote(f finding.Finding) string {
	if w := f.Grown.Words(); w != "" && f.Baseline == finding.BaselineNew {
		return "Grown since the baseline: " + w
	}
	return ""
}
