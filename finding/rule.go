package finding

// Rule documents one rule: what the reporters write about it (SARIF
// tool.driver.rules, the text and JSON names), `kpack-lint rules` prints
// and the README rule table lists. The rules package declares one per rule
// and builds its registry from them.
type Rule struct {
	ID      string // stable ID, e.g. "KPL001"
	Name    string // kebab-case name, e.g. "unreachable-kernel"
	Title   string // one line, SARIF shortDescription
	Text    string // full description: what the rule sees and why it matters
	Help    string // how to fix it
	HelpURI string // where the rule is documented
	Level   Level  // default level; "" is SARIF's default, warning
	// EmbeddedHelp is how to fix a finding about embedded device code
	// (an embedded wrapper's key, IsEmbeddedKey), which HIP loads from
	// the binary's offload bundle, not through kpack; "" when Help
	// applies to it too (HelpFor).
	EmbeddedHelp string
	// Explain says what `kpack-lint explain` shows of the rule's
	// findings, so the reports print a command that shows the cause.
	Explain Explain
}

// Explain says what `kpack-lint explain` shows of a rule's findings.
type Explain int

const (
	// ExplainNothing: a finding's cause is not one kpack load, so the
	// reports point to `kpack-lint rules ID` instead.
	ExplainNothing Explain = iota
	// ExplainLoad: a finding reports a load that fails; explain shows it
	// for the finding's first kernel key.
	ExplainLoad
	// ExplainServed: a finding that names agents reports a code object
	// the loader serves to them and HIP rejects; explain shows that load.
	ExplainServed
)

// DefaultLevel is the rule's level when neither the policy nor the finding
// sets one: Level, or warning (SARIF's default) when unset.
func (r Rule) DefaultLevel() Level {
	if r.Level == "" {
		return LevelWarning
	}
	return r.Level
}

// LevelOf is the level f of this rule is reported at: f.Level, else the
// rule's default level.
func (r Rule) LevelOf(f Finding) Level {
	if f.Level != "" {
		return f.Level
	}
	return r.DefaultLevel()
}

// HelpFor is how to fix f, a finding of this rule: EmbeddedHelp when f's
// first kernel key is an embedded wrapper's and the rule has one, else
// Help.
func (r Rule) HelpFor(f Finding) string {
	if r.EmbeddedHelp != "" && len(f.Kernels) > 0 && IsEmbeddedKey(f.Kernels[0]) {
		return r.EmbeddedHelp
	}
	return r.Help
}

// Explains reports whether `kpack-lint explain` shows what f, a finding of
// this rule, reports: the rule explains its loads (Explain) and f names a
// kernel key, with agents for ExplainServed; for an embedded wrapper's key
// (which HIP loads without kpack: explain shows the bundle entry it picks
// per agent) f must name agents.
func (r Rule) Explains(f Finding) bool {
	if len(f.Kernels) == 0 {
		return false
	}
	if IsEmbeddedKey(f.Kernels[0]) {
		return r.Explain != ExplainNothing && len(f.Agents) > 0
	}
	switch r.Explain {
	case ExplainLoad:
		return true
	case ExplainServed:
		return len(f.Agents) > 0
	}
	return false
}
