// Package report writes the findings of one kpack-lint run in one of several
// formats: SARIF 2.1.0 (for GitHub code scanning and other SARIF viewers),
// a golangci-lint-like text format for terminals, and a plain JSON format.
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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rocm-tools/kpack-lint/rules"
)

// Run describes one check run: everything a reporter needs besides the
// findings themselves.
type Run struct {
	ToolName       string // "kpack-lint"
	ToolVersion    string // e.g. "0.3.1"; pinned in golden files
	InformationURI string // e.g. "https://github.com/rocm-tools/kpack-lint"

	// Rules holds every rule, in ID order. SARIF writes all of them into
	// tool.driver.rules; every finding must name one of them.
	Rules []rules.Rule

	// Inputs holds the inputs as given on the command line. Reporters use
	// only their number (to name uriBaseIds and label paths), never their
	// text, so no machine path reaches the output.
	Inputs []string

	// Findings are already sorted by the caller; reporters keep the order.
	Findings []rules.Finding

	// FileSize, when set, returns the size in bytes of a file named by a
	// location (ok false when unknown). SARIF then gives a finding about a
	// whole file (Region nil) the region {byteOffset: 0, byteLength: size}
	// and lists each artifact's length; without it such a region is
	// {byteOffset: 0} and lengths are -1 (unknown). Other formats ignore it.
	FileSize func(input int, path string) (size int64, ok bool)
}

// Formats lists the names Write accepts, in the order to show them to users.
func Formats() []string {
	return []string{"text", "json", "sarif"}
}

// Write writes r to w in the named format: "sarif", "text" or "json".
// An unknown format is an error and writes nothing.
func Write(w io.Writer, format string, r Run) error {
	switch format {
	case "sarif":
		return WriteSARIF(w, r)
	case "text":
		return WriteText(w, r)
	case "json":
		return WriteJSON(w, r)
	}
	return fmt.Errorf("report: unknown format %q (want one of %s)", format, strings.Join(Formats(), ", "))
}

// Fingerprint identifies a finding across runs: the lowercase hex SHA-256 of
// RuleID, a NUL byte and Subject (the logical subject: group, kernel key,
// agent...). It never depends on positions, paths or the message, so moving
// or rewording a finding keeps its fingerprint. Findings of one rule with an
// empty Subject all share one fingerprint.
func Fingerprint(f rules.Finding) string {
	sum := sha256.Sum256([]byte(f.RuleID + "\x00" + f.Subject))
	return hex.EncodeToString(sum[:])
}

// counts holds the number of written findings per level.
type counts struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Note    int `json:"note"`
}

func (c counts) total() int { return c.Error + c.Warning + c.Note }

func (c *counts) add(l rules.Level) {
	switch l {
	case rules.LevelError:
		c.Error++
	case rules.LevelWarning:
		c.Warning++
	case rules.LevelNote:
		c.Note++
	}
}

// entry is one finding to write, with what every reporter derives from it.
type entry struct {
	f         rules.Finding
	level     rules.Level // effective level, never "none" or ""
	rule      rules.Rule
	ruleIndex int
}

// prepare checks r and returns the findings to write (Level "none" dropped,
// empty levels defaulted) with their rules, and the counts per level. It
// fails on a duplicate rule ID, a finding naming an unknown rule, an unknown
// level, or a location that is not a non-empty relative slash path into a
// known input.
func prepare(r Run) ([]entry, counts, error) {
	byID, err := ruleIndexes(r.Rules)
	if err != nil {
		return nil, counts{}, err
	}
	var out []entry
	var c counts
	for i, f := range r.Findings {
		e, keep, err := prepareOne(r, byID, f)
		if err != nil {
			return nil, counts{}, fmt.Errorf("report: finding %d (%s): %w", i, f.RuleID, err)
		}
		if keep {
			out = append(out, e)
			c.add(e.level)
		}
	}
	return out, c, nil
}

func prepareOne(r Run, byID map[string]int, f rules.Finding) (entry, bool, error) {
	idx, ok := byID[f.RuleID]
	if !ok {
		return entry{}, false, fmt.Errorf("unknown rule ID %q", f.RuleID)
	}
	rule := r.Rules[idx]
	level := f.Level
	if level == "" {
		level = rule.Level
	}
	if level == rules.LevelNone {
		return entry{}, false, nil
	}
	if level.Rank() == 0 {
		return entry{}, false, fmt.Errorf("unknown level %q", level)
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

func ruleIndexes(rs []rules.Rule) (map[string]int, error) {
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
// output or name an input that does not exist.
func checkLocation(r Run, l rules.Location) error {
	if (l.Input < 0 && l.Input != rules.PolicyInput) || (len(r.Inputs) > 0 && l.Input >= len(r.Inputs)) {
		return fmt.Errorf("input index %d out of range (%d inputs)", l.Input, len(r.Inputs))
	}
	if l.Path == "" {
		return fmt.Errorf("no path: every finding and related location names a file")
	}
	if strings.HasPrefix(l.Path, "/") {
		return fmt.Errorf("path %q is absolute, want a path relative to its input", l.Path)
	}
	if l.Region != nil && (l.Region.Offset < 0 || l.Region.Length < 0) {
		return fmt.Errorf("negative region %d+%d in %q", l.Region.Offset, l.Region.Length, l.Path)
	}
	return nil
}

// encodeJSON writes v as 2-space indented JSON with a final newline, without
// escaping <, > and & (messages and help texts are read by people).
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
