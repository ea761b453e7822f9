package cli

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/rules"
)

// DefaultPolicy is the policy file name kpack-lint looks for.
const DefaultPolicy = "policies.yaml"

// findPolicy returns the policy file to read: --policy; else policies.yaml
// in the working directory; else policies.yaml next to the first INPUT (in
// it, for a directory) or in one of its parents up to the repository root
// (the first folder with a .git entry). Without a repository root above
// the input only the input's own folder is looked at, so a stray file
// higher up is never picked. "" means no policy.
func findPolicy(flag string, noPolicy bool, inputs []string) string {
	switch {
	case noPolicy:
		return ""
	case flag != "":
		return flag
	case isFile(DefaultPolicy):
		return DefaultPolicy
	case len(inputs) == 0:
		return ""
	}
	start, err := filepath.Abs(inputs[0])
	if err != nil {
		return ""
	}
	if st, err := os.Stat(start); err != nil || !st.IsDir() {
		start = filepath.Dir(start)
	}
	dirs := []string{start}
	for d := start; ; {
		if exists(filepath.Join(d, ".git")) {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			dirs = dirs[:1] // no repository root: only next to the input
			break
		}
		d = parent
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		if p := filepath.Join(d, DefaultPolicy); isFile(p) {
			return relToWD(p)
		}
	}
	return ""
}

// relToWD writes p relative to the working directory when it can, so
// reports name the file as the user would type it.
func relToWD(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil {
		return rel
	}
	return p
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// loadPolicy reads the policy findPolicy names; "" gives no policy (the
// targets then come from --target or the archives).
func loadPolicy(p string) (*policy.Policy, error) {
	if p == "" {
		return nil, nil
	}
	pol, err := policy.Load(p)
	if err != nil {
		if _, ok := err.(*policy.Error); ok {
			return nil, err
		}
		return nil, fmt.Errorf("policy: %w", err)
	}
	if err := knownRules(pol, pol.Waivers); err != nil {
		return nil, err
	}
	pol.SetPath(displayPath(pol.Path)) // never put machine paths into reports
	return pol, nil
}

// knownRules rejects rules.<ID> entries and waivers for rules that do not
// exist, as unknown keys elsewhere in the policy are rejected.
func knownRules(p *policy.Policy, ws []policy.Waiver) error {
	var ids []string
	for _, r := range rules.All() {
		ids = append(ids, r.ID)
	}
	for _, id := range slices.Sorted(maps.Keys(p.Rules)) {
		if _, ok := rules.ByID(id); !ok {
			return p.Errorf("rules."+id, "no such rule%s (see kpack-lint rules)", policy.DidYouMean(id, ids))
		}
	}
	for i, w := range ws {
		if _, ok := rules.ByID(w.Rule); w.Rule != "" && !ok {
			return fmt.Errorf("%s: waivers[%d].rule: no such rule %q%s (see kpack-lint rules)", w.Source, i, w.Rule, policy.DidYouMean(w.Rule, ids))
		}
	}
	return nil
}
