package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
)

// One root cause is reported once. A rule's checks may report a defect
// once per processor or agent set (a group collision per processor, a
// stripped feature flag per target); mergeCauses then joins the findings
// of one rule and level that share a cause key (Rule.CauseOf: what the
// rule says the defect is, without the processors, agents, kernels and
// archives it hits) into one finding that lists every target, agent,
// kernel and archive of its parts, the other parts' files as related
// locations, and a message that names them all (mergeWords).

// CauseOf is the cause key of a finding f of r: r.Cause(f) when the rule
// declares one, else f.Subject, what its fingerprint hashes (findings
// with one fingerprint are one finding). "" keeps the finding alone.
func (r *Rule) CauseOf(f finding.Finding) string {
	if r.Cause != nil {
		return r.Cause(f)
	}
	return f.Subject
}

// registryCause is the cause key of a finding by its rule in the
// registry (Rule.CauseOf); "" for a rule ID not there.
func registryCause(f finding.Finding) string {
	for _, r := range registry {
		if r.ID == f.RuleID {
			return r.CauseOf(f)
		}
	}
	return ""
}

// mergeCauses merges the findings of each rule and level that share a
// cause key (causeOf), in the order their first parts come; parts are
// taken in finding.Compare order. Every finding first gets the targets
// its agents stand for (Finding.Targets).
func mergeCauses(c *Context, fs []finding.Finding, causeOf func(finding.Finding) string) []finding.Finding {
	type key struct {
		rule  string
		level finding.Level
		cause string
	}
	targets := agentTargets(c)
	index := map[key]int{}
	var groups [][]finding.Finding
	for _, f := range fs {
		if len(f.Targets) == 0 {
			f.Targets = targetsOf(c, targets, f.Agents)
		}
		cause := causeOf(f)
		k := key{f.RuleID, f.Level, cause}
		if i, ok := index[k]; ok && cause != "" {
			groups[i] = append(groups[i], f)
			continue
		}
		index[k] = len(groups)
		groups = append(groups, []finding.Finding{f})
	}
	out := make([]finding.Finding, 0, len(groups))
	for _, parts := range groups {
		if len(parts) == 1 {
			out = append(out, parts[0])
			continue
		}
		slices.SortStableFunc(parts, finding.Compare)
		out = append(out, mergeParts(c, parts))
	}
	return out
}

// agentTargets maps each simulated agent ISA to the policy targets it
// stands for (the ISA itself for an --agent that stands for none).
func agentTargets(c *Context) map[string][]string {
	m := make(map[string][]string, len(c.Agents))
	for _, a := range c.Agents {
		if len(a.Targets) > 0 {
			m[a.ISA] = a.Targets
		} else {
			m[a.ISA] = []string{a.ISA}
		}
	}
	return m
}

// targetsOf lists the targets agents stand for, in the run's target
// order (targets it does not declare last, sorted).
func targetsOf(c *Context, byAgent map[string][]string, agents []string) []string {
	set := map[string]bool{}
	for _, a := range agents {
		for _, t := range byAgent[a] {
			set[t] = true
		}
	}
	return orderTargets(c, set)
}

// targetsOfProcessor lists the targets of the simulated agents of one
// processor, for findings about a processor that name no agent.
func targetsOfProcessor(c *Context, proc string) []string {
	set := map[string]bool{}
	for _, a := range c.Agents {
		if processorOf(a.ISA) == proc {
			ts := a.Targets
			if len(ts) == 0 {
				ts = []string{a.ISA}
			}
			for _, t := range ts {
				set[t] = true
			}
		}
	}
	return orderTargets(c, set)
}

func orderTargets(c *Context, set map[string]bool) []string {
	if len(set) == 0 {
		return nil
	}
	out := make([]string, 0, len(set))
	for _, t := range c.Targets {
		if set[t] {
			out = append(out, t)
			delete(set, t)
		}
	}
	return append(out, sortedKeys(set)...)
}

// processorOf is the processor of a target ID or agent ISA ("gfx942" of
// "gfx942:sramecc+:xnack+").
func processorOf(id string) string {
	p, _, _ := strings.Cut(id, ":")
	return p
}

// mergeParts joins the findings of one cause (sorted) into one: the first
// part's location, level, loader and errors; every part's kernels,
// agents, targets, trace lines and missing files; the other parts' files
// as related locations; and a message naming every part (mergeWords).
func mergeParts(c *Context, parts []finding.Finding) finding.Finding {
	m := parts[0]
	m.Message = mergeWords(parts)
	m.Kernels, m.Agents, m.Trace, m.Missing = nil, nil, nil, nil
	m.Related = nil
	seenLoc := map[locKey]bool{locKeyOf(m.Location): true}
	targets := map[string]bool{}
	trace := map[string]bool{}
	missing := 0
	for _, p := range parts {
		m.Kernels = append(m.Kernels, p.Kernels...)
		m.Agents = append(m.Agents, p.Agents...)
		for _, l := range p.Trace {
			if !trace[l] {
				trace[l] = true
				m.Trace = append(m.Trace, l)
			}
		}
		m.Missing = append(m.Missing, p.Missing...)
		missing += max(p.MissingTotal-len(p.Missing), 0)
		for _, t := range p.Targets {
			targets[t] = true
		}
		for _, l := range append([]finding.Location{p.Location}, p.Related...) {
			if k := locKeyOf(l); !seenLoc[k] {
				seenLoc[k] = true
				m.Related = append(m.Related, l)
			}
		}
	}
	finding.SortKernels(m.Kernels)
	m.Kernels = slices.Compact(m.Kernels)
	slices.Sort(m.Agents)
	m.Agents = slices.Compact(m.Agents)
	m.Targets = orderTargets(c, targets)
	if m.Missing != nil {
		slices.Sort(m.Missing)
		m.Missing = slices.Compact(m.Missing)
		m.MissingTotal = len(m.Missing) + missing
		if len(m.Missing) > MaxMissing {
			m.Missing = m.Missing[:MaxMissing]
		}
	}
	return m
}

// locKey identifies a location: input, path and byte range.
type locKey struct {
	input          int
	path           string
	offset, length int64
	region         bool
}

func locKeyOf(l finding.Location) locKey {
	k := locKey{input: l.Input, path: l.Path}
	if l.Region != nil {
		k.offset, k.length, k.region = l.Region.Offset, l.Region.Length, true
	}
	return k
}

// appendNew appends the lines of add that lines does not hold yet.
func appendNew(lines, add []string) []string {
	for _, l := range add {
		if !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	return lines
}

// processorRE matches a processor name (or a generic target) inside a
// target ID, an agent ISA or an archive name.
var processorRE = regexp.MustCompile(`gfx[0-9][0-9a-z]*(-[0-9a-z]+)*-generic|gfx[0-9][0-9a-z]*`)

// maskProcessors replaces every processor name in s with "gfx*", so that
// a cause key names what a defect is (":xnack+" archives shadowing the
// bare ones) without the processors it hits.
func maskProcessors(s string) string { return processorRE.ReplaceAllLiteralString(s, "gfx*") }

// mergeWords words one finding for several parts of one cause. Their
// messages are split into words; a word that names a processor (a target
// ID, an agent ISA, an archive of one) is a slot, and a comma-separated
// run of such words one slot holding a list. When every part's message
// has the same words outside the slots, the merged message is that text
// with each slot listing the values of every part, in part order, each
// once (at most finding.MaxListed: "... and N more"). Otherwise it is the
// first part's message followed by the targets (or agents, or kernels)
// the other parts add.
func mergeWords(parts []finding.Finding) string {
	first := splitSlots(parts[0].Message)
	values := make([]distinct, len(first))
	for _, p := range parts {
		ws := first
		if p.Message != parts[0].Message {
			ws = splitSlots(p.Message)
		}
		if !sameSkeleton(first, ws) {
			return parts[0].Message + alsoOn(parts)
		}
		for i, w := range ws {
			for _, v := range w.values {
				values[i].add(v)
			}
		}
	}
	var b strings.Builder
	for i, w := range first {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w.values == nil {
			b.WriteString(w.text)
			continue
		}
		b.WriteString(w.lead)
		b.WriteString(values[i].String())
		b.WriteString(w.trail)
	}
	return b.String()
}

// distinct collects distinct values in the order added, keeping the
// first finding.MaxListed of them and the count.
type distinct struct {
	seen  map[string]bool
	shown []string
}

func (d *distinct) add(v string) {
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	if d.seen[v] {
		return
	}
	d.seen[v] = true
	if len(d.shown) < finding.MaxListed {
		d.shown = append(d.shown, v)
	}
}

// String lists the values: "a, b, c", or the first ones "... and N more".
func (d *distinct) String() string {
	s := strings.Join(d.shown, ", ")
	if more := len(d.seen) - len(d.shown); more > 0 {
		s += fmt.Sprintf(" ... and %d more", more)
	}
	return s
}

// slotWord is a literal word (values nil) or a slot: the values a list
// of processor-bearing words holds, between its leading and trailing
// punctuation.
type slotWord struct {
	text        string
	lead, trail string
	values      []string
}

// splitSlots splits a message into words and slots.
func splitSlots(msg string) []slotWord {
	var out []slotWord
	for _, w := range strings.Split(msg, " ") {
		core := strings.TrimLeft(w, "(")
		lead := w[:len(w)-len(core)]
		trimmed := strings.TrimRight(core, ",;:.)")
		trail := core[len(trimmed):]
		if !processorRE.MatchString(trimmed) {
			out = append(out, slotWord{text: w})
			continue
		}
		if n := len(out); n > 0 && out[n-1].values != nil && out[n-1].trail == "," && lead == "" {
			out[n-1].values = append(out[n-1].values, trimmed)
			out[n-1].trail = trail
			continue
		}
		out = append(out, slotWord{lead: lead, trail: trail, values: []string{trimmed}})
	}
	return out
}

// sameSkeleton reports whether two split messages have the same words
// outside their slots and their slots in the same places.
func sameSkeleton(a, b []slotWord) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if (x.values == nil) != (y.values == nil) || x.text != y.text || x.lead != y.lead || x.trail != y.trail {
			return false
		}
	}
	return true
}

// alsoOn says what the other parts of a cause add when their messages
// cannot be merged word by word: their targets, else agents, else
// kernels.
func alsoOn(parts []finding.Finding) string {
	first := parts[0]
	var targets, agents distinct
	kernels := map[string]bool{}
	inFirst := map[string]bool{}
	for _, list := range [][]string{first.Targets, first.Agents, first.Kernels} {
		for _, x := range list {
			inFirst[x] = true
		}
	}
	for _, p := range parts[1:] {
		for _, x := range p.Targets {
			if !inFirst[x] {
				targets.add(x)
			}
		}
		for _, x := range p.Agents {
			if !inFirst[x] {
				agents.add(x)
			}
		}
		for _, x := range p.Kernels {
			if !inFirst[x] {
				kernels[x] = true
			}
		}
	}
	switch {
	case len(targets.seen) > 0:
		return " The same cause also affects " + targets.String() + "."
	case len(agents.seen) > 0:
		return " The same cause also affects agents " + agents.String() + "."
	case len(kernels) > 0:
		return " The same cause also affects " + finding.ShortKernels(sortedSet(kernels)) + "."
	}
	return ""
}
