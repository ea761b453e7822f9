package finding

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var (
	gfx90aAgents = []string{"gfx90a:sramecc+:xnack+", "gfx90a:sramecc+:xnack-", "gfx90a:sramecc-:xnack+", "gfx90a:sramecc-:xnack-"}
	gfx942Agents = []string{"gfx942:sramecc+:xnack+", "gfx942:sramecc+:xnack-", "gfx942:sramecc-:xnack+", "gfx942:sramecc-:xnack-"}
)

// kpl006 is the recipe's finding: bin/x#0 fails on agents.
func kpl006(agents ...string) Finding {
	return Finding{RuleID: "KPL006", Subject: "g\x00bin/x", Kernels: []string{"bin/x#0"}, Agents: agents,
		Location: Location{Path: "bin/x"}}
}

// The nightly fails bin/x on gfx942 only, the pull request on gfx90a
// too: gfx90a's four agents grew.
func TestGrowthOfSpreadToAnotherProcessor(t *testing.T) {
	base := kpl006(gfx942Agents...)
	base.Coverage = CoverageKey(base, "")
	now := kpl006(slices.Concat(gfx90aAgents, gfx942Agents)...)
	g := GrowthOf(now, []Finding{base})
	if g == nil || !reflect.DeepEqual(g.Agents, gfx90aAgents) || len(g.Kernels) != 0 || len(g.Unrecorded) != 0 {
		t.Fatalf("growth %+v", g)
	}
	want := "now also on gfx90a (4 agents: gfx90a:sramecc+:xnack+, gfx90a:sramecc+:xnack-, gfx90a:sramecc-:xnack+, gfx90a:sramecc-:xnack-)"
	if w := g.Words(); w != want {
		t.Errorf("words %q, want %q", w, want)
	}
	// The other way round the finding shrank: nothing grew.
	if g := GrowthOf(base, []Finding{now}); g != nil {
		t.Errorf("shrunk finding grew: %+v", g)
	}
	if g := GrowthOf(now, []Finding{now}); g != nil {
		t.Errorf("same finding grew: %+v", g)
	}
}

// Kernels of the same binary and of another binary; the binary is named.
func TestGrowthOfKernelsAndBinaries(t *testing.T) {
	base := kpl006("gfx942:sramecc+:xnack-")
	now := base
	now.Kernels = []string{"bin/x#0", "bin/x#1", "bin/y#0", "bin/y#1"}
	g := GrowthOf(now, []Finding{base})
	if g == nil || !reflect.DeepEqual(g.Kernels, []string{"bin/x#1", "bin/y#0", "bin/y#1"}) || g.KernelsTotal != 3 ||
		!reflect.DeepEqual(g.Binaries, []string{"bin/y"}) || g.BinariesTotal != 1 || len(g.Agents) != 0 {
		t.Fatalf("growth %+v", g)
	}
	if w, want := g.Words(), "now also for 1 binary: bin/y; now also for 3 kernels: bin/x#1 bin/y#0-1"; w != want {
		t.Errorf("words %q, want %q", w, want)
	}
}

// A finding of 200,000 kernel keys grown by one: the sorted lists are
// merged and the growth lists the one key.
func TestGrowthOfManyKernels(t *testing.T) {
	keys := make([]string, 200_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("lib/libbig.so#%d", i)
	}
	base := kpl006("gfx942:sramecc+:xnack-")
	base.Kernels = slices.Delete(slices.Clone(keys), 100_000, 100_001)
	now := base
	now.Kernels = keys
	g := GrowthOf(now, []Finding{base})
	if g == nil || !reflect.DeepEqual(g.Kernels, []string{"lib/libbig.so#100000"}) || len(g.Binaries) != 0 {
		t.Fatalf("growth %+v", g)
	}
	// Unsorted lists take the set: the same result.
	slices.Reverse(now.Kernels)
	if g2 := GrowthOf(now, []Finding{base}); g2 == nil || !reflect.DeepEqual(g2.Kernels, g.Kernels) {
		t.Errorf("unsorted: %+v", g2)
	}
}

// More grown kernels than MaxGrownListed: the list is cut, the total
// counts them all, and the words say "among them".
func TestGrowthOfCutList(t *testing.T) {
	base := kpl006("gfx942:sramecc+:xnack-")
	now := base
	for i := 1; i <= 150; i++ {
		now.Kernels = append(now.Kernels, fmt.Sprintf("bin/x#%d", i))
	}
	g := GrowthOf(now, []Finding{base})
	if g == nil || len(g.Kernels) != MaxGrownListed || g.KernelsTotal != 150 {
		t.Fatalf("growth: %d kernels, total %d", len(g.Kernels), g.KernelsTotal)
	}
	if w, want := g.Words(), "now also for 150 kernels, among them bin/x#1-100"; w != want {
		t.Errorf("words %q, want %q", w, want)
	}
}

// A finding that names no agent covers its targets, compared by
// processor and by whole target ID: gfx950 is growth, and so is
// gfx90a:xnack+ against gfx90a (another load), but not the same target
// with its features in another order.
func TestGrowthOfTargetsWithoutAgents(t *testing.T) {
	base := Finding{RuleID: "KPL004", Subject: "fft_test", Targets: []string{"gfx90a", "gfx942:sramecc-:xnack+"}, Kernels: []string{"bin/x#0"}}
	now := base
	now.Targets = []string{"gfx90a:xnack+", "gfx942:xnack+:sramecc-", "gfx950"}
	g := GrowthOf(now, []Finding{base})
	if g == nil || !reflect.DeepEqual(g.Targets, []string{"gfx90a:xnack+", "gfx950"}) {
		t.Fatalf("growth %+v", g)
	}
	if w, want := g.Words(), "now also for targets gfx90a:xnack+, gfx950"; w != want {
		t.Errorf("words %q, want %q", w, want)
	}
	if CoverageKey(now, "") == CoverageKey(base, "") {
		t.Errorf("gfx90a:xnack+ and gfx90a have one coverage key")
	}

	// With agents named, targets only label them: a baseline of another
	// variant (other targets, the same agents) is no growth.
	a, b := kpl006(gfx942Agents...), kpl006(gfx942Agents...)
	a.Targets, b.Targets = []string{"gfx942"}, []string{"gfx942:xnack+"}
	if g := GrowthOf(b, []Finding{a}); g != nil {
		t.Errorf("relabelled targets grew: %+v", g)
	}
}

// Devices of one machine, and a machine the baseline's finding was not on.
func TestGrowthOfDevices(t *testing.T) {
	base := kpl006("gfx1100")
	base.Machine = &OnMachine{Machine: "apu", Devices: []int{0}}
	now := base
	now.Machine = &OnMachine{Machine: "apu", Devices: []int{0, 2}}
	g := GrowthOf(now, []Finding{base})
	if g == nil || !reflect.DeepEqual(g.Devices, []int{2}) || g.Machine != "apu" || g.NewMachine {
		t.Fatalf("growth %+v", g)
	}
	if w, want := g.Words(), "now also on device 2 of machine apu"; w != want {
		t.Errorf("words %q, want %q", w, want)
	}
	now.Machine = &OnMachine{Machine: "box", Devices: []int{0, 1}}
	g = GrowthOf(now, []Finding{base})
	if g == nil || !g.NewMachine || g.Words() != "now also on machine box (devices 0, 1)" {
		t.Errorf("growth %+v: %q", g, g.Words())
	}
}

// Kernel-database files: a new file is named; past the end of a cut
// baseline list only a larger total counts.
func TestGrowthOfMissingFiles(t *testing.T) {
	base := Finding{RuleID: "KPL013", Subject: "kernel-db", Missing: []string{"a.dat", "b.dat"}, MissingTotal: 2}
	now := base
	now.Missing, now.MissingTotal = []string{"a.dat", "b.dat", "c.dat"}, 3
	g := GrowthOf(now, []Finding{base})
	if g == nil || !reflect.DeepEqual(g.Missing, []string{"c.dat"}) || g.MissingTotal != 1 {
		t.Fatalf("growth %+v", g)
	}
	if w, want := g.Words(), "now also missing 1 kernel-database file: c.dat"; w != want {
		t.Errorf("words %q, want %q", w, want)
	}
	cut := base
	cut.MissingTotal = 5 // a.dat, b.dat and 3 files not listed
	g = GrowthOf(now, []Finding{cut})
	if g == nil || !reflect.DeepEqual(g.Untold, []string{"missing"}) || len(g.Missing) != 0 || g.MissingTotal != 0 {
		t.Fatalf("c.dat may be one the cut list leaves out, or not: the baseline cannot tell: %+v", g)
	}
	if w, want := g.Words(), "the baseline cannot tell: its finding lists only the first of the kernel-database files it misses, and this one names files past them, so it counts as new"; w != want {
		t.Errorf("words %q, want %q", w, want)
	}
	same := cut
	same.Missing = []string{"a.dat", "b.dat"} // the same cut list: nothing past it
	if g := GrowthOf(same, []Finding{cut}); g != nil {
		t.Errorf("the same cut list grew: %+v", g)
	}
	now.MissingTotal = 7
	if g := GrowthOf(now, []Finding{cut}); g == nil || g.MissingTotal != 2 || len(g.Missing) != 0 {
		t.Errorf("7 files against 5: %+v", g)
	}
}

// A baseline finding of an older kpack-lint (no coverage key) that lists
// no agents cannot tell what it covered: every agent counts as grown and
// the dimension is named. A baseline of this version (coverage key) that
// lists none did cover none.
func TestGrowthOfUnrecorded(t *testing.T) {
	old := kpl006()
	old.Kernels = nil
	now := kpl006(gfx942Agents...)
	g := GrowthOf(now, []Finding{old})
	if g == nil || !reflect.DeepEqual(g.Unrecorded, []string{"agents", "kernels"}) || len(g.Agents) != 4 {
		t.Fatalf("growth %+v", g)
	}
	if w := g.Words(); !strings.Contains(w, "the baseline's finding records no agents, kernels (a report of an older kpack-lint), so all of them count as grown") {
		t.Errorf("words %q", w)
	}
	old.Coverage = CoverageKey(old, "")
	if g := GrowthOf(now, []Finding{old}); g == nil || len(g.Unrecorded) != 0 || len(g.Agents) != 4 {
		t.Errorf("recorded: %+v", g)
	}
	// An older report's finding that lists agents compares as they are.
	older := kpl006(gfx942Agents...)
	if g := GrowthOf(now, []Finding{older}); g != nil {
		t.Errorf("older report, same agents: %+v", g)
	}
}

// Several baseline findings with one fingerprint cover their union.
func TestGrowthOfUnion(t *testing.T) {
	a, b := kpl006(gfx90aAgents...), kpl006(gfx942Agents...)
	now := kpl006(slices.Concat(gfx90aAgents, gfx942Agents)...)
	if g := GrowthOf(now, []Finding{a, b}); g != nil {
		t.Errorf("union: %+v", g)
	}
}

// The coverage key depends on what a finding covers, not on the order
// of its lists, and chains the key it grew from.
func TestCoverageKey(t *testing.T) {
	a := kpl006(gfx942Agents...)
	rev := slices.Clone(gfx942Agents)
	slices.Reverse(rev)
	b := kpl006(rev...)
	if CoverageKey(a, "") != CoverageKey(b, "") || Coverage(a) != CoverageKey(a, "") {
		t.Error("the key depends on the agents' order")
	}
	grown := kpl006(slices.Concat(gfx90aAgents, gfx942Agents)...)
	if CoverageKey(grown, "") == CoverageKey(a, "") {
		t.Error("more agents, same key")
	}
	if CoverageKey(a, "prev") == CoverageKey(a, "") {
		t.Error("prev is not chained")
	}
	a.Targets = []string{"gfx942"}
	if CoverageKey(a, "") != CoverageKey(b, "") {
		t.Error("targets of a finding with agents changed the key")
	}
	other := a
	other.Subject = "other"
	if CoverageKey(other, "") == CoverageKey(a, "") {
		t.Error("the key ignores the cause")
	}
	if Coverage(Finding{Coverage: "set"}) != "set" {
		t.Error("Coverage ignores f.Coverage")
	}
	if len(CoverageKey(a, "")) != 64 {
		t.Errorf("key %q", CoverageKey(a, ""))
	}
}

// A key hashed through the buffer in several parts (100,000 kernel keys,
// 2 MB) is the SHA-256 of the NUL-terminated strings CoverageKey
// documents, written out here by hand.
func TestCoverageKeyStreams(t *testing.T) {
	f := kpl006("gfx942:sramecc+:xnack-")
	f.Kernels = nil
	for i := 0; i < 100_000; i++ {
		f.Kernels = append(f.Kernels, fmt.Sprintf("lib/libbig.so#%d", i))
	}
	var b []byte
	put := func(ss ...string) {
		for _, x := range ss {
			b = append(append(b, x...), 0)
		}
	}
	put(coverageVersion, Fingerprint(f), "", "agents", "1", f.Agents[0], "kernels", "100000")
	put(f.Kernels...)
	put("missing", "0", "0")
	sum := sha256.Sum256(b)
	if got, want := CoverageKey(f, ""), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("streamed %s, one shot %s", got, want)
	}
}

// A level above the baseline's is growth (a warning the baseline kept
// that a policy or rule change makes an error); a lower one is not.
func TestGrowthOfLevel(t *testing.T) {
	base := kpl006(gfx942Agents...)
	base.Level = LevelWarning
	now := base
	now.Level = LevelError
	g := GrowthOf(now, []Finding{base})
	if g == nil || g.Level != LevelError || g.WasLevel != LevelWarning {
		t.Fatalf("growth %+v", g)
	}
	if w, want := g.Words(), "now an error (was a warning)"; w != want {
		t.Errorf("words %q, want %q", w, want)
	}
	if g := GrowthOf(base, []Finding{now}); g != nil {
		t.Errorf("error -> warning grew: %+v", g)
	}
	other := base
	other.Level = LevelError
	if g := GrowthOf(now, []Finding{base, other}); g != nil {
		t.Errorf("one baseline finding was an error already: %+v", g)
	}
}
