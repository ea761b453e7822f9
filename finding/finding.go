// Package finding is the vocabulary kpack-lint's results are written in:
// a Finding (one root cause, with its location, kernels and agents), its
// Level, the Rule documentation the reporters read, the fingerprint that
// identifies its cause across runs and the coverage key and Growth that
// tell what it covers beyond a baseline's, the one order findings are
// reported in, the
// gate that decides which count for the exit code (baseline states,
// waivers), and what a report carries besides findings (the inventory per
// kpack group and target, the simulated load matrix).
//
// It is a leaf: it imports only the standard library and internal/util,
// so the reporters and the gate, which import it, depend on nothing that
// parses inputs, reads policies or simulates.
package finding

// Level is a SARIF result level: "error", "warning", "note", or "none"
// (a rule turned off in the policy).
type Level string

// The levels a rule or finding can have, most severe first.
const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
	LevelNote    Level = "note"
	LevelNone    Level = "none"
)

// Rank orders levels: error 3, warning 2, note 1, none 0 (and 0 for a
// string that is no level).
func (l Level) Rank() int {
	switch l {
	case LevelError:
		return 3
	case LevelWarning:
		return 2
	case LevelNote:
		return 1
	}
	return 0
}

// Region is a byte range inside a file: the TOC of an archive or the
// .rocm_kpack_ref section of a host binary. Offset and Length are in bytes.
type Region struct {
	Offset int64
	Length int64
}

// PolicyInput is the Location.Input of findings about the policy file,
// whose Path is then relative to the working directory.
const PolicyInput = -1

// Location names a file inside one input. Path is slash-separated and
// relative to the input root (never a machine path); Input is the index of
// the input in the order given on the command line (0-based), or
// PolicyInput for the policy file.
type Location struct {
	Input  int
	Path   string
	Region *Region // nil when no byte range applies
}

// Finding is one result: one root cause, with every kernel key and agent ISA
// it affects. Kernels and Agents are sorted and hold one string each, even
// where Message shortens them to ranges.
type Finding struct {
	RuleID     string // the rule's ID (Rule.ID); set from the rule that produced it
	Level      Level  // effective level after the policy; "" is the rule's default (Rule.LevelOf)
	Message    string
	Location   Location
	Related    []Location // other files involved (e.g. the shadowing archive)
	Kernels    []string   // kernel keys "name#co_index"
	Agents     []string   // agent ISAs, e.g. "gfx950:sramecc+:xnack+"
	Targets    []string   // policy targets it concerns ("gfx950:xnack+"), in the run's order: every one a root cause spans
	Group      string     // kpack group, "" when none applies
	Loader     string     // "legacy" or "fallthrough" (a Loader), "" when none applies
	KpackError string     // e.g. "KPACK_ERROR_KERNEL_NOT_FOUND", "" when none
	// HIPError is what HIP reports for the failed load on the device
	// (hipErrorInvalidImage, hipErrorNoBinaryForGpu, or that the process
	// aborts), and HIPEffect says in words what the user sees; "" when no
	// load applies.
	HIPError  string
	HIPEffect string
	Trace     []string // ordered loader trace lines, may be empty
	// Subject is the logical subject hashed into the fingerprint: what the
	// rule says the defect is (group, binary, the archives' feature tags),
	// without positions and, for a cause that spans processors, without
	// the processors, agents and kernels it hits. Findings of one rule and
	// level with one Subject are one root cause, reported once
	// (rules.Rule.Cause).
	Subject string
	// Machine says which process the finding happens in and what the
	// user sees there (OnMachine); nil when no load applies.
	Machine *OnMachine

	// Kernel-database findings (KPL013): the library ("rocBLAS"), what the
	// failure does to the program ("aborts", "crashes", "fails later",
	// "not checked", "slows down") and the files it fails to open, sorted,
	// at most a bounded number of them; MissingTotal counts them all
	// (equal to len(Missing) unless the list was cut). Empty for other
	// rules.
	Library      string
	Effect       string
	Missing      []string
	MissingTotal int

	// Set after the rules ran: by the nightly gate (baseline, waivers), or
	// when a finding is read back from a report (merge, baseline).
	Fingerprint string       // "" means the hash of RuleID and Subject (see Fingerprint)
	Baseline    string       // SARIF baselineState "new", "unchanged" or "absent"; "" without a baseline
	Suppression *Suppression // the waiver that matches the finding, nil when none
	// Coverage is the coverage key (see Coverage): set by the gate (the
	// baseline's, or chained to it when the finding grew) or read back
	// from a report; "" means CoverageKey(f, "").
	Coverage string
	// Grown is what the finding covers that the baseline's finding with
	// its fingerprint did not (Baseline is then "new"); nil otherwise.
	Grown *Growth
}

// Baseline states (SARIF 2.1.0 result.baselineState).
const (
	BaselineNew       = "new"
	BaselineUnchanged = "unchanged"
	BaselineAbsent    = "absent" // in the baseline, not in this run
)

// Suppression is a waiver that matched a finding (policies.yaml waivers:
// or --waivers). An expired one no longer suppresses.
type Suppression struct {
	Justification string // the waiver's reason
	Source        string // where the waiver is written, "policies.yaml:31"
	Expires       string // YYYY-MM-DD, "" when it never expires
	Expired       bool   // the date has passed: the finding counts again
}

// Suppressed reports whether a waiver in force covers f.
func (f Finding) Suppressed() bool { return f.Suppression != nil && !f.Suppression.Expired }
