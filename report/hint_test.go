package report

import (
	"bytes"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// A finding about a copy (or a moved library) explains that binary:
// --binary names it when its kernel keys name another file; a binary
// under an install prefix the keys leave out needs none.
func TestHintNamesTheBinary(t *testing.T) {
	r := Run{Rules: testRules(), Checked: &Checked{}, Rerun: Rerun{Inputs: []string{"dist"}}}
	for path, want := range map[string]string{
		"lib64/libx.so":        "kpack-lint explain --no-policy --agent gfx1100 --binary lib64/libx.so lib/libx.so#0-2 dist",
		"lib/libx.so":          "kpack-lint explain --no-policy --agent gfx1100 lib/libx.so#0-2 dist",
		"opt/rocm/lib/libx.so": "kpack-lint explain --no-policy --agent gfx1100 lib/libx.so#0-2 dist",
	} {
		f := finding.Finding{RuleID: "KPL001", Location: finding.Location{Path: path}, Agents: []string{"gfx1100"}, Loader: "fallthrough",
			Kernels: []string{"lib/libx.so#0", "lib/libx.so#1", "lib/libx.so#2"}}
		if got := Hint(r, f); got != want {
			t.Errorf("%s:\n got %s\nwant %s", path, got, want)
		}
	}
}

// A finding on a machine explains that machine: --hip and --loader only
// when check set them for every machine (Rerun), both when the report
// does not say how check ran; KPL014 (which explain without --machine
// does not show) too. A matrix finding names a release other than the
// newest, and a root cause joined across processors one agent of each.
func TestHintMachinesAndReleases(t *testing.T) {
	rules := append(testRules(), finding.Rule{ID: "KPL014", Name: "cross-device-failure"})
	pol := "ci/policies.yaml"
	onApu := finding.Finding{RuleID: "KPL014", Location: finding.Location{Path: "lib/libx.so"}, Agents: []string{"gfx1100"}, Loader: "legacy",
		Kernels: []string{"lib/libx.so#0", "lib/libx.so#1"}, Machine: &finding.OnMachine{Machine: "apu", HIP: "7.12", Devices: []int{1}}}
	matrix := finding.Finding{RuleID: "KPL001", Location: finding.Location{Path: "lib/libx.so"}, Loader: "fallthrough",
		Agents:  []string{"gfx90a:sramecc+:xnack+", "gfx90a:sramecc-:xnack+", "gfx942:sramecc+:xnack+", "gfx950:sramecc+:xnack+"},
		Kernels: []string{"lib/libx.so#0"}, Machine: &finding.OnMachine{HIP: "6.2"}}
	for _, tc := range []struct {
		name  string
		rerun Rerun
		k     Checked
		f     finding.Finding
		want  string
	}{
		{"policy machine", Rerun{Inputs: []string{"dist"}, Policy: pol}, Checked{Variant: "asan"}, onApu,
			"kpack-lint explain --policy ci/policies.yaml --machine apu lib/libx.so#0-1 dist"},
		{"--hip and --loader", Rerun{Inputs: []string{"dist"}, Policy: pol, HIP: "7.12", Loader: "legacy"}, Checked{}, onApu,
			"kpack-lint explain --policy ci/policies.yaml --machine apu --hip 7.12 --loader legacy lib/libx.so#0-1 dist"},
		{"old report", Rerun{}, Checked{Policy: &pol, Env: []string{"HIP_VISIBLE_DEVICES=1"}}, onApu,
			"kpack-lint explain --policy ci/policies.yaml --env HIP_VISIBLE_DEVICES=1 --machine apu --hip 7.12 --loader legacy lib/libx.so#0-1 INPUT"},
		{"matrix", Rerun{Inputs: []string{"dist"}}, Checked{HIP: "6.2"}, matrix,
			"kpack-lint explain --no-policy --agent gfx90a:sramecc+:xnack+ --agent gfx942:sramecc+:xnack+ --agent gfx950:sramecc+:xnack+ --hip 6.2 lib/libx.so#0 dist"},
	} {
		r := Run{Rules: rules, Checked: &tc.k, Rerun: tc.rerun}
		if got := Hint(r, tc.f); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
	// Without a kernel key there is nothing to explain.
	noKey := onApu
	noKey.Kernels = nil
	if got := Hint(Run{Rules: rules, Checked: &Checked{}}, noKey); got != "kpack-lint rules KPL014" {
		t.Errorf("no kernel key: %s", got)
	}
}

// Every command a report prints as ready to run is one shell word per
// argument: run through sh -c with a stub kpack-lint that prints its
// argv, a hostile TOC key, input, policy and --env value come back as
// the arguments they are, in every format that prints commands, and
// nothing else runs.
func TestHintCommandsRunAsGiven(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	stub := filepath.Join(dir, "bin", "kpack-lint")
	os.MkdirAll(filepath.Dir(stub), 0o755)
	if err := os.WriteFile(stub, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	keys := []string{
		"lib/x`$(touch${IFS}PWNED)`.so#0",
		"lib/a b,c'd\"$HOME;|&>o<i*?.so#3",
		"#lib/~user/=x \\ ```.so#1",
		"::error file=ci.yml::lib/é.so#2",
		"lib/##[stop-commands]tok.so#4",
	}
	for _, key := range keys {
		input, pol, env := "dist $(touch PWNED2)", "pol'icy.yaml", "HSA_OVERRIDE_GFX_VERSION=`touch PWNED3`"
		f := finding.Finding{RuleID: "KPL001", Level: finding.LevelError, Message: "m", Location: finding.Location{Path: ".kpack/g_gfx942.kpack"},
			Agents: []string{"gfx942:sramecc+:xnack+"}, Kernels: []string{key}, Loader: "fallthrough"}
		r := Run{ToolName: "kpack-lint", Rules: testRules(), Inputs: []string{"dist"}, Findings: []finding.Finding{f},
			Checked: &Checked{Inputs: []string{"dist"}, Loader: "fallthrough", Agents: []string{"gfx942:sramecc+:xnack+"}},
			Rerun:   Rerun{Inputs: []string{input}, Policy: pol, Env: []string{env}}}
		want := []string{"explain", "--policy", pol, "--env", env, "--agent", "gfx942:sramecc+:xnack+", key, input}
		for _, format := range []string{"text", "markdown", "html", "github"} {
			var b bytes.Buffer
			if err := Write(&b, format, r); err != nil {
				t.Fatal(err)
			}
			cmd := printedCommand(t, format, b.String())
			c := exec.Command("sh", "-c", cmd)
			c.Dir, c.Env = dir, append(os.Environ(), "PATH="+filepath.Dir(stub)+":"+os.Getenv("PATH"))
			out, err := c.Output()
			if err != nil {
				t.Fatalf("%s: sh -c %q: %v", format, cmd, err)
			}
			got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s\n runs kpack-lint with %q\n want %q", format, cmd, got, want)
			}
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "PWNED*")); len(m) > 0 {
			t.Fatalf("key %q: a printed command ran %v", key, m)
		}
	}
}

// printedCommand finds the explain command a report of one finding
// prints, as a reader would copy it.
func printedCommand(t *testing.T, format, out string) string {
	t.Helper()
	var cmd string
	switch format {
	case "text":
		_, cmd, _ = strings.Cut(out, "\n  explain: ")
		cmd, _, _ = strings.Cut(cmd, "\n")
	case "markdown":
		_, cmd, _ = strings.Cut(out, "sh\n  ")
		cmd, _, _ = strings.Cut(cmd, "\n")
	case "html":
		_, cmd, _ = strings.Cut(out, `<pre class="cmd"><code>`)
		cmd, _, _ = strings.Cut(cmd, "</code>")
		cmd = html.UnescapeString(cmd)
	case "github":
		_, cmd, _ = strings.Cut(out, "%0AMore: ")
		cmd, _, _ = strings.Cut(cmd, "\n")
		cmd = strings.NewReplacer("%0A", "\n", "%0D", "\r", "%25", "%").Replace(cmd)
	}
	if !strings.HasPrefix(cmd, "kpack-lint explain ") {
		t.Fatalf("%s: no explain command in\n%s", format, out)
	}
	return cmd
}
