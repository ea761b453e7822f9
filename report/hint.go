package report

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
)

// Rerun is how check was run, so that the ready-to-run commands of the
// text, markdown, GitHub and HTML formats (Hint) run from where check ran.
// JSON and SARIF keep it (Checked.Rerun), so a report read back (merge)
// prints the same commands. The zero value (a report written before it
// was kept) names the inputs INPUT, the policy as Checked names it, every
// loader explicitly and the release of a machine finding.
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
	// HIP is check's --hip as given ("" without): it replaced every
	// machine's release, so explain --machine needs it too.
	HIP string `json:"hip,omitempty"`
	// Loader is check's --loader as given ("" without): it replaced
	// every machine's loader.
	Loader string `json:"loader,omitempty"`
}

// Hint returns a ready-to-run command that shows more about f.
//
// A finding on a simulated machine (f.Machine names one) that names a
// kernel key gets `kpack-lint explain --machine NAME`, which traces every
// device of that machine's process: the run's policy (or --no-policy),
// --env flags, the machine (a policy machine's name, or the ISA list
// --machine gave), --hip with the finding's release when check's --hip
// replaced the machines' own, --loader with the finding's loader when
// check set one for every machine (--loader, or the target matrix made
// into machines), --binary as below, the first kernel range and the
// inputs.
//
// Other findings, when explain shows what they report
// (finding.Rule.Explains, for f's rule in r.Rules), get `kpack-lint
// explain` with the run's policy (Rerun.Policy, else Checked.Policy;
// --no-policy without one, so explain does not find another), variant,
// --env flags, one agent per processor of the finding (the first of each,
// so a root cause joined across processors is explained on each), the
// loader, --hip with the finding's release when it is not the newest
// (explain's default), --binary when the finding's file is a host binary
// the kernel keys do not name (a copy, a moved library), its first
// kernel range as the finding prints it and the run's inputs
// (Rerun.Inputs, else INPUT), after "--" when an operand starts with
// "-"; the rest `kpack-lint rules ID`. Arguments are shell-quoted where
// needed, one word each.
func Hint(r Run, f finding.Finding) string {
	k := r.Checked
	if k == nil {
		k = &Checked{}
	}
	pol := r.Rerun.Policy
	if pol == "" && k.Policy != nil {
		pol = *k.Policy
	}
	if f.Machine != nil && f.Machine.Machine != "" && len(f.Kernels) > 0 {
		return machineHint(r, k, pol, f)
	}
	if rule, ok := r.rule(f.RuleID); !ok || !rule.Explains(f) {
		return "kpack-lint rules " + f.RuleID
	}
	args := []string{"kpack-lint", "explain"}
	args = append(args, policyArgs(k, pol, true)...)
	args = append(args, envArgs(r, k)...)
	switch {
	case len(f.Agents) > 0:
		for _, a := range onePerProcessor(f.Agents) {
			args = append(args, "--agent", a)
		}
	case pol == "" && len(k.Agents) > 0:
		args = append(args, "--agent", k.Agents[0])
	case pol == "":
		return "kpack-lint rules " + f.RuleID
	}
	if loader := cmp.Or(f.Loader, k.Loader); loader != "" && loader != explainLoader(r, pol) {
		args = append(args, "--loader", loader)
	}
	rel := k.HIP
	if f.Machine != nil && f.Machine.HIP != "" {
		rel = f.Machine.HIP
	}
	if rel != "" && rel != finding.NewestHIP {
		args = append(args, "--hip", rel)
	}
	return command(append(args, keyArgs(r, f)...))
}

// machineHint is Hint for a finding on a simulated machine: explain
// --machine, which shows what each device of the machine's process gets.
func machineHint(r Run, k *Checked, pol string, f finding.Finding) string {
	args := []string{"kpack-lint", "explain"}
	args = append(args, policyArgs(k, pol, false)...)
	args = append(args, envArgs(r, k)...)
	args = append(args, "--machine", f.Machine.Machine)
	old := r.Rerun.Inputs == nil // a report that does not say how check ran: name the release and loader
	if f.Machine.HIP != "" && (old || r.Rerun.HIP != "") {
		args = append(args, "--hip", f.Machine.HIP)
	}
	if f.Loader != "" && (old || r.Rerun.Loader != "" || fromMatrix(k, f.Machine.Machine)) {
		args = append(args, "--loader", f.Loader)
	}
	return command(append(args, keyArgs(r, f)...))
}

// fromMatrix reports whether a machine may be one check made of a target
// matrix agent (machine variables in --env and no machine given): one
// device named by the agent's ISA, whose loader is the matrix's.
func fromMatrix(k *Checked, name string) bool {
	return slices.Contains(k.Agents, name)
}

// policyArgs are the policy flags of an explain command: --policy (and
// --variant, when withVariant) or --no-policy.
func policyArgs(k *Checked, pol string, withVariant bool) []string {
	if pol == "" {
		return []string{"--no-policy"}
	}
	args := []string{"--policy", pol}
	if withVariant && k.Variant != "" {
		args = append(args, "--variant", k.Variant)
	}
	return args
}

// envArgs are check's --env flags (Checked.Env for a report that does not
// say how check ran).
func envArgs(r Run, k *Checked) []string {
	env := r.Rerun.Env
	if r.Rerun.Inputs == nil {
		env = k.Env
	}
	var args []string
	for _, e := range env {
		args = append(args, "--env", e)
	}
	return args
}

// keyArgs are the end of an explain command: --binary when f's file is a
// host binary its kernel keys do not name, f's first kernel range and the
// run's inputs, after "--" when one of those operands starts with "-"
// (explain would take it for a flag).
func keyArgs(r Run, f finding.Finding) []string {
	var args []string
	key := finding.FirstKernelRange(f.Kernels)
	name := key[:max(strings.LastIndexByte(key, '#'), 0)]
	embedded := strings.HasSuffix(name, strings.TrimSuffix(finding.EmbeddedMark, "#")) // the key names its binary
	if name != "" && !embedded && !finding.NamesFile(name, f.Location.Path) && f.Location.Input != finding.PolicyInput && !finding.IsArchiveName(f.Location.Path) {
		args = append(args, "--binary", f.Location.Path) // a copy or a moved library: explain the binary the finding is about
	}
	inputs := r.Rerun.Inputs
	if len(inputs) == 0 {
		inputs = []string{"INPUT"}
	}
	operands := append([]string{key}, inputs...)
	if slices.ContainsFunc(operands, func(o string) bool { return strings.HasPrefix(o, "-") }) {
		args = append(args, "--") // an input named -rf stays an operand
	}
	return append(args, operands...)
}

// onePerProcessor keeps the first agent ISA of each processor, in order
// (gfx90a:sramecc+:xnack+, gfx90a:sramecc-:xnack+, gfx942:sramecc+:xnack+
// gives the first and the last), at most finding.MaxListed.
func onePerProcessor(agents []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range agents {
		p, _, _ := strings.Cut(a, ":")
		if seen[p] || len(out) == finding.MaxListed {
			continue
		}
		seen[p] = true
		out = append(out, a)
	}
	return out
}

// command joins args, shell-quoted where needed.
func command(args []string) string {
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

// shellQuote makes s one word of a POSIX shell command line (POSIX.1-2024
// Shell Command Language §2.2.2: inside single quotes every character is
// literal but the single quote, written '\”): as it is when it holds only
// plain path and target-ID characters and starts with none that a shell
// gives a meaning at a word's start ('#' a comment, '=' zsh's path
// expansion, '~' the home folder), else single-quoted. A "##[" is written
// "##”[" (the same word; "##vso[" "##vso”["), so escape.Lines, which keeps the runner's
// ##[command] syntax out of the reports, leaves the command as it is.
// azureWord finds "##vso[" (any case), written "##vso”[" in a command.
var azureWord = regexp.MustCompile(`(##[vV][sS][oO])\[`)

func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:+#=,@%", r))
	}) && s[0] != '#' && s[0] != '=' {
		return s
	}
	return "'" + azureWord.ReplaceAllString(strings.ReplaceAll(strings.ReplaceAll(s, "'", `'\''`), "##[", "##''["), "$1''[") + "'"
}
