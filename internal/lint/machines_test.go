package lint_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/policy"
)

// The machines end to end (issue 17, SPEC 4b/4c): every case loads a
// build through the pipeline (lint.Run) on machines given as --machine
// values or a policy's machines:, and checks the findings per device:
// rule, devices, outcome and what the user sees. Sources are
// notes/hip-releases.md's (file:line@tag, PR); sim/hip's release table
// cites them per cell.

// scenarioTree is a copied shared scenario tree (testdata/scenarios).
func scenarioTree(name string) string { return filepath.Join("../../testdata/scenarios", name, "tree") }

// got is one machine finding, for comparison: rule, machine, devices,
// outcome, HIP error.
type got struct {
	rule, machine, devices, outcome, hip string
}

func (g got) String() string {
	return fmt.Sprintf("%s %s [%s] %s %s", g.rule, g.machine, g.devices, g.outcome, g.hip)
}

// machineFindings returns the findings of the machines (those with a
// machine name), sorted.
func machineFindings(fs []finding.Finding) []got {
	var out []got
	for _, f := range fs {
		m := f.Machine
		if m == nil || m.Machine == "" {
			continue
		}
		devs := make([]string, len(m.Devices))
		for i, d := range m.Devices {
			devs[i] = fmt.Sprint(d)
		}
		out = append(out, got{f.RuleID, m.Machine, strings.Join(devs, ","), m.Outcome, f.HIPError})
	}
	slices.SortFunc(out, func(a, b got) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// fatTree is a build of one Linux binary with embedded device code, one
// HIPF wrapper whose offload bundle holds code objects for targets.
func fatTree(t *testing.T, targets ...string) string {
	ids := []string{hostbintest.HostEntry}
	for _, tg := range targets {
		ids = append(ids, "hipv4-amdgcn-amd-amdhsa--"+tg)
	}
	return testtree.Write(t, map[string][]byte{"lib/libfat.so": hostbintest.EmbeddedELF([][]byte{hostbintest.Bundle(ids...)}, true)})
}

// kpackTree is a build of one kpack'd binary lib/libk.so with n kernels
// and per arch an archive holding the kernels listed (all n when nil).
func kpackTree(t *testing.T, n int, archives map[string][]int) string {
	files := map[string][]byte{"lib/libk.so": binaryELF("lib/libk.so", ".kpack/k_@GFXARCH@.kpack", n)}
	for arch, keys := range archives {
		if keys == nil {
			for i := range n {
				keys = append(keys, i)
			}
		}
		var ks []kpacktest.Kernel
		for _, i := range keys {
			key := fmt.Sprintf("lib/libk.so#%d", i)
			ks = append(ks, kpacktest.Kernel{Key: key, Arch: arch, Data: codeObject(key, arch)})
		}
		files["lib/.kpack/k_"+arch+".kpack"] = kpacktest.Build(kpacktest.Spec{Group: "k", Scheme: kpack.SchemeZstd, Kernels: ks})
	}
	return testtree.Write(t, files)
}

// machinesCheck checks dir on the machines (--machine values) with HIP
// release hip (--hip) and the machine environment.
func machinesCheck(t *testing.T, dir, hip string, env map[string]string, machines ...string) []got {
	t.Helper()
	return machineFindings(runCheck(t, lint.Config{Machines: machines, HIP: hip, MachineEnv: env}, dir))
}

func sameGot(t *testing.T, what string, have, want []got) {
	t.Helper()
	if !slices.Equal(have, want) {
		t.Errorf("%s:\n have %v\n want %v", what, have, want)
	}
}

// TestFatBinaryPerRelease: an APU's iGPU (gfx1036, device 0) without code
// in a fat binary built for gfx1100, next to an RX 7900 (gfx1100), per
// release (SPEC 4c, notes 2).
func TestFatBinaryPerRelease(t *testing.T) {
	dir := fatTree(t, "gfx1100")
	const m = "gfx1036,gfx1100"
	tests := []struct {
		hip  string
		want []got
	}{
		// hipamd src/hip_code_object.cpp:489@rocm-5.2.3: guarantee(false)
		// when any device lacks a code object: the process aborts.
		{"5.2", []got{{"KPL001", m, "0", "aborted", "process abort"}}},
		// hipamd hip_code_object.cpp:485-486@rocm-5.4.0: any device lacking
		// fails the module, no device gets code; 5.4-5.6 crash at launch.
		{"5.6", []got{{"KPL001", m, "0", "no-code", "hipErrorNoBinaryForGpu"}, {"KPL014", m, "1", "failed-by-other", "hipErrorNoBinaryForGpu"}}},
		// 5.7: the launch returns hipErrorInvalidDeviceFunction.
		{"5.7", []got{{"KPL001", m, "0", "no-code", "hipErrorInvalidDeviceFunction"}, {"KPL014", m, "1", "failed-by-other", "hipErrorInvalidDeviceFunction"}}},
		// clr hipamd/src/hip_fatbin.cpp:271-281@rocm-6.2.0: the loop stops
		// at device 0; hip_platform.cpp:611-617 maps the launch to 98.
		{"6.2", []got{{"KPL001", m, "0", "no-code", "hipErrorInvalidDeviceFunction"}, {"KPL014", m, "1", "failed-by-other", "hipErrorInvalidDeviceFunction"}}},
		// ExtractFatBinaryUsingCOMGR (index 02ba0621): status starts at
		// hipErrorInvalidImage and the loop breaks at device 0.
		{"7.2", []got{{"KPL001", m, "0", "no-code", "hipErrorInvalidImage"}, {"KPL014", m, "1", "failed-by-other", "hipErrorInvalidImage"}}},
		// The same loop at rocm-systems 6b0e43f3 (therock-10.0), TheRock#5543 on 7.13a.
		{"7.13", []got{{"KPL001", m, "0", "no-code", "hipErrorInvalidImage"}, {"KPL014", m, "1", "failed-by-other", "hipErrorInvalidImage"}}},
		{"10.0", []got{{"KPL001", m, "0", "no-code", "hipErrorInvalidImage"}, {"KPL014", m, "1", "failed-by-other", "hipErrorInvalidImage"}}},
		// rocm-systems PR 9498 (break -> continue): only the iGPU lacks code;
		// its launch gives hipErrorInvalidKernelFile (BuildProgram).
		{"newest", []got{{"KPL001", m, "0", "no-code", "hipErrorInvalidKernelFile"}}},
	}
	for _, tt := range tests {
		sameGot(t, "HIP "+tt.hip, machinesCheck(t, dir, tt.hip, nil, m), tt.want)
	}
	// Before PR 9498 a later gap leaves that device (and those after it)
	// without code while the load succeeds (notes 2b): no device fails
	// because of another.
	const rev = "gfx1100,gfx1036"
	sameGot(t, "10.0, iGPU second", machinesCheck(t, dir, "10.0", nil, rev), []got{{"KPL001", rev, "1", "no-code", "hipErrorInvalidKernelFile"}})
	sameGot(t, "7.2, iGPU second", machinesCheck(t, dir, "7.2", nil, rev), []got{{"KPL001", rev, "1", "no-code", "crash"}})
	sameGot(t, "6.2, iGPU second", machinesCheck(t, dir, "6.2", nil, rev), []got{{"KPL001", rev, "1", "no-code", "hipErrorInvalidDeviceFunction"}})
}

// TestKpackPerRelease: a kpack'd binary with archives for gfx942 only, on
// a gfx942 + gfx1100 machine, per release (SPEC 4b, notes 1).
func TestKpackPerRelease(t *testing.T) {
	dir := kpackTree(t, 2, map[string][]int{"gfx942": nil})
	const m = "gfx942,gfx1100"
	tests := []struct {
		hip  string
		want []got
	}{
		// hipamd hip_platform.cpp:79-80@rocm-5.2.3: HIPK is an unknown
		// magic, a null module; hip_global.cpp:151@rocm-6.2.0 aborts at launch.
		{"5.2", []got{{"KPL001", m, "0,1", "unsupported", "process abort"}}},
		{"6.3", []got{{"KPL001", m, "0,1", "unsupported", "process abort"}}},
		// Classic ROCm 6.4-7.2: no kpack; the launch crashes.
		{"7.2", []got{{"KPL001", m, "0,1", "unsupported", "crash"}}},
		// PR 2622 (ExtractKpackBinary@6b0e43f3): one load of [gfx942..., gfx9-4-generic...,
		// gfx1100, gfx11-generic] serves the gfx942 code object, registered on
		// every device: gfx1100 runs foreign code (PR 9167's segfault).
		{"7.13", []got{{"KPL014", m, "1", "foreign-code", "crash"}}},
		{"10.0", []got{{"KPL014", m, "1", "foreign-code", "crash"}}},
		// PR 9167: per unique ISA; gfx1100's ARCHIVE_NOT_FOUND leaves it
		// without code, BuildProgram gives hipErrorInvalidKernelFile.
		{"newest", []got{{"KPL006", m, "1", "no-code", "hipErrorInvalidKernelFile"}}},
	}
	for _, tt := range tests {
		sameGot(t, "HIP "+tt.hip, machinesCheck(t, dir, tt.hip, nil, m), tt.want)
	}
}

// TestKpackFatalError: PR 9167 rolls the module back on every device for
// any error but 13/14 (rollback_kpack_state; index 66615623207): gfx942's
// archive lacks kernel #1 (KERNEL_NOT_FOUND), so gfx1100, whose archive
// has it, fails too.
func TestKpackFatalError(t *testing.T) {
	dir := kpackTree(t, 2, map[string][]int{"gfx942": {0}, "gfx1100": nil})
	const m = "gfx942,gfx1100"
	sameGot(t, "newest", machinesCheck(t, dir, "", nil, m), []got{
		{"KPL001", m, "0", "no-code", "hipErrorInvalidImage"},
		{"KPL014", m, "1", "failed-by-other", "hipErrorInvalidImage"},
	})
}

// TestPR9167Machine: rocm-systems PR 9167's own case, gfx90a + gfx1100
// with kpack torch (archives for both): HIP before it (10.0) registers
// device 0's code object on every device and device 1 crashes; newest
// loads each device's own.
func TestPR9167Machine(t *testing.T) {
	dir := kpackTree(t, 3, map[string][]int{"gfx90a": nil, "gfx1100": nil})
	const m = "gfx90a,gfx1100"
	sameGot(t, "10.0", machinesCheck(t, dir, "10.0", nil, m), []got{{"KPL014", m, "1", "foreign-code", "crash"}})
	sameGot(t, "newest", machinesCheck(t, dir, "newest", nil, m), nil)
	fs := runCheck(t, lint.Config{Machines: []string{m}, HIP: "10.0"}, dir)
	f := byRule(fs, "KPL014")
	if len(f) != 1 || !strings.Contains(f[0].Message, "given the code object built for gfx90a") || !strings.Contains(f[0].Message, "HIP_VISIBLE_DEVICES=1") ||
		!strings.Contains(f[0].Message, "PR 9167") || *f[0].Machine.OtherDevice != 0 {
		t.Errorf("foreign code: %+v", f)
	}
}

// TestTheRock5543: the iGPU gfx1036 is device 0, the torch wheel has
// gfx110X code only (TheRock#5543, #3392).
func TestTheRock5543(t *testing.T) {
	dir := scenarioTree("therock-5543-igpu-first")
	const m = "gfx1036,gfx1100"
	// newest (after PR 9498): only the iGPU lacks code, in both libraries.
	sameGot(t, "newest", machinesCheck(t, dir, "", nil, m), []got{
		{"KPL001", m, "0", "no-code", "hipErrorInvalidKernelFile"}, {"KPL001", m, "0", "no-code", "hipErrorInvalidKernelFile"}})
	// before PR 9498 (10.0): the dGPU fails too, hipErrorInvalidImage
	// ("device kernel image is invalid" on cuda:1, as reported on 7.13a).
	fs := runCheck(t, lint.Config{Machines: []string{m}, HIP: "10.0"}, dir)
	cross := byRule(fs, "KPL014")
	if len(cross) != 2 || !strings.Contains(cross[0].Message, "hide device 0 (gfx1036) with HIP_VISIBLE_DEVICES=1") ||
		!strings.Contains(cross[0].Message, "use HIP newest") || cross[0].HIPError != "hipErrorInvalidImage" {
		t.Errorf("10.0: want KPL014 on the dGPU of both libraries, with the fixes users reported; got %+v", cross)
	}
	// HIP_VISIBLE_DEVICES=1 (or CUDA_VISIBLE_DEVICES=1) hides the iGPU:
	// clean on every release.
	for _, hip := range []string{"10.0", "7.13", "newest"} {
		for _, k := range []string{"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"} {
			sameGot(t, hip+" "+k+"=1", machinesCheck(t, dir, hip, map[string]string{k: "1"}, m), nil)
		}
	}
}

// TestPyTorch164346: gfx1151 without code, fixed by
// HSA_OVERRIDE_GFX_VERSION=11.0.0 (libhsakmt topology.c:1237-1251: the
// device reports gfx1100).
func TestPyTorch164346(t *testing.T) {
	dir := scenarioTree("pytorch-164346-gfx1151-override")
	fs := runCheck(t, lint.Config{Machines: []string{"gfx1151"}}, dir)
	if un := byRule(fs, "KPL001"); len(un) != 1 || !strings.Contains(un[0].Message, "HSA_OVERRIDE_GFX_VERSION=11.0.0") {
		t.Errorf("want KPL001 naming the override users reported, got %+v", fs)
	}
	sameGot(t, "override", machinesCheck(t, dir, "", map[string]string{"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}, "gfx1151"), nil)
	// --agent and agents: agree: the target's device reporting gfx1100.
	pol := mustPolicy(t, "variants: {release: {targets: [gfx1151], agents: {gfx1151: [gfx1100]}}}")
	if fs := runCheck(t, lint.Config{Policy: pol}, dir); len(fs) != 0 {
		t.Errorf("agents: {gfx1151: [gfx1100]}: want no findings, got %+v", fs)
	}
	if fs := runCheck(t, lint.Config{Targets: []string{"gfx1151"}, Agents: []string{"gfx1100"}}, dir); len(fs) != 0 {
		t.Errorf("--target gfx1151 --agent gfx1100: want no findings, got %+v", fs)
	}
	// The override with the target matrix alone: its agents become
	// one-device machines.
	res := runResult(t, lint.Config{Targets: []string{"gfx1151"}, MachineEnv: map[string]string{"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}}, dir)
	if len(res.Findings) != 0 || res.Context.Machines == nil || !res.Context.Machines.FromMatrix {
		t.Errorf("--target gfx1151 with the override: want the agent as a clean machine, got %+v", res.Findings)
	}
}

// TestVLLMWindows: an extension built for gfx1031 only on a gfx1030 under
// Windows (vllm-rocm-windows-rdna2 #2, #7): the only device without code
// gets hipErrorInvalidImage, and the override is not read by a Windows
// process (no reader in clr's PAL backend).
func TestVLLMWindows(t *testing.T) {
	dir := scenarioTree("vllm-win-gfx1030-override")
	env := map[string]string{"HSA_OVERRIDE_GFX_VERSION": "10.3.1"}
	want := []got{{"KPL001", "gfx1030", "0", "no-code", "hipErrorInvalidImage"}, {"KPL006", "gfx1030", "0", "no-code", "hipErrorInvalidKernelFile"}}
	sameGot(t, "override on Windows", machinesCheck(t, dir, "", env, "gfx1030"), want)
	fs := runCheck(t, lint.Config{Machines: []string{"gfx1030"}, MachineEnv: env}, dir)
	for _, f := range fs {
		if f.Machine != nil && !strings.Contains(f.Message, "HSA_OVERRIDE_GFX_VERSION not read on Windows") {
			t.Errorf("%s: the message does not say the override is not read: %s", f.RuleID, f.Message)
		}
		if f.Machine != nil && strings.Contains(f.Message, "HSA_OVERRIDE_GFX_VERSION=10.3.") && strings.Contains(f.Message, "Fix:") &&
			strings.Contains(f.Message[strings.Index(f.Message, "Fix:"):], "HSA_OVERRIDE") {
			t.Errorf("%s: an override fix on Windows: %s", f.RuleID, f.Message)
		}
	}
}

// TestDebian12Abort: Debian 12's HIP 5.2.3 aborts the process when a
// device has no code object in a fat binary (hipamd
// src/hip_code_object.cpp:489@rocm-5.2.3, src/hip_fatbin.cpp:83).
func TestDebian12Abort(t *testing.T) {
	dir := scenarioTree("therock-5543-igpu-first")
	fs := runCheck(t, lint.Config{Machines: []string{"gfx1036"}, HIP: "5.2.3"}, dir)
	un := byRule(fs, "KPL001")
	if len(un) != 2 || un[0].Machine.Outcome != "aborted" || !strings.Contains(un[0].Message, "HIP 5.2 aborts the process") ||
		!strings.Contains(un[0].Message, "Unable to find code object for all current devices") {
		t.Errorf("want the abort per library, got %+v", fs)
	}
}

// TestGfx1250Generic: newest maps gfx1250 to gfx12-5-generic (rocm-systems
// PR 9741), 10.0 does not (6b0e43f3: 29 entries), gfx1251 never (HIP's map
// has no gfx1251): the target matrix and machines alike.
func TestGfx1250Generic(t *testing.T) {
	dir := kpackTree(t, 2, map[string][]int{"gfx12-5-generic": nil})
	for _, tt := range []struct {
		hip, target string
		missing     int
	}{{"newest", "gfx1250", 0}, {"10.0", "gfx1250", 1}, {"newest", "gfx1251", 1}} {
		fs := byRule(runCheck(t, lint.Config{Targets: []string{tt.target}, HIP: tt.hip}, dir), "KPL006")
		if len(fs) != tt.missing {
			t.Errorf("kpack, HIP %s, %s: %d KPL006, want %d: %+v", tt.hip, tt.target, len(fs), tt.missing, fs)
		}
	}
	fat := fatTree(t, "gfx12-5-generic")
	sameGot(t, "fat newest gfx1250", machinesCheck(t, fat, "", nil, "gfx1250"), nil)
	sameGot(t, "fat 10.0 gfx1250", machinesCheck(t, fat, "10.0", nil, "gfx1250"), []got{{"KPL001", "gfx1250", "0", "no-code", "hipErrorInvalidImage"}})
	sameGot(t, "fat newest gfx1251", machinesCheck(t, fat, "", nil, "gfx1251"), []got{{"KPL001", "gfx1251", "0", "no-code", "hipErrorInvalidImage"}})
}

// TestVisibleDevices: ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES filter
// and reorder (amd_filter_device.cpp, rocdevice.cpp:500-551@rocm-6.2.0);
// a process that sees no device is one KPL010 error per machine.
func TestVisibleDevices(t *testing.T) {
	dir := fatTree(t, "gfx1100")
	const m = "gfx1036,gfx1100"
	// HIP_VISIBLE_DEVICES=1,0 puts the dGPU first: the iGPU is then a
	// later gap, which 10.0's loop leaves alone.
	sameGot(t, "reordered", machinesCheck(t, dir, "10.0", map[string]string{"HIP_VISIBLE_DEVICES": "1,0"}, m),
		[]got{{"KPL001", m, "1", "no-code", "hipErrorInvalidKernelFile"}})
	sameGot(t, "ROCR_VISIBLE_DEVICES=1", machinesCheck(t, dir, "10.0", map[string]string{"ROCR_VISIBLE_DEVICES": "1"}, m), nil)
	fs := runCheck(t, lint.Config{Machines: []string{m}, MachineEnv: map[string]string{"HIP_VISIBLE_DEVICES": "-1"}}, dir)
	if len(fs) != 1 || fs[0].RuleID != "KPL010" || fs[0].Level != finding.LevelError || fs[0].Machine.Outcome != "no-device" ||
		!strings.Contains(fs[0].Message, `HIP_VISIBLE_DEVICES=-1 shows no device: entry "-1" is not a device of the 2 HIP sees`) ||
		!strings.Contains(fs[0].Message, "Fix: list the devices to show by index (0 to 1 of the 2 devices) or GPU-<uuid>, e.g. HIP_VISIBLE_DEVICES=0, or unset it.") {
		t.Errorf("HIP_VISIBLE_DEVICES=-1: want one KPL010 error, got %+v", fs)
	}
	// An empty override on a release with the gfx000 bug: ROCr does not
	// initialise (topology.c:1991-1996, ROCR-Runtime#354); newest reads
	// it as unset (rocm-systems PR 5686).
	empty := map[string]string{"HSA_OVERRIDE_GFX_VERSION": ""}
	if fs := runCheck(t, lint.Config{Machines: []string{"gfx1100"}, HIP: "7.13", MachineEnv: empty}, dir); len(fs) != 1 || fs[0].RuleID != "KPL010" ||
		!strings.Contains(fs[0].Message, "ROCr does not initialise") {
		t.Errorf("empty override on 7.13: %+v", fs)
	}
	sameGot(t, "empty override on newest", machinesCheck(t, dir, "", empty, "gfx1100"), nil)
}

// TestNoDeviceIsError: a machine whose environment leaves its process
// without a GPU checks nothing, so it is a KPL010 error (the gate fails)
// naming the machine, the variable, its value, what ROCr and HIP do
// (libhsakmt topology.c:1243-1246 rejects a malformed override and ROCr
// does not initialise, ROCR-Runtime#354; HIP then has no device,
// hipErrorNoDevice from hipGetDeviceCount) and a value that works.
func TestNoDeviceIsError(t *testing.T) {
	dir := scenarioTree("pytorch-164346-gfx1151-override")
	for _, tt := range []struct {
		key, val string
		want     []string
	}{
		{"HSA_OVERRIDE_GFX_VERSION", "11.0", []string{
			"On machine gfx1151 (HIP newest; HSA_OVERRIDE_GFX_VERSION=11.0) a Linux process has no GPU: HSA_OVERRIDE_GFX_VERSION=11.0 is not MAJOR.MINOR.STEPPING in decimal numbers",
			"ROCr does not initialise (ROCR-Runtime#354)",
			"So hsa_init fails and HIP starts without a GPU: hipGetDeviceCount returns hipErrorNoDevice",
			"nothing of the build is checked on this machine",
			"Fix: write it as three decimal numbers (HSA_OVERRIDE_GFX_VERSION=11.0.0 makes the device report gfx1100, 11.5.1 is its own gfx1151), or unset it."}},
		{"HSA_OVERRIDE_GFX_VERSION", "banana", []string{
			"HSA_OVERRIDE_GFX_VERSION=banana is not MAJOR.MINOR.STEPPING",
			"Fix: write it as three decimal numbers (11.5.1 is its own gfx1151), or unset it."}},
		{"HSA_OVERRIDE_GFX_VERSION", "11.0.9", []string{
			"HSA_OVERRIDE_GFX_VERSION=11.0.9 names no ISA ROCr knows, so ROCr drops the GPU",
			"Fix: name an ISA ROCr knows (HSA_OVERRIDE_GFX_VERSION=11.5.1 is the device's own gfx1151), or unset it."}},
		{"HIP_VISIBLE_DEVICES", "3", []string{
			`HIP_VISIBLE_DEVICES=3 shows no device: entry "3" is not a device of the 1 HIP sees`,
			"So HIP starts without a GPU: hipGetDeviceCount returns hipErrorNoDevice",
			"Fix: list the devices to show by index (0, the only device) or GPU-<uuid>, e.g. HIP_VISIBLE_DEVICES=0, or unset it."}},
		{"ROCR_VISIBLE_DEVICES", "", []string{
			"ROCR_VISIBLE_DEVICES is set but empty, so ROCr exposes no GPU",
			"Fix: unset ROCR_VISIBLE_DEVICES, or list the GPUs to show by index (0, the only GPU) or GPU-<uuid> prefix."}},
		{"ROCR_VISIBLE_DEVICES", "7", []string{
			`ROCR_VISIBLE_DEVICES=7 shows no GPU: entry "7" is out of range: the list ends there`,
			"e.g. ROCR_VISIBLE_DEVICES=0, or unset it."}},
	} {
		fs := runCheck(t, lint.Config{Machines: []string{"gfx1151"}, MachineEnv: map[string]string{tt.key: tt.val}}, dir)
		if len(fs) != 1 || fs[0].RuleID != "KPL010" || fs[0].Level != finding.LevelError || fs[0].Machine.Outcome != "no-device" {
			t.Errorf("%s=%s: want one KPL010 error, got %+v", tt.key, tt.val, fs)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(fs[0].Message, w) {
				t.Errorf("%s=%s: message lacks %q:\n%s", tt.key, tt.val, w, fs[0].Message)
			}
		}
	}
	// An empty override on a release with the bug: the message says
	// which release and that unsetting it works.
	fs := runCheck(t, lint.Config{Machines: []string{"gfx1151"}, HIP: "7.13", MachineEnv: map[string]string{"HSA_OVERRIDE_GFX_VERSION": ""}}, dir)
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "HSA_OVERRIDE_GFX_VERSION is set but empty, and HIP 7.13 (before rocm-systems PR 5686) does not read an empty value as unset") ||
		!strings.Contains(fs[0].Message, "Fix: unset HSA_OVERRIDE_GFX_VERSION instead of leaving it empty, or give a version (HSA_OVERRIDE_GFX_VERSION=11.5.1 is the device's own gfx1151).") {
		t.Errorf("empty override on 7.13: %+v", fs)
	}
}

// TestPolicyMachines: machines: of a policy, with their release and
// environment; --machine selects one by name, --hip replaces the release.
func TestPolicyMachines(t *testing.T) {
	dir := fatTree(t, "gfx1100")
	pol := mustPolicy(t, "machines:\n  apu:\n    devices: [gfx1036, gfx1100]\n    hip: \"10.0\"\n  hidden:\n    devices: [gfx1036, gfx1100]\n"+
		"    hip: \"10.0\"\n    env: {HIP_VISIBLE_DEVICES: \"1\"}\n")
	sameGot(t, "all machines", machineFindings(runCheck(t, lint.Config{Policy: pol}, dir)),
		[]got{{"KPL001", "apu", "0", "no-code", "hipErrorInvalidImage"}, {"KPL014", "apu", "1", "failed-by-other", "hipErrorInvalidImage"}})
	sameGot(t, "--machine hidden", machineFindings(runCheck(t, lint.Config{Policy: pol, Machines: []string{"hidden"}}, dir)), nil)
	sameGot(t, "--hip newest", machineFindings(runCheck(t, lint.Config{Policy: pol, HIP: "newest"}, dir)),
		[]got{{"KPL001", "apu", "0", "no-code", "hipErrorInvalidKernelFile"}})
}

// TestMachineErrors: a --machine or --hip that names nothing and a policy
// machine that does not check are usage errors naming the value or the
// policy key, with a did-you-mean.
func TestMachineErrors(t *testing.T) {
	dir := fatTree(t, "gfx1100")
	pol := mustPolicy(t, "machines:\n  apu:\n    devices: [gfx1036, gfx1100]\n")
	for _, tt := range []struct {
		cfg  lint.Config
		want string
	}{
		{lint.Config{Machines: []string{"apx"}, Policy: pol}, `machine "apx": not a machine of the policy (did you mean apu?), nor device ISAs`},
		{lint.Config{Machines: []string{"gfx1036,gfx1101x"}}, `machine "gfx1036,gfx1101x": device 1: invalid target ID "gfx1101x": unknown processor "gfx1101x" (did you mean gfx1101?)`},
		{lint.Config{Machines: []string{"gfx1100"}, HIP: "7.99"}, `hip "7.99": not a modelled HIP release (did you mean 10.0?)`},
		{lint.Config{HIP: "newst"}, `(did you mean newest?)`},
		{lint.Config{Policy: mustPolicy(t, "machines: {a: {devices: [gfx1100], hip: \"6.9\"}}")}, `machines.a.hip: "6.9": not a modelled HIP release (did you mean 7.2?)`},
		{lint.Config{Policy: mustPolicy(t, "machines: {a: {devices: [gfx1100x]}}")}, `machines.a.devices[0]: invalid target ID "gfx1100x"`},
		{lint.Config{Policy: mustPolicy(t, "machines: {a: {devices: [gfx11-generic]}}")}, `machines.a.devices[0]: gfx11-generic is a generic target`},
		{lint.Config{Policy: mustPolicy(t, "machines: {a: {devices: [gfx1100], env: {HIP_VISIBLE_DEVICE: \"0\"}}}")},
			`machines.a.env.HIP_VISIBLE_DEVICE: HIP_VISIBLE_DEVICE is not a machine variable`},
		{lint.Config{Policy: mustPolicy(t, "machines: {a: {devices: [{isa: gfx1100, uuid: GPU-12}]}}")}, `machines.a.devices[0].uuid: uuid "GPU-12" is not GPU- and 16 upper-case hex digits`},
	} {
		_, err := runErr(tt.cfg, dir)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v, want %q", tt.cfg.Machines, err, tt.want)
		}
		var oe *errs.OptionError
		var pe *policy.Error
		if err != nil && !errors.As(err, &oe) && !errors.As(err, &pe) {
			t.Errorf("%v: neither an option nor a policy error", err)
		}
	}
}

// TestMachineVerdicts: the report's per-machine verdict counts the
// binaries judged, the clean ones, and per failing binary the outcome of
// each device.
func TestMachineVerdicts(t *testing.T) {
	dir := scenarioTree("therock-5543-igpu-first")
	res := runResult(t, lint.Config{Machines: []string{"gfx1036,gfx1100", "gfx1100"}, HIP: "10.0"}, dir)
	ms := res.Context.Machines
	if ms == nil || ms.Judged != [2]int{2, 0} {
		t.Fatalf("judged: %+v", ms)
	}
}
