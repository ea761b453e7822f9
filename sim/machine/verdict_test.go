package machine

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// archive is a stub kpack module for one kernel key: the fetch code per
// archive target (Success when the key is there). Like the legacy loader,
// the first archive target compatible with an arch_list entry decides;
// no target at all is ARCHIVE_NOT_FOUND.
type archive struct {
	codes map[string]kpack.Code
	calls int
}

func (a *archive) load(l ArchList) Load {
	a.calls++
	for _, arch := range l.Targets {
		for _, c := range targetid.CompatibleTargetStrings(arch) {
			if code, ok := a.codes[c]; ok {
				if code == kpack.Success {
					return Load{Code: code, Target: c}
				}
				return Load{Code: code}
			}
		}
	}
	return Load{Code: kpack.ArchiveNotFound}
}

// has is an archive set holding the key for each target.
func has(targets ...string) *archive {
	a := &archive{codes: map[string]kpack.Code{}}
	for _, t := range targets {
		a.codes[t] = kpack.Success
	}
	return a
}

// bundle is the entry IDs of an offload bundle with these targets.
func bundle(targets ...string) []string {
	out := []string{"host-x86_64-unknown-linux-gnu-"}
	for _, t := range targets {
		out = append(out, hip.BundleEntryPrefix+t)
	}
	return out
}

// judge1 judges mod on the one machine m, and checks that Module agrees:
// the same verdict when it is not clean, none when it is.
func judge1(t *testing.T, m Machine, mod Module, windows bool) (*Judge, Verdict) {
	t.Helper()
	p, err := NewPlan([]Machine{m})
	if err != nil {
		t.Fatal(err)
	}
	j := p.NewJudge()
	v := j.Verdict(mod, windows, 0).Clone()
	vs := j.Module(mod, windows)
	switch {
	case v.Clean() || len(v.Devices) == 0:
		if len(vs) != 0 {
			t.Errorf("Module returned %q for a clean machine", kinds(vs[0]))
		}
	case len(vs) != 1 || !reflect.DeepEqual(vs[0].Clone(), v):
		t.Errorf("Module returned %+v, Verdict %+v", vs, v)
	}
	return j, v
}

// kinds writes each device's outcome: "loaded", "no-code",
// "failed-by-other:0" (the device responsible).
func kinds(v Verdict) []string {
	var out []string
	for _, o := range v.Devices {
		s := o.Kind.String()
		if o.Other >= 0 {
			s += ":" + strconv.Itoa(o.Other)
		}
		out = append(out, s)
	}
	return out
}

// TestFatBinaryPerRelease follows the fat-binary loop of each release on
// TheRock#5543's machine (iGPU gfx1036 as device 0, RX 7900 XT gfx1100 as
// device 1) and the torch bundle with gfx110X entries only.
func TestFatBinaryPerRelease(t *testing.T) {
	torch := Module{Fat: BundlePick(bundle("gfx1100", "gfx1101", "gfx1102"))}
	tests := []struct {
		name    string
		release string
		env     map[string]string
		isas    []string
		want    []string
		failed  bool
		seen    hip.Symptom // of device 0
	}{
		// PR 9498 (index 66615623207): only the iGPU lacks code
		{"TheRock#5543 newest", "newest", nil, []string{"gfx1036", "gfx1100"}, []string{"no-code", "loaded"}, false,
			hip.Symptom{Launch: hip.ErrInvalidKernelFile}},
		// 6b0e43f3 ExtractFatBinaryUsingCOMGR: device 0 without code fails every device
		{"TheRock#5543 before PR 9498", "10.0", nil, []string{"gfx1036", "gfx1100"}, []string{"no-code", "failed-by-other:0"}, true,
			hip.Symptom{Registration: hip.ErrInvalidImage, Launch: hip.ErrInvalidImage, Then: hip.ErrInvalidKernelFile}},
		{"TheRock#5543 on 7.13", "7.13", nil, []string{"gfx1036", "gfx1100"}, []string{"no-code", "failed-by-other:0"}, true,
			hip.Symptom{Registration: hip.ErrInvalidImage, Launch: hip.ErrInvalidImage, Then: hip.ErrInvalidKernelFile}},
		// TheRock#5543: HIP_VISIBLE_DEVICES=1 works
		{"TheRock#5543 hidden iGPU", "10.0", map[string]string{"HIP_VISIBLE_DEVICES": "1"}, []string{"gfx1036", "gfx1100"}, []string{"loaded"}, false, hip.Symptom{}},
		{"TheRock#5543 CUDA_VISIBLE_DEVICES=1", "10.0", map[string]string{"CUDA_VISIBLE_DEVICES": "1"}, []string{"gfx1036", "gfx1100"}, []string{"loaded"}, false, hip.Symptom{}},
		// notes 2b: a later gap leaves that device and every later one without code; the load succeeds
		{"later gap before PR 9498", "10.0", nil, []string{"gfx1100", "gfx1036", "gfx1101"}, []string{"loaded", "no-code", "failed-by-other:1"}, false, hip.Symptom{}},
		{"later gap newest", "newest", nil, []string{"gfx1100", "gfx1036", "gfx1101"}, []string{"loaded", "no-code", "loaded"}, false, hip.Symptom{}},
		// clr 6.2.0 hip_fatbin.cpp:276-280 and hip_platform.cpp:611-617
		{"6.2 stops at the first", "6.2", nil, []string{"gfx1036", "gfx1100"}, []string{"no-code", "failed-by-other:0"}, true,
			hip.Symptom{Registration: hip.ErrNoBinaryForGpu, Launch: hip.ErrInvalidDeviceFunction}},
		// rocm-systems#2805, TheRock#5543 on 7.10: a crash at launch
		{"7.2 stops at the first", "7.2", nil, []string{"gfx1036", "gfx1100"}, []string{"no-code", "failed-by-other:0"}, true,
			hip.Symptom{Registration: hip.ErrInvalidImage, Launch: hip.Crash}},
		// hipamd 5.4.0 hip_code_object.cpp:485-486: no device gets code
		{"5.7 all or nothing", "5.7", nil, []string{"gfx1100", "gfx1036"}, []string{"failed-by-other:1", "no-code"}, true,
			hip.Symptom{Registration: hip.ErrNoBinaryForGpu, Launch: hip.ErrInvalidDeviceFunction}},
		{"5.6 all or nothing crashes", "5.6", nil, []string{"gfx1100", "gfx1036"}, []string{"failed-by-other:1", "no-code"}, true,
			hip.Symptom{Registration: hip.ErrNoBinaryForGpu, Launch: hip.Crash}},
		// hipamd 5.2.3 hip_code_object.cpp:489 (Debian 12): the process aborts
		{"5.2 aborts", "5.2.3", nil, []string{"gfx1100", "gfx1036"}, []string{"aborted:1", "aborted"}, true,
			hip.Symptom{Registration: hip.Aborted, Launch: hip.Aborted}},
		{"5.2 loads when every device has code", "5.2", nil, []string{"gfx1100", "gfx1101"}, []string{"loaded", "loaded"}, false, hip.Symptom{}},
		// the only device without a code object: the initial hipErrorInvalidImage (notes 2e)
		{"only device newest", "newest", nil, []string{"gfx1030"}, []string{"no-code"}, true,
			hip.Symptom{Registration: hip.ErrInvalidImage, Launch: hip.ErrInvalidImage, Then: hip.ErrInvalidKernelFile}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t, tt.release, tt.env, tt.isas...)
			_, v := judge1(t, m, torch, false)
			if got := kinds(v); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("outcomes %q, want %q", got, tt.want)
			}
			if v.Failed != tt.failed {
				t.Errorf("Failed %v, want %v", v.Failed, tt.failed)
			}
			if got := noLookup(v.Devices[0].Seen); got != tt.seen {
				t.Errorf("device 0 sees %+v, want %+v", got, tt.seen)
			}
			if v.Clean() != allLoaded(tt.want) {
				t.Errorf("Clean() = %v", v.Clean())
			}
		})
	}
}

func allLoaded(ks []string) bool {
	for _, k := range ks {
		if k != "loaded" {
			return false
		}
	}
	return true
}

// TestFatBinaryEntries: which entry each device gets, per release (generic
// and SPIR-V from ROCm 6.4; index 02ba0621).
func TestFatBinaryEntries(t *testing.T) {
	mod := Module{Fat: BundlePick(bundle("gfx11-generic", "gfx1100"))}
	for rel, want := range map[string][]int{"newest": {2, 1}, "6.3": {2, -1}} {
		m := newMachine(t, rel, nil, "gfx1100", "gfx1151")
		_, v := judge1(t, m, mod, false)
		var got []int
		for _, o := range v.Devices {
			got = append(got, o.Entry)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s entries %v, want %v", rel, got, want)
		}
	}
}

// TestKpackPerRelease follows the kpack path of each release.
func TestKpackPerRelease(t *testing.T) {
	both := func() *archive { return has("gfx90a", "gfx1100") }
	gfx942Only := func(miss kpack.Code) *archive {
		a := has("gfx942")
		a.codes["gfx1100"] = miss
		return a
	}
	tests := []struct {
		name    string
		release string
		isas    []string
		archive *archive
		off     bool
		want    []string
		failed  bool
		seen    []hip.Symptom
	}{
		// rocm-systems PR 9167's description: before it, device 1 gets device 0's code object and segfaults
		{"PR 9167 machine, PR 2622", "10.0", []string{"gfx90a", "gfx1100"}, both(), false, []string{"loaded", "foreign-code:0"}, false,
			[]hip.Symptom{{}, {Launch: hip.Crash}}},
		{"PR 9167 machine, 7.13", "7.13", []string{"gfx90a", "gfx1100"}, both(), false, []string{"loaded", "foreign-code:0"}, false, nil},
		{"PR 9167 machine, newest", "newest", []string{"gfx90a", "gfx1100"}, both(), false, []string{"loaded", "loaded"}, false,
			[]hip.Symptom{{}, {}}},
		// the issue: gfx942 has the kernel, gfx1100's archive lacks it (KERNEL_NOT_FOUND):
		// PR 9167 rolls the module back on every device (rollback_kpack_state)
		{"gfx942 + gfx1100 KERNEL_NOT_FOUND newest", "newest", []string{"gfx942", "gfx1100"}, gfx942Only(kpack.KernelNotFound), false,
			[]string{"failed-by-other:1", "no-code"}, true,
			[]hip.Symptom{{Registration: hip.ErrInvalidImage, Launch: hip.ErrInvalidImage, Then: hip.ErrInvalidKernelFile}, {Registration: hip.ErrInvalidImage, Launch: hip.ErrInvalidImage, Then: hip.ErrInvalidKernelFile}}},
		// 13/14 only warn: gfx1100 without code, gfx942 fine (LogPrintfWarning, continue)
		{"gfx942 + gfx1100 ARCHIVE_NOT_FOUND newest", "newest", []string{"gfx942", "gfx1100"}, has("gfx942"), false,
			[]string{"loaded", "no-code"}, false, []hip.Symptom{{}, {Launch: hip.ErrInvalidKernelFile}}},
		{"gfx942 + gfx1100 ARCH_NOT_FOUND newest", "newest", []string{"gfx942", "gfx1100"}, gfx942Only(kpack.ArchNotFound), false,
			[]string{"loaded", "no-code"}, false, nil},
		// PR 2622: the combined list finds gfx942 first; gfx1100 gets it
		{"gfx942 + gfx1100 PR 2622", "10.0", []string{"gfx942", "gfx1100"}, gfx942Only(kpack.KernelNotFound), false,
			[]string{"loaded", "foreign-code:0"}, false, nil},
		// PR 2622 with no archive for device 0: the first candidate is
		// gfx1100's, registered on the iGPU too
		{"PR 2622 device 0 without archive", "10.0", []string{"gfx1036", "gfx1100"}, has("gfx1100"), false,
			[]string{"foreign-code:1", "loaded"}, false, []hip.Symptom{{Launch: hip.Crash}, {}}},
		// PR 2622: any error is hipErrorInvalidImage for every device
		// (device 0's archive lacks the kernel: KERNEL_NOT_FOUND first)
		{"PR 2622 device 0 KERNEL_NOT_FOUND", "10.0", []string{"gfx1036", "gfx1100"}, kernelMissing("gfx1036", "gfx1100"), false,
			[]string{"no-code", "failed-by-other:0"}, true,
			[]hip.Symptom{{Registration: hip.ErrInvalidImage, Launch: hip.ErrInvalidImage, Then: hip.ErrInvalidKernelFile}, {Registration: hip.ErrInvalidImage, Launch: hip.ErrInvalidImage, Then: hip.ErrInvalidKernelFile}}},
		// repeats kept, one ISA: same code everywhere
		{"two gfx1100 PR 2622", "10.0", []string{"gfx1100", "gfx1100"}, has("gfx11-generic"), false, []string{"loaded", "loaded"}, false, nil},
		// PR 9167: no ISA loaded is hipErrorInvalidKernelFile
		{"lone device newest 13", "newest", []string{"gfx1151"}, has("gfx1100"), false, []string{"no-code"}, true,
			[]hip.Symptom{{Registration: hip.ErrInvalidKernelFile, Launch: hip.ErrInvalidKernelFile}}},
		// no kpack before PR 2622: clr 6.2.0 hip_platform.cpp:72-75, hip_global.cpp:151
		{"6.2 has no kpack", "6.2", []string{"gfx1100"}, has("gfx1100"), false, []string{"unsupported"}, true,
			[]hip.Symptom{{Registration: hip.NotRegistered, Launch: hip.Aborted}}},
		{"5.2 has no kpack", "5.2", []string{"gfx1100"}, has("gfx1100"), false, []string{"unsupported"}, true, nil},
		// ExtractKpackBinary: #if !ROCM_KPACK_ENABLED return hipErrorNotSupported; PR 10150 propagates it
		{"kpack built OFF, newest", "newest", []string{"gfx1100"}, has("gfx1100"), true, []string{"unsupported"}, true,
			[]hip.Symptom{{Registration: hip.ErrNotSupported, Launch: hip.ErrNotSupported}}},
		{"kpack built OFF, 10.0", "10.0", []string{"gfx1100"}, has("gfx1100"), true, []string{"unsupported"}, true,
			[]hip.Symptom{{Registration: hip.ErrNotSupported, Launch: hip.Crash}}},
		// the loader aborting ends the process on every release with kpack
		{"loader abort", "newest", []string{"gfx1100", "gfx1036"}, abortOn("gfx1036"), false, []string{"aborted:1", "aborted"}, true, nil},
		// gfx1250 -> gfx12-5-generic only in newest (PR 9741)
		{"gfx1250 generic newest", "newest", []string{"gfx1250"}, has("gfx12-5-generic"), false, []string{"loaded"}, false, nil},
		{"gfx1250 generic 10.0", "10.0", []string{"gfx1250"}, has("gfx12-5-generic"), false, []string{"no-code"}, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t, tt.release, nil, tt.isas...)
			m.KpackOff = tt.off
			_, v := judge1(t, m, Module{Kpack: tt.archive.load}, false)
			if got := kinds(v); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("outcomes %q, want %q", got, tt.want)
			}
			if v.Failed != tt.failed {
				t.Errorf("Failed %v, want %v", v.Failed, tt.failed)
			}
			for i, s := range tt.seen {
				if noLookup(v.Devices[i].Seen) != s {
					t.Errorf("device %d sees %+v, want %+v", i, v.Devices[i].Seen, s)
				}
			}
		})
	}
}

// kernelMissing has an archive for missing without the key, and the key
// for the others.
func kernelMissing(missing string, others ...string) *archive {
	a := has(others...)
	a.codes[missing] = kpack.KernelNotFound
	return a
}

// abortOn holds the key everywhere but aborts on target.
func abortOn(target string) *archive {
	a := has("gfx1100")
	a.codes[target] = kpack.Abort
	return a
}

// TestForeignTarget: PR 2622 registers the first match; which device's it
// is decides who gets foreign code.
func TestForeignTarget(t *testing.T) {
	m := newMachine(t, "10.0", nil, "gfx90a", "gfx1100")
	_, v := judge1(t, m, Module{Kpack: has("gfx90a", "gfx1100").load}, false)
	if v.Devices[1].Target != "gfx90a" || v.Devices[0].Target != "gfx90a" {
		t.Errorf("targets %q %q", v.Devices[0].Target, v.Devices[1].Target)
	}
	// the archive has gfx1100 only: device 0 gets gfx1100's code object
	_, v = judge1(t, m, Module{Kpack: has("gfx1100").load}, false)
	if got := kinds(v); !reflect.DeepEqual(got, []string{"foreign-code:1", "loaded"}) {
		t.Errorf("outcomes %q", got)
	}
	// a target that does not parse fits every device (LoadFunc's contract)
	odd := func(ArchList) Load { return Load{Code: kpack.Success, Target: "gfx1100:bogus+"} }
	_, v = judge1(t, m, Module{Kpack: odd}, false)
	if !v.Clean() || v.Devices[0].Target != "gfx1100:bogus+" {
		t.Errorf("unparsed target: %+v", v)
	}
}

// TestPyTorch164346: gfx1151 without code; HSA_OVERRIDE_GFX_VERSION=11.0.0
// makes it report gfx1100, which loads; the fix names the override.
func TestPyTorch164346(t *testing.T) {
	for _, mod := range []Module{{Fat: BundlePick(bundle("gfx1100"))}, {Kpack: has("gfx1100").load}} {
		m := newMachine(t, "newest", nil, "gfx1151")
		j, v := judge1(t, m, mod, false)
		if got := kinds(v); !reflect.DeepEqual(got, []string{"no-code"}) {
			t.Fatalf("without the override: %q", got)
		}
		fixes := j.Fixes(mod, &v, 0)
		if !hasFix(fixes, Override, "HSA_OVERRIDE_GFX_VERSION=11.0.0") || !hasFix(fixes, AddTarget, "") {
			t.Errorf("fixes %+v", fixes)
		}
		m = newMachine(t, "newest", map[string]string{"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}, "gfx1151")
		_, v = judge1(t, m, mod, false)
		if !v.Clean() {
			t.Errorf("with the override: %q", kinds(v))
		}
	}
}

// TestVLLMWindows: vllm-rocm-windows-rdna2 #2/#7: an extension built for
// gfx1031 only, on gfx1030 under Windows: hipErrorInvalidImage, and the
// override does nothing there (a PE binary: a Windows process).
func TestVLLMWindows(t *testing.T) {
	mod := Module{Fat: BundlePick(bundle("gfx1031"))}
	m := newMachine(t, "newest", map[string]string{"HSA_OVERRIDE_GFX_VERSION": "10.3.1"}, "gfx1030")
	j, v := judge1(t, m, mod, true)
	if got := kinds(v); !reflect.DeepEqual(got, []string{"no-code"}) || !v.Failed {
		t.Fatalf("Windows: %q failed=%v", got, v.Failed)
	}
	if v.Devices[0].Seen.Registration != hip.ErrInvalidImage || v.Devices[0].Seen.Launch != hip.ErrInvalidImage {
		t.Errorf("Windows sees %+v", v.Devices[0].Seen)
	}
	if fixes := j.Fixes(mod, &v, 0); hasFix(fixes, Override, "") {
		t.Errorf("an override fix on Windows: %+v", fixes)
	}
	// the same machine as a Linux process: the override makes it gfx1031
	_, v = judge1(t, m, mod, false)
	if !v.Clean() {
		t.Errorf("Linux with the override: %q", kinds(v))
	}
	// without it, on Linux, the override is the fix
	m = newMachine(t, "newest", nil, "gfx1030")
	j, v = judge1(t, m, mod, false)
	if fixes := j.Fixes(mod, &v, 0); !hasFix(fixes, Override, "HSA_OVERRIDE_GFX_VERSION=10.3.1") {
		t.Errorf("Linux fixes %+v", fixes)
	}
}

// TestTheRock5543Fixes: the fixes users reported (HIP_VISIBLE_DEVICES=1,
// a HIP with PR 9498).
func TestTheRock5543Fixes(t *testing.T) {
	mod := Module{Fat: BundlePick(bundle("gfx1100", "gfx1101", "gfx1102"))}
	m := newMachine(t, "10.0", nil, "gfx1036", "gfx1100")
	j, v := judge1(t, m, mod, false)
	fixes := j.Fixes(mod, &v, 1)
	if !hasFix(fixes, HideDevice, "HIP_VISIBLE_DEVICES=1") || !hasFix(fixes, UpgradeHIP, "") || !hasFix(fixes, AddTarget, "") {
		t.Errorf("device 1 fixes %+v", fixes)
	}
	for _, f := range fixes {
		if f.Kind == AddTarget && f.Target != "gfx1036" {
			t.Errorf("add target %s, want gfx1036", f.Target)
		}
	}
	fixes = j.Fixes(mod, &v, 0)
	if !hasFix(fixes, HideDevice, "HIP_VISIBLE_DEVICES=1") || hasFix(fixes, Override, "") {
		t.Errorf("device 0 fixes %+v", fixes)
	}
	// with ROCR_VISIBLE_DEVICES reordering, the hide fix counts what HIP counts
	m = newMachine(t, "newest", map[string]string{"ROCR_VISIBLE_DEVICES": "2,0,1"}, "gfx1100", "gfx1036", "gfx1036")
	j, v = judge1(t, m, mod, false)
	if got := kinds(v); !reflect.DeepEqual(got, []string{"no-code", "loaded", "no-code"}) {
		t.Fatalf("outcomes %q", got)
	}
	if fixes := j.Fixes(mod, &v, 0); !hasFix(fixes, HideDevice, "HIP_VISIBLE_DEVICES=1,2") {
		t.Errorf("fixes %+v", fixes)
	}
	if fixes := j.Fixes(mod, &Verdict{Devices: v.Devices}, 9); fixes != nil {
		t.Errorf("a device out of range has fixes: %+v", fixes)
	}
}

// TestFixesPerNodeOverride: on a mixed machine the override names the node.
func TestFixesPerNodeOverride(t *testing.T) {
	mod := Module{Fat: BundlePick(bundle("gfx1100", "gfx1030"))}
	for rel, want := range map[string]string{"newest": "HSA_OVERRIDE_GFX_VERSION_2=10.3.0", "6.2": ""} {
		m := newMachine(t, rel, nil, "gfx1100", "gfx1031")
		j, v := judge1(t, m, mod, false)
		fixes := j.Fixes(mod, &v, 1)
		if want == "" {
			// no generic map, no per-node variable in 6.2: the global one
			want = "HSA_OVERRIDE_GFX_VERSION=10.3.0"
		}
		if !hasFix(fixes, Override, want) {
			t.Errorf("%s: fixes %+v, want %s", rel, fixes, want)
		}
	}
}

// TestFixesForeignAndUnsupported: PR 2622's foreign code and no kpack.
func TestFixesForeignAndUnsupported(t *testing.T) {
	mod := Module{Kpack: has("gfx90a", "gfx1100").load}
	m := newMachine(t, "10.0", nil, "gfx90a", "gfx1100")
	j, v := judge1(t, m, mod, false)
	if fixes := j.Fixes(mod, &v, 1); !hasFix(fixes, HideDevice, "HIP_VISIBLE_DEVICES=1") || !hasFix(fixes, UpgradeHIP, "") {
		t.Errorf("foreign fixes %+v", fixes)
	}
	m = newMachine(t, "7.2", nil, "gfx1100")
	j, v = judge1(t, m, mod, false)
	if fixes := j.Fixes(mod, &v, 0); !hasFix(fixes, UpgradeHIP, "") {
		t.Errorf("unsupported fixes %+v", fixes)
	}
	// a rollback by KERNEL_NOT_FOUND has no HIP to upgrade to
	a := has("gfx942")
	a.codes["gfx1100"] = kpack.KernelNotFound
	mod = Module{Kpack: a.load}
	m = newMachine(t, "newest", nil, "gfx942", "gfx1100")
	j, v = judge1(t, m, mod, false)
	fixes := j.Fixes(mod, &v, 0)
	if hasFix(fixes, UpgradeHIP, "") || !hasFix(fixes, HideDevice, "HIP_VISIBLE_DEVICES=0") {
		t.Errorf("rollback fixes %+v", fixes)
	}
}

func hasFix(fixes []Fix, k FixKind, env string) bool {
	for _, f := range fixes {
		if f.Kind == k && (env == "" || f.Env == env) && f.Text != "" {
			return true
		}
	}
	return false
}

// TestPlanCaches: the oracle is asked once per distinct arch_list per
// module, whatever the number of machines.
func TestPlanCaches(t *testing.T) {
	var ms []Machine
	for i := 0; i < 32; i++ {
		ms = append(ms, newMachine(t, "newest", nil, "gfx942", "gfx1100"))
		ms = append(ms, newMachine(t, "10.0", nil, "gfx942", "gfx1100"))
	}
	p, err := NewPlan(ms)
	if err != nil {
		t.Fatal(err)
	}
	// newest: 2 own lists; 10.0: 2 own lists (legacy loader) and the combined one
	if n := len(p.ArchLists()); n != 5 {
		t.Errorf("%d arch_lists, want 5: %+v", n, p.ArchLists())
	}
	j := p.NewJudge()
	a := has("gfx942", "gfx1100")
	vs := j.Module(Module{Kpack: a.load}, false)
	// only the 10.0 machines fail: PR 2622 registers gfx942's code object on gfx1100
	if len(vs) != 32 {
		t.Fatalf("%d verdicts", len(vs))
	}
	if a.calls != 3 {
		t.Errorf("%d oracle calls, want 3 (two own lists of newest, the combined one of 10.0)", a.calls)
	}
	for i, v := range vs {
		if got := kinds(v); v.Machine != 2*i+1 || !reflect.DeepEqual(got, []string{"loaded", "foreign-code:0"}) {
			t.Errorf("verdict %d: machine %d %q", i, v.Machine, got)
		}
	}
	if len(p.classes[0]) != 2 {
		t.Errorf("%d classes, want 2", len(p.classes[0]))
	}
	// a second module asks again; a failed combined load asks each own list
	b := kernelMissing("gfx942", "gfx1100")
	vs = j.Module(Module{Kpack: b.load}, false)
	if b.calls != 5 {
		t.Errorf("%d oracle calls, want 5 (newest 2; 10.0 combined, then both own lists to classify)", b.calls)
	}
	if len(vs) != 64 || vs[0].Machine != 0 || vs[63].Machine != 63 {
		t.Fatalf("%d verdicts", len(vs))
	}
	// KERNEL_NOT_FOUND fails the module on both releases (PR 9167's rollback, PR 2622's one load)
	for _, v := range vs[:2] {
		if got := kinds(v); !reflect.DeepEqual(got, []string{"no-code", "failed-by-other:0"}) {
			t.Errorf("machine %d: %q", v.Machine, got)
		}
	}
}

func TestNewPlanRejects(t *testing.T) {
	if _, err := NewPlan([]Machine{{Name: "empty"}}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("NewPlan: %v", err)
	}
}

// TestNoRuntime: ROCr not initialising leaves no device: no outcome.
func TestNoRuntime(t *testing.T) {
	m := newMachine(t, "7.13", map[string]string{"HSA_OVERRIDE_GFX_VERSION": ""}, "gfx1100")
	p, _ := NewPlan([]Machine{m})
	j := p.NewJudge()
	if vs := j.Module(Module{Fat: BundlePick(bundle("gfx1100"))}, false); len(vs) != 0 {
		t.Errorf("verdicts %+v", vs)
	}
	v := j.Verdict(Module{Fat: BundlePick(bundle("gfx1100"))}, false, 0)
	if len(v.Devices) != 0 || !p.View(0, false).NoRuntime || p.View(0, true).NoRuntime {
		t.Errorf("verdict %+v, views %+v %+v", v, p.View(0, false), p.View(0, true))
	}
}

// TestModuleMatchesVerdict: Module's classes and memo give, for every
// machine, what judging it alone gives, over modules whose answers change
// from one to the next and both process kinds.
func TestModuleMatchesVerdict(t *testing.T) {
	ms := benchMachines(t, 64)
	p, err := NewPlan(ms)
	if err != nil {
		t.Fatal(err)
	}
	j, fresh := p.NewJudge(), p.NewJudge()
	for k := 0; k < 200; k++ {
		key := k
		mods := []Module{
			{Kpack: func(l ArchList) Load { return benchLoad(key, l.Targets) }},
			{Fat: BundlePick(bundle([]string{"gfx942", "gfx1100", "gfx1036", "gfx90a", "gfx11-generic"}[key%5:]...))},
		}
		for _, mod := range mods {
			for _, windows := range []bool{false, key%3 == 0} {
				got := map[int]Verdict{}
				for _, v := range j.Module(mod, windows) {
					got[v.Machine] = v.Clone()
				}
				for mi := range ms {
					want := fresh.Verdict(mod, windows, mi)
					g, ok := got[mi]
					switch {
					case want.Clean() || len(want.Devices) == 0:
						if ok {
							t.Fatalf("module %d machine %d: Module %q, alone clean", key, mi, kinds(g))
						}
					case !ok || !reflect.DeepEqual(g, want.Clone()):
						t.Fatalf("module %d machine %d windows %v: Module %+v, alone %+v", key, mi, windows, g, want)
					}
				}
			}
		}
	}
}

// TestAlone: the only device of a process, as the target matrix's agents
// are judged, per release: the Judge's one-device verdict (notes 1, 2e).
func TestAlone(t *testing.T) {
	tests := []struct {
		release string
		fat     bool
		code    kpack.Code
		kind    Kind
		seen    hip.Symptom
	}{
		// PR 9167: no ISA loaded, hipErrorInvalidKernelFile (index 66615623207).
		{"newest", false, kpack.ArchiveNotFound, NoCode, hip.Symptom{Registration: hip.ErrInvalidKernelFile, Launch: hip.ErrInvalidKernelFile}},
		{"newest", false, kpack.ArchNotFound, NoCode, hip.Symptom{Registration: hip.ErrInvalidKernelFile, Launch: hip.ErrInvalidKernelFile}},
		// PR 9167: any other error rolls back: hipErrorInvalidImage, later launches hipErrorInvalidKernelFile.
		{"newest", false, kpack.KernelNotFound, NoCode, hip.Symptom{Registration: hip.ErrInvalidImage, Launch: hip.ErrInvalidImage, Then: hip.ErrInvalidKernelFile}},
		// PR 2622: any error is hipErrorInvalidImage (ExtractKpackBinary@6b0e43f3).
		{"10.0", false, kpack.ArchiveNotFound, NoCode, hip.Symptom{Registration: hip.ErrInvalidImage, Launch: hip.ErrInvalidImage, Then: hip.ErrInvalidKernelFile}},
		{"newest", false, kpack.Abort, Aborted, hip.Symptom{Registration: hip.Aborted, Launch: hip.Aborted}},
		{"newest", false, kpack.Success, Loaded, hip.Symptom{}},
		// No kpack before PR 2622: Unsupported whatever the load.
		{"7.2", false, kpack.Success, Unsupported, hip.Symptom{Registration: hip.NotRegistered, Launch: hip.Crash}},
		// Fat binaries: the only device without code fails the module
		// (hipErrorInvalidImage, the initial status of ExtractFatBinaryUsingCOMGR).
		{"newest", true, kpack.Success, NoCode, hip.Symptom{Registration: hip.ErrInvalidImage, Launch: hip.ErrInvalidImage, Then: hip.ErrInvalidKernelFile}},
		{"6.2", true, kpack.Success, NoCode, hip.Symptom{Registration: hip.ErrNoBinaryForGpu, Launch: hip.ErrInvalidDeviceFunction}},
		// hipamd hip_code_object.cpp:489@rocm-5.2.3: the process aborts.
		{"5.2", true, kpack.Success, Aborted, hip.Symptom{Registration: hip.Aborted, Launch: hip.Aborted}},
	}
	for _, tt := range tests {
		rel, _ := hip.Lookup(tt.release)
		o := Alone(rel, false, tt.fat, tt.code)
		if o.Kind != tt.kind || noLookup(o.Seen) != tt.seen {
			t.Errorf("%s fat=%v %v: %v %+v, want %v %+v", tt.release, tt.fat, tt.code, o.Kind, o.Seen, tt.kind, tt.seen)
		}
	}
	if o := Alone(hip.Newest(), true, false, kpack.Success); o.Kind != Unsupported || o.Seen.Error() != hip.ErrNotSupported {
		t.Errorf("newest built without kpack: %+v", o)
	}
}

// TestPlanAgentPerRelease: one ISA on machines of releases whose generic
// maps differ for it (gfx1250: newest maps it to gfx12-5-generic, 10.0
// has no entry) picks bundle entries by each machine's own release, in
// one plan and in either order.
func TestPlanAgentPerRelease(t *testing.T) {
	r10, _ := hip.Lookup("10.0")
	newest := hip.Newest()
	mod := Module{Fat: BundlePick(bundle("gfx12-5-generic"))}
	for _, order := range [][]hip.Release{{r10, newest}, {newest, r10}} {
		var ms []Machine
		for _, rel := range order {
			ms = append(ms, Machine{Name: rel.Name, Devices: []Device{{ISA: targetid.MustParse("gfx1250:sramecc+")}}, HIP: rel})
		}
		p, err := NewPlan(ms)
		if err != nil {
			t.Fatal(err)
		}
		j := p.NewJudge()
		for mi, rel := range order {
			got := j.Verdict(mod, false, mi).Devices[0].Kind
			if want := map[bool]Kind{true: Loaded, false: NoCode}[rel.Name == newest.Name]; got != want {
				t.Errorf("order %s, %s: machine %s: %v, want %v", order[0].Name, order[1].Name, rel.Name, got, want)
			}
		}
	}
}

// noLookup is s without what hipGetFuncBySymbol gives (the release
// table's TestLookupSymptoms pins that).
func noLookup(s hip.Symptom) hip.Symptom {
	s.Lookup = ""
	return s
}
