// Package report writes the findings of one kpack-lint run in one of several
// formats: SARIF 2.1.0 (for GitHub code scanning and other SARIF viewers),
// a golangci-lint-like text format for terminals, a plain JSON format, GitHub
// workflow annotations and a markdown job summary; it reads JSON and SARIF
// reports back (baseline, merge), and writes explain's and explain-db's
// output (Explanation, DBExplanation). It knows findings only through the
// finding vocabulary: nothing here parses inputs or simulates.
//
// Every reporter is deterministic: the same Run gives the same bytes. No
// reporter reads the clock, the working directory or the environment, and
// none writes the input paths given on the command line: files are named by
// their slash-separated path inside their input only.
//
// A finding whose Level is "none" (a rule turned off by the policy) is not
// written by any reporter and is not counted in any summary. A finding whose
// Level is empty gets the default level of its rule.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// Run describes one check run: everything a reporter needs besides the
// findings themselves.
type Run struct {
	ToolName       string // "kpack-lint"
	ToolVersion    string // e.g. "0.3.1"; pinned in golden files
	InformationURI string // e.g. "https://github.com/rocm-tools/kpack-lint"

	// Rules holds every rule, in ID order. SARIF writes all of them into
	// tool.driver.rules; every finding must name one of them.
	Rules []finding.Rule

	// Inputs names the inputs in command-line order, as Checked.Inputs
	// does (lint.InputLabel: the path given, a base name when absolute). Reporters
	// use their number to name uriBaseIds and label paths, and SARIF
	// describes each base ID with the input's name.
	Inputs []string

	// Findings are already sorted by the caller; reporters keep the order.
	Findings []finding.Finding

	// FileSize, when set, returns the size in bytes of a file named by a
	// location (ok false when unknown). SARIF then gives a finding about a
	// whole file (Region nil) the region {byteOffset: 0, byteLength: size}
	// and lists each artifact's length; without it such a region is
	// {byteOffset: 0} and lengths are -1 (unknown). Other formats ignore it.
	FileSize func(input int, path string) (size int64, ok bool)

	// Checked states what the run checked: the text header, JSON
	// "checked" and SARIF invocations[0].properties. nil writes none.
	Checked *Checked
	// Inventory is what the archives hold per kpack group and target
	// (JSON "inventory", SARIF run.properties.inventory); a later run
	// reads it back as its baseline (KPL012).
	Inventory []finding.InventoryItem
	// Matrix is the simulated load matrix per group and policy target
	// (JSON "matrix", SARIF run.properties.matrix, the markdown summary).
	Matrix []finding.Cell
	// Machines is the verdict of each simulated machine on the binaries
	// (JSON "machineVerdicts", SARIF run.properties.machineVerdicts, a
	// text header line and a markdown table per machine, GitHub notices),
	// in the order of Checked.Machines.
	Machines []finding.MachineVerdict
	// Notifications are messages about the configuration, such as unused
	// or expired waivers (SARIF toolConfigurationNotifications).
	Notifications []Notification
	// FailOnBaseline makes findings unchanged since the baseline count
	// for the exit code, the annotations and the summary's failing count.
	FailOnBaseline bool
	// FailOn is the lowest level that fails the gate (check --fail-on;
	// "" is error): every summary leads with the findings that count
	// for the exit code at that level (JSON summary.failing).
	FailOn finding.Level
	// PathPrefix is put before every input path in SARIF URIs and GitHub
	// annotations (check --path-prefix), mapping build paths to
	// repository paths for code scanning.
	PathPrefix string
	// Rerun is how check was run, for the ready-to-run explain commands
	// (text, markdown, GitHub annotations); see Hint.
	Rerun Rerun
	// Color writes ANSI colours in the text format (a terminal without
	// NO_COLOR).
	Color bool
	// NewOnly leaves the findings unchanged since the baseline out of the
	// text and HTML listings (they are counted; check --new-only).
	// MaxPerRule caps the findings of one rule the text report shows
	// (0: all; check --max-per-rule, DefaultMaxPerRule). JSON, SARIF and
	// the counts of every format keep every finding.
	NewOnly    bool
	MaxPerRule int
}

// Checked is what one run checked. Paths are as the user gave or the tool
// found them, relative (an absolute policy path is reduced to its base name).
type Checked struct {
	Inputs       []string `json:"inputs"`            // base names of the inputs, in order
	Policy       *string  `json:"policy"`            // policy file, null when none
	Variant      string   `json:"variant,omitempty"` // "" without a policy variant
	Loader       string   `json:"loader"`            // loader the gate judges by
	Targets      []string `json:"targets"`
	TargetSource string   `json:"targetSource"` // "the asan variant", "--target", "the archives' gfx_arches"
	Agents       []string `json:"agents"`       // simulated agent ISAs
	Shard        string   `json:"shard,omitempty"`
	Baseline     string   `json:"baseline,omitempty"`
	Waivers      string   `json:"waivers,omitempty"` // where waivers came from, when any
	PathPrefix   string   `json:"pathPrefix,omitempty"`
	// Families are the TheRock target families the targets were given as
	// (--target gfx94X-dcgpu), each with the processors it stands for;
	// Targets holds those processors. Omitted when none was.
	Families []TargetFamily `json:"families,omitempty"`
	// Env is the loader and kernel-database environment the run
	// simulated (the policy's env: and --env, the flag winning), as
	// KEY=VALUE sorted by key; nil when none was set.
	Env []string `json:"env,omitempty"`
	// Deep is set by check --deep.
	Deep bool `json:"deep,omitempty"`
	// MaxKernelLoss is --max-kernel-loss in percent; nil without a
	// baseline (KPL012 needs one).
	MaxKernelLoss *float64 `json:"maxKernelLoss,omitempty"`
	// HIP is the HIP release the target matrix's agents are judged by
	// (--hip, default newest), each the only device of its process; ""
	// in reports that predate it.
	HIP string `json:"hip,omitempty"`
	// Machines are the simulated machines (policy machines:, --machine):
	// devices, release, environment and what each process kind sees.
	Machines []finding.MachineInfo `json:"machines,omitempty"`
	// PolicySource says how the policy was chosen: "--policy", "found in
	// the working directory" (or next to the input, or in a parent),
	// "--no-policy", or "none found: no policies.yaml in ..."; "" in
	// reports written before it was stated.
	PolicySource string `json:"policySource,omitempty"`
	// Rerun is how check was run (Run.Rerun), for the commands of a report
	// read back; nil in older reports. Shards may differ in it (merge
	// takes the first's).
	Rerun *Rerun `json:"rerun,omitempty"`
}

// TargetFamily is one TheRock target family a run's targets named:
// {"name": "gfx94X-dcgpu", "processors": ["gfx942"]}.
type TargetFamily struct {
	Name       string   `json:"name"`
	Processors []string `json:"processors"`
}

// Notification is a message about the run's configuration: level "note"
// or "warning", Source "policies.yaml:31" (a line of the policy or waiver
// file), Kind e.g. "unused-waiver", "expired-waiver".
type Notification struct {
	Level   finding.Level `json:"level"`
	Kind    string        `json:"kind"`
	Message string        `json:"message"`
	Source  string        `json:"source,omitempty"`
}

// Format is one report format: its name (--format, FORMAT=PATH), the
// file-name endings that choose it (FormatFromPath, matched without
// case, the longest first), and its writer. formats is the one table the
// command line's help, shell completion and -o parsing read (Formats,
// FormatSuffixes): a new format is one row.
type Format struct {
	Name     string
	Suffixes []string
	write    func(io.Writer, Run) error
}

// formats are the report formats, in the order to show them to users.
var formats = []Format{
	{Name: "text", Suffixes: []string{".txt", ".text"}, write: WriteText},
	{Name: "json", Suffixes: []string{".json"}, write: WriteJSON},
	{Name: "sarif", Suffixes: []string{".sarif", ".sarif.json"}, write: WriteSARIF},
	{Name: "github", write: WriteGitHub},
	{Name: "markdown", Suffixes: []string{".md", ".markdown"}, write: WriteMarkdown},
	{Name: "html", Suffixes: []string{".html", ".htm"}, write: WriteHTML},
}

// Formats lists the names Write accepts, in the order to show them to users.
func Formats() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.Name
	}
	return out
}

// FormatSuffixes lists the file-name ending of each format that has one
// (its first: .txt, .json, .sarif, .md, .html), in Formats order, for
// help texts.
func FormatSuffixes() []string {
	var out []string
	for _, f := range formats {
		if len(f.Suffixes) > 0 {
			out = append(out, f.Suffixes[0])
		}
	}
	return out
}

// FormatFromPath infers a format from a file name's ending (Format.Suffixes,
// case-insensitive; the longest that matches wins, so .sarif.json is
// SARIF, not JSON); ok is false for other names.
func FormatFromPath(p string) (string, bool) {
	p = strings.ToLower(p)
	name, longest := "", 0
	for _, f := range formats {
		for _, suf := range f.Suffixes {
			if len(suf) > longest && strings.HasSuffix(p, suf) {
				name, longest = f.Name, len(suf)
			}
		}
	}
	return name, longest > 0
}

// Write writes r to w in the named format (see Formats). An unknown format
// is an error and writes nothing.
func Write(w io.Writer, format string, r Run) error {
	for _, f := range formats {
		if f.Name == format {
			return f.write(w, r)
		}
	}
	return fmt.Errorf("report: unknown format %q (want one of %s)", format, strings.Join(Formats(), ", "))
}

// counts holds the number of open findings per level (see Open).
type counts struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Note    int `json:"note"`
}

// gateCounts holds what a baseline and waivers did to the findings.
type gateCounts struct {
	New       int `json:"new"`
	Grown     int `json:"grown,omitempty"` // of New: findings new because they cover more than the baseline's (finding.Growth)
	Unchanged int `json:"unchanged"`
	Absent    int `json:"absent"`
	Waived    int `json:"waived"`
	Failing   int `json:"failing"` // open findings that count for the exit code (any level)
}

func (c counts) total() int { return c.Error + c.Warning + c.Note }

func (c *counts) add(l finding.Level) {
	switch l {
	case finding.LevelError:
		c.Error++
	case finding.LevelWarning:
		c.Warning++
	case finding.LevelNote:
		c.Note++
	}
}

// entry is one finding to write, with what every reporter derives from it.
type entry struct {
	f         finding.Finding
	level     finding.Level // effective level, never "none" or ""
	rule      finding.Rule
	ruleIndex int
	open      bool // see Open
	gating    bool // see Gating
}

// gate counts the baseline states and waivers of entries.
func gate(entries []entry) gateCounts {
	var g gateCounts
	for _, e := range entries {
		switch {
		case e.f.Baseline == finding.BaselineAbsent:
			g.Absent++
			continue
		case e.f.Suppressed():
			g.Waived++
			continue
		case e.f.Baseline == finding.BaselineUnchanged:
			g.Unchanged++
		default:
			g.New++
			if e.f.Grown != nil {
				g.Grown++
			}
		}
		if e.gating {
			g.Failing++
		}
	}
	return g
}

// prepare checks r and returns the findings to write (Level "none" dropped,
// empty levels defaulted) with their rules, and the counts of open findings
// per level. It fails on a duplicate rule ID, a finding naming an unknown
// rule, an unknown level, or a location that is not a non-empty relative
// slash path into a known input.
func prepare(r Run) ([]entry, counts, error) {
	byID, err := ruleIndexes(r.Rules)
	if err != nil {
		return nil, counts{}, err
	}
	for i, n := range r.Notifications {
		if err := checkNotification(n); err != nil {
			return nil, counts{}, fmt.Errorf("report: notification %d: %w", i, err)
		}
	}
	var out []entry
	var c counts
	for i, f := range r.Findings {
		e, keep, err := prepareOne(r, byID, f)
		if err != nil {
			return nil, counts{}, fmt.Errorf("report: finding %d (%s): %w", i, f.RuleID, err)
		}
		if keep {
			e.open, e.gating = finding.Open(f), finding.Gating(f, r.FailOnBaseline)
			out = append(out, e)
			if e.open {
				c.add(e.level)
			}
		}
	}
	return out, c, nil
}

func prepareOne(r Run, byID map[string]int, f finding.Finding) (entry, bool, error) {
	idx, ok := byID[f.RuleID]
	if !ok {
		return entry{}, false, fmt.Errorf("unknown rule ID %q", f.RuleID)
	}
	rule := r.Rules[idx]
	level := rule.LevelOf(f)
	if level == finding.LevelNone {
		return entry{}, false, nil
	}
	if level.Rank() == 0 {
		return entry{}, false, fmt.Errorf("unknown level %q", level)
	}
	if f.Baseline != "" && !slices.Contains(baselineStates, f.Baseline) {
		return entry{}, false, vocabError("baseline state", f.Baseline, baselineStates)
	}
	if err := checkLocation(r, f.Location); err != nil {
		return entry{}, false, err
	}
	for _, rel := range f.Related {
		if err := checkLocation(r, rel); err != nil {
			return entry{}, false, fmt.Errorf("related location: %w", err)
		}
	}
	return entry{f: f, level: level, rule: rule, ruleIndex: idx}, true, nil
}

func ruleIndexes(rs []finding.Rule) (map[string]int, error) {
	byID := make(map[string]int, len(rs))
	for i, rule := range rs {
		if _, dup := byID[rule.ID]; dup {
			return nil, fmt.Errorf("report: duplicate rule ID %q", rule.ID)
		}
		byID[rule.ID] = i
	}
	return byID, nil
}

// checkLocation rejects locations that would put a machine path into the
// output, name an input that does not exist, or leave their input (a ".."
// part: with --path-prefix a shard's ../../.github/workflows/ci.yml would
// name a file of the repository outside the build).
func checkLocation(r Run, l finding.Location) error {
	if (l.Input < 0 && l.Input != finding.PolicyInput) || (len(r.Inputs) > 0 && l.Input >= len(r.Inputs)) {
		return fmt.Errorf("input index %d out of range (%d inputs)", l.Input, len(r.Inputs))
	}
	if l.Path == "" {
		return fmt.Errorf("no path: every finding and related location names a file")
	}
	if strings.HasPrefix(l.Path, "/") {
		return fmt.Errorf("path %q is absolute, want a path relative to its input", l.Path)
	}
	if l.Input != finding.PolicyInput && slices.Contains(strings.Split(l.Path, "/"), "..") {
		// --path-prefix build/dist and ../../.github/workflows/ci.yml would
		// put an alert on a file outside the build
		return fmt.Errorf("path %q leaves its input (a \"..\" part), want a path inside it", l.Path)
	}
	if l.Region != nil && (l.Region.Offset < 0 || l.Region.Length < 0) {
		return fmt.Errorf("negative region %d+%d in %q", l.Region.Offset, l.Region.Length, l.Path)
	}
	return nil
}

// escapeAll applies escape.String to each line (nil stays nil). Messages
// and trace lines are escaped in every format: they carry names read from
// the inputs, and JSON leaves DEL, C1 and bidi controls raw.
func escapeAll(lines []string) []string {
	if lines == nil {
		return nil
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = escape.String(l)
	}
	return out
}

// encodeJSON writes v as 2-space indented JSON with a final newline, without
// escaping <, > and & (messages and help texts are read by people), and
// with no workflow command (inertJSON).
func encodeJSON(w io.Writer, v any) error {
	return writeIndentedJSON(w, v, false)
}

// writeIndentedJSON writes v as 2-space indented JSON (escaping <, > and &
// when escapeHTML), through inertJSON, in one Write (json.Encoder writes
// the encoded value once).
func writeIndentedJSON(w io.Writer, v any, escapeHTML bool) error {
	enc := json.NewEncoder(inertJSONWriter{w})
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(escapeHTML)
	return enc.Encode(v)
}

// inertJSONWriter passes each Write of JSON text through inertJSON.
type inertJSONWriter struct{ w io.Writer }

func (j inertJSONWriter) Write(p []byte) (int, error) {
	if _, err := j.w.Write(inertJSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// inertJSON writes every "##[" and "##vso[" of JSON text (only a string
// can hold one) with its [ as \u005b, the same string, so a report printed in a CI log is no
// legacy workflow command (escape.Lines); no line of indented JSON starts
// with "::".
func inertJSON(data []byte) []byte {
	if bytes.Contains(data, []byte("##[")) {
		data = bytes.ReplaceAll(data, []byte("##["), []byte(`##\u005b`))
	}
	if azureCommand.Match(data) { // Azure Pipelines' ##vso[ logging commands
		data = azureCommand.ReplaceAll(data, []byte(`$1\u005b`))
	}
	return data
}

// azureCommand finds "##vso[" in any case.
var azureCommand = regexp.MustCompile(`(##[vV][sS][oO])\[`)
