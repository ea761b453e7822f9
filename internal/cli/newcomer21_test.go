package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// Newcomer test of the machines (4): --format github annotates the
// waiver notifications (expiring with --warn-expiring, expired, unused)
// as the other formats list them.
func TestGitHubWaiverNotifications(t *testing.T) {
	w := writeFile(t, filepath.Join(t.TempDir(), "w.yaml"), `- rule: KPL003
  group: fft_test
  reason: "rocFFT strips flags, 100% sure"
  expires: 2027-01-15
- rule: KPL004
  group: fft_test
  reason: expired
  expires: 2026-01-01
- {rule: KPL009, path: "nothing/*", reason: never matches}
`)
	code, out, stderr := run(t, "check", "--policy", "../../policies.yaml", "--variant", "asan", "--waivers", w, "--today", "2026-12-22",
		"--warn-expiring", "60", "--format", "github", filepath.Join(testdata, "example"))
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"::warning file=w.yaml,line=1,title=kpack-lint expiring-waiver::waiver (KPL003, group fft_test) expires on 2027-01-15, in 24 days (--warn-expiring 60): ",
		"::warning file=w.yaml,line=5,title=kpack-lint expired-waiver::waiver (KPL004, group fft_test) expired on 2026-01-01 and no longer waives anything; ",
		"::notice file=w.yaml,line=9,title=kpack-lint unused-waiver::waiver (KPL009, path nothing/*) matched no finding; delete it\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("github lacks %q:\n%s", want, out)
		}
	}
}

// Newcomer test of the machines (7): explain-db's help lists every short
// library name it takes, aotriton included, and aotriton selects the
// AOTriton library.
func TestExplainDBHelpListsAOTriton(t *testing.T) {
	_, out, _ := run(t, "explain-db", "--help")
	if !strings.Contains(out, "or rocblas, hipblaslt,\n   miopen or aotriton (every copy of that library)") {
		t.Errorf("help:\n%s", out)
	}
	sc := scenario("pytorch-194498-aotriton-family")
	_, out, stderr := run(t, "explain-db", "--agent", "gfx1100", "aotriton", filepath.Join(sc, "host"), filepath.Join(sc, "device-gfx1100"))
	if !strings.HasPrefix(out, "AOTriton: library torch/lib/libaotriton_v2.so\n") {
		t.Errorf("explain-db aotriton: %s%s", out, stderr)
	}
}

// Newcomer test of the machines (6): the fix the HTML report gives an
// embedded-code KPL001 is worded for embedded code, not for archives;
// `rules KPL001` words both.
func TestEmbeddedKPL001Fix(t *testing.T) {
	tree := filepath.Join(scenario("therock-5543-igpu-first"), "tree")
	_, page, _ := run(t, "check", "--no-policy", "--target", "gfx1036", "--format", "html", tree)
	if !strings.Contains(page, `<p class="fix"><b>Fix:</b> Build the binary for the agent&#39;s target (--offload-arch, or a generic target that covers it), `+
		`ship it kpack-transformed with archives for that target, `) || strings.Contains(page, "Ship an archive whose gfx_arches") {
		t.Errorf("embedded KPL001 fix:\n%s", page)
	}
	_, out, _ := run(t, "rules", "KPL001")
	if !strings.Contains(out, "Fix: Ship an archive whose gfx_arches lists a target compatible with the agent and whose TOC holds the kernel key, "+
		"or drop the agent from the policy's targets; for embedded device code (KEY <binary>[embedded]#N), build the binary for the agent's target (--offload-arch) ") {
		t.Errorf("rules KPL001:\n%s", out)
	}
}

// Each --agent device ISA of explain is one device, alone in its process
// (as the help and README say); a generic --agent extends the arch_list
// of the device before it.
func TestExplainAgentsAreDevices(t *testing.T) {
	code, out, _ := run(t, "explain", "--no-policy", "--no-generic", "--agent", "gfx942:sramecc+:xnack-", "--agent", "gfx9-4-generic:sramecc+:xnack-",
		"--agent", "gfx950:sramecc+:xnack-", "bin/rocfft-test#0", filepath.Join(testdata, "example"))
	var loads []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "kpack: load ") {
			loads = append(loads, line)
		}
	}
	want := []string{
		"kpack: load bin/rocfft-test#0, arch_list [gfx942:sramecc+:xnack-, gfx9-4-generic:sramecc+:xnack-], fallthrough loader",
		"kpack: load bin/rocfft-test#0, arch_list [gfx950:sramecc+:xnack-], fallthrough loader",
	}
	if code != ExitOK || strings.Join(loads, "\n") != strings.Join(want, "\n") {
		t.Errorf("exit %d, loads:\n%s\nwant:\n%s", code, strings.Join(loads, "\n"), strings.Join(want, "\n"))
	}
}
