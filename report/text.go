package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// maxHeaderItems caps the targets and agents the text header lists.
const maxHeaderItems = 12

// WriteText writes r for people: a header saying what was checked, then one
// block per open finding in the style of golangci-lint:
//
//	.kpack/fft_test_gfx950:xnack+.kpack: error KPL003 kernel-not-found: <message>
//	  kernels: bin/rocfft-test#0-2
//	  agents: gfx950:sramecc+:xnack+
//
// followed by indented group, loader, kpack error, library, effect,
// missing files, related files, trace,
// baseline and waiver lines when present, the fingerprint (what a
// fingerprint waiver names) and a ready-to-run `kpack-lint explain` (or
// `kpack-lint rules`) command; then the configuration
// notifications, a count per rule and a final summary line that leads
// with what fails the gate ("2 errors fail the gate; 3 findings: 2
// errors, 1 warning, 0 notes", or "no findings"). With several inputs the
// path is followed by "(input N)", N counting from 1. Waived findings and
// findings absent since the baseline are only counted. With a baseline
// the new findings come first, then the unchanged ones under a line that
// counts them (Run.NewOnly leaves only that line); at most Run.MaxPerRule
// findings of one rule are shown in each part (writeTextFindings).
func WriteText(w io.Writer, r Run) error {
	r = Sanitize(r)
	entries, c, err := prepare(r)
	if err != nil {
		return err
	}
	var b strings.Builder
	p := painter(r.Color)
	writeTextHeader(&b, r)
	writeTextFindings(&b, r, entries, p)
	for _, n := range r.Notifications {
		fmt.Fprintf(&b, "%s: %s %s\n", escape.String(n.Source), p.level(n.Level), escape.String(n.Message))
	}
	writeRuleSummary(&b, entries)
	b.WriteString(p.bold(summaryLine(c, r, entries)))
	b.WriteByte('\n')
	_, err = io.WriteString(w, inertText(b.String()))
	return err
}

// writeTextHeader says what the run checked, in two or three lines.
func writeTextHeader(b *strings.Builder, r Run) {
	k := r.Checked
	if k == nil {
		return
	}
	fmt.Fprintf(b, "kpack-lint %s: checked %s with %s, %s", r.ToolVersion, escape.String(strings.Join(k.Inputs, " + ")), escape.String(policyWords(k)), escape.String(loaderWords(k)))
	if k.Deep {
		b.WriteString(", --deep")
	}
	if k.Shard != "" {
		fmt.Fprintf(b, ", shard %s", k.Shard)
	}
	if w := hipWords(k); w != "" {
		fmt.Fprintf(b, ", %s", escape.String(w))
	}
	b.WriteByte('\n')
	if machinesOnly(k) {
		fmt.Fprintf(b, "  simulated: %s instead of a target matrix (the archives' gfx_arches are not used), each with its own devices, HIP release and environment\n",
			plural(len(k.Machines), "machine"))
	} else {
		fmt.Fprintf(b, "  targets (%s): %s\n", k.TargetSource, escape.String(headerList(k.Targets)))
		fmt.Fprintf(b, "  agents: %s\n", escape.String(headerList(k.Agents)))
	}
	writeTextMachines(b, r)
	if len(k.Env) > 0 {
		fmt.Fprintf(b, "  env: %s\n", escape.String(strings.Join(k.Env, " ")))
	}
	if k.Baseline != "" {
		fmt.Fprintf(b, "  baseline: %s\n", escape.String(k.Baseline))
	}
	if k.Waivers != "" {
		fmt.Fprintf(b, "  waivers: %s\n", escape.String(k.Waivers))
	}
	b.WriteByte('\n')
}

// machinesOnly reports whether the run simulated machines and no target
// matrix (--machine or a policy's machines: without targets).
func machinesOnly(k *Checked) bool {
	return len(k.Machines) > 0 && len(k.Targets) == 0 && len(k.Agents) == 0
}

// loaderWords names the loader the run judged by: the target matrix's
// ("fallthrough loader"); in a run of machines alone, the machines' (each
// release ships its own unless --loader or the policy's loader: says):
// "legacy loader", or "loader per machine" when they differ.
func loaderWords(k *Checked) string {
	if !machinesOnly(k) {
		return string(k.Loader) + " loader"
	}
	l := k.Machines[0].Loader
	for _, m := range k.Machines[1:] {
		if m.Loader != l {
			return "loader per machine"
		}
	}
	return l + " loader"
}

// hipWords names the HIP releases the run simulated: "HIP newest" for a
// target matrix alone; with machines, each has its own: "HIP 6.2 on every
// machine", "HIP per machine: 6.2, newest", and for both "HIP newest for
// the targets; per machine: 6.2, newest" ("HIP newest" when every machine
// has the targets' release). "" when the report names none.
func hipWords(k *Checked) string {
	if len(k.Machines) == 0 {
		if k.HIP == "" {
			return ""
		}
		return "HIP " + k.HIP
	}
	var rels []string
	for _, m := range k.Machines {
		if !slices.Contains(rels, m.HIP) {
			rels = append(rels, m.HIP)
		}
	}
	machines := "per machine: " + strings.Join(rels, ", ")
	if len(rels) == 1 {
		machines = rels[0] + " on every machine"
	}
	switch {
	case machinesOnly(k) || k.HIP == "":
		return "HIP " + machines
	case len(rels) == 1 && rels[0] == k.HIP:
		return "HIP " + k.HIP
	}
	return "HIP " + k.HIP + " for the targets; " + machines
}

func headerList(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	if len(items) <= maxHeaderItems {
		return strings.Join(items, " ")
	}
	return strings.Join(items[:maxHeaderItems], " ") + fmt.Sprintf(" ... and %d more", len(items)-maxHeaderItems)
}

func writeTextEntry(b *strings.Builder, r Run, e entry, p painter) {
	f := e.f
	fmt.Fprintf(b, "%s: %s %s %s: %s\n", p.bold(escape.String(textPath(f.Location, len(r.Inputs)))), p.level(e.level), p.bold(f.RuleID), e.rule.Name, escape.String(f.Message))
	detail := func(key, value string) {
		if value != "" {
			fmt.Fprintf(b, "  %s: %s\n", key, escape.String(value))
		}
	}
	detail("kernels", finding.ShortKernels(f.Kernels))
	detail("agents", finding.CapWords(f.Agents))
	detail("targets", finding.CapWords(f.Targets))
	detail("group", f.Group)
	detail("loader", f.Loader)
	detail("kpack error", f.KpackError)
	detail("machine", machineDetail(f.Machine))
	detail("hip", hipDetail(f))
	detail("library", f.Library)
	detail("effect", f.Effect)
	for i, m := range f.Missing {
		if i == finding.MaxListed {
			detail("missing", fmt.Sprintf("... and %d more", max(f.MissingTotal, len(f.Missing))-i))
			break
		}
		detail("missing", m)
	}
	if n := len(f.Missing); n > 0 && n <= finding.MaxListed && f.MissingTotal > n {
		detail("missing", fmt.Sprintf("... and %d more", f.MissingTotal-n))
	}
	for i, rel := range f.Related {
		if i == finding.MaxListed {
			detail("related", fmt.Sprintf("... and %d more", len(f.Related)-i))
			break
		}
		detail("related", textPath(rel, len(r.Inputs)))
	}
	if len(f.Trace) > 0 {
		b.WriteString("  trace:\n")
		for _, line := range f.Trace {
			fmt.Fprintf(b, "    %s\n", escape.String(line))
		}
	}
	if f.Baseline != "" {
		detail("baseline", baselineWords(f))
	}
	if s := f.Suppression; s != nil && s.Expired {
		detail("waiver", fmt.Sprintf("%s expired on %s and no longer applies (%s)", s.Source, s.Expires, s.Justification))
	}
	detail("fingerprint", finding.Fingerprint(f))
	if h := Hint(r, f); strings.HasPrefix(h, "kpack-lint rules ") {
		detail("rule", h)
	} else {
		detail("explain", h)
		if n := kernelNames(f.Kernels); n > 1 {
			fmt.Fprintf(b, "    (this explains %s, the first of %d kernel names; give another name in its place for the rest)\n",
				escape.String(finding.FirstKernelRange(f.Kernels)), n)
		}
	}
}

// kernelNames counts the kernel names (the part of a kernel key before
// '#') among keys.
func kernelNames(keys []string) int {
	names := map[string]bool{}
	for _, k := range keys {
		name, _, ok := finding.SplitKey(k)
		if !ok {
			name = k
		}
		names[name] = true
	}
	return len(names)
}

// textPath names a file for the text format: its path inside its input,
// with a byte range when one applies and the input number when there are
// several inputs.
func textPath(l finding.Location, nInputs int) string {
	s := l.Path
	if l.Region != nil {
		s += fmt.Sprintf("[%d+%d]", l.Region.Offset, l.Region.Length)
	}
	if l.Input == finding.PolicyInput {
		s += " (policy)"
	} else if nInputs > 1 {
		s += fmt.Sprintf(" (input %d)", l.Input+1)
	}
	return s
}

// ruleCount is the open findings of one rule, per level.
type ruleCount struct {
	id, name string
	c        counts
}

func perRule(entries []entry) []ruleCount {
	var out []ruleCount
	for _, e := range entries {
		if !e.open {
			continue
		}
		if len(out) == 0 || out[len(out)-1].id != e.f.RuleID {
			out = append(out, ruleCount{id: e.f.RuleID, name: e.rule.Name})
		}
		out[len(out)-1].c.add(e.level)
	}
	return out
}

// writeRuleSummary writes one line per rule with open findings:
// "KPL003 stripped-feature-flags: 3 errors".
func writeRuleSummary(b *strings.Builder, entries []entry) {
	for _, rc := range perRule(entries) {
		var parts []string
		for _, x := range []struct {
			n    int
			word string
		}{{rc.c.Error, "error"}, {rc.c.Warning, "warning"}, {rc.c.Note, "note"}} {
			if x.n > 0 {
				parts = append(parts, plural(x.n, x.word))
			}
		}
		fmt.Fprintf(b, "%s %s: %s\n", rc.id, rc.name, strings.Join(parts, ", "))
	}
}

// summaryLine leads with what fails the gate (failingWords), then the
// totals: "2 errors fail the gate; 3 findings: 2 errors, 1 warning, 0
// notes", followed with a baseline or waivers by what they did ("no
// findings" alone when none is open).
func summaryLine(c counts, r Run, entries []entry) string {
	s := totalsLine(c, r, entries)
	if c.total() == 0 {
		return s
	}
	return failingWords(gateVerdict(r, entries), r) + "; " + s
}

// totalsLine is e.g. "3 findings: 2 errors, 1 warning, 0 notes",
// followed with a baseline or waivers by what they did.
func totalsLine(c counts, r Run, entries []entry) string {
	s := "no findings"
	if c.total() > 0 {
		s = fmt.Sprintf("%s: %s, %s, %s", plural(c.total(), "finding"),
			plural(c.Error, "error"), plural(c.Warning, "warning"), plural(c.Note, "note"))
	}
	if !hasGate(r) {
		return s
	}
	g := gate(entries)
	var parts []string
	if r.Checked.Baseline != "" {
		grown := ""
		if g.Grown > 0 {
			grown = fmt.Sprintf(" (%d grown)", g.Grown)
		}
		parts = append(parts, fmt.Sprintf("%d new%s, %d unchanged, %d fixed since the baseline", g.New, grown, g.Unchanged, g.Absent))
	}
	if g.Waived > 0 || r.Checked.Waivers != "" {
		parts = append(parts, fmt.Sprintf("%d waived", g.Waived))
	}
	return s + " (" + strings.Join(parts, "; ") + ")"
}

func plural(n int, word string) string {
	return strconv.Itoa(n) + " " + pluralWord(n, word)
}

// pluralWord is word for n == 1, else word+"s".
func pluralWord(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// painter adds ANSI colours when on; the zero painter writes plain text.
type painter bool

func (p painter) wrap(code, s string) string {
	if !p || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p painter) bold(s string) string { return p.wrap("1", s) }

func (p painter) level(l finding.Level) string {
	switch l {
	case finding.LevelError:
		return p.wrap("1;31", string(l))
	case finding.LevelWarning:
		return p.wrap("1;33", string(l))
	}
	return p.wrap("1;36", string(l))
}

// machineDetail names a finding's machine and devices: "apu, device 1
// (gfx1100)"; "" for none (a target-matrix agent).
func machineDetail(m *finding.OnMachine) string {
	if m == nil || m.Machine == "" {
		return ""
	}
	s := m.Machine
	if len(m.Devices) > 0 {
		devs := make([]string, len(m.Devices))
		for i, d := range m.Devices {
			devs[i] = strconv.Itoa(d)
		}
		noun := "device"
		if len(devs) > 1 {
			noun = "devices"
		}
		s += ", " + noun + " " + strings.Join(devs, ", ")
		if m.DeviceISA != "" {
			s += " (" + m.DeviceISA + ")"
		}
	}
	if m.Windows {
		s += ", Windows process"
	}
	return s
}

// hipDetail is a finding's HIP error with the release that gives it:
// "hipErrorInvalidImage (HIP newest)".
func hipDetail(f finding.Finding) string {
	if f.HIPError == "" || f.Machine == nil || f.Machine.HIP == "" {
		return f.HIPError
	}
	return f.HIPError + " (HIP " + f.Machine.HIP + ")"
}
