// Package gate turns a check into a nightly gate: it compares findings with
// a baseline report (SARIF baselineState), applies waivers (SARIF
// suppressions), and merges the reports of a sharded run into the report
// one unsharded run would have written.
//
// Like the other library packages it never reads the clock: the date
// waivers expire against is passed in.
package gate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/report"
)

// Compare marks every current finding "new" or "unchanged" against base
// (an earlier report's findings) and appends, as "absent", the baseline
// findings this run no longer has. keep selects the baseline findings
// this run is responsible for (a shard's; nil keeps all); nInputs bounds
// their input indexes (others are moved to the first input). Baseline
// findings that were already absent there are dropped.
//
// A finding is matched by fingerprint (its cause), among the baseline
// findings of its rule (a fingerprint hashes the rule: one read back
// under another rule's is not its cause), and then judged by what
// it covers (finding.GrowthOf): it is "unchanged" only when it covers no
// more agents, targets, kernels, binaries, devices or kernel-database
// files than the baseline's findings with its fingerprint did, and then
// keeps the coverage key of the first of them that covers it all (else
// of the first); a finding that covers more is "new", with Grown saying
// what grew and a coverage key chained to the baseline's
// (finding.CoverageKey), so code scanning opens a new alert. What the
// current findings held in Grown and Coverage (read back from a shard) is
// recomputed. Compare is what merge calls to judge merged shards against
// a baseline of its own.
func Compare(current, base []finding.Finding, keep func(finding.Finding) bool, nInputs int) []finding.Finding {
	first := make(map[string]int, len(base)) // fingerprint -> the first baseline finding with it
	var more map[string][]finding.Finding    // every one, for a fingerprint several have
	for i, f := range base {
		if f.Baseline == finding.BaselineAbsent {
			continue
		}
		fp := finding.Fingerprint(f)
		j, ok := first[fp]
		if !ok {
			first[fp] = i
			continue
		}
		if more == nil {
			more = map[string][]finding.Finding{}
		}
		if more[fp] == nil {
			more[fp] = []finding.Finding{base[j]}
		}
		more[fp] = append(more[fp], f)
	}
	now := make(map[string]bool, len(current))
	out := make([]finding.Finding, 0, len(current))
	for _, f := range current {
		fp := finding.Fingerprint(f)
		now[fp] = true
		was := more[fp]
		if i, ok := first[fp]; ok && was == nil {
			was = base[i : i+1]
		}
		if slices.ContainsFunc(was, func(b finding.Finding) bool { return b.RuleID != f.RuleID }) {
			was = slices.DeleteFunc(slices.Clone(was), func(b finding.Finding) bool { return b.RuleID != f.RuleID })
		}
		out = append(out, judge(f, was))
	}
	for _, f := range base {
		fp := finding.Fingerprint(f)
		if now[fp] || f.Baseline == finding.BaselineAbsent || (keep != nil && !keep(f)) {
			continue
		}
		now[fp] = true
		f.Fingerprint, f.Baseline, f.Suppression, f.Grown = fp, finding.BaselineAbsent, nil, nil
		f.Location = clampInput(f.Location, nInputs)
		for i := range f.Related {
			f.Related[i] = clampInput(f.Related[i], nInputs)
		}
		out = append(out, f)
	}
	return out
}

// judge sets f's baseline state, growth and coverage key against was,
// the baseline's findings with f's fingerprint. A baseline's coverage
// key that is not one (64 hex digits) is not carried over: the key is
// hashed from what that finding lists.
func judge(f finding.Finding, was []finding.Finding) finding.Finding {
	f.Grown, f.Coverage = nil, ""
	if len(was) == 0 {
		f.Baseline = finding.BaselineNew
		return f
	}
	if slices.ContainsFunc(was, func(b finding.Finding) bool { return b.Coverage != "" && !finding.IsCoverageKey(b.Coverage) }) {
		was = slices.Clone(was)
		for i := range was {
			if !finding.IsCoverageKey(was[i].Coverage) {
				was[i].Coverage = ""
			}
		}
	}
	if g := finding.GrowthOf(f, was); g != nil {
		f.Baseline, f.Grown = finding.BaselineNew, g
		f.Coverage = finding.CoverageKey(f, finding.Coverage(was[0]))
		return f
	}
	f.Baseline = finding.BaselineUnchanged
	from := was[0]
	if len(was) > 1 {
		for _, b := range was {
			if finding.GrowthOf(f, []finding.Finding{b}) == nil {
				from = b
				break
			}
		}
	}
	if from.Coverage != "" || !finding.SameCoverage(f, from) {
		f.Coverage = finding.Coverage(from)
	} // else f's own key is the baseline's: hashed only if a report writes it
	return f
}

// CoverageUnknownKind is the kind of the notification CoverageUnknown
// returns.
const CoverageUnknownKind = "baseline-coverage-unknown"

// CoverageUnknown returns a warning notification when some findings of fs
// (compared with a baseline) are new because the baseline, written by a
// kpack-lint without coverage keys, records nothing of what their
// finding covered (finding.Growth.Unrecorded): such a report cannot show
// that a finding covers no more than it did, so the finding counts as
// new rather than unchanged. nil when there is none. source names the
// baseline file.
func CoverageUnknown(fs []finding.Finding, source string) *report.Notification {
	n := 0
	dims := map[string]bool{}
	for _, f := range fs {
		if f.Grown != nil && len(f.Grown.Unrecorded) > 0 {
			n++
			for _, d := range f.Grown.Unrecorded {
				dims[d] = true
			}
		}
	}
	if n == 0 {
		return nil
	}
	var names []string
	for _, d := range []string{"agents", "targets", "kernels", "devices", "missing"} {
		if dims[d] {
			names = append(names, d)
		}
	}
	noun, they, cover, count := "findings match baseline findings that record", "they", "cover", "count"
	if n == 1 {
		noun, they, cover, count = "finding matches a baseline finding that records", "it", "covers", "counts"
	}
	return &report.Notification{Level: finding.LevelWarning, Kind: CoverageUnknownKind, Source: source,
		Message: fmt.Sprintf("%d %s no %s (the baseline was written by an older kpack-lint, without coverage keys): "+
			"it cannot show that %s %s no more than before, so %s %s as new; "+
			"write a new baseline with this kpack-lint (run without --baseline and keep the report)", n, noun, strings.Join(names, ", "), they, cover, they, count)}
}

func clampInput(l finding.Location, n int) finding.Location {
	if l.Input >= max(n, 1) {
		l.Input = 0
	}
	return l
}

// Waive applies waivers to the current findings (absent ones are left
// alone): the first waiver in force whose selectors all match a finding
// suppresses it; an expired one (today, YYYY-MM-DD, is past its expires
// date) that matches is recorded as Expired and suppresses nothing. It
// returns a notification per expired waiver (warning) and per waiver in
// force that matched nothing (note, lintian's unused-override), sorted by
// source. In a shard (sharded) a waiver may match findings of another
// shard, so its note says the merged report decides (ShardUnused); Merge
// keeps it only when no shard used the waiver, worded as for one run.
func Waive(fs []finding.Finding, ws []finding.Waiver, today string, sharded bool) []report.Notification {
	used := make([]bool, len(ws))
	if slices.ContainsFunc(ws, func(w finding.Waiver) bool { return w.Fingerprint != "" }) {
		for i := range fs { // each coverage key hashed once, not once per waiver
			fs[i].Coverage = finding.Coverage(fs[i])
		}
	}
	for i := range fs {
		f := &fs[i]
		if f.Baseline == finding.BaselineAbsent {
			continue
		}
		var expired *finding.Waiver
		for j := range ws {
			w := &ws[j]
			if !Matches(*w, *f) {
				continue
			}
			if w.Expired(today) {
				if expired == nil {
					expired = w
				}
				continue
			}
			used[j] = true
			f.Suppression = &finding.Suppression{Justification: w.Reason, Source: w.Source, Expires: w.Expires}
			expired = nil
			break
		}
		if expired != nil {
			f.Suppression = &finding.Suppression{Justification: expired.Reason, Source: expired.Source, Expires: expired.Expires, Expired: true}
		}
	}
	var out []report.Notification
	for j, w := range ws {
		switch {
		case w.Expired(today):
			out = append(out, report.Notification{Level: finding.LevelWarning, Kind: "expired-waiver", Source: w.Source,
				Message: fmt.Sprintf("waiver %s expired on %s and no longer waives anything; the findings it matches count again (renew or delete it)", describe(w), w.Expires)})
		case !used[j]:
			msg := fmt.Sprintf("waiver %s matched no finding; delete it", describe(w))
			if sharded {
				msg += ShardUnused
			}
			out = append(out, report.Notification{Level: finding.LevelNote, Kind: "unused-waiver", Source: w.Source, Message: msg})
		}
	}
	SortNotifications(out)
	return out
}

// ShardUnused ends a shard's unused-waiver note: only the merged report
// knows whether another shard used the waiver.
const ShardUnused = " (in this shard; kpack-lint merge of every shard tells whether another shard uses it)"

// Matches reports whether every selector w sets matches f: rule ID, path
// glob, group glob, kernel glob (every kernel key of f must match) and
// fingerprint: f's cause fingerprint (finding.Fingerprint), which keeps
// matching when the finding grows, or its coverage key
// (finding.Coverage), which stops matching once the finding covers more
// than it did. A waiver with no selector matches nothing.
func Matches(w finding.Waiver, f finding.Finding) bool {
	if w.Path == "" && w.Group == "" && w.Kernel == "" && w.Fingerprint == "" {
		return false
	}
	if w.Rule != "" && w.Rule != f.RuleID {
		return false
	}
	if w.Path != "" && !finding.MatchGlob(w.Path, f.Location.Path) {
		return false
	}
	if w.Group != "" && !finding.MatchGlob(w.Group, f.Group) {
		return false
	}
	if w.Kernel != "" && (len(f.Kernels) == 0 || slices.ContainsFunc(f.Kernels, func(k string) bool { return !finding.MatchGlob(w.Kernel, k) })) {
		return false
	}
	return w.Fingerprint == "" || w.Fingerprint == finding.Fingerprint(f) || w.Fingerprint == finding.Coverage(f)
}

// describe names a waiver by its selectors: "(KPL003, group fft_test)".
func describe(w finding.Waiver) string {
	var parts []string
	for _, s := range [][2]string{{"", w.Rule}, {"path ", w.Path}, {"group ", w.Group}, {"kernel ", w.Kernel}, {"fingerprint ", w.Fingerprint}} {
		if s[1] != "" {
			parts = append(parts, s[0]+s[1])
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// SortNotifications orders notifications by source file, line, kind.
func SortNotifications(ns []report.Notification) {
	slices.SortStableFunc(ns, func(a, b report.Notification) int {
		fa, la := splitSource(a.Source)
		fb, lb := splitSource(b.Source)
		return cmp.Or(strings.Compare(fa, fb), cmp.Compare(la, lb), strings.Compare(a.Kind, b.Kind), strings.Compare(a.Message, b.Message))
	})
}

func splitSource(s string) (string, int) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0
	}
	var n int
	if _, err := fmt.Sscanf(s[i+1:], "%d", &n); err != nil {
		return s, 0
	}
	return s[:i], n
}

// BaselineMismatch compares what a baseline report checked with what this
// run checks (variant, loader, targets, agents, environment, --deep) and
// returns a warning notification naming the differences, or nil when the
// two checked the same matrix (or the baseline does not say what it
// checked). Against another matrix, findings of what only one run checked
// show as new or fixed; KPL012 is not affected (the inventory is the
// build's archives, whatever the matrix).
// source names the baseline file.
func BaselineMismatch(base, now *report.Checked, source string) *report.Notification {
	if base == nil || now == nil {
		return nil
	}
	var diffs []string
	differ := func(what, was, is string) {
		if was != is {
			diffs = append(diffs, fmt.Sprintf("%s %s (this run: %s)", what, orNone(was), orNone(is)))
		}
	}
	differ("variant", base.Variant, now.Variant)
	differ("loader", base.Loader, now.Loader)
	differ("targets", finding.CapWords(base.Targets), finding.CapWords(now.Targets))
	if !slices.Equal(base.Agents, now.Agents) {
		diffs = append(diffs, fmt.Sprintf("%d agents (this run: %d)", len(base.Agents), len(now.Agents)))
	}
	differ("environment", strings.Join(base.Env, " "), strings.Join(now.Env, " "))
	if base.HIP != "" && now.HIP != "" {
		differ("HIP release", base.HIP, now.HIP)
	}
	if !sameMachines(base.Machines, now.Machines) {
		diffs = append(diffs, fmt.Sprintf("machines %s (this run: %s)", orNone(machineNames(base.Machines)), orNone(machineNames(now.Machines))))
	}
	if base.Deep != now.Deep {
		diffs = append(diffs, fmt.Sprintf("--deep %v (this run: %v)", base.Deep, now.Deep))
	}
	if len(diffs) == 0 {
		return nil
	}
	return &report.Notification{Level: finding.LevelWarning, Kind: "baseline-mismatch", Source: source,
		Message: "the baseline checked another matrix: " + strings.Join(diffs, "; ") +
			"; findings of what only one run checked show as new or fixed (KPL012 compares the build's archives, which do not depend on the matrix): compare with a baseline of the same variant and targets"}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// sameMachines reports whether two runs simulated the same machines.
func sameMachines(a, b []finding.MachineInfo) bool {
	return slices.EqualFunc(a, b, func(x, y finding.MachineInfo) bool {
		return x.Name == y.Name && x.HIP == y.HIP && x.Loader == y.Loader && x.KpackOff == y.KpackOff && x.CPUNodes == y.CPUNodes &&
			slices.Equal(x.Devices, y.Devices) && slices.Equal(x.Env, y.Env)
	})
}

// machineNames lists machines by name.
func machineNames(ms []finding.MachineInfo) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return strings.Join(names, " ")
}
