package report

import (
	"cmp"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
)

// Rerun is how check was run, so that the ready-to-run commands of the
// text, markdown, GitHub and HTML formats (Hint) run from where check ran.
// JSON and SARIF keep it (Checked.Rerun), so a report read back (merge)
// prints the same commands. The zero value (a report written before it
// was kept) names the inputs INPUT, the policy as Checked names it and
// every loader explicitly.
type Rerun struct {
	// Inputs are the inputs as the user can pass them again: as given
	// when relative, else relative to the working directory.
	Inputs []string `json:"inputs"`
	// Policy is the policy file the same way ("" when check read none).
	Policy string `json:"policy,omitempty"`
	// PolicyLoader is the policy's loader: ("" is fallthrough), which
	// explain uses unless --loader says otherwise.
	PolicyLoader string `json:"policyLoader,omitempty"`
	// Env holds check's --env KEY=VALUE flags, in the order given (the
	// policy's env: applies through --policy).
	Env []string `json:"env,omitempty"`
}

// Hint returns a ready-to-run command that shows more about f: when
// explain shows what f reports (finding.Rule.Explains, for f's rule in
// r.Rules), `kpack-lint explain` with the run's
// policy (Rerun.Policy, else Checked.Policy; --no-policy without one, so
// explain does not find another), variant, --env flags, the finding's
// first agent and loader, --binary when the finding's file is a host
// binary the kernel keys do not name (a copy, a moved library), its
// first kernel range as the finding prints it and the run's inputs
// (Rerun.Inputs, else INPUT); for others
// `kpack-lint rules ID`. Arguments are shell-quoted where needed.
func Hint(r Run, f finding.Finding) string {
	if rule, ok := r.rule(f.RuleID); !ok || !rule.Explains(f) {
		return "kpack-lint rules " + f.RuleID
	}
	args := []string{"kpack-lint", "explain"}
	k := r.Checked
	if k == nil {
		k = &Checked{}
	}
	pol := r.Rerun.Policy
	if pol == "" && k.Policy != nil {
		pol = *k.Policy
	}
	if pol != "" {
		args = append(args, "--policy", pol)
		if k.Variant != "" {
			args = append(args, "--variant", k.Variant)
		}
	} else {
		args = append(args, "--no-policy")
	}
	env := r.Rerun.Env
	if r.Rerun.Inputs == nil {
		env = k.Env
	}
	for _, e := range env {
		args = append(args, "--env", e)
	}
	switch {
	case len(f.Agents) > 0:
		args = append(args, "--agent", f.Agents[0])
	case pol == "" && len(k.Agents) > 0:
		args = append(args, "--agent", k.Agents[0])
	case pol == "":
		return "kpack-lint rules " + f.RuleID
	}
	if loader := cmp.Or(f.Loader, k.Loader); loader != "" && loader != explainLoader(r, pol) {
		args = append(args, "--loader", loader)
	}
	key, _, _ := strings.Cut(strings.Fields(finding.ShortKernels(f.Kernels))[0], ",")
	name := key[:max(strings.LastIndexByte(key, '#'), 0)]
	embedded := strings.HasSuffix(name, strings.TrimSuffix(finding.EmbeddedMark, "#")) // the key names its binary
	if name != "" && !embedded && !finding.NamesFile(name, f.Location.Path) && f.Location.Input != finding.PolicyInput && !finding.IsArchiveName(f.Location.Path) {
		args = append(args, "--binary", f.Location.Path) // a copy or a moved library: explain the binary the finding is about
	}
	args = append(args, key)
	inputs := r.Rerun.Inputs
	if len(inputs) == 0 {
		inputs = []string{"INPUT"}
	}
	args = append(args, inputs...)
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	return strings.Join(args, " ")
}

// rule returns the rule of r with the given ID.
func (r Run) rule(id string) (finding.Rule, bool) {
	for _, rule := range r.Rules {
		if rule.ID == id {
			return rule, true
		}
	}
	return finding.Rule{}, false
}

// explainLoader is the loader explain uses without --loader: the policy's
// when one is passed, else the default (finding.ParseLoader); "" when
// unknown (a read-back report with a policy), so Hint always names the
// loader.
func explainLoader(r Run, pol string) string {
	if pol != "" && r.Rerun.Inputs == nil {
		return ""
	}
	policyLoader := ""
	if pol != "" {
		policyLoader = r.Rerun.PolicyLoader
	}
	l, _ := finding.ParseLoader(policyLoader) // the policy's was checked when it was read
	return string(l)
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// path and target-ID characters.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:+#=,@%", r))
	}) && s[0] != '#' {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
