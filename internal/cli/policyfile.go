package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
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
	// none says, when discovery found no file, where it looked ("no
	// policies.yaml in the working directory, next to the input dist or
	// in its parents up to the home folder"); "" otherwise. noPolicy is
	// set by --no-policy.
	none     string
	noPolicy bool
	// reported is found or none as reports state them: the input by
	// displayPath (no machine path).
	reported string
	// skipped are the policies.yaml files discovery met and did not
	// read, in the order met.
	skipped []skip
}

// describe is how the reports state the choice (report.Checked's
// PolicySource): "--policy", "found in the working directory", "--no-policy",
// or "none found: no policies.yaml in ...". No machine path: folders are
// named relative to the working directory or by what they are.
func (s policySource) describe() string {
	switch {
	case s.noPolicy:
		return "--no-policy"
	case s.found != "":
		return "found " + cmp.Or(s.reported, s.found) + s.skips()
	case s.path != "":
		return "--policy"
	case s.none != "":
		return "none found: " + cmp.Or(s.reported, s.none) + s.skips()
	}
	return ""
}

// skips words the skipped files for describe: "; skipped ../policies.yaml:
// .. is writable by every user".
func (s policySource) skips() string {
	var b strings.Builder
	for _, k := range s.skipped {
		b.WriteString("; skipped " + k.reported)
	}
	return b.String()
}

// warn writes a line to w for each policies.yaml discovery skipped, with
// the flag that reads it anyway.
func (s policySource) warn(w io.Writer) {
	for _, k := range s.skipped {
		anyway := ""
		if k.regular {
			anyway = " (pass --policy " + k.file + " to read it anyway)"
		}
		fmt.Fprintf(w, "kpack-lint: warning: skipped %s\n", escape.String(k.file+": "+k.reason+anyway))
	}
}

// vcsMarkers are the entries that make a folder a repository root.
var vcsMarkers = []string{".git", ".hg", ".svn", ".jj"}

// findPolicy returns the policy file to read: --policy; else policies.yaml
// in the working directory; else policies.yaml next to the first INPUT (in
// it, for a directory) or in one of its parents: up to the repository
// root (the first folder with a .git, .hg, .svn or .jj entry), or, with
// none above the input, up to the home folder or the filesystem root,
// which are not looked in themselves (a policy describes one build; the
// home folder holds many). A discovered policies.yaml that another user
// could have planted, or that is not a regular file, is skipped and
// listed (policyTrust.check). A zero path means no policy.
func findPolicy(flag string, noPolicy bool, inputs []string) policySource {
	switch {
	case noPolicy:
		return policySource{noPolicy: true}
	case flag != "":
		return policySource{path: flag}
	}
	tr := policyTrustFor()
	wd, _ := os.Getwd()
	var skips []skip
	found, why := tr.check(".")
	switch {
	case why != nil:
		skips = append(skips, skip{file: filepath.Join(wd, DefaultPolicy), reason: why(wd), regular: found,
			reported: DefaultPolicy + " in the working directory: " + why("the working directory")})
	case found:
		return policySource{path: DefaultPolicy, found: "in the working directory"}
	}
	if len(inputs) == 0 {
		return policySource{none: "no " + DefaultPolicy + " in the working directory", skipped: skips}
	}
	start, err := filepath.Abs(inputs[0])
	if err != nil {
		return policySource{skipped: skips}
	}
	if st, err := os.Stat(start); err != nil || !st.IsDir() {
		start = filepath.Dir(start)
	}
	dirs, stop := policyDirs(start)
	if src, ok := inParents(tr, dirs, wd, inputs[0], &skips); ok {
		return src
	}
	none := func(in string) string {
		if len(dirs) > 1 {
			return fmt.Sprintf("no %s in the working directory, next to the input %s or in its parents up to %s", DefaultPolicy, in, stop)
		}
		return fmt.Sprintf("no %s in the working directory or next to the input %s", DefaultPolicy, in)
	}
	return policySource{none: none(inputs[0]), reported: none(displayPath(inputs[0])), skipped: skips}
}

// inParents looks for policies.yaml in dirs (the input's folder, then
// its parents) but wd, looked in first; skips gets those not read.
func inParents(tr policyTrust, dirs []string, wd, input string, skips *[]skip) (policySource, bool) {
	for i, d := range dirs {
		if d == wd {
			continue
		}
		found, why := tr.check(d)
		name := reportedFolder(i, d, input)
		if why != nil {
			file := filepath.ToSlash(filepath.Join(name, DefaultPolicy))
			if strings.HasPrefix(name, "the ") {
				file = DefaultPolicy + " in " + name
			}
			*skips = append(*skips, skip{file: filepath.Join(d, DefaultPolicy), reason: why(d), regular: found, reported: file + ": " + why(name)})
			continue
		}
		if !found {
			continue
		}
		src := policySource{path: relToWD(filepath.Join(d, DefaultPolicy)), skipped: *skips}
		if i == 0 {
			src.found, src.reported = "next to the input "+input, "next to the input "+displayPath(input)
		} else {
			src.found = fmt.Sprintf("in %s, a parent of the input %s", relToWD(d), input)
			src.reported = fmt.Sprintf("in %s, a parent of the input %s", name, displayPath(input))
		}
		return src, true
	}
	return policySource{}, false
}

// reportedFolder names folder d, i levels above the input's folder, as
// reports name it: relative to the working directory, or, for an absolute
// input, by its place ("the input's folder", "the folder 2 levels up"):
// reports name no machine path.
func reportedFolder(i int, d, input string) string {
	dir := relToWD(d)
	if !filepath.IsAbs(input) && !filepath.IsAbs(dir) {
		return filepath.ToSlash(dir)
	}
	switch i {
	case 0:
		return "the input's folder"
	case 1:
		return "the folder 1 level up"
	}
	return fmt.Sprintf("the folder %d levels up", i)
}

// policyDirs lists the folders policy discovery looks in, from start up,
// and says where it stopped: "the repository root" (included), "the home
// folder" or "the filesystem root" (neither included).
// The input's own folder is always looked in.
func policyDirs(start string) ([]string, string) {
	home, _ := os.UserHomeDir()
	dirs := []string{start}
	for d := start; ; {
		for _, m := range vcsMarkers {
			if exists(filepath.Join(d, m)) {
				return dirs, "the repository root"
			}
		}
		parent := filepath.Dir(d)
		switch {
		case parent == d || parent == filepath.Dir(parent):
			return dirs, "the filesystem root"
		case home != "" && parent == home:
			return dirs, "the home folder"
		}
		d = parent
		dirs = append(dirs, d)
	}
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
	pol, err := policy.LoadWith(src.path, policyOptions())
	if err != nil {
		var pe *policy.Error
		if !errors.As(err, &pe) {
			err = fmt.Errorf("policy: %w", err)
		}
		return nil, src.wrap(err)
	}
	pol.SetPath(displayPath(pol.Path)) // never put machine paths into reports
	return pol, nil
}

// policyOptions checks policy and waiver files against the rules that
// exist, and a policy's machines as the simulation reads them
// (lint.CheckPolicyMachine), so every error of the file is reported at
// once: a rules.<ID> entry or waiver for another rule is an error, as
// unknown keys elsewhere are.
func policyOptions() policy.Options {
	var ids []string
	for _, r := range rules.All() {
		ids = append(ids, r.ID)
	}
	return policy.Options{RuleIDs: ids, Machine: lint.CheckPolicyMachine}
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
