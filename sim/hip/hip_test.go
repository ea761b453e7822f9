package hip

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// TestNewestArchList follows ExtractKpackBinary (rocm-systems clr
// hip_fatbin.cpp; index 66615623207's TargetGenericMap of 30 entries).
func TestNewestArchList(t *testing.T) {
	tests := map[string][]string{
		"gfx942:sramecc+:xnack-": {"gfx942:sramecc+:xnack-", "gfx9-4-generic:sramecc+:xnack-"},
		"gfx90a:sramecc+:xnack-": {"gfx90a:sramecc+:xnack-"},
		"gfx1030":                {"gfx1030", "gfx10-3-generic"},
		"gfx1201":                {"gfx1201", "gfx12-generic"},
		"gfx90c":                 {"gfx90c", "gfx9-generic"},
		"gfx906:sramecc+:xnack-": {"gfx906:sramecc+:xnack-", "gfx9-generic:sramecc+:xnack-"},
		"gfx1250:sramecc+":       {"gfx1250:sramecc+", "gfx12-5-generic:sramecc+"}, // rocm-systems PR 9741
	}
	for agent, want := range tests {
		if got := Newest().ArchList(targetid.MustParse(agent)); !reflect.DeepEqual(got, want) {
			t.Errorf("ArchList(%s) = %q, want %q", agent, got, want)
		}
	}
}

// TestSymptomWords: what reports say a device gets, per symptom of the
// release table.
func TestSymptomWords(t *testing.T) {
	tests := []struct {
		s         Symptom
		err, text string
	}{
		{effFailed2026, ErrInvalidImage, `the module load fails with hipErrorInvalidImage ("device kernel image is invalid"), and the first kernel launch returns hipErrorInvalidImage, later ones hipErrorInvalidKernelFile ("invalid kernel file")`},
		{effNoCode2026, ErrInvalidKernelFile, `the module loads, but a kernel launch on the device returns hipErrorInvalidKernelFile ("invalid kernel file")`},
		// TheRock PR 5184, ROCm/rccl#2189: what RCCL users see on a failed module
		{Newest().KpackFailed.Value, ErrInvalidImage, `the module load fails with hipErrorInvalidImage ("device kernel image is invalid"), and the first kernel launch returns hipErrorInvalidImage, ` +
			`later ones hipErrorInvalidKernelFile ("invalid kernel file"); libraries that look kernels up with hipGetFuncBySymbol (RCCL, XLA) get hipErrorInvalidDeviceFunction ("invalid device function")`},
		{Newest().KpackRejected.Value, ErrInvalidKernelFile, `the module load fails with hipErrorInvalidKernelFile ("invalid kernel file"), and a kernel launch returns hipErrorInvalidKernelFile; ` +
			`libraries that look kernels up with hipGetFuncBySymbol (RCCL, XLA) get hipErrorInvalidDeviceFunction ("invalid device function")`},
		// 6.2: the launch's 98 and hipGetFuncBySymbol's agree: said once
		{mustRow("6.2").FatNoCode.Value, ErrInvalidDeviceFunction, `the module load fails with hipErrorNoBinaryForGpu ("no kernel image is available for execution on the device"), and a kernel launch returns hipErrorInvalidDeviceFunction ("invalid device function")`},
		{effAbort, Aborted, "the process aborts"},
		{effNilModule, Aborted, `HIP does not register the module ("Cannot Register fat binary", a null module), and a kernel launch aborts the process`},
		{effClassic, Crash, `HIP does not register the module ("Cannot Register fat binary", a null module), and a kernel launch crashes (a segmentation fault; an access violation, 0xC0000005, on Windows)`},
		{Symptom{Registration: ErrNoBinaryForGpu, Launch: ErrInvalidDeviceFunction}, ErrInvalidDeviceFunction,
			`the module load fails with hipErrorNoBinaryForGpu ("no kernel image is available for execution on the device"), and a kernel launch returns hipErrorInvalidDeviceFunction ("invalid device function")`},
		{effNone, "", "the module loads and its kernels run"},
	}
	for _, tt := range tests {
		if got := tt.s.Error(); got != tt.err {
			t.Errorf("%+v: Error() = %q, want %q", tt.s, got, tt.err)
		}
		if got := tt.s.Text(); got != tt.text {
			t.Errorf("%+v: Text() =\n%s\nwant\n%s", tt.s, got, tt.text)
		}
	}
}

func TestSelectEntry(t *testing.T) {
	entries := []string{
		"host-x86_64-unknown-linux-gnu-",
		"hipv4-amdgcn-amd-amdhsa--gfx9-4-generic:xnack-",
		"hipv4-amdgcn-amd-amdhsa--gfx942:xnack+",
		"hipv4-amdgcn-amd-amdhsa--gfx942",
		"hipv4-amdgcn-amd-amdhsa--gfx1100",
	}
	tests := []struct {
		agent string
		want  int
		ok    bool
	}{
		{"gfx942:sramecc+:xnack+", 2, true},
		{"gfx942:sramecc+:xnack-", 3, true}, // own processor before generic
		{"gfx950:sramecc+:xnack-", 1, true}, // generic member
		{"gfx950:sramecc+:xnack+", -1, false},
		{"gfx1100", 4, true},
		{"gfx1030", -1, false},
	}
	for _, tt := range tests {
		got, ok := Newest().SelectEntry(entries, targetid.MustParse(tt.agent))
		if got != tt.want || ok != tt.ok {
			t.Errorf("SelectEntry(%s) = %d, %v; want %d, %v", tt.agent, got, ok, tt.want, tt.ok)
		}
	}
	// SPIR-V loads on any device, after native code.
	withSPIRV := append(entries, "hipv4-spirv64-amd-amdhsa--amdgcnspirv")
	if got, ok := Newest().SelectEntry(withSPIRV, targetid.MustParse("gfx1030")); !ok || got != 5 {
		t.Errorf("SPIR-V on gfx1030: %d, %v", got, ok)
	}
	if got, _ := Newest().SelectEntry(withSPIRV, targetid.MustParse("gfx1100")); got != 4 {
		t.Errorf("native before SPIR-V on gfx1100: %d", got)
	}
	long := BundleEntryPrefix + strings.Repeat("x", 1024)
	if _, ok := EntryTarget(long); ok {
		t.Error("a 1 KiB entry target parsed")
	}
}

func TestEntryPick(t *testing.T) {
	ids := []string{"host-x86_64-unknown-linux-gnu-", BundleEntryPrefix + "gfx11-generic", BundleEntryPrefix + "gfx1100", spirvEntries[0]}
	for _, tc := range []struct {
		agent string
		ids   []string
		i     int
		why   string
	}{
		{"gfx1100", ids, 2, PickNative},
		{"gfx1101", ids, 1, PickGeneric},
		{"gfx942:sramecc+:xnack-", ids, 3, PickSPIRV},
		{"gfx942:sramecc+:xnack-", ids[:3], -1, PickNone},
	} {
		a, _ := targetid.Parse(tc.agent)
		if i, why := Newest().EntryPick(tc.ids, a); i != tc.i || why != tc.why {
			t.Errorf("%s: %d %s, want %d %s", tc.agent, i, why, tc.i, tc.why)
		}
	}
}

// mustRow returns the row named name.
func mustRow(name string) Release {
	r, ok := row(name)
	if !ok {
		panic(name)
	}
	return r
}
