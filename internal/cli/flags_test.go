package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyErrorsFailSafe: a policy that would make the gate check less
// than it says exits 2 with one line naming the file, line, key and the
// closest valid value, never a Go type name.
func TestPolicyErrorsFailSafe(t *testing.T) {
	seed := filepath.Join(scenario("seed-fft-asan"), "tree")
	dir := t.TempDir()
	cases := []struct {
		name, policy string
		args         []string
		want         []string
	}{
		{"invalid target", "version: 1\nvariants:\n  release:\n    targets: [gfx950, gfx905]\n", nil,
			[]string{"policies.yaml:4: variants.release.targets[1]", `invalid target ID "gfx905"`, "did you mean gfx904?"}},
		{"transform yields invalid", "version: 1\nvariants:\n  asan:\n    targets: [gfx950, gfx1100]\n    transform:\n      - {match: \"^(gfx.*)$\", replace: \"${1}:xnack+\"}\n", nil,
			[]string{"policies.yaml:6: variants.asan.transform[0]", `turns target gfx1100 into "gfx1100:xnack+"`, "did you mean gfx1100?"}},
		{"group typo", "version: 1\nvariants:\n  asan: {targets: [gfx950]}\ngroups:\n  fft_tset:\n    owners: {rocFFT: [\"bin/rocfft*\"]}\n", nil,
			[]string{"policies.yaml:5: groups.fft_tset", "no kpack group fft_tset in the inputs", "did you mean fft_test?"}},
		{"owner glob matches nothing", "version: 1\nvariants:\n  asan: {targets: [gfx950]}\ngroups:\n  fft_test:\n    owners:\n      rocFFT: [\"bin/rocfft*\"]\n      hipFFT: [\"bin/hipfft_test\"]\n", nil,
			[]string{"policies.yaml:8: groups.fft_test.owners.hipFFT[0]", `"bin/hipfft_test" matches no host binary or kernel name of kpack group fft_test`, "did you mean bin/hipfft-test?"}},
		{"unknown variant", "version: 1\nvariants:\n  asan: {targets: [gfx950]}\n  release: {targets: [gfx950]}\n", []string{"--variant", "asna"},
			[]string{"--variant asna: not declared in", "policies.yaml:2", "did you mean asan?"}},
		{"key typo", "version: 1\nvariants:\n  asan:\n    targest: [gfx950]\n", nil,
			[]string{"policies.yaml:4: variants.asan.targest", `unknown key "targest"`, "did you mean targets?"}},
		{"wrong shape", "version: 1\nvariants:\n  asan:\n    targets: gfx950\n", nil,
			[]string{"policies.yaml:4: variants.asan.targets: want a list"}},
		{"rule typo", "version: 1\nvariants:\n  asan: {targets: [gfx950]}\nrules:\n  KPL03: {level: off}\n", nil,
			[]string{"policies.yaml:5: rules.KPL03: no such rule", "did you mean KPL003?"}},
		{"loader typo", "version: 1\nloader: legacyy\nvariants:\n  asan: {targets: [gfx950]}\n", nil,
			[]string{"policies.yaml:2: loader", "did you mean legacy?"}},
		{"waiver without reason", "version: 1\nvariants:\n  asan: {targets: [gfx950]}\nwaivers:\n  - {rule: KPL003, group: fft_test}\n", nil,
			[]string{"policies.yaml:5: waivers[0]: reason is required"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sub := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			os.MkdirAll(sub, 0o755)
			pol := writeFile(t, filepath.Join(sub, "policies.yaml"), c.policy)
			code, stdout, stderr := run(t, append(append([]string{"check", "--policy", pol}, c.args...), seed)...)
			if code != ExitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, stdout %d bytes, stderr %q; want exit 2 and one line", code, len(stdout), stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if strings.Contains(stderr, "policy.") || strings.Contains(stderr, "[]string") || strings.Contains(stderr, "!!") {
				t.Errorf("stderr names a Go type or YAML tag: %q", stderr)
			}
		})
	}
	// Generic targets are valid target IDs in a policy.
	generic := writeFile(t, filepath.Join(dir, "generic.yaml"), "version: 1\nvariants:\n  release: {targets: [gfx9-4-generic, gfx11-generic, gfx950]}\n")
	if code, _, stderr := run(t, "check", "--policy", generic, seed); code == ExitUsage {
		t.Errorf("generic targets rejected: %s", stderr)
	}
}

// TestPolicyDiscovery: --policy, else ./policies.yaml, else in a parent
// of the first INPUT up to the repository root; a policies.yaml inside the
// input is refused (exit 2); every report says which it was.
func TestPolicyDiscovery(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	tree := filepath.Join(root, "out", "dist")
	writeBuild(t, tree, map[string]int{"blas_lib": 2}, []string{"gfx942"}, nil)
	writeFile(t, filepath.Join(root, "policies.yaml"), "version: 1\nvariants:\n  nightly: {targets: [gfx942]}\n")
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	elsewhere := t.TempDir()
	os.Chdir(elsewhere)

	_, out, stderr := run(t, "check", tree)
	if !strings.Contains(out, "variant nightly") {
		t.Errorf("policy at the repository root not found: %s %s", out, stderr)
	}
	inside := writeFile(t, filepath.Join(tree, "policies.yaml"), "version: 1\nvariants:\n  next-to-input: {targets: [gfx942]}\n")
	code, out, stderr := run(t, "check", tree)
	if want := "kpack-lint: " + inside + " is in the input " + tree + ": policy discovery never reads a policy the checked build carries"; code != ExitUsage || !strings.HasPrefix(stderr, want) || out != "" {
		t.Errorf("a policy inside the input: exit %d, want 2 and %q:\n%s%s", code, want, out, stderr)
	}
	if code, out, _ := run(t, "check", "--policy", inside, tree); code != ExitOK || !strings.Contains(out, "variant next-to-input") {
		t.Errorf("--policy does not read the input's policy: exit %d\n%s", code, out)
	}
	writeFile(t, filepath.Join(elsewhere, "policies.yaml"), "version: 1\nvariants:\n  cwd: {targets: [gfx942]}\n")
	if _, out, _ := run(t, "check", tree); !strings.Contains(out, "variant cwd") {
		t.Errorf("./policies.yaml not preferred: %s", out)
	}
	if _, out, _ := run(t, "check", "--no-policy", tree); !strings.Contains(out, "with no policy") {
		t.Errorf("--no-policy: %s", out)
	}

	// Without a repository root no parent is looked in.
	os.Remove(filepath.Join(elsewhere, "policies.yaml"))
	os.Remove(inside)
	os.Remove(filepath.Join(root, ".git"))
	t.Setenv("HOME", filepath.Dir(root))
	_, out, _ = run(t, "check", tree)
	if want := "with no policy (none found: no policies.yaml in the working directory; the input dist is outside any repository and the workspace, " +
		"so its parents are not looked in (pass --policy FILE))"; !strings.Contains(out, want) {
		t.Errorf("a policy above a non-repository was picked, or the report does not say: %s", out)
	}
	for _, format := range []string{"json", "markdown", "github", "html"} {
		if _, out, _ := run(t, "check", "--format", format, tree); !strings.Contains(out, "none found: no policies.yaml in the working directory") {
			t.Errorf("%s does not say no policy was found:\n%s", format, out)
		}
	}
}

// `check .` in dist/ of a project that is not a repository does not look
// in ../policies.yaml (any earlier step could have written it there);
// in a repository it finds it, and the report says where.
func TestPolicyAboveDistWithoutVCS(t *testing.T) {
	proj := t.TempDir()
	dist := filepath.Join(proj, "dist")
	writeBuild(t, dist, map[string]int{"blas_lib": 2}, []string{"gfx942"}, nil)
	writeFile(t, filepath.Join(proj, "policies.yaml"), "version: 1\nvariants:\n  release: {targets: [gfx942]}\n")
	t.Setenv("HOME", filepath.Dir(proj))
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dist)
	code, out, stderr := run(t, "check", ".")
	if code != ExitOK || !strings.Contains(out, "with no policy (none found: no policies.yaml in the working directory; the input . is outside any repository") {
		t.Errorf("exit %d\n%s%s", code, out, stderr)
	}
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	code, out, stderr = run(t, "check", ".")
	if code != ExitOK || !strings.Contains(out, "with policy ../policies.yaml (found in .., a parent of the input .), variant release") {
		t.Errorf("in a repository: exit %d\n%s%s", code, out, stderr)
	}
}

// TestOutputFlags: several reports in one run, the format from FORMAT= or
// the extension, text on stdout unless --quiet.
func TestOutputFlags(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(testdata, "example")
	pol := filepath.Join(testdata, "..", "policies.yaml")
	p := func(n string) string { return filepath.Join(dir, n) }
	code, stdout, stderr := run(t, "check", "--policy", pol, "--variant", "asan",
		"--output", "sarif="+p("a.out"), "--output", "json="+p("b.out"), "-o", p("c.sarif"), "-o", p("d.json"), "-o", p("e.md"), "-o", "github="+p("f.txt"), ex)
	if code != ExitFindings || !strings.HasPrefix(stdout, "kpack-lint 0.1.0-dev: checked ../../testdata/example") {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	starts := map[string]string{"a.out": `"version": "2.1.0"`, "b.out": `"tool": {`, "c.sarif": `"version": "2.1.0"`, "d.json": `"tool": {`,
		"e.md": "## ❌ kpack-lint: 2 errors fail the gate; 3 findings", "f.txt": "::error file=bin/rocfft-test,title=KPL003 stripped-feature-flags::"}
	for name, want := range starts {
		data, err := os.ReadFile(p(name))
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s: %v, does not hold %q", name, err, want)
		}
	}
	if _, stdout, _ := run(t, "check", "--policy", pol, "-q", "-o", p("q.sarif"), ex); stdout != "" {
		t.Errorf("--quiet printed %q", stdout)
	}
	if _, stdout, _ := run(t, "check", "--policy", pol, "-o", "json=-", ex); !strings.HasPrefix(stdout, "{") {
		t.Errorf("json=- did not go to stdout: %.40q", stdout)
	}
	if _, stdout, _ := run(t, "check", "--policy", pol, "--format", "markdown", ex); !strings.HasPrefix(stdout, "## ") {
		t.Errorf("--format markdown: %.40q", stdout)
	}
	code, stdout, stderr = run(t, "check", "--policy", pol, "-o", p("report.out"), ex)
	if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "cannot tell the format") {
		t.Errorf("unknown extension: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(p("report.out")); err == nil {
		t.Error("a report was written despite the usage error")
	}
	run(t, "check", "--policy", pol, "--path-prefix", "build/dist/", "-q", "-o", p("prefixed.sarif"), "-o", "github="+p("prefixed.txt"), ex)
	sarif, _ := os.ReadFile(p("prefixed.sarif"))
	gh, _ := os.ReadFile(p("prefixed.txt"))
	if !strings.Contains(string(sarif), `"uri": "build/dist/bin/rocfft-test"`) || !strings.Contains(string(gh), "file=build/dist/bin/") {
		t.Errorf("--path-prefix not applied")
	}
}

func TestColorAndNoColor(t *testing.T) {
	ex := filepath.Join(testdata, "example")
	pol := filepath.Join(testdata, "..", "policies.yaml")
	if _, out, _ := run(t, "check", "--policy", pol, "--color", "always", ex); !strings.Contains(out, "\x1b[1;31merror\x1b[0m") {
		t.Errorf("--color always wrote no colour")
	}
	t.Setenv("NO_COLOR", "1")
	if _, out, _ := run(t, "check", "--policy", pol, ex); strings.Contains(out, "\x1b[") {
		t.Errorf("colour without a terminal")
	}
}

func TestEverydayCommands(t *testing.T) {
	code, out, _ := run(t, "rules", "KPL003")
	if code != ExitOK || !strings.Contains(out, "KPL003 stripped-feature-flags (default level: error)") || !strings.Contains(out, "Fix: Build the project for the full target ID") {
		t.Errorf("rules KPL003: exit %d\n%s", code, out)
	}
	if code, _, stderr := run(t, "rules", "KPL03"); code != ExitUsage || !strings.Contains(stderr, "did you mean KPL003?") {
		t.Errorf("rules KPL03: exit %d %q", code, stderr)
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		if code, out, _ := run(t, "completion", sh); code != ExitOK || !strings.Contains(out, "kpack-lint") {
			t.Errorf("completion %s: exit %d", sh, code)
		}
	}
	// Pointed at a subdirectory of an install tree, the fix names the root.
	_, out, _ = run(t, "check", "--no-policy", filepath.Join(testdata, "example", "bin"))
	if !strings.Contains(out, "pass its root (kpack-lint check ../../testdata/example) instead") {
		t.Errorf("no root hint:\n%s", out)
	}
	// explain takes the key as findings print it, and the variant's agents.
	seed := scenario("seed-fft-asan")
	code, out, stderr := run(t, "explain", "--policy", filepath.Join(seed, "policies.yaml"), "--variant", "asan", "--loader", "legacy", "bin/rocfft-test#0-2", filepath.Join(seed, "tree"))
	if code != ExitFindings || strings.Count(out, "kpack: load bin/rocfft-test#") != 6 || !strings.Contains(out, "arch_list [gfx950:sramecc-:xnack+, gfx9-4-generic:sramecc-:xnack+]") {
		t.Errorf("explain range x variant agents: exit %d %s\n%s", code, stderr, out)
	}
}
