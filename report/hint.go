package report

import (
	"strings"

	"github.com/rocm-tools/kpack-lint/rules"
)

// hintKey labels Hint's command in the text format.
func hintKey(f rules.Finding) string {
	if explainable(f) {
		return "explain"
	}
	return "rule"
}

// explainable reports whether `kpack-lint explain` can show f: it names
// kernels the kpack loader loads (orphans are loaded by nobody, an
// untransformed binary's kernels (KPL011) and embedded wrappers never go
// through kpack).
func explainable(f rules.Finding) bool {
	return len(f.Kernels) > 0 && f.RuleID != "KPL008" && f.RuleID != "KPL011" &&
		!strings.Contains(f.Kernels[0], rules.EmbeddedMark)
}

// Hint returns a ready-to-run command that shows more about f: for a
// finding about kernels, `kpack-lint explain` with the run's policy and
// variant, the finding's first agent and loader, its first kernel range as
// the finding prints it and the run's inputs (Run.ExplainInputs, else
// INPUT); for others `kpack-lint rules ID`. Arguments are shell-quoted
// where needed.
func Hint(r Run, f rules.Finding) string {
	if !explainable(f) {
		return "kpack-lint rules " + f.RuleID
	}
	args := []string{"kpack-lint", "explain"}
	k := r.Checked
	if k == nil {
		k = &Checked{}
	}
	if k.Policy != nil {
		args = append(args, "--policy", *k.Policy)
		if k.Variant != "" {
			args = append(args, "--variant", k.Variant)
		}
	}
	switch {
	case len(f.Agents) > 0:
		args = append(args, "--agent", f.Agents[0])
	case k.Policy == nil && len(k.Agents) > 0:
		args = append(args, "--agent", k.Agents[0])
	case k.Policy == nil:
		return "kpack-lint rules " + f.RuleID
	}
	loader := f.Loader
	if loader == "" {
		loader = k.Loader
	}
	if loader != "" && loader != "fallthrough" {
		args = append(args, "--loader", loader)
	}
	key, _, _ := strings.Cut(strings.Fields(rules.CompactKernels(f.Kernels))[0], ",")
	args = append(args, key)
	inputs := r.ExplainInputs
	if len(inputs) == 0 {
		inputs = []string{"INPUT"}
	}
	args = append(args, inputs...)
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	return strings.Join(args, " ")
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
