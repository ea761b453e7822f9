package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// WriteHTML writes r as one self-contained HTML page for people (a
// nightly's report to look at): the verdict and what was checked; the
// load matrix, one row per kpack group and one column per simulated
// agent under the policy target it stands for, each cell coloured by the
// worst open finding about the group on that agent (matrixView); a count
// per rule; the simulated machines (release, devices in HIP order,
// environment, binaries clean and failing); every finding (new,
// unchanged, fixed since the baseline, waived), each with its details
// (its machine and devices, its HIP error and release), the rule's fix
// and the ready-to-run command (Hint), with a filter by state; and the
// configuration notifications.
//
// The page loads nothing: its style and script are inline and a
// Content-Security-Policy forbids every other source, so it opens from a
// CI artifact without network. Every string passes through Sanitize and
// then html/template's contextual escaping. Without JavaScript every
// finding the filter shows by default is shown (Run.NewOnly hides the
// unchanged ones); the script only makes the filter work and marks the
// body data-ready="1".
//
// Matrix cells carry what a checker compares with the JSON report:
// data-group, data-target, data-agent, data-level (error, warning, note
// or ok), data-errors, data-warnings, data-notes, and the (group,
// target) cell's data-loads and data-failed. Machine rows carry
// data-machine, data-hip, data-devices and, with a verdict,
// data-binaries, data-clean and data-failing; findings data-fingerprint
// and, when they have them, data-machine and data-hip.
func WriteHTML(w io.Writer, r Run) error {
	r = Sanitize(r)
	entries, c, err := prepare(r)
	if err != nil {
		return err
	}
	v := gateVerdict(r, entries)
	page := htmlPage{
		Title:    "kpack-lint: " + summaryLine(c, r, entries),
		Checked:  checkedLine(r),
		Version:  r.ToolVersion,
		Rules:    htmlRules(entries),
		Targets:  htmlTargets(r, entries),
		Matrix:   htmlMatrix(r, entries),
		Unplaced: unplacedWords(r, entries),
		Machines: htmlMachines(r),
		Findings: htmlFindings(r, failingFirst(entries)),
	}
	page.Level, page.Badge = "ok", "passes"
	switch {
	case v.failing.total() > 0:
		page.Level, page.Badge = levelClass(v.failing), "fails"
	case c.Error > 0 || c.Warning > 0:
		page.Level = string(finding.LevelWarning)
	}
	page.States = htmlStates(page.Findings, r)
	for _, f := range page.Findings {
		if !f.Hidden {
			page.Shown++
		}
	}
	for _, n := range r.Notifications {
		page.Notes = append(page.Notes, htmlNote{Level: string(n.Level), Source: n.Source, Message: n.Message})
	}
	return htmlTemplate().Execute(escape.NewLineWriter(w), page) // a <pre> trace line may start with a name
}

type htmlPage struct {
	Title, Level, Badge, Checked, Version string
	Targets                               []htmlTargetRow
	Matrix                                *htmlMatrixData
	Unplaced                              string
	Machines                              []htmlMachine
	Rules                                 []htmlRule
	States                                []htmlState
	Findings                              []htmlFinding
	Shown                                 int
	Notes                                 []htmlNote
}

type htmlState struct {
	State, Label string
	Count        int
	On           bool
}

type htmlNote struct{ Level, Source, Message string }

// htmlMachine is one row of the machines table: the machine, its HIP
// release, its GPUs in enumeration order and what each process kind sees
// when the environment changes it, its environment, and its verdict
// (Judged false when no verdict was kept).
type htmlMachine struct {
	Name, HIP, Devices, Env, Outcomes   string
	Binaries, Clean, Failing, DeviceNum int
	Judged                              bool
}

type htmlRule struct {
	ID, Name                string
	Errors, Warnings, Notes int
}

type htmlMatrixData struct {
	Targets []htmlTarget
	Agents  []htmlAgent
	Rows    []htmlRow
}

type htmlTarget struct {
	Name   string
	Agents int // columns under it (at least 1)
}

type htmlAgent struct{ Name, Target string }

type htmlRow struct {
	Group string
	Cells []htmlCell
}

type htmlCell struct {
	Group, Target, Agent, Level, Text, Title string
	Errors, Warnings, Notes, Loads, Failed   int
	Present                                  bool
}

type htmlFinding struct {
	ID, State, Level, RuleID, RuleName, RuleURI, Path, Message string
	Machine, HIP                                               string // the finding's machine ("" for a matrix agent) and HIP release
	Details                                                    []htmlDetail
	Trace                                                      []string
	Fix, CommandLabel, Command, Fingerprint                    string
	Hidden                                                     bool
}

type htmlDetail struct{ Key, Value string }

// levelClass is the page's verdict: the worst open finding's level, or ok.
func levelClass(c counts) string {
	if l := c.worst(); l != "" {
		return string(l)
	}
	return "ok"
}

// checkedLine says what the run checked, as the text header's first line
// does.
func checkedLine(r Run) string {
	k := r.Checked
	if k == nil {
		return ""
	}
	s := fmt.Sprintf("Checked %s with %s, %s loader", strings.Join(k.Inputs, " + "), policyWords(k), k.Loader)
	if k.Deep {
		s += ", --deep"
	}
	if k.Shard != "" {
		s += ", shard " + k.Shard
	}
	s += fmt.Sprintf(": %d targets (%s), %d agents", len(k.Targets), k.TargetSource, len(k.Agents))
	if k.HIP != "" {
		s += ", HIP " + k.HIP
	}
	if n := len(k.Machines); n > 0 {
		s += ", " + plural(n, "machine")
	}
	s += "."
	if len(k.Env) > 0 {
		s += " Environment " + strings.Join(k.Env, " ") + "."
	}
	if k.Baseline != "" {
		s += " Baseline " + k.Baseline + "."
	}
	if k.Waivers != "" {
		s += " Waivers " + k.Waivers + "."
	}
	return s
}

func htmlRules(entries []entry) []htmlRule {
	var out []htmlRule
	for _, rc := range perRule(entries) {
		out = append(out, htmlRule{ID: rc.id, Name: rc.name, Errors: rc.c.Error, Warnings: rc.c.Warning, Notes: rc.c.Note})
	}
	return out
}

// htmlMatrix lays the matrix out by agent (nil when the run has none),
// the targets with errors first, then those with warnings, notes, none
// (each in the run's order), so the columns that fail are on the first
// screen of a wide matrix.
func htmlMatrix(r Run, entries []entry) *htmlMatrixData {
	if len(r.Matrix) == 0 {
		return nil
	}
	m := newMatrixView(r)
	m.targets = worstFirst(m.targets, m.perTarget(entries))
	found := m.agentCounts(entries)
	d := &htmlMatrixData{}
	for _, t := range m.targets {
		agents := m.agents[t]
		d.Targets = append(d.Targets, htmlTarget{Name: t, Agents: max(len(agents), 1)})
		if len(agents) == 0 {
			d.Agents = append(d.Agents, htmlAgent{Target: t})
		}
		for _, a := range agents {
			d.Agents = append(d.Agents, htmlAgent{Name: a, Target: t})
		}
	}
	for _, g := range m.groups {
		row := htmlRow{Group: g}
		for _, a := range d.Agents {
			cell, ok := m.cells[[2]string{g, a.Target}]
			n := found[[2]string{g, a.Name}]
			hc := htmlCell{Group: g, Target: a.Target, Agent: a.Name, Present: ok,
				Errors: n.Error, Warnings: n.Warning, Notes: n.Note, Loads: cell.Loads, Failed: cell.Failed}
			hc.Level = levelClass(n)
			hc.Text = cellShort(n, ok)
			hc.Title = cellTitle(g, a, cell, ok, n, m.other)
			row.Cells = append(row.Cells, hc)
		}
		d.Rows = append(d.Rows, row)
	}
	return d
}

// cellShort is a cell's text: "1 E · 1 W", "ok", or "–" where the group
// has nothing for the target.
func cellShort(n counts, ok bool) string {
	if !ok {
		return "–"
	}
	var parts []string
	for _, x := range []struct {
		n      int
		letter string
	}{{n.Error, "E"}, {n.Warning, "W"}, {n.Note, "N"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.letter))
		}
	}
	if len(parts) == 0 {
		return "ok"
	}
	return strings.Join(parts, " · ")
}

func cellTitle(g string, a htmlAgent, c finding.Cell, ok bool, n counts, other string) string {
	on := a.Target
	if a.Name != "" && a.Name != a.Target {
		on = a.Name + " (target " + a.Target + ")"
	}
	if !ok {
		return fmt.Sprintf("%s on %s: nothing simulated", g, on)
	}
	s := fmt.Sprintf("%s on %s: ", g, on)
	if w := n.words(); w != "" {
		s += w
	} else {
		s += "no findings"
	}
	s += fmt.Sprintf("; the target's loads: %d/%d succeed", c.Loads-c.Failed, c.Loads)
	if c.OtherFailed > 0 {
		s += fmt.Sprintf(" (%s loader: %d fail)", other, c.OtherFailed)
	}
	return s
}

// findingState names a finding's place in the filter: new (open without
// a baseline), unchanged, fixed (absent from this run) or waived.
func findingState(f finding.Finding) string {
	switch {
	case f.Baseline == finding.BaselineAbsent:
		return "fixed"
	case f.Suppressed():
		return "waived"
	case f.Baseline == finding.BaselineUnchanged:
		return "unchanged"
	case f.Baseline == finding.BaselineNew:
		return "new"
	}
	return "open"
}

// shownByDefault reports whether the filter shows a state at first.
func shownByDefault(state string, r Run) bool {
	switch state {
	case "fixed", "waived":
		return false
	case "unchanged":
		return !r.NewOnly
	}
	return true
}

func htmlFindings(r Run, entries []entry) []htmlFinding {
	var out []htmlFinding
	for i, e := range entries {
		f := e.f
		h := htmlFinding{
			ID: fmt.Sprintf("f%d", i+1), State: findingState(f), Level: string(e.level),
			RuleID: f.RuleID, RuleName: e.rule.Name, RuleURI: e.rule.HelpURI,
			Path: annotationPath(r, f.Location), Message: f.Message, Trace: f.Trace,
			Fix: e.rule.HelpFor(f), Command: Hint(r, f), Fingerprint: finding.Fingerprint(f),
		}
		if f.Location.Region != nil {
			h.Path += fmt.Sprintf(" [%d+%d]", f.Location.Region.Offset, f.Location.Region.Length)
		}
		if strings.Contains(f.Message, "Fix: ") {
			h.Fix = "" // the message's own fix, for this finding, beats the rule's general one
		}
		h.Hidden = !shownByDefault(h.State, r)
		h.CommandLabel = "explain"
		if strings.HasPrefix(h.Command, "kpack-lint rules ") {
			h.CommandLabel = "rule"
		}
		h.Details = htmlDetails(r, f)
		if m := f.Machine; m != nil {
			h.Machine, h.HIP = m.Machine, m.HIP
		}
		out = append(out, h)
	}
	return out
}

func htmlDetails(r Run, f finding.Finding) []htmlDetail {
	var out []htmlDetail
	add := func(k, v string) {
		if v != "" {
			out = append(out, htmlDetail{k, v})
		}
	}
	add("kernels", finding.ShortKernels(f.Kernels))
	add("agents", strings.Join(f.Agents, " "))
	add("targets", strings.Join(f.Targets, " "))
	add("group", f.Group)
	add("loader", f.Loader)
	add("kpack error", f.KpackError)
	add("machine", machineDetail(f.Machine))
	add("hip", hipDetail(f))
	add("library", f.Library)
	add("effect", f.Effect)
	if len(f.Missing) > 0 {
		add("missing", finding.CapList(f.Missing, finding.MaxListed, ", ")+more(max(f.MissingTotal, len(f.Missing))-max(len(f.Missing), finding.MaxListed)))
	}
	var rel []string
	for _, l := range f.Related {
		rel = append(rel, textPath(l, len(r.Inputs)))
	}
	add("related", finding.CapList(rel, finding.MaxListed, ", "))
	if f.Baseline == finding.BaselineNew {
		add("grown since the baseline", f.Grown.Words())
	}
	if s := f.Suppression; s != nil {
		if s.Expired {
			add("waiver", fmt.Sprintf("%s expired on %s and no longer applies (%s)", s.Source, s.Expires, s.Justification))
		} else {
			add("waived by", fmt.Sprintf("%s: %s", s.Source, s.Justification))
		}
	}
	return out
}

// htmlMachines lays out the simulated machines, in the order of
// Checked.Machines, as the markdown table does.
func htmlMachines(r Run) []htmlMachine {
	if r.Checked == nil {
		return nil
	}
	var out []htmlMachine
	for _, m := range r.Checked.Machines {
		devices := machineDevices(m)
		for _, w := range []string{viewWords("Linux", m, m.Linux), viewWords("Windows", m, m.Windows)} {
			if w != "" {
				devices += "; " + w
			}
		}
		hm := htmlMachine{Name: m.Name, HIP: m.HIP, Devices: devices, Env: strings.Join(m.Env, " "), DeviceNum: len(m.Devices)}
		if v := verdictOf(r, m.Name); v != nil {
			hm.Judged, hm.Binaries, hm.Clean, hm.Failing = true, v.Binaries, v.Clean, v.Binaries-v.Clean
			if hm.Failing > 0 {
				hm.Outcomes = outcomeCounts(v)
			}
		}
		out = append(out, hm)
	}
	return out
}

// more is " ... and N more" for N > 0 (items a list was cut to before
// CapList saw it).
func more(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" ... and %d more", n)
}

// htmlStates lists the filter's states present among the findings, in a
// fixed order, with their counts and whether they show at first.
func htmlStates(fs []htmlFinding, r Run) []htmlState {
	count := map[string]int{}
	for _, f := range fs {
		count[f.State]++
	}
	var out []htmlState
	for _, s := range []struct{ state, label string }{
		{"new", "new"}, {"open", "open"}, {"unchanged", "unchanged"}, {"fixed", "fixed since the baseline"}, {"waived", "waived"},
	} {
		if count[s.state] > 0 {
			out = append(out, htmlState{State: s.state, Label: s.label, Count: count[s.state], On: shownByDefault(s.state, r)})
		}
	}
	return out
}

// htmlTemplate is parsed on first use: most runs write no HTML, and
// parsing it was a third of the package's start-up time.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(htmlSource))
})

// htmlSource is the page. Its style and script are inline; the
// Content-Security-Policy allows nothing else.
const htmlSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="kpack-lint {{.Version}}">
<title>{{.Title}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#1f2328;background:#fff}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}code,pre,.mono{font-family:ui-monospace,monospace;font-size:12.5px}
table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #d0d7de;padding:.25em .5em;text-align:left;vertical-align:top}
table.matrix td{text-align:center;white-space:nowrap}table.matrix thead th{font-weight:600;font-size:12px}
.error{background:#ffebe9}.warning{background:#fff8c5}.note{background:#ddf4ff}.ok{background:#dafbe1}.none{background:#f6f8fa;color:#8c959f}
.badge{display:inline-block;padding:0 .45em;border-radius:1em;font-size:12px;font-weight:600;border:1px solid #d0d7de}
.badge.error{color:#82071e}.badge.warning{color:#7d4e00}.badge.note{color:#0550ae}
article.finding{border:1px solid #d0d7de;border-left-width:6px;border-radius:6px;padding:.5em .8em;margin:.7em 0}
article.finding.error{border-left-color:#cf222e;background:#fff}article.finding.warning{border-left-color:#bf8700;background:#fff}article.finding.note{border-left-color:#0969da;background:#fff}
article.finding h3{font-size:1em;margin:.2em 0}.msg{white-space:pre-wrap}
dl{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;margin:.4em 0}dt{color:#59636e}dd{margin:0;overflow-wrap:anywhere}
pre{background:#f6f8fa;padding:.4em .6em;border-radius:4px;overflow-x:auto}.fp{color:#59636e;font-size:12px}
.filter label{margin-right:1em}.scroll{overflow-x:auto}
</style>
</head>
<body data-ready="0" class="{{.Level}}-page">
<h1><span class="badge {{.Level}}">{{.Badge}}</span> {{.Title}}</h1>
{{if .Checked}}<p id="checked">{{.Checked}}</p>{{end}}
{{if .Targets}}<h2>Targets</h2>
<table id="targets"><thead><tr><th>target</th><th>agents</th><th>errors</th><th>warnings</th><th>notes</th><th>kpack groups with errors</th><th>loads that succeed</th></tr></thead><tbody>
{{range .Targets}}<tr class="{{.Level}}" data-target-row="{{.Target}}" data-errors="{{.Errors}}" data-warnings="{{.Warnings}}" data-notes="{{.Notes}}"><td><code>{{.Target}}</code></td><td>{{.Agents}}</td><td>{{.Errors}}</td><td>{{.Warnings}}</td><td>{{.Notes}}</td><td>{{.FailingGroups}} of {{.Groups}}</td><td>{{.Loads}}</td></tr>
{{end}}</tbody></table>
<p>One row per target, those with errors first: the open findings about the target (each counted once, whatever kpack groups and agents it names).</p>
{{end}}{{with .Matrix}}<h2>Load matrix</h2>
<div class="scroll"><table class="matrix" id="matrix">
<thead>
<tr><th rowspan="2">kpack group</th>{{range .Targets}}<th colspan="{{.Agents}}" data-target="{{.Name}}"><code>{{.Name}}</code></th>{{end}}</tr>
<tr>{{range .Agents}}<th data-agent="{{.Name}}" data-target="{{.Target}}"><code>{{.Name}}</code></th>{{end}}</tr>
</thead>
<tbody>
{{range .Rows}}<tr><th><code>{{.Group}}</code></th>{{range .Cells}}<td class="{{if .Present}}{{.Level}}{{else}}none{{end}}" data-group="{{.Group}}" data-target="{{.Target}}" data-agent="{{.Agent}}" data-level="{{if .Present}}{{.Level}}{{else}}none{{end}}" data-errors="{{.Errors}}" data-warnings="{{.Warnings}}" data-notes="{{.Notes}}" data-loads="{{.Loads}}" data-failed="{{.Failed}}" title="{{.Title}}">{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
<p>Each cell: the open findings about the kpack group on that agent, coloured by the worst (red error, yellow warning, blue note, green none); its title gives the target's kernel x agent loads that succeed under the policy's loader. Targets with errors come first.</p>
{{end}}{{if .Unplaced}}<p id="unplaced">{{.Unplaced}}</p>
{{end}}{{if .Machines}}<h2>Machines</h2>
<div class="scroll"><table id="machines">
<thead><tr><th>machine</th><th>HIP</th><th>devices (HIP order)</th><th>env</th><th>binaries clean</th><th>failing</th></tr></thead>
<tbody>
{{range .Machines}}<tr data-machine="{{.Name}}" data-hip="{{.HIP}}" data-devices="{{.DeviceNum}}"{{if .Judged}} data-binaries="{{.Binaries}}" data-clean="{{.Clean}}" data-failing="{{.Failing}}"{{end}} class="{{if not .Judged}}none{{else if .Failing}}error{{else}}ok{{end}}"><td><code>{{.Name}}</code></td><td>{{.HIP}}</td><td class="mono">{{.Devices}}</td><td class="mono">{{if .Env}}{{.Env}}{{else}}–{{end}}</td><td>{{if .Judged}}{{.Clean}}/{{.Binaries}}{{else}}–{{end}}</td><td>{{if not .Judged}}–{{else if .Failing}}{{.Failing}} ({{.Outcomes}}){{else}}none{{end}}</td></tr>
{{end}}</tbody>
</table></div>
<p>Each process loads every module for every visible device, as its HIP release does; failing counts the binaries some device does not load its own code from (outcomes: no-code, failed-by-other, foreign-code, aborted, unsupported).</p>
{{end}}{{if .Rules}}<h2>Findings per rule</h2>
<table id="rules"><thead><tr><th>rule</th><th>errors</th><th>warnings</th><th>notes</th></tr></thead><tbody>
{{range .Rules}}<tr><td>{{.ID}} {{.Name}}</td><td>{{.Errors}}</td><td>{{.Warnings}}</td><td>{{.Notes}}</td></tr>
{{end}}</tbody></table>
{{end}}<h2>Findings</h2>
{{if .States}}<p class="filter" id="filter">Show: {{range .States}}<label><input type="checkbox" data-state="{{.State}}"{{if .On}} checked{{end}}> {{.Label}} ({{.Count}})</label>{{end}} — <span id="shown">{{.Shown}}</span> shown</p>
{{else}}<p>No findings.</p>
{{end}}{{range .Findings}}<article class="finding {{.Level}}" id="{{.ID}}" data-state="{{.State}}" data-rule="{{.RuleID}}" data-level="{{.Level}}" data-fingerprint="{{.Fingerprint}}"{{if .Machine}} data-machine="{{.Machine}}"{{end}}{{if .HIP}} data-hip="{{.HIP}}"{{end}}{{if .Hidden}} hidden{{end}}>
<h3><span class="badge {{.Level}}">{{.Level}}</span> {{if .RuleURI}}<a href="{{.RuleURI}}">{{.RuleID}}</a>{{else}}{{.RuleID}}{{end}} {{.RuleName}} <code>{{.Path}}</code> <span class="badge">{{.State}}</span></h3>
<p class="msg">{{.Message}}</p>
{{if .Details}}<dl>{{range .Details}}<dt>{{.Key}}</dt><dd class="mono">{{.Value}}</dd>{{end}}</dl>{{end}}
{{if .Trace}}<details><summary>loader trace ({{len .Trace}} steps)</summary><pre>{{range .Trace}}{{.}}
{{end}}</pre></details>{{end}}
{{if .Fix}}<p class="fix"><b>Fix:</b> {{.Fix}}</p>{{end}}
<p>{{.CommandLabel}}:</p><pre class="cmd"><code>{{.Command}}</code></pre>
<p class="fp">fingerprint {{.Fingerprint}}</p>
</article>
{{end}}{{if .Notes}}<h2>Configuration</h2>
<ul id="notifications">{{range .Notes}}<li><span class="badge {{.Level}}">{{.Level}}</span> <code>{{.Source}}</code>: {{.Message}}</li>{{end}}</ul>
{{end}}<script>
(function () {
  var boxes = document.querySelectorAll("#filter input[data-state]");
  function apply() {
    var on = {};
    boxes.forEach(function (b) { on[b.getAttribute("data-state")] = b.checked; });
    var shown = 0;
    document.querySelectorAll("article.finding").forEach(function (a) {
      var show = on[a.getAttribute("data-state")] === true;
      a.hidden = !show;
      if (show) { shown++; }
    });
    var out = document.getElementById("shown");
    if (out) { out.textContent = String(shown); }
  }
  boxes.forEach(function (b) { b.addEventListener("change", apply); });
  apply();
  document.body.setAttribute("data-ready", "1");
})();
</script>
</body>
</html>
`
