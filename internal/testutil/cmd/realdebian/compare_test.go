package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
)

func TestCompatible(t *testing.T) {
	for _, tc := range []struct {
		co, agent string
		want      bool
	}{
		{"gfx906:xnack-", "gfx906:sramecc+:xnack-", true},
		{"gfx906:xnack-", "gfx906:sramecc-:xnack+", false},
		{"gfx906", "gfx906:sramecc-:xnack+", true},
		{"gfx90a:sramecc+:xnack+", "gfx90a:sramecc+:xnack+", true},
		{"gfx90a:sramecc+:xnack+", "gfx90a:sramecc-:xnack+", false},
		{"gfx1030", "gfx1031", false},
		{"gfx90a", "gfx90c", false},
	} {
		if got := compatible(tc.co, tc.agent); got != tc.want {
			t.Errorf("compatible(%q, %q) = %v", tc.co, tc.agent, got)
		}
	}
}

func TestExpand(t *testing.T) {
	vs, err := expand("usr/lib/x.so[embedded]#0-2,7")
	if err != nil || fmt.Sprint(vs) != "[usr/lib/x.so[embedded]#0 on  usr/lib/x.so[embedded]#1 on  usr/lib/x.so[embedded]#2 on  usr/lib/x.so[embedded]#7 on ]" {
		t.Errorf("expand = %v, %v", vs, err)
	}
	if vs, err := expand("bin/x#0"); vs != nil || err != nil {
		t.Errorf("a kpack key expands to %v, %v", vs, err)
	}
	if _, err := expand("x[embedded]#3-1"); err == nil {
		t.Error("a backwards range passes")
	}
}

// Every wrapper x agent verdict is compared: a load the report fails
// without LLVM failing it is extra, one it misses is missed; a bundle
// that did not read fails everywhere.
func TestCompare(t *testing.T) {
	truths := []Truth{{Binary: "usr/lib/a.so", Wrappers: []Wrapper{
		{Index: 0, Entries: []string{"host-x86_64-unknown-linux", "hipv4-amdgcn-amd-amdhsa--gfx906:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx1030"}},
		{Index: 1, BundleError: "no magic"},
	}}}
	var rep Report
	rep.Checked.Agents = []string{"gfx906:sramecc+:xnack-", "gfx906:sramecc+:xnack+", "gfx1030", "gfx1100"}
	add := func(kernels, agents []string) {
		rep.Findings = append(rep.Findings, Finding{RuleID: "KPL001", Kernels: kernels, Agents: agents})
	}
	add([]string{"usr/lib/a.so[embedded]#0"}, []string{"gfx906:sramecc+:xnack+", "gfx1100"})
	add([]string{"usr/lib/a.so[embedded]#1"}, rep.Checked.Agents)
	r, err := Compare(truths, rep)
	if err != nil || r.Bundles != 2 || r.Entries != 3 || r.Verdicts != 8 || r.ExpectedFailures != 6 || r.Agreed != 8 || len(r.Missed)+len(r.Extra) != 0 {
		t.Fatalf("agreeing report: %+v, %v", r, err)
	}
	rep.Findings[0].Agents = []string{"gfx1030", "gfx1100"}
	r, _ = Compare(truths, rep)
	if r.Agreed != 6 || fmt.Sprint(r.Missed) != "[usr/lib/a.so[embedded]#0 on gfx906:sramecc+:xnack+]" || fmt.Sprint(r.Extra) != "[usr/lib/a.so[embedded]#0 on gfx1030]" {
		t.Fatalf("disagreeing report: %+v", r)
	}
}

// The committed data reads: packages, ground truth and library paths agree.
func TestCommittedData(t *testing.T) {
	pkgs, truths, err := loadData("../../../../testdata/real-debian")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 2 || bundles(truths) != 112 || entries(truths) != 896 {
		t.Fatalf("%d packages, %d bundles, %d entries", len(pkgs), bundles(truths), entries(truths))
	}
}

// The mutation finds the entry's e_flags through .hip_fatbin and the
// bundle's table; the expected KPL009 wrappers are those whose
// amdhsa.target differs from their entry ID.
func TestMutationAndExpectedMismatches(t *testing.T) {
	co := codeobjtest.CodeObject("gfx1030", "pad")
	bundle := hostbintest.BundleOf(hostbintest.Entry{ID: hostbintest.HostEntry}, hostbintest.Entry{ID: mutateEntry, Data: co})
	data := hostbintest.EmbeddedELF([][]byte{bundle}, false)
	off, err := entryFlagsOffset(data, Wrapper{FatbinOffset: 0}, mutateEntry)
	if err != nil || binary.LittleEndian.Uint32(data[off:]) != codeobjtest.Flags("gfx1030") {
		t.Fatalf("offset %d, %v", off, err)
	}
	truths := []Truth{{Binary: "a.so", Wrappers: []Wrapper{
		{Index: 0, Objects: map[string]Object{mutateEntry: {AMDHSATarget: "amdgcn-amd-amdhsa--gfx1030"}}},
		{Index: 1, Objects: map[string]Object{mutateEntry: {AMDHSATarget: "amdgcn-amd-amdhsa--gfx1100"}}},
	}}}
	if got := expectedMismatches(truths); len(got) != 1 || !got["a.so[embedded]#1"] {
		t.Errorf("expected mismatches %v", got)
	}
}

// A --hip run of a release that aborts agrees when every verdict LLVM
// fails has findings that all report the abort, and the verdicts LLVM
// passes have none; a finding with another effect, a missing one and
// one on a passing verdict each disagree.
func TestCompareHIP(t *testing.T) {
	truths := []Truth{{Binary: "usr/lib/a.so", Wrappers: []Wrapper{
		{Index: 0, Entries: []string{"host-x86_64-unknown-linux", "hipv4-amdgcn-amd-amdhsa--gfx906:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx1030"}},
		{Index: 1, Entries: []string{"host-x86_64-unknown-linux", "hipv4-amdgcn-amd-amdhsa--gfx1030"}},
	}}}
	abort := func(kernels, agents []string) Finding {
		return Finding{RuleID: "KPL001", Kernels: kernels, Agents: agents, HIPRelease: "5.2", Outcome: "aborted", Registration: "process abort", Launch: "process abort"}
	}
	var rep Report
	rep.Checked.HIP = "5.2"
	rep.Checked.Agents = []string{"gfx906:sramecc+:xnack-", "gfx906:sramecc+:xnack+", "gfx1030", "gfx1100"}
	rep.Findings = []Finding{
		abort([]string{"usr/lib/a.so[embedded]#0-1"}, []string{"gfx906:sramecc+:xnack+", "gfx1100"}),
		abort([]string{"usr/lib/a.so[embedded]#1"}, []string{"gfx906:sramecc+:xnack-"}),
		{RuleID: "KPL003", Kernels: []string{"bin/x#0"}, Agents: []string{"gfx1030"}}, // no embedded key: not compared
	}
	r, err := CompareHIP(truths, rep, "5.2")
	if err != nil || r.Agents != 4 || r.Verdicts != 8 || r.ExpectedFailures != 5 || r.Aborts != 5 || r.Agreed != 8 || len(r.Missed)+len(r.Wrong)+len(r.Extra) != 0 {
		t.Fatalf("agreeing report: %+v, %v", r, err)
	}

	rep.Findings[0].Launch = "hipErrorInvalidDeviceFunction"
	rep.Findings[1].Agents = []string{"gfx1030"}
	r, _ = CompareHIP(truths, rep, "5.2")
	if r.Aborts != 0 || r.Agreed != 2 ||
		fmt.Sprint(r.Missed) != "[usr/lib/a.so[embedded]#1 on gfx906:sramecc+:xnack-]" ||
		fmt.Sprint(r.Extra) != "[usr/lib/a.so[embedded]#1 on gfx1030]" ||
		len(r.Wrong) != 4 || r.Wrong[0] != `usr/lib/a.so[embedded]#0 on gfx1100: KPL001 outcome "aborted", registration "process abort", launch "hipErrorInvalidDeviceFunction", HIP "5.2"` {
		t.Fatalf("disagreeing report: %+v", r)
	}

	// A verdict with one finding reporting the abort and another saying
	// something else is wrong.
	rep.Findings = append(rep.Findings[:0], abort([]string{"usr/lib/a.so[embedded]#0-1"}, []string{"gfx906:sramecc+:xnack+", "gfx1100"}),
		abort([]string{"usr/lib/a.so[embedded]#1"}, []string{"gfx906:sramecc+:xnack-"}),
		Finding{RuleID: "KPL014", Kernels: []string{"usr/lib/a.so[embedded]#0"}, Agents: []string{"gfx1100"}, HIPRelease: "5.2", Outcome: "failed-by-other"})
	r, _ = CompareHIP(truths, rep, "5.2")
	if r.Aborts != 4 || len(r.Wrong) != 1 || !strings.Contains(r.Wrong[0], `#0 on gfx1100: KPL001 outcome "aborted"`) || !strings.Contains(r.Wrong[0], `; KPL014 outcome "failed-by-other"`) {
		t.Fatalf("two effects on one verdict: %+v", r)
	}

	// The report must say it simulated the release.
	rep.Checked.HIP = "newest"
	if _, err := CompareHIP(truths, rep, "5.2"); err == nil || !strings.Contains(err.Error(), `checked.hip is "newest", want "5.2"`) {
		t.Errorf("another release: %v", err)
	}
}

// machineReport builds the JSON report of a machine run as kpack-lint
// writes it (findings and machineVerdicts), for CompareMachine.
func machineReport(t *testing.T, js string) Report {
	t.Helper()
	var rep Report
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// On a machine of a device with code (gfx1030) and one without (gfx1100),
// HIP 5.2 aborts the process: every device fails, the finding names the
// device without code; the newest HIP fails that device only.
func TestCompareMachine(t *testing.T) {
	lib := Truth{Binary: "usr/lib/r.so", Wrappers: []Wrapper{
		{Index: 0, Entries: []string{"host-x86_64-unknown-linux", "hipv4-amdgcn-amd-amdhsa--gfx1030", "hipv4-amdgcn-amd-amdhsa--gfx906:xnack-"}},
	}}
	devices := []string{"gfx1030", "gfx1100"}
	if with, without := devicesByCode(lib, devices); fmt.Sprint(with, without) != "[0] [1]" {
		t.Fatalf("devices by code: %v %v", with, without)
	}
	abort := `{"findings": [{"ruleId": "KPL001", "kernels": ["usr/lib/r.so[embedded]#0"], "agents": ["gfx1100"],
		"machine": "gfx1030,gfx1100", "hipRelease": "5.2", "devices": [1], "outcome": "aborted",
		"registration": "process abort", "launch": "process abort"}],
	  "machineVerdicts": [{"machine": "gfx1030,gfx1100", "failing": [{"input": 0, "path": "usr/lib/r.so", "devices": [
		{"device": 0, "isa": "gfx1030", "outcome": "aborted", "modules": 1},
		{"device": 1, "isa": "gfx1100", "outcome": "aborted", "modules": 1}]}]}]}`
	if bad, err := CompareMachine(lib, devices, "5.2", true, machineReport(t, abort)); err != nil || bad != nil {
		t.Errorf("HIP 5.2 report: %q, %v", bad, err)
	}
	newest := `{"findings": [{"ruleId": "KPL001", "kernels": ["usr/lib/r.so[embedded]#0"], "agents": ["gfx1100"],
		"machine": "gfx1030,gfx1100", "hipRelease": "newest", "devices": [1], "outcome": "no-code",
		"launch": "hipErrorInvalidKernelFile"}],
	  "machineVerdicts": [{"machine": "gfx1030,gfx1100", "failing": [{"input": 0, "path": "usr/lib/r.so", "devices": [
		{"device": 1, "isa": "gfx1100", "outcome": "no-code", "modules": 1}]}]}]}`
	if bad, err := CompareMachine(lib, devices, "newest", false, machineReport(t, newest)); err != nil || bad != nil {
		t.Errorf("newest report: %q, %v", bad, err)
	}

	// The newest HIP's answer for HIP 5.2: device 0 keeps its code.
	bad, _ := CompareMachine(lib, devices, "5.2", true, machineReport(t, strings.ReplaceAll(newest, `"newest"`, `"5.2"`)))
	if len(bad) != 2 || !strings.Contains(bad[0], "findings [KPL001 usr/lib/r.so[embedded]#0 device 1: no-code], want [KPL001 usr/lib/r.so[embedded]#0 device 1: aborted]") ||
		!strings.Contains(bad[1], "machine verdict [usr/lib/r.so device 1 gfx1100: no-code], want [usr/lib/r.so device 0 gfx1030: aborted; usr/lib/r.so device 1 gfx1100: aborted]") {
		t.Errorf("HIP 5.2 without the abort: %q", bad)
	}
	// A KPL014 for device 0 (HIP 5.6's all-or-nothing) is one finding too many.
	extra := strings.Replace(abort, `"findings": [`, `"findings": [{"ruleId": "KPL014", "kernels": ["usr/lib/r.so[embedded]#0"], "agents": ["gfx1030"],
		"machine": "gfx1030,gfx1100", "hipRelease": "5.2", "devices": [0], "outcome": "failed-by-other"}, `, 1)
	bad, _ = CompareMachine(lib, devices, "5.2", true, machineReport(t, extra))
	if len(bad) != 1 || !strings.Contains(bad[0], "KPL014 usr/lib/r.so[embedded]#0 device 0: failed-by-other") {
		t.Errorf("an extra finding: %q", bad)
	}
	// A finding of another release is listed as it is.
	bad, _ = CompareMachine(lib, devices, "5.6", true, machineReport(t, abort))
	if len(bad) != 1 || !strings.Contains(bad[0], `on machine "gfx1030,gfx1100" (HIP "5.2") devices [1]: aborted`) {
		t.Errorf("another release: %q", bad)
	}
}

// hip.json reads and pins Debian 12's HIP runtime.
func TestCommittedHIP(t *testing.T) {
	p, err := loadHIP("../../../../testdata/real-debian")
	if err != nil || p.Package != "libamdhip64-5" || p.Version != "5.2.3-8" || p.Size != 4865232 ||
		p.SHA256 != "e89c3757b6ca16b7a03374a0a42402ab19e9e7000251d47379838be965330ebd" || p.HIP != "5.2" {
		t.Fatalf("%+v, %v", p, err)
	}
}
