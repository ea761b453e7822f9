package main

import (
	"encoding/binary"
	"fmt"
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
		rep.Findings = append(rep.Findings, struct {
			RuleID  string   `json:"ruleId"`
			Message string   `json:"message"`
			Kernels []string `json:"kernels"`
			Agents  []string `json:"agents"`
		}{"KPL001", "", kernels, agents})
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
