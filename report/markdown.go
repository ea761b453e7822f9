package report

import (
	"fmt"
	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
	"github.com/rocm-tools/kpack-lint/targetid"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxTopFindings is how many findings the markdown summary shows in full.
const MaxTopFindings = 10

// WriteMarkdown writes a GitHub job summary ($GITHUB_STEP_SUMMARY): the
// verdict (❌ when findings fail the gate, ⚠️ when errors or warnings are
// open but none fails, ✅ otherwise; what fails first, then the totals:
// summaryLine), what was checked, the load matrix per kpack group x target, a
// table of the simulated machines x their verdict, the
// open findings per rule, the top findings (those that count for the exit
// code first, errors first) each with a ready-to-run command, and the
// configuration notifications.
func WriteMarkdown(w io.Writer, r Run) error {
	r = Sanitize(r)
	entries, c, err := prepare(r)
	if err != nil {
		return err
	}
	var b strings.Builder
	icon := "✅"
	switch {
	case gateVerdict(r, entries).failing.total() > 0:
		icon = "❌"
	case c.Error > 0 || c.Warning > 0:
		icon = "⚠️"
	}
	fmt.Fprintf(&b, "## %s kpack-lint: %s\n\n", icon, mdEscape(summaryLine(c, r, entries)))
	writeMarkdownChecked(&b, r)
	writeMarkdownMatrix(&b, r, entries)
	writeMarkdownMachines(&b, r)
	writeMarkdownRules(&b, entries)
	writeMarkdownTop(&b, r, entries)
	writeMarkdownNotes(&b, r)
	_, err = io.WriteString(w, escape.Lines(capSummary(b.String())))
	return err
}

// The summary's caps: GitHub shows a step summary of at most 1 MiB
// (MaxSummaryBytes) and nothing of a larger one, verdict included. Each
// table lists at most so many rows and says how many more the full
// reports (text, JSON, SARIF, HTML) have; each name or value is cut at
// maxMarkdownField bytes, each message at maxTopMessage; a command longer
// than maxSummaryCommand is left out. With these caps the summary stays
// far below MaxSummaryBytes; capSummary cuts it there all the same.
const (
	MaxSummaryBytes    = 1 << 20
	maxSummaryRows     = 50 // machines, matrix groups, notifications
	maxSummaryTargets  = 24 // matrix columns
	maxSummaryInputs   = 12
	maxSummaryCommand  = 4096
	summaryFullReports = "the text, JSON, SARIF and HTML reports have them all"
)

// writeMarkdownNotes lists the configuration notifications, at most
// maxSummaryRows.
func writeMarkdownNotes(b *strings.Builder, r Run) {
	if len(r.Notifications) == 0 {
		return
	}
	b.WriteString("### Configuration\n\n")
	for i, n := range r.Notifications {
		if i == maxSummaryRows {
			fmt.Fprintf(b, "- ... and %d more notifications: %s.\n", len(r.Notifications)-i, summaryFullReports)
			break
		}
		fmt.Fprintf(b, "- %s %s: %s\n", mdEscape(string(n.Level)), mdCode(n.Source), mdEscape(cutWords(escape.String(n.Message), maxTopMessage)))
	}
	b.WriteByte('\n')
}

// capSummary cuts a summary longer than MaxSummaryBytes at the last line
// that fits and says so (the caps above keep it from coming to that).
func capSummary(s string) string {
	if len(s) <= MaxSummaryBytes {
		return s
	}
	const room = 256 // for the note
	cut := strings.LastIndexByte(s[:MaxSummaryBytes-room], '\n') + 1
	return s[:cut] + fmt.Sprintf("\n... the summary is cut here, at %d of its %d bytes (GitHub shows a job summary of at most %d): %s.\n",
		cut, len(s), MaxSummaryBytes, summaryFullReports)
}

func writeMarkdownChecked(b *strings.Builder, r Run) {
	k := r.Checked
	if k == nil {
		return
	}
	src := ""
	if k.PolicySource != "" && k.PolicySource != "--policy" {
		src = " (" + mdCut(k.PolicySource) + ")"
	}
	pol := "no policy" + src
	if k.Policy != nil {
		pol = "policy " + mdCode(*k.Policy) + src
		if k.Variant != "" {
			pol += ", variant " + mdCode(k.Variant)
		}
	}
	var in []string
	for i, name := range k.Inputs {
		if i == maxSummaryInputs {
			in = append(in, fmt.Sprintf("%d more inputs", len(k.Inputs)-i))
			break
		}
		in = append(in, mdCode(name))
	}
	fmt.Fprintf(b, "Checked %s with %s, %s", strings.Join(in, " + "), pol, mdCut(loaderWords(k)))
	if k.Deep {
		b.WriteString(", `--deep`")
	}
	if k.Shard != "" {
		fmt.Fprintf(b, ", shard %s", mdCut(k.Shard))
	}
	if machinesOnly(k) {
		fmt.Fprintf(b, ": %s simulated instead of a target matrix, each with its own devices, HIP release and environment", plural(len(k.Machines), "machine"))
	} else {
		fmt.Fprintf(b, ": %s (%s), %s", plural(len(k.Targets), "target"), mdCut(k.TargetSource), plural(len(k.Agents), "agent"))
		if n := len(k.Machines); n > 0 {
			fmt.Fprintf(b, ", %s", plural(n, "machine"))
		}
	}
	if w := hipWords(k); w != "" {
		fmt.Fprintf(b, "; %s", mdCut(w))
	}
	b.WriteString(".")
	if len(k.Env) > 0 {
		fmt.Fprintf(b, " Environment %s.", mdCode(strings.Join(k.Env, " ")))
	}
	if k.Baseline != "" {
		fmt.Fprintf(b, " Baseline %s.", mdCode(k.Baseline))
	}
	b.WriteString("\n\n")
}

// writeMarkdownMatrix draws one row per kpack group and one column per
// policy target, the targets with errors first (worstFirst). Each cell is coloured by the worst open finding about the
// group on that target (❌ error, ⚠️ warning, ✅ none or notes) and says
// which (matrixView), then the kernel x agent loads that succeed out of
// those simulated under the policy's loader, so a cell is red exactly
// when an error finding concerns it.
func writeMarkdownMatrix(b *strings.Builder, r Run, entries []entry) {
	if len(r.Matrix) == 0 {
		return
	}
	m := newMatrixView(r)
	m.targets = worstFirst(m.targets, m.perTarget(entries)) // the failing columns first, within the cap
	found := m.targetCounts(entries)
	targets, groups := m.targets[:min(len(m.targets), maxSummaryTargets)], m.groups[:min(len(m.groups), maxSummaryRows)]
	b.WriteString("| kpack group |")
	for _, t := range targets {
		fmt.Fprintf(b, " %s |", mdCellCode(t))
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(targets)) + "\n")
	for _, g := range groups {
		fmt.Fprintf(b, "| %s |", mdCellCode(g))
		for _, t := range targets {
			cell, ok := m.cells[[2]string{g, t}]
			fmt.Fprintf(b, " %s |", cellText(cell, ok, m.other, found[[2]string{g, t}]))
		}
		b.WriteByte('\n')
	}
	if n, k := len(m.groups)-len(groups), len(m.targets)-len(targets); n > 0 || k > 0 {
		fmt.Fprintf(b, "\n... the matrix shows %d of %d kpack groups and %d of %d targets: %s.\n", len(groups), len(m.groups), len(targets), len(m.targets), summaryFullReports)
	}
	b.WriteString("\nCells: the worst open finding about the kpack group on that target (❌ error, ⚠️ warning, ✅ none or notes) and their count, " +
		"then the kernel x agent loads that succeed / simulated under the policy's loader; targets with errors first.\n\n")
	if u := unplacedWords(r, entries); u != "" {
		b.WriteString(mdEscape(u) + "\n\n")
	}
}

// archiveProcessors returns the processors of the archives a finding
// names (location and related files), from their file-name tags.
func archiveProcessors(f finding.Finding) []string {
	var out []string
	for _, l := range append([]finding.Location{f.Location}, f.Related...) {
		if !finding.IsArchiveName(l.Path) {
			continue
		}
		_, tag := finding.SplitArchiveName(l.Path)
		if id, err := targetid.Parse(tag); err == nil && !slices.Contains(out, id.Processor) {
			out = append(out, id.Processor)
		}
	}
	return out
}

// concerns reports whether finding f (with the archive processors procs)
// is about matrix target t.
func concerns(f finding.Finding, procs []string, t string) bool {
	tid, err := targetid.Parse(t)
	if err != nil {
		return false
	}
	for _, a := range f.Agents {
		if aid, err := targetid.Parse(a); a == t || (err == nil && targetid.CompatibleOrGeneric(tid, aid)) {
			return true
		}
	}
	if len(f.Agents) > 0 {
		return false
	}
	for _, p := range procs {
		if p == tid.Processor || targetid.GenericCovers(tid.Processor, p) {
			return true
		}
	}
	return len(procs) == 0
}

// orderLike orders items as in order, unknown ones last in their order.
func orderLike(items, order []string) []string {
	out := make([]string, 0, len(items))
	for _, o := range order {
		if slices.Contains(items, o) {
			out = append(out, o)
		}
	}
	for _, i := range items {
		if !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	return out
}

// cellText is one cell: "✅ 16/16", or the findings first when any
// concern it, "❌ 1 error; 20/20 loads (legacy loader: 6 fail)".
func cellText(c finding.Cell, ok bool, other string, found counts) string {
	if !ok {
		return "–"
	}
	icon := "✅"
	switch found.worst() {
	case finding.LevelError:
		icon = "❌"
	case finding.LevelWarning:
		icon = "⚠️"
	}
	s := fmt.Sprintf("%d/%d", c.Loads-c.Failed, c.Loads)
	if w := found.words(); w != "" {
		s = fmt.Sprintf("%s; %s loads", w, s)
	}
	if c.OtherFailed > 0 {
		s += fmt.Sprintf(" (%s loader: %d fail)", other, c.OtherFailed)
	}
	return icon + " " + s
}

func writeMarkdownRules(b *strings.Builder, entries []entry) {
	counts := perRule(entries)
	if len(counts) == 0 {
		return
	}
	uri := map[string]string{}
	for _, e := range entries {
		uri[e.f.RuleID] = e.rule.HelpURI
	}
	b.WriteString("| rule | errors | warnings | notes |\n|---|---:|---:|---:|\n")
	for _, rc := range counts {
		fmt.Fprintf(b, "| %s %s | %d | %d | %d |\n", mdLink(rc.id, uri[rc.id]), rc.name, rc.c.Error, rc.c.Warning, rc.c.Note)
	}
	b.WriteByte('\n')
}

// writeMarkdownTop lists the open findings, those that count for the exit
// code first, then by level; at most MaxTopFindings. Findings unchanged
// since the baseline are counted, not listed (unless they fail the run:
// Run.FailOnBaseline). Each names its file as the
// annotations do (with the path prefix), and a long message is cut at a
// word.
func writeMarkdownTop(b *strings.Builder, r Run, entries []entry) {
	l := listed(entries)
	top := l.fresh
	if r.FailOnBaseline { // unchanged findings fail too: list them
		top, l.unchanged = append(top, l.unchanged...), nil
	}
	if len(top) == 0 {
		if len(l.unchanged) > 0 {
			fmt.Fprintf(b, "### Top findings\n\nNo new findings; %s unchanged since the baseline %s not listed (the SARIF and JSON reports have them).\n\n",
				plural(len(l.unchanged), "finding"), isAreWord(len(l.unchanged)))
		}
		return
	}
	slices.SortStableFunc(top, func(x, y entry) int {
		if x.gating != y.gating {
			if x.gating {
				return -1
			}
			return 1
		}
		return y.level.Rank() - x.level.Rank()
	})
	b.WriteString("### Top findings\n\n")
	for i, e := range top {
		if i == MaxTopFindings {
			fmt.Fprintf(b, "... and %d more: see the code scanning alerts or the SARIF/JSON report.\n", len(top)-i)
			break
		}
		msg := cutKeepingFix(escape.String(e.f.Message), maxTopMessage)
		state := ""
		if e.f.Baseline != "" {
			state = " (" + mdEscape(baselineWords(e.f)) + ")"
		}
		fmt.Fprintf(b, "- **%s** %s %s%s: %s\n", e.level, mdLink(e.f.RuleID, e.rule.HelpURI), mdCode(annotationPath(r, e.f.Location)), state, mdEscape(msg))
		if h := Hint(r, e.f); len(h) <= maxSummaryCommand {
			mdFence(b, "  ", h)
		} else {
			fmt.Fprintf(b, "  (its command, %d bytes, is too long for the summary: the text report's explain line has it)\n", len(h))
		}
	}
	if n := len(l.unchanged); n > 0 {
		fmt.Fprintf(b, "\n%s unchanged since the baseline %s not listed (the SARIF and JSON reports have them).\n", plural(n, "finding"), isAreWord(n))
	}
	b.WriteByte('\n')
}

// maxTopMessage is how many bytes of a message the summary's top
// findings show.
const maxTopMessage = 600

// cutKeepingFix shortens a message to about max bytes as cutWords does,
// but keeps its last " Fix: ..." sentence whole when that fits in two
// thirds of max: what to do survives the cut of what was found.
func cutKeepingFix(s string, max int) string {
	i := strings.LastIndex(s, " Fix: ")
	if len(s) <= max || i < 0 || len(s)-i > max*2/3 {
		return cutWords(s, max)
	}
	return cutWords(s[:i], max-(len(s)-i)) + s[i:]
}

// cutWords shortens s to at most max bytes, at the last space before
// the limit (never inside a word or a UTF-8 sequence), and marks the cut
// with "...".
func cutWords(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max], ' ')
	if cut <= 0 {
		cut = max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return strings.TrimRight(s[:cut], " ,;:") + " ..."
}

// isAreWord is "is" for one and "are" for several.
func isAreWord(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
