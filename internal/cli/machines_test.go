package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/lint"
)

// TestMachinesInReports: the machines (devices, release, environment,
// what each process kind sees) and their verdict per binary in every
// format (issue 17): JSON checked.machines and machineVerdicts, SARIF
// invocation and run properties and result properties, a text header
// line per machine, a markdown table, GitHub notices.
func TestMachinesInReports(t *testing.T) {
	tree := filepath.Join(scenario("therock-5543-igpu-first"), "tree")
	args := []string{"check", "--no-policy", "--hip", "10.0", "--machine", "gfx1036,gfx1100", "--machine", "gfx1100"}
	code, out, stderr := run(t, append(append(args, "--format", "json"), tree)...)
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Checked struct {
			HIP      string `json:"hip"`
			Machines []struct {
				Name    string   `json:"name"`
				HIP     string   `json:"hip"`
				Loader  string   `json:"loader"`
				Env     []string `json:"env"`
				Devices []struct {
					ISA string `json:"isa"`
				} `json:"devices"`
				Linux *struct {
					Devices []struct {
						Index int    `json:"index"`
						ISA   string `json:"isa"`
						Real  string `json:"real"`
					} `json:"devices"`
					Notes []struct{ Var, Text string } `json:"notes"`
				} `json:"linux"`
				Windows any `json:"windows"`
			} `json:"machines"`
		} `json:"checked"`
		Findings []struct {
			RuleID       string   `json:"ruleId"`
			Machine      string   `json:"machine"`
			HIPRelease   string   `json:"hipRelease"`
			Devices      []int    `json:"devices"`
			DeviceISA    string   `json:"deviceISA"`
			RealISA      string   `json:"realISA"`
			Outcome      string   `json:"outcome"`
			OtherDevice  *int     `json:"otherDevice"`
			Registration string   `json:"registration"`
			Launch       string   `json:"launch"`
			Then         string   `json:"then"`
			Fixes        []string `json:"fixes"`
		} `json:"findings"`
		Verdicts []struct {
			Machine  string `json:"machine"`
			Binaries int    `json:"binaries"`
			Clean    int    `json:"clean"`
			Failing  []struct {
				Path    string `json:"path"`
				Devices []struct {
					Device  int    `json:"device"`
					ISA     string `json:"isa"`
					Outcome string `json:"outcome"`
					Modules int    `json:"modules"`
				} `json:"devices"`
			} `json:"failing"`
		} `json:"machineVerdicts"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	k := doc.Checked
	if k.HIP != "10.0" || len(k.Machines) != 2 || k.Machines[0].Name != "gfx1036,gfx1100" || k.Machines[0].HIP != "10.0" ||
		k.Machines[0].Loader != "legacy" || len(k.Machines[0].Env) != 0 || k.Machines[0].Linux == nil || k.Machines[0].Windows != nil {
		t.Fatalf("checked.machines: %+v", k)
	}
	var cross int
	for _, f := range doc.Findings {
		if f.RuleID != "KPL014" {
			continue
		}
		cross++
		if f.Machine != "gfx1036,gfx1100" || f.HIPRelease != "10.0" || len(f.Devices) != 1 || f.Devices[0] != 1 || f.DeviceISA != "gfx1100" ||
			f.Outcome != "failed-by-other" || f.OtherDevice == nil || *f.OtherDevice != 0 || f.Registration != "hipErrorInvalidImage" ||
			f.Launch != "hipErrorInvalidImage" || f.Then != "hipErrorInvalidKernelFile" || len(f.Fixes) != 3 {
			t.Errorf("KPL014 fields: %+v", f)
		}
	}
	if cross != 2 {
		t.Errorf("%d KPL014, want one per library", cross)
	}
	if v := doc.Verdicts; len(v) != 2 || v[0].Binaries != 2 || v[0].Clean != 0 || len(v[0].Failing) != 2 || v[1].Clean != 2 ||
		v[0].Failing[1].Path != "torch/lib/libtorch_hip.so" || len(v[0].Failing[1].Devices) != 2 || v[0].Failing[1].Devices[0].Modules != 3 {
		t.Errorf("machineVerdicts: %+v", v)
	}

	_, text, _ := run(t, append(append(args, "--format", "text"), tree)...)
	for _, want := range []string{
		"/therock-5543-igpu-first/tree with no policy (--no-policy), legacy loader, HIP 10.0 on every machine\n" +
			"  simulated: 2 machines instead of a target matrix (the archives' gfx_arches are not used), each with its own devices, HIP release and environment\n" +
			"  machine gfx1036,gfx1100: HIP 10.0;",
		"  machine gfx1036,gfx1100: HIP 10.0; devices 0 gfx1036, 1 gfx1100: 2 binaries: 0 clean, 2 failing (failed-by-other 2, no-code 2)\n",
		"  machine gfx1100: HIP 10.0; devices 0 gfx1100: 2 binaries: 2 clean\n",
		"  machine: gfx1036,gfx1100, device 1 (gfx1100)\n",
		"  hip: hipErrorInvalidImage (HIP 10.0)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	_, md, _ := run(t, append(append(args, "--format", "markdown"), tree)...)
	if !strings.Contains(md, "with no policy (--no-policy), legacy loader: 2 machines simulated instead of a target matrix, each with its own devices, HIP release and environment; HIP 10.0 on every machine.") ||
		!strings.Contains(md, "| machine | HIP | devices (HIP order) | env | binaries clean | failing |") ||
		!strings.Contains(md, "| `gfx1036,gfx1100` | 10.0 | 0 gfx1036, 1 gfx1100 | – | 0/2 | ❌ 2 \\(failed-by-other 2, no-code 2\\) |") ||
		!strings.Contains(md, "| `gfx1100` | 10.0 | 0 gfx1100 | – | 2/2 | ✅ none |") {
		t.Errorf("markdown machines table:\n%s", md)
	}
	_, gh, _ := run(t, append(append(args, "--format", "github"), tree)...)
	if !strings.Contains(gh, "::notice title=kpack-lint machine gfx1036%2Cgfx1100::HIP 10.0, devices 0 gfx1036, 1 gfx1100: 2 binaries: 0 clean, 2 failing") ||
		!strings.Contains(gh, "::error file=torch/lib/libtorch_hip.so,title=KPL014 cross-device-failure::") {
		t.Errorf("github annotations:\n%s", gh)
	}
	sarif := filepath.Join(t.TempDir(), "m.sarif")
	run(t, append(append(args, "-q", "-o", sarif), tree)...)
	data, _ := os.ReadFile(sarif)
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Invocations []struct {
				Properties struct {
					Machines []any `json:"machines"`
				} `json:"properties"`
			} `json:"invocations"`
			Properties struct {
				Verdicts []any `json:"machineVerdicts"`
			} `json:"properties"`
			Results []struct {
				RuleID     string         `json:"ruleId"`
				Properties map[string]any `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	r := log.Runs[0]
	if len(r.Invocations[0].Properties.Machines) != 2 || len(r.Properties.Verdicts) != 2 || len(r.Tool.Driver.Rules) != len(lint.Rules()) {
		t.Errorf("SARIF machines: %+v", r.Invocations)
	}
	for _, res := range r.Results {
		if res.RuleID == "KPL014" && (res.Properties["machine"] != "gfx1036,gfx1100" || res.Properties["outcome"] != "failed-by-other" || res.Properties["launch"] != "hipErrorInvalidImage") {
			t.Errorf("KPL014 properties: %v", res.Properties)
		}
	}
	// HSA_OVERRIDE_GFX_VERSION_1 is device 0's KFD node (one CPU node
	// first; ROCR-Runtime 84567b64): the iGPU reports gfx1030, which the
	// header, the table and checked.machines say.
	ov := append(append([]string(nil), args[:6]...), "--env", "HSA_OVERRIDE_GFX_VERSION_1=10.3.0")
	_, text, _ = run(t, append(ov, tree)...)
	if !strings.Contains(text, "  machine gfx1036,gfx1100: HIP 10.0; devices 0 gfx1036, 1 gfx1100; env HSA_OVERRIDE_GFX_VERSION_1=10.3.0; "+
		"Linux: HIP sees device 0 = GPU 0 (gfx1030), device 1 = GPU 1 (gfx1100): 2 binaries: 0 clean, 2 failing") {
		t.Errorf("override header:\n%s", text)
	}
}

// TestMachineFlags: --machine, --hip and machine --env keys on the
// command line, and their errors naming the flag.
func TestMachineFlags(t *testing.T) {
	tree := filepath.Join(scenario("pytorch-164346-gfx1151-override"), "tree")
	if code, out, stderr := run(t, "check", "--no-policy", "--machine", "gfx1151", "--env", "HSA_OVERRIDE_GFX_VERSION=11.0.0", tree); code != ExitOK {
		t.Errorf("the override: exit %d: %s%s", code, out, stderr)
	}
	// A typo in the machine's environment leaves the process without a
	// GPU: an error that fails the gate, not a pass.
	for _, env := range []string{"HSA_OVERRIDE_GFX_VERSION=11.0", "HSA_OVERRIDE_GFX_VERSION=banana", "HIP_VISIBLE_DEVICES=3"} {
		code, out, stderr := run(t, "check", "--no-policy", "--machine", "gfx1151", "--env", env, tree)
		if code != ExitFindings || !strings.Contains(out, "error KPL010 invalid-target: On machine gfx1151 (HIP newest; "+env+") a Linux process has no GPU: ") ||
			!strings.Contains(out, "hipGetDeviceCount returns hipErrorNoDevice") || !strings.Contains(out, "1 finding: 1 error, 0 warnings, 0 notes") {
			t.Errorf("--env %s: exit %d, want 1 with a KPL010 error:\n%s%s", env, code, out, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--machine", "gfx1151x"}, `--machine gfx1151x: device 0: invalid target ID "gfx1151x": unknown processor "gfx1151x" (did you mean gfx1151?)`},
		{[]string{"--hip", "7.99"}, "--hip 7.99: not a modelled HIP release (did you mean 10.0?): the values are 5.2, 5.6, 5.7, 6.1, 6.2, 6.3, 7.2, 7.12, 7.13, 10.0, newest"},
		{[]string{"--machine", "gfx1151", "--env", "HIP_VISIBLE_DEVICES=" + strings.Repeat("0,", 3000)}, "HIP_VISIBLE_DEVICES: value longer than 4096 bytes"},
	} {
		code, _, stderr := run(t, append(append([]string{"check", "--no-policy"}, tc.args...), tree)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
	// A policy's agents: {gfx1151: [gfx1100]} is accepted, as --agent is,
	// with a note.
	dir := t.TempDir()
	pol := writeFile(t, filepath.Join(dir, "p.yaml"), "variants: {release: {targets: [gfx1151], agents: {gfx1151: [gfx1100]}}}\n")
	code, _, stderr := run(t, "check", "--policy", pol, tree)
	if code != ExitOK || !strings.Contains(stderr, "agent gfx1100 cannot run code built for gfx1151: it is simulated as a gfx1151 device reporting gfx1100") {
		t.Errorf("agents: {gfx1151: [gfx1100]}: exit %d, stderr %q", code, stderr)
	}
	// A policy machine that does not check names its line.
	bad := writeFile(t, filepath.Join(dir, "m.yaml"), "machines:\n  apu:\n    devices: [gfx1036, gfx1101x]\n")
	if code, _, stderr := run(t, "check", "--policy", bad, tree); code != ExitUsage || !strings.Contains(stderr, "m.yaml:3: machines.apu.devices[1]: invalid target ID") {
		t.Errorf("bad policy machine: exit %d, %q", code, stderr)
	}
}

// TestPolicyMachineErrorsAtOnce: every error a policy file holds by itself is
// reported in one run, in file order: targets, rules and the machines'
// releases, devices, UUIDs and variables alike (lint.CheckPolicyMachine
// through policy.Options.Machine). Errors that need the build (a
// groups.<g> naming no kpack group) come after these are fixed.
func TestPolicyMachineErrorsAtOnce(t *testing.T) {
	tree := filepath.Join(scenario("pytorch-164346-gfx1151-override"), "tree")
	pol := writeFile(t, filepath.Join(t.TempDir(), "p.yaml"), `variants:
  release:
    targets: [gfx942, gfx11000]
rules:
  KPL099: {level: error}
machines:
  m1:
    devices: [gfx1100]
    hip: "9.9"
    env: {HSA_OVERRIDE_GFX_VERSON: "11.0.0"}
  m2:
    devices: [gfx1036, gfx1100]
  m3:
    devices: [gfx11000, {isa: gfx942, uuid: GPU-bad}]
groups:
  nosuch:
    owners: {x: ["lib/**"]}
`)
	code, _, stderr := run(t, "check", "--policy", pol, tree)
	want := []string{
		pol + `:3: variants.release.targets[1]: invalid target ID "gfx11000": unknown processor "gfx11000" (did you mean gfx1100?)`,
		pol + ":5: rules.KPL099: no such rule (did you mean KPL009?)",
		pol + `:9: machines.m1.hip: "9.9": not a modelled HIP release (did you mean 10.0?): the values are 5.2, 5.6, 5.7, 6.1, 6.2, 6.3, 7.2, 7.12, 7.13, 10.0, newest`,
		pol + ":10: machines.m1.env.HSA_OVERRIDE_GFX_VERSON: HSA_OVERRIDE_GFX_VERSON is not a machine variable",
		pol + `:14: machines.m3.devices[0]: invalid target ID "gfx11000": unknown processor "gfx11000" (did you mean gfx1100?)`,
		pol + `:14: machines.m3.devices[1].uuid: uuid "GPU-bad" is not GPU- and 16 upper-case hex digits`,
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != ExitUsage || len(lines) != len(want) {
		t.Fatalf("exit %d, %d lines, want 2 and %d:\n%s", code, len(lines), len(want), stderr)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, lines[i], w)
		}
	}
}

// TestExplainMachine: explain --machine shows the per-device trace.
func TestExplainMachine(t *testing.T) {
	tree := filepath.Join(scenario("therock-5543-igpu-first"), "tree")
	code, out, stderr := run(t, "explain", "--no-policy", "--hip", "10.0", "--machine", "gfx1036,gfx1100", "torch/lib/libtorch_hip.so[embedded]#0", tree)
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"machine gfx1036,gfx1100: HIP 10.0, a Linux process, module torch/lib/libtorch_hip.so[embedded]#0 (fat-binary)\n",
		"hip: fat-binary loop: stop at first device without code; source: FatBinaryInfo::ExtractFatBinaryUsingCOMGR (hipamd/src/hip_fatbin.cpp) tries the native, generic and SPIR-V entries " +
			"per device and stops at the first device without one: device 0 without code fails the module (hipErrorInvalidImage), a later gap leaves that device and the ones after it " +
			"without code (read at rocm-systems 6b0e43f3, the therock-10.0 submodule pin; inferred for therock-7.14); at launch: ",
		"device 0 (GPU 0): gfx1036\n  bundle: no entry for gfx1036\n  outcome: no-code: the module load fails with hipErrorInvalidImage",
		"device 1 (GPU 1): gfx1100\n  bundle: entry hipv4-amdgcn-amd-amdhsa--gfx1100\n  outcome: failed-by-other (device 0): ",
		"  fix: hide device 0 (gfx1036) with HIP_VISIBLE_DEVICES=1 so device 1 loads its code\n",
		"  fix: use HIP newest: rocm-systems PR 9498 loads every device that has a code object\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain --machine lacks %q:\n%s", want, out)
		}
	}
	// What explain cites is public and says where it is inferred: no
	// research-note ids.
	for _, tc := range []struct{ hip, tree, key, want string }{
		{"7.12", "torch-gfx90a-split", "torch/lib/libtorch_hip.so#10", "hip: kpack: per-process (PR 2622), legacy loader; source: rocm-systems PR 2622: FatBinaryInfo::ExtractKpackBinary " +
			"(projects/clr/hipamd/src/hip_fatbin.cpp) makes one kpack_load_code_object call with every device's ISA and generic target and adds the code object it returns to every device " +
			"(read at rocm-systems 6b0e43f3, the therock-10.0 submodule pin; inferred for this release, not confirmed in its own source); TheRock 7.12 builds it in only for split-artifact builds (core/CMakeLists.txt); at launch: "},
		{"newest", "torch-gfx90a-split", "torch/lib/libtorch_hip.so#10", "hip: kpack: per-device (PR 9167), fallthrough loader; source: rocm-systems PR 9167: FatBinaryInfo::ExtractKpackBinary " +
			"(projects/clr/hipamd/src/hip_fatbin.cpp) loads once per distinct device ISA; KPACK_ERROR_ARCHIVE_NOT_FOUND (13) and ARCH_NOT_FOUND (14) leave that ISA's devices without code, " +
			"any other error rolls every device back (read in rocm-systems develop after the PR; the exact commit was not identified); at launch: every lookup error but hipErrorInvalidSymbol is returned as it is; source: rocm-systems PRs 10150 and 8501"},
		{"newest", "therock-5543-igpu-first", "torch/lib/libtorch_hip.so[embedded]#0", "hip: fat-binary loop: per-device (PR 9498); source: rocm-systems PR 9498: " +
			"FatBinaryInfo::ExtractFatBinaryUsingCOMGR (hipamd/src/hip_fatbin.cpp) skips a device with no compatible code object (\"Skipping device with no compatible code object\") instead of stopping, so every other device loads its code; at launch: "},
	} {
		_, out, stderr := run(t, "explain", "--no-policy", "--hip", tc.hip, "--machine", "gfx90a,gfx1100", tc.key, filepath.Join(scenario(tc.tree), "tree"))
		if !strings.Contains(out, tc.want) {
			t.Errorf("--hip %s %s: explain lacks %q:\n%s%s", tc.hip, tc.key, tc.want, out, stderr)
		}
		for _, jargon := range []string{"index 0", "index 6", "index 5", "unproven", "nearest proof"} {
			if strings.Contains(out, jargon) {
				t.Errorf("--hip %s %s: explain says %q:\n%s", tc.hip, tc.key, jargon, out)
			}
		}
	}
	code, out, _ = run(t, "explain", "--no-policy", "--machine", "gfx1036,gfx1100", "--env", "HIP_VISIBLE_DEVICES=1", "--format", "json", "torch/lib/libtorch_hip.so[embedded]#0", tree)
	var ex struct {
		Notes   []struct{ Var, Text string } `json:"notes"`
		Devices []struct {
			Index   int    `json:"index"`
			Device  int    `json:"device"`
			ISA     string `json:"isa"`
			Entry   string `json:"entry"`
			Outcome string `json:"outcome"`
		} `json:"devices"`
	}
	if err := json.Unmarshal([]byte(out), &ex); err != nil || code != ExitOK || len(ex.Devices) != 1 || ex.Devices[0].Device != 1 ||
		ex.Devices[0].Outcome != "loaded" || len(ex.Notes) != 1 || ex.Notes[0].Var != "HIP_VISIBLE_DEVICES" {
		t.Errorf("explain --machine json with HIP_VISIBLE_DEVICES=1: exit %d, %v: %s", code, err, out)
	}
}
