package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
	"github.com/rocm-tools/kpack-lint/report"
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
// embedded-code KPL001 is worded for embedded code, not for archives, and
// given once;
// `rules KPL001` words both.
func TestEmbeddedKPL001Fix(t *testing.T) {
	tree := filepath.Join(scenario("therock-5543-igpu-first"), "tree")
	_, page, _ := run(t, "check", "--no-policy", "--target", "gfx1036", "--format", "html", tree)
	// The message's own fix is the embedded one; the rule's general fix
	// is not repeated under it (one fix per finding).
	if !strings.Contains(page, `Fix: build the binary for these targets (--offload-arch), or ship it kpack-transformed with archives for them.`) ||
		strings.Contains(page, `<p class="fix">`) || strings.Contains(page, "Ship an archive whose gfx_arches") {
		t.Errorf("embedded KPL001 fix:\n%s", page)
	}
	_, out, _ := run(t, "rules", "KPL001")
	if !strings.Contains(out, "Fix: Ship an archive whose gfx_arches lists a target compatible with the agent and whose TOC holds the kernel key, "+
		"or drop the agent from the policy's targets; for embedded device code (KEY <binary>[embedded]#N), build the binary for the agent's target (--offload-arch) ") {
		t.Errorf("rules KPL001:\n%s", out)
	}
}

// shellWords splits a printed command as a POSIX shell does for the
// quoting shellQuote writes: plain words and '...' (with '\” inside).
func shellWords(t *testing.T, cmd string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(cmd):
			i++
			w.WriteByte(cmd[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unterminated quote in %q", cmd)
	}
	if inWord {
		words = append(words, w.String())
	}
	if len(words) < 2 || words[0] != "kpack-lint" {
		t.Fatalf("not a kpack-lint command: %q", cmd)
	}
	return words[1:]
}

// machineFinding is what the JSON report says of a finding on a machine.
type machineFinding struct {
	RuleID       string `json:"ruleId"`
	Fingerprint  string `json:"fingerprint"`
	Machine      string `json:"machine"`
	HIP          string `json:"hipRelease"`
	Devices      []int  `json:"devices"`
	Outcome      string `json:"outcome"`
	OtherDevice  *int   `json:"otherDevice"`
	Registration string `json:"registration"`
	Launch       string `json:"launch"`
	Then         string `json:"then"`
	HIPEffect    string `json:"hipEffect"`
}

// commandsByFingerprint maps each finding of a text report to the
// command it prints (explain: or rule:).
func commandsByFingerprint(out string) map[string]string {
	cmds := map[string]string{}
	fp := ""
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "  fingerprint: "); ok {
			fp = v
		}
		for _, label := range []string{"  explain: ", "  rule: "} {
			if v, ok := strings.CutPrefix(line, label); ok && fp != "" {
				cmds[fp], fp = v, ""
			}
		}
	}
	return cmds
}

// checkMachineCommands runs check (text and JSON), and for every finding
// on a machine runs the explain --machine command it prints: the
// explanation must be of the finding's machine and release, and give
// each of the finding's devices its outcome and symptom. It returns the
// commands of the machine findings, in report order of the JSON.
func checkMachineCommands(t *testing.T, args ...string) []string {
	t.Helper()
	_, js, stderr := run(t, append(append([]string{"check", "--format", "json"}, args[:len(args)-1]...), args[len(args)-1])...)
	var rep struct {
		Findings []machineFinding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("check %v: %v %s", args, err, stderr)
	}
	_, text, _ := run(t, append([]string{"check"}, args...)...)
	cmds := commandsByFingerprint(text)
	var out []string
	for _, f := range rep.Findings {
		if f.Machine == "" {
			continue
		}
		cmd := cmds[f.Fingerprint]
		out = append(out, cmd)
		words := shellWords(t, cmd)
		if words[0] != "explain" {
			t.Errorf("%s on %s prints %q, want explain --machine", f.RuleID, f.Machine, cmd)
			continue
		}
		code, eout, estderr := run(t, append([]string{"explain", "--format", "json"}, words[1:]...)...)
		if code != ExitFindings {
			t.Errorf("%s: exit %d, want 1: %s%s", cmd, code, eout, estderr)
			continue
		}
		var exs []report.MachineExplanation
		if strings.HasPrefix(eout, "{") {
			exs = make([]report.MachineExplanation, 1)
			err := json.Unmarshal([]byte(eout), &exs[0])
			if err != nil {
				t.Fatal(err)
			}
		} else if err := json.Unmarshal([]byte(eout), &exs); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, eout)
		}
		for _, ex := range exs {
			if ex.Machine != f.Machine || ex.HIP != f.HIP {
				t.Errorf("%s: explains machine %s HIP %s, the %s finding is on %s HIP %s", cmd, ex.Machine, ex.HIP, f.RuleID, f.Machine, f.HIP)
			}
			for _, d := range f.Devices {
				if d >= len(ex.Devices) {
					t.Errorf("%s: no device %d", cmd, d)
					continue
				}
				dt := ex.Devices[d]
				sameOther := (dt.Other == nil) == (f.OtherDevice == nil) && (dt.Other == nil || *dt.Other == *f.OtherDevice)
				if dt.Outcome != f.Outcome || !sameOther || dt.Registration != f.Registration || dt.Launch != f.Launch || dt.Then != f.Then {
					t.Errorf("%s: device %d: %s (other %v) %s/%s/%s, the %s finding says %s (other %v) %s/%s/%s", cmd, d,
						dt.Outcome, dt.Other, dt.Registration, dt.Launch, dt.Then, f.RuleID, f.Outcome, f.OtherDevice, f.Registration, f.Launch, f.Then)
				}
			}
		}
	}
	if len(out) == 0 {
		t.Errorf("check %v: no finding on a machine:\n%s", args, text)
	}
	return out
}

// Newcomer test of the machines (1, 2): a finding on a machine prints
// explain --machine with the machine (an ISA list or a policy machine's
// name), --hip when check's --hip replaced the machine's release and
// --loader when check set the machine's loader; KPL014 prints it too.
// Each command runs and agrees with its finding.
func TestMachineFindingsPrintExplainMachine(t *testing.T) {
	tree := filepath.Join(scenario("therock-5543-igpu-first"), "tree")
	ex := filepath.Join(testdata, "example")
	pol := writeFile(t, filepath.Join(t.TempDir(), "m.yaml"), "version: 1\nmachines:\n  apu:\n    devices: [gfx1036, gfx1100]\n    hip: \"6.2\"\n")
	for _, tc := range []struct {
		args []string
		want []string // each command starts with one of these, in order
	}{
		{[]string{"--no-policy", "--machine", "gfx1036,gfx1100", tree}, []string{
			"kpack-lint explain --no-policy --machine gfx1036,gfx1100 'torch/lib/libc10_hip.so[embedded]#0' ",
			"kpack-lint explain --no-policy --machine gfx1036,gfx1100 'torch/lib/libtorch_hip.so[embedded]#0-2' "}},
		{[]string{"--no-policy", "--machine", "gfx1036,gfx1100", "--hip", "6.2", tree}, []string{
			"kpack-lint explain --no-policy --machine gfx1036,gfx1100 --hip 6.2 'torch/lib/libc10_hip.so[embedded]#0' ",
			"kpack-lint explain --no-policy --machine gfx1036,gfx1100 --hip 6.2 'torch/lib/libtorch_hip.so[embedded]#0-2' ",
			"kpack-lint explain --no-policy --machine gfx1036,gfx1100 --hip 6.2 'torch/lib/libc10_hip.so[embedded]#0' ", // KPL014
			"kpack-lint explain --no-policy --machine gfx1036,gfx1100 --hip 6.2 'torch/lib/libtorch_hip.so[embedded]#0-2' "}},
		{[]string{"--policy", pol, tree}, []string{
			"kpack-lint explain --policy " + fsutil.RelToWD(pol) + " --machine apu 'torch/lib/libc10_hip.so[embedded]#0' "}},
		{[]string{"--policy", pol, "--hip", "7.2", tree}, []string{
			"kpack-lint explain --policy " + fsutil.RelToWD(pol) + " --machine apu --hip 7.2 'torch/lib/libc10_hip.so[embedded]#0' "}},
		{[]string{"--no-policy", "--machine", "gfx942,gfx1151", "--hip", "7.12", ex}, []string{ // KPL014 on kpack'd binaries: device 1 runs gfx942 code
			"kpack-lint explain --no-policy --machine gfx942,gfx1151 --hip 7.12 bin/hipfft-test#0-1 "}},
		{[]string{"--no-policy", "--machine", "gfx942,gfx1151", "--hip", "7.12", "--loader", "fallthrough", ex}, []string{
			"kpack-lint explain --no-policy --machine gfx942,gfx1151 --hip 7.12 --loader fallthrough bin/hipfft-test#0-1 "}},
		{[]string{"--no-policy", "--target", "gfx1201", "--env", "HIP_VISIBLE_DEVICES=0", "--hip", "7.12", ex}, []string{ // the matrix as machines: its loader
			"kpack-lint explain --no-policy --env HIP_VISIBLE_DEVICES=0 --machine gfx1201 --hip 7.12 --loader fallthrough bin/hipfft-test#0-1 "}},
	} {
		cmds := checkMachineCommands(t, tc.args...)
		if len(cmds) < len(tc.want) {
			t.Errorf("check %v: %d machine findings, want at least %d: %q", tc.args, len(cmds), len(tc.want), cmds)
			continue
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(cmds[i], w) {
				t.Errorf("check %v: finding %d prints\n %s\nwant\n %s...", tc.args, i, cmds[i], w)
			}
		}
	}
	// The GitHub annotation of a KPL014 says the same.
	_, gh, _ := run(t, "check", "--no-policy", "--machine", "gfx1036,gfx1100", "--hip", "6.2", "--format", "github", tree)
	if !strings.Contains(gh, "::error file=torch/lib/libc10_hip.so,title=KPL014 cross-device-failure::") ||
		!strings.Contains(gh, "%0AMore: kpack-lint explain --no-policy --machine gfx1036,gfx1100 --hip 6.2 'torch/lib/libc10_hip.so[embedded]#0' ") {
		t.Errorf("github:\n%s", gh)
	}
}

// Newcomer test of the machines (1): a matrix finding judged by --hip
// prints explain with that release, and the explanation gives the
// finding's symptom, not the newest release's.
func TestMatrixFindingPrintsHIP(t *testing.T) {
	tree := filepath.Join(scenario("therock-5543-igpu-first"), "tree")
	args := []string{"check", "--no-policy", "--hip", "6.2", "--target", "gfx1036", tree}
	_, out, _ := run(t, args...)
	cmds := printedCommands(out, "explain")
	want := "kpack-lint explain --no-policy --agent gfx1036 --hip 6.2 'torch/lib/libc10_hip.so[embedded]#0' ../../testdata/scenarios/therock-5543-igpu-first/tree"
	if len(cmds) != 2 || cmds[0] != want {
		t.Fatalf("commands %q, want %q first", cmds, want)
	}
	_, js, _ := run(t, append(args[:1:1], append([]string{"--format", "json"}, args[1:]...)...)...)
	var rep struct{ Findings []machineFinding }
	if err := json.Unmarshal([]byte(js), &rep); err != nil || len(rep.Findings) != 2 || rep.Findings[0].HIP != "6.2" {
		t.Fatalf("findings %+v (%v)", rep.Findings, err)
	}
	for i, c := range cmds {
		code, eout, _ := run(t, shellWords(t, c)...)
		if seen := "HIP 6.2: " + rep.Findings[i].HIPEffect; code != ExitFindings || !strings.Contains(eout, seen) {
			t.Errorf("%s: exit %d, lacks %q:\n%s", c, code, seen, eout)
		}
	}
}

// Newcomer test of the machines (3): a root cause joined across
// processors explains one agent of each (the first), and each of those
// loads fails as the finding says.
func TestJoinedFindingExplainsEveryProcessor(t *testing.T) {
	_, out, _ := run(t, "check", "--policy", "../../policies.yaml", "--variant", "asan", filepath.Join(testdata, "example"))
	cmds := printedCommands(out, "explain")
	want := "kpack-lint explain --policy ../../policies.yaml --variant asan --agent gfx90a:sramecc+:xnack+ --agent gfx942:sramecc+:xnack+ " +
		"--agent gfx950:sramecc+:xnack+ --loader legacy bin/rocfft-test#0-2 ../../testdata/example"
	if len(cmds) != 1 || cmds[0] != want {
		t.Fatalf("commands %q, want %q", cmds, want)
	}
	code, eout, _ := runPrinted(t, cmds[0])
	for _, list := range []string{"[gfx90a:sramecc+:xnack+]", "[gfx942:sramecc+:xnack+, gfx9-4-generic:sramecc+:xnack+]", "[gfx950:sramecc+:xnack+, gfx9-4-generic:sramecc+:xnack+]"} {
		if n := strings.Count(eout, "kpack: load bin/rocfft-test#0, arch_list "+list+", legacy loader\n"); n != 1 {
			t.Errorf("explain loads bin/rocfft-test#0 on arch_list %s %d times, want 1 (one device per agent)", list, n)
		}
	}
	if n := strings.Count(eout, "KPACK_ERROR_KERNEL_NOT_FOUND (error 5)"); code != ExitFindings || n != 9 {
		t.Errorf("exit %d, %d KERNEL_NOT_FOUND loads, want 9 (3 kernels on 3 agents):\n%s", code, n, eout)
	}
}

// Each --agent device ISA of explain is one device, alone in its process
// (as the help and docs/commands.md say); a generic --agent extends the arch_list
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

// Newcomer test of the machines (5): the HTML report shows the machines
// (release, devices, env, binaries clean and failing), each finding's
// machine and release, and the release in the header.
func TestHTMLShowsMachines(t *testing.T) {
	tree := filepath.Join(scenario("therock-5543-igpu-first"), "tree")
	_, page, _ := run(t, "check", "--no-policy", "--machine", "gfx1036,gfx1100", "--hip", "6.2", "--env", "HIP_VISIBLE_DEVICES=0,1", "--format", "html", tree)
	for _, want := range []string{
		"0 agents, HIP 6.2, 1 machine.",
		`<tr data-machine="gfx1036,gfx1100" data-hip="6.2" data-devices="2" data-binaries="2" data-clean="0" data-failing="2" class="error">` +
			`<td><code>gfx1036,gfx1100</code></td><td>6.2</td><td class="mono">0 gfx1036, 1 gfx1100</td><td class="mono">HIP_VISIBLE_DEVICES=0,1</td>` +
			`<td>0/2</td><td>2 (failed-by-other 2, no-code 2)</td></tr>`,
		`data-rule="KPL014" data-level="error"`,
		`<dt>machine</dt><dd class="mono">gfx1036,gfx1100, device 1 (gfx1100)</dd><dt>hip</dt><dd class="mono">hipErrorInvalidDeviceFunction (HIP 6.2)</dd>`,
		"kpack-lint explain --no-policy --env HIP_VISIBLE_DEVICES=0,1 --machine gfx1036,gfx1100 --hip 6.2 &#39;torch/lib/libc10_hip.so[embedded]#0&#39; ",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
