package cli

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/rules"
)

// DefaultPolicy is the policy file name kpack-lint looks for.
const DefaultPolicy = "policies.yaml"

// policySource is the policy file a command reads and how it was chosen.
type policySource struct {
	// path is --policy as given, or the file discovery found, relative
	// to the working directory; "" for no policy.
	path string
	// found says where discovery found it ("in the working directory",
	// "next to the input dist/bin", "in dist, a parent of the input
	// dist/bin"); "" when --policy named it.
	found string
}

// findPolicy returns the policy file to read: --policy; else policies.yaml
// in the working directory; else policies.yaml next to the first INPUT (in
// it, for a directory) or in one of its parents up to the repository root
// (the first folder with a .git entry). Without a repository root above
// the input only the input's own folder is looked at, so a stray file
// higher up is never picked. A zero path means no policy.
func findPolicy(flag string, noPolicy bool, inputs []string) policySource {
	switch {
	case noPolicy:
		return policySource{}
	case flag != "":
		return policySource{path: flag}
	case isFile(DefaultPolicy):
		return policySource{path: DefaultPolicy, found: "in the working directory"}
	case len(inputs) == 0:
		return policySource{}
	}
	start, err := filepath.Abs(inputs[0])
	if err != nil {
		return policySource{}
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
	for i, d := range dirs {
		if p := filepath.Join(d, DefaultPolicy); isFile(p) {
			found := "next to the input " + inputs[0]
			if i > 0 {
				found = fmt.Sprintf("in %s, a parent of the input %s", relToWD(d), inputs[0])
			}
			return policySource{path: relToWD(p), found: found}
		}
	}
	return policySource{}
}

// wrap adds to a policy error where a discovered policy came from and how
// to choose another: a file found next to the inputs was not asked for.
func (s policySource) wrap(err error) error {
	if err == nil || s.found == "" {
		return err
	}
	return fmt.Errorf("%w (%s was found %s: pass --policy FILE for another, or --no-policy for none)", err, s.path, s.found)
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

// loadPolicy reads the policy findPolicy names; no path gives no policy
// (the targets then come from --target or the archives). Errors name the
// file as given, and where discovery found it; reports name it by
// displayPath.
func loadPolicy(src policySource) (*policy.Policy, error) {
	if src.path == "" {
		return nil, nil
	}
	pol, err := policy.Load(src.path)
	if err != nil {
		if _, ok := err.(*policy.Error); !ok {
			err = fmt.Errorf("policy: %w", err)
		}
		return nil, src.wrap(err)
	}
	if err := knownRules(pol, pol.Waivers); err != nil {
		return nil, src.wrap(err)
	}
	pol.SetPath(displayPath(pol.Path)) // never put machine paths into reports
	return pol, nil
}

// knownRules rejects rules.<ID> entries and waivers for rules that do not
// exist, as unknown keys elsewhere in the policy are rejected.
func knownRules(p *policy.Policy, ws []finding.Waiver) error {
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

// policyMismatch words a policy that does not describe the build given
// (lint.CheckPolicy: a group or owner glob that matches nothing): which
// folder to pass when the input looks like a subdirectory of an install
// tree (the error's hint), else that a partial build wants a policy of its
// own or --no-policy, and where a discovered policy came from.
func policyMismatch(src policySource, pm *lint.PolicyMismatchError) error {
	err := pm.Err
	if pm.Hint != "" {
		err = fmt.Errorf("%w; %s", err, pm.Hint)
	} else if src.found == "" {
		err = fmt.Errorf("%w (a policy describes one build: check a partial build with a policy of its own, or --no-policy)", err)
	}
	return src.wrap(err)
}
