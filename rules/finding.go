package rules

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

// Rank orders levels: error 3, warning 2, note 1, none 0.
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

// Rule is the documentation and default level of one check. The registry,
// `kpack-lint rules`, the README rule table and SARIF tool.driver.rules all
// read these values.
type Rule struct {
	ID      string // stable ID, e.g. "KPL001"
	Name    string // kebab-case name, e.g. "unreachable-kernel"
	Title   string // one line, SARIF shortDescription
	Text    string // full description: what the rule sees and why it matters
	Help    string // how to fix it
	HelpURI string // where the rule is documented
	Level   Level  // default level
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
	RuleID     string
	Level      Level // effective level after the policy
	Message    string
	Location   Location
	Related    []Location // other files involved (e.g. the shadowing archive)
	Kernels    []string   // kernel keys "name#co_index"
	Agents     []string   // agent ISAs, e.g. "gfx950:sramecc+:xnack+"
	Group      string     // kpack group, "" when none applies
	Loader     string     // "legacy" or "fallthrough", "" when none applies
	KpackError string     // e.g. "KPACK_ERROR_KERNEL_NOT_FOUND", "" when none
	// HIPError is what HIP reports for the failed load on the device
	// (hip.ErrInvalidImage, hip.ErrNoBinaryForGpu, hip.Aborted), and
	// HIPEffect says in words what the user sees; "" when no load applies.
	HIPError  string
	HIPEffect string
	Trace     []string // ordered loader trace lines, may be empty
	Subject   string   // logical subject (group, kernel, agent...) hashed into the fingerprint

	// Kernel-database findings (KPL013): the library ("rocBLAS"), what the
	// failure does to the program ("aborts", "crashes", "fails later",
	// "not checked", "slows down") and the files it fails to open, sorted,
	// at most MaxMissing of them; MissingTotal counts them all (equal to
	// len(Missing) unless the list was cut). Empty for other rules.
	Library      string
	Effect       string
	Missing      []string
	MissingTotal int

	// Set after the rules ran: by the nightly gate (baseline, waivers), or
	// when a finding is read back from a report (merge, baseline).
	Fingerprint string       // "" means the hash of RuleID and Subject (report.Fingerprint)
	Baseline    string       // SARIF baselineState "new", "unchanged" or "absent"; "" without a baseline
	Suppression *Suppression // the waiver that matches the finding, nil when none
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
