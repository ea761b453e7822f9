package main

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// The committed Debian 13 data loads and holds what the step relies on:
// librccl's one wrapper of 11 entries (10 HIP) on 31 agents, and rocBLAS
// 5.5.1's source-derived verdicts: 10 agents without kernels, none
// aborting.
func TestTrixieData(t *testing.T) {
	pkgs, truths, err := loadTrixie("../../../../testdata/real-debian-13")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 5 || len(truths) != 5 {
		t.Fatalf("%d packages, %d truths", len(pkgs), len(truths))
	}
	for i, p := range pkgs {
		if len(p.SHA256) != 64 || p.Size <= 0 || !strings.HasPrefix(p.File, p.Package+"_") || truths[i].LLVM == "" {
			t.Errorf("pin %+v, LLVM %q", p, truths[i].LLVM)
		}
	}
	rccl := truths[2]
	if rccl.Package != "librccl1" || len(rccl.Agents) != 31 || len(rccl.Binaries) != 1 || len(rccl.Binaries[0].Wrappers) != 1 ||
		len(rccl.Binaries[0].Wrappers[0].Entries) != 11 || len(deviceTargets(rccl.Binaries[0].Wrappers[0].Entries)) != 10 {
		t.Errorf("librccl1 truth: %d agents, %+v", len(rccl.Agents), rccl.Binaries)
	}
	rb := truths[3].Rocblas
	if rb == nil || len(rb.Agents) != 31 {
		t.Fatalf("rocBLAS truth %+v", rb)
	}
	var failing []string
	for _, a := range sortedAgents(rb) {
		v := rb.Agents[a]
		if v.failing(false) {
			failing = append(failing, a)
		}
		if v.Verdict == "abort" || v.Verdict != v.DeepVerdict || v.Folder != "usr/lib/x86_64-linux-gnu/rocblas/2.47.0/library" {
			t.Errorf("%s: %+v", a, v)
		}
	}
	want := []string{"gfx1151", "gfx1200", "gfx942:sramecc+:xnack+", "gfx942:sramecc+:xnack-", "gfx942:sramecc-:xnack+", "gfx942:sramecc-:xnack-",
		"gfx950:sramecc+:xnack+", "gfx950:sramecc+:xnack-", "gfx950:sramecc-:xnack+", "gfx950:sramecc-:xnack-"}
	if !slices.Equal(failing, want) {
		t.Errorf("agents without rocBLAS kernels %v, want %v", failing, want)
	}
}

// rocBLAS verdicts: a KPL013 error for rocBLAS on exactly the failing
// agents agrees; one on a working agent, none on a failing one, or one
// saying rocBLAS aborts where it does not, disagrees. Other libraries'
// findings and non-error levels do not count as errors.
func TestCompareRocblas(t *testing.T) {
	rt := &RocblasTruth{Agents: map[string]RocblasVerdict{
		"gfx1030": {Verdict: "ok", DeepVerdict: "ok"},
		"gfx942":  {Verdict: "no-kernels", DeepVerdict: "no-kernels"},
		"gfx1200": {Verdict: "no-kernels", DeepVerdict: "no-kernels"},
		"gfx90a":  {Verdict: "ok", DeepVerdict: "broken-co"},
	}}
	var rep Report
	rep.Findings = []Finding{
		{RuleID: "KPL013", Library: "rocBLAS", Level: "error", Effect: "fails later", Agents: []string{"gfx942", "gfx1200"}},
		{RuleID: "KPL013", Library: "rocBLAS", Level: "note", Agents: []string{"gfx1030"}},
		{RuleID: "KPL013", Library: "hipBLASLt", Level: "error", Agents: []string{"gfx1030"}},
	}
	var ty tally
	compareRocblas(rt, rep, false, &ty)
	if ty.blas != 4 || ty.blasAgreed != 4 || len(ty.disagreements) != 0 {
		t.Errorf("plain: %d of %d agreed: %v", ty.blasAgreed, ty.blas, ty.disagreements)
	}
	ty = tally{}
	compareRocblas(rt, rep, true, &ty) // gfx90a's matched code object for another processor: an error with --deep
	if ty.blasAgreed != 3 || len(ty.disagreements) != 1 || !strings.Contains(ty.disagreements[0], "rocBLAS gfx90a: the source says broken-co") {
		t.Errorf("deep: %d agreed: %v", ty.blasAgreed, ty.disagreements)
	}
	rep.Findings[0].Effect = "aborts"
	rep.Findings = append(rep.Findings, Finding{RuleID: "KPL013", Library: "rocBLAS", Level: "error", Agents: []string{"gfx1030"}})
	ty = tally{}
	compareRocblas(rt, rep, false, &ty)
	if ty.blasAgreed != 1 || len(ty.disagreements) != 3 || !strings.Contains(strings.Join(ty.disagreements, "\n"), "rocBLAS gfx942: the source says no-kernels, not an abort") {
		t.Errorf("aborts: %d agreed: %v", ty.blasAgreed, ty.disagreements)
	}
}

// KPL009 is expected on a wrapper whose llvm-readobj target differs from
// its entry ID, and nowhere else.
func TestCompareDeepTargets(t *testing.T) {
	pt := PackageTruth{Binaries: []Truth{{Binary: "usr/lib/a.so", Wrappers: []Wrapper{
		{Index: 0, Entries: []string{"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"}, Objects: map[string]Object{"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+": {Target: "gfx90a:xnack+"}}},
		{Index: 1, Entries: []string{"hipv4-amdgcn-amd-amdhsa--gfx1030"}, Objects: map[string]Object{"hipv4-amdgcn-amd-amdhsa--gfx1030": {Target: "gfx1100"}}},
	}}}}
	var rep Report
	rep.Findings = []Finding{{RuleID: "KPL009", Kernels: []string{"usr/lib/a.so[embedded]#1"}}}
	var ty tally
	compareDeep(pt, rep, &ty)
	if ty.deep != 2 || ty.deepAgreed != 2 || len(ty.disagreements) != 0 {
		t.Errorf("%d of %d agreed: %v", ty.deepAgreed, ty.deep, ty.disagreements)
	}
	rep.Findings[0].Kernels = []string{"usr/lib/a.so[embedded]#0"}
	ty = tally{}
	compareDeep(pt, rep, &ty)
	if ty.deepAgreed != 0 || len(ty.disagreements) != 2 {
		t.Errorf("%d agreed: %v", ty.deepAgreed, ty.disagreements)
	}
}

func TestFirstField(t *testing.T) {
	dir := t.TempDir()
	src := dir + "/debian.sources"
	writeTestFile(t, src, "Types: deb\n# comment\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n")
	if got := firstField(src, "URIs:"); got != "http://deb.debian.org/debian" {
		t.Errorf("URIs: %q", got)
	}
	list := dir + "/sources.list"
	writeTestFile(t, list, "# deb http://old.example/debian bookworm main\ndeb cdrom:x\ndeb [arch=amd64] http://mirror.example/debian bookworm main\n")
	if got := firstField(list, "deb"); got != "http://mirror.example/debian" {
		t.Errorf("deb: %q", got)
	}
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
