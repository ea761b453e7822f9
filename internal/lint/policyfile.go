package lint

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim"
)

// DefaultPolicy is the policy file name kpack-lint looks for.
const DefaultPolicy = "policies.yaml"

// PolicySource is the policy file a command reads and how it was chosen.
type PolicySource struct {
	// path is --policy as given, or the file discovery found, relative
	// to the working directory; "" for no policy.
	path string
	// found says where discovery found it ("in the working directory",
	// "in dist, a parent of the input dist/bin"); "" when --policy named
	// it.
	found string
	// none says, when discovery found no file, where it looked ("no
	// policies.yaml in the working directory or in the parents of the
	// input dist up to the repository root"); "" otherwise. noPolicy is
	// set by --no-policy.
	none     string
	noPolicy bool
	// reported is found or none as reports state them: the input by
	// fsutil.DisplayPath (no machine path).
	reported string
	// skipped are the policies.yaml files discovery met and did not
	// read, in the order met.
	skipped []skip
	// refused, when not nil, is why discovery stopped without a policy:
	// it met a policies.yaml inside an input (or next to an input file),
	// which it never reads (LoadPolicy returns it: exit 2).
	refused error
}

// Path is the policy file to read: --policy as given, or the file
// discovery found, relative to the working directory; "" for none.
func (s PolicySource) Path() string { return s.path }

// Found says where discovery found the policy ("in the working
// directory", "in dist, a parent of the input dist/bin"); "" when
// --policy named it or there is none.
func (s PolicySource) Found() string { return s.found }

// Describe is how the reports state the choice (report.Checked's
// PolicySource): "--policy", "found in the working directory", "--no-policy",
// or "none found: no policies.yaml in ...". No machine path: folders are
// named relative to the working directory or by what they are.
func (s PolicySource) Describe() string {
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

// skips words the skipped files for Describe: "; skipped ../policies.yaml:
// .. is writable by every user".
func (s PolicySource) skips() string {
	var b strings.Builder
	for _, k := range s.skipped {
		b.WriteString("; skipped " + k.reported)
	}
	return b.String()
}

// Warn writes a line to w for each policies.yaml discovery skipped, with
// the flag that reads it anyway.
func (s PolicySource) Warn(w io.Writer) {
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

// workspaceEnv names the folder CI checks a repository out to; policy
// discovery stops there as at a repository root.
const workspaceEnv = "GITHUB_WORKSPACE"

// FindPolicy returns the policy file to read:
//  1. --policy FILE, which always wins (--no-policy: none);
//  2. else policies.yaml in the working directory;
//  3. else policies.yaml in a parent of the first INPUT's folder, up to
//     the repository root (the nearest folder with a .git, .hg, .svn or
//     .jj entry that is not inside an input) or the workspace root
//     ($GITHUB_WORKSPACE), whichever comes first. An input outside both
//     has no parent looked in; neither are the home folder and the
//     filesystem root.
//
// A policies.yaml inside an INPUT directory (the input itself or below
// it) or in the folder of an INPUT file is never read by discovery: the
// checked build carries it (a build step may have written it) and its
// waivers would apply to the build's own findings. Meeting one before any
// other is refused (s.refused: exit 2 naming the file, --policy and
// --no-policy). A discovered policies.yaml that another user could have
// planted, or that is not a regular file, is skipped and listed
// (policyTrust.check). A zero path means no policy.
func FindPolicy(flag string, noPolicy bool, inputs []string) PolicySource {
	switch {
	case noPolicy:
		return PolicySource{noPolicy: true}
	case flag != "":
		return PolicySource{path: flag}
	}
	tr := policyTrustFor()
	wd, _ := os.Getwd()
	in := newInputTrees(inputs)
	var skips []skip
	found, why := tr.check(".")
	switch {
	case why != nil:
		skips = append(skips, skip{file: filepath.Join(wd, DefaultPolicy), reason: why(wd), regular: found,
			reported: DefaultPolicy + " in the working directory: " + why("the working directory")})
	case found:
		if where, inside := in.holds(wd); inside {
			return PolicySource{refused: refusal(DefaultPolicy, where), skipped: skips}
		}
		return PolicySource{path: DefaultPolicy, found: "in the working directory"}
	}
	if len(inputs) == 0 {
		return PolicySource{none: "no " + DefaultPolicy + " in the working directory", skipped: skips}
	}
	start, err := filepath.Abs(inputs[0])
	if err != nil {
		return PolicySource{skipped: skips}
	}
	if st, err := os.Stat(start); err != nil || !st.IsDir() {
		start = filepath.Dir(start)
	}
	dirs, stop := policyDirs(start, in)
	if src, ok := inParents(tr, dirs, wd, inputs[0], in, &skips); ok {
		return src
	}
	none := func(input string) string {
		if stop == "" {
			return fmt.Sprintf("no %s in the working directory; the input %s is outside any repository and the workspace, "+
				"so its parents are not looked in (pass --policy FILE)", DefaultPolicy, input)
		}
		return fmt.Sprintf("no %s in the working directory or in the parents of the input %s up to %s", DefaultPolicy, input, stop)
	}
	return PolicySource{none: none(inputs[0]), reported: none(fsutil.DisplayPath(inputs[0])), skipped: skips}
}

// refusal is the error for a policies.yaml discovery met inside an
// input: file as the user would type it, where says which input holds it.
func refusal(file, where string) error {
	file = filepath.ToSlash(file)
	return errs.Usagef("%s is %s: policy discovery never reads a policy the checked build carries "+
		"(a build step may have written it, and its waivers would apply to the build's own findings); "+
		"pass --policy %s to use it anyway, --policy FILE for the repository's own, or --no-policy for none",
		escape.String(file), escape.String(where), escape.String(file))
}

// inParents looks for policies.yaml in dirs (the input's folder, then
// its parents) but wd, looked in first; skips gets those not read. One
// inside an input ends the search with src.refused.
func inParents(tr policyTrust, dirs []string, wd, input string, in inputTrees, skips *[]skip) (PolicySource, bool) {
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
		if where, inside := in.holds(d); inside {
			return PolicySource{refused: refusal(nameLike(filepath.Join(d, DefaultPolicy), input), where), skipped: *skips}, true
		}
		src := PolicySource{path: fsutil.RelToWD(filepath.Join(d, DefaultPolicy)), skipped: *skips}
		src.found = fmt.Sprintf("in %s, a parent of the input %s", fsutil.RelToWD(d), input)
		src.reported = fmt.Sprintf("in %s, a parent of the input %s", name, fsutil.DisplayPath(input))
		return src, true
	}
	return PolicySource{}, false
}

// nameLike names file p for a message as the input is given: relative to
// the working directory for a relative input, else absolute.
func nameLike(p, input string) string {
	if filepath.IsAbs(input) {
		return p
	}
	return fsutil.RelToWD(p)
}

// inputTrees are the folders the inputs make up, as real paths: a
// directory INPUT with everything below it, and the folder an INPUT file
// lies in (only that folder).
type inputTrees struct {
	dirs  []string // real path of each directory input
	files []string // real path of the folder of each file input
	given []string // the input as given, per dirs then files entry
}

func newInputTrees(inputs []string) inputTrees {
	var t inputTrees
	var fileInputs []string
	for _, in := range inputs {
		abs, err := filepath.Abs(in)
		if err != nil {
			continue
		}
		st, err := os.Stat(abs)
		switch {
		case err != nil:
			continue
		case st.IsDir():
			t.dirs = append(t.dirs, realPath(abs))
			t.given = append(t.given, in)
		default:
			t.files = append(t.files, realPath(filepath.Dir(abs)))
			fileInputs = append(fileInputs, in)
		}
	}
	t.given = append(t.given, fileInputs...)
	return t
}

// holds reports whether folder d is inside a directory input (or is
// one), or the folder of a file input, and words which: "inside the input
// dist", "next to the input dist/x.whl".
func (t inputTrees) holds(d string) (string, bool) {
	r := realPath(d)
	for i, root := range t.dirs {
		if r == root {
			return "in the input " + t.given[i], true
		}
		if rel, err := filepath.Rel(root, r); err == nil && filepath.IsLocal(rel) {
			return "inside the input " + t.given[i], true
		}
	}
	for i, dir := range t.files {
		if r == dir {
			return "next to the input " + t.given[len(t.dirs)+i], true
		}
	}
	return "", false
}

// realPath resolves symlinks in an absolute path, or keeps it as it is.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// reportedFolder names folder d, i levels above the input's folder, as
// reports name it: relative to the working directory, or, for an absolute
// input, by its place ("the input's folder", "the folder 2 levels up"):
// reports name no machine path.
func reportedFolder(i int, d, input string) string {
	dir := fsutil.RelToWD(d)
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

// policyDirs lists the folders policy discovery looks in, from start (the
// first input's folder, always looked in so that a policy there is
// refused, not passed over) up to the repository root or the workspace
// root, both included, and says which it stopped at: "the repository
// root" or "the workspace root". Without either above start (the home
// folder or the filesystem root come first) it is start alone and stop
// is "". A repository marker inside an input does not count: a build
// cannot end discovery early by shipping a .git folder.
func policyDirs(start string, in inputTrees) ([]string, string) {
	home, _ := os.UserHomeDir()
	ws := os.Getenv(workspaceEnv)
	if ws != "" {
		if abs, err := filepath.Abs(ws); err == nil {
			ws = abs
		}
	}
	dirs := []string{start}
	for d := start; ; {
		switch {
		case ws != "" && d == ws:
			return dirs, "the workspace root"
		case isRepoRoot(d, in):
			return dirs, "the repository root"
		}
		parent := filepath.Dir(d)
		if parent == d || parent == filepath.Dir(parent) || (home != "" && parent == home) {
			return dirs[:1], ""
		}
		d = parent
		dirs = append(dirs, d)
	}
}

// isRepoRoot reports whether d holds a version-control marker and is not
// inside an input.
func isRepoRoot(d string, in inputTrees) bool {
	for _, m := range vcsMarkers {
		if exists(filepath.Join(d, m)) {
			_, inside := in.holds(d)
			return !inside
		}
	}
	return false
}

// Wrap adds to a policy error where a discovered policy came from and how
// to choose another: a file found next to the inputs was not asked for.
func (s PolicySource) Wrap(err error) error {
	if err == nil || s.found == "" {
		return err
	}
	return fmt.Errorf("%w (%s was found %s: pass --policy FILE for another, or --no-policy for none)", err, s.path, s.found)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// LoadPolicy reads the policy FindPolicy names; no path gives no policy
// (the targets then come from --target or the archives). Errors name the
// file as given, and where discovery found it; reports name it by
// fsutil.DisplayPath.
func LoadPolicy(src PolicySource) (*policy.Policy, error) {
	if src.refused != nil {
		return nil, src.refused
	}
	if src.path == "" {
		return nil, nil
	}
	pol, err := policy.LoadWith(src.path, PolicyOptions())
	if err != nil {
		var pe *policy.Error
		if !errors.As(err, &pe) {
			err = fmt.Errorf("policy: %w", err)
		}
		return nil, src.Wrap(err)
	}
	pol.SetPath(fsutil.DisplayPath(pol.Path)) // never put machine paths into reports
	return pol, nil
}

// PolicyOptions checks policy and waiver files against the rules that
// exist, and a policy's machines as the simulation reads them
// (sim.CheckPolicyMachine), so every error of the file is reported at
// once: a rules.<ID> entry or waiver for another rule is an error, as
// unknown keys elsewhere are.
func PolicyOptions() policy.Options {
	var ids []string
	for _, r := range rules.All() {
		ids = append(ids, r.ID)
	}
	return policy.Options{RuleIDs: ids, Machine: sim.CheckPolicyMachine}
}

// PolicyMismatch words a policy that does not describe the build given
// (CheckPolicy: a group or owner glob that matches nothing): which
// folder to pass when the input looks like a subdirectory of an install
// tree (the error's hint), else that a partial build wants a policy of its
// own or --no-policy, and where a discovered policy came from.
func PolicyMismatch(src PolicySource, pm *PolicyMismatchError) error {
	err := pm.Err
	if pm.Hint != "" {
		err = fmt.Errorf("%w; %s", err, pm.Hint)
	} else if src.found == "" {
		err = fmt.Errorf("%w (a policy describes one build: check a partial build with a policy of its own, or --no-policy)", err)
	}
	return src.Wrap(err)
}
