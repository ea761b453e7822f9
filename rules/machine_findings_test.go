package rules

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// fleetContext is a build of bins Linux binaries with embedded code for
// gfx1100 on n two-device machines (gfx1036, gfx1100; named out of plan
// order) that fail them: per machine and binary device 0 has no code;
// every second machine's device 1 also fails because of device 0, and
// every fifth machine has a second no-code outcome for device 0 (another
// module failed everywhere), with the first's Subject.
func fleetContext(t *testing.T, n, bins int) *Context {
	t.Helper()
	files := map[string][]byte{}
	for i := range bins {
		bundle := hostbintest.Bundle(hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx1100")
		files[fmt.Sprintf("lib/lib%d.so", i)] = hostbintest.EmbeddedELF([][]byte{bundle, bundle}, true)
	}
	tree, err := vfs.Open([]string{testtree.Write(t, files)}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tree.Close() })
	b := model.Load(tree)
	rel, err := hip.Lookup("6.2")
	if err != nil {
		t.Fatal(err)
	}
	var ms []machine.Machine
	for i := range n {
		var devs []machine.Device
		for _, isa := range []string{"gfx1036", "gfx1100"} {
			id, err := machine.DeviceISA(isa)
			if err != nil {
				t.Fatal(err)
			}
			devs = append(devs, machine.Device{ISA: id})
		}
		ms = append(ms, machine.Machine{Name: fmt.Sprintf("m%d", (i*37)%n), Devices: devs, HIP: rel})
	}
	plan, err := machine.NewPlan(ms)
	if err != nil {
		t.Fatal(err)
	}
	c := &Context{Build: b, Result: sim.Result{Machines: &sim.Machines{Plan: plan}}}
	seen := hip.Symptom{Registration: "hipErrorNoBinaryForGpu", Launch: "hipErrorInvalidDeviceFunction"}
	noCode := machine.Outcome{Kind: machine.NoCode, Other: -1, Entry: -1, Seen: seen}
	byOther := machine.Outcome{Kind: machine.FailedByOther, Other: 0, Entry: -1, Seen: seen}
	for bi, bin := range b.Binaries {
		if bin.Info == nil || len(bin.Info.Bundles) != 2 {
			t.Fatalf("%s: %+v", bin.Path, bin.Info)
		}
		first := []string{sim.EmbeddedName(bin, bin.Info.Bundles[0])}
		second := []string{sim.EmbeddedName(bin, bin.Info.Bundles[1])}
		for mi := range n {
			add := func(devs []int, o machine.Outcome, failed bool, kernels []string) {
				c.Machines.Outcomes = append(c.Machines.Outcomes, sim.MachineOutcome{
					MachineCause: &sim.MachineCause{Machine: mi, Devices: devs, Outcome: o, Failed: failed},
					Binary:       bin, Kernels: kernels, Join: bi})
			}
			add([]int{0}, noCode, false, first)
			if mi%2 == 0 {
				add([]int{1}, byOther, true, first)
			}
			if mi%5 == 0 {
				add([]int{0}, noCode, true, second)
			}
		}
	}
	return c
}

// runWordingAll is Run with every finding worded (no tails): the report
// the tails must give.
func runWordingAll(c *Context) []finding.Finding {
	c.prepare()
	c.tails = nil
	var out []finding.Finding
	for _, r := range registry {
		for _, check := range r.Checks {
			for _, f := range check(c) {
				f.RuleID = r.ID
				if f.Level = levelFor(c.Policy, r.Rule, f); f.Level != finding.LevelNone {
					out = append(out, f)
				}
			}
		}
	}
	out = mergeCauses(c, out, registryCause)
	finding.Sort(out)
	return capPerFile(c, out, nil)
}

// TestMachineTails: past MaxFindingsPerFile the machine checks word only
// the findings that can come first and hand the rest over as tails, and
// the report is the one of every finding worded: the same findings, the
// merged one's count, kernels and agents alike.
func TestMachineTails(t *testing.T) {
	const n, bins = 300, 3
	c := fleetContext(t, n, bins)
	want := runWordingAll(c)
	c.prepare()
	if worded := len(checkMachineLack(c)); worded >= n*bins {
		t.Errorf("KPL001 worded %d findings of %d machines x %d binaries: want the first of each file only", worded, n, bins)
	}
	got := Run(fleetContext(t, n, bins))
	if len(got) != len(want) {
		t.Fatalf("%d findings, want %d", len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("finding %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	// Per binary: 300 KPL001 findings (the second no-code outcome joins
	// the first by Subject), 150 KPL014.
	for _, w := range []string{"200 more KPL001 findings about lib/lib0.so", "50 more KPL014 findings about lib/lib2.so"} {
		found := false
		for _, f := range got {
			found = found || strings.HasPrefix(f.Message, w)
		}
		if !found {
			t.Errorf("no finding says %q", w)
		}
	}
}

// TestMachineTailsOff: a rule turned off drops its tails with its
// findings, and the other rule's merged findings count theirs alone.
func TestMachineTailsOff(t *testing.T) {
	c := fleetContext(t, 300, 1)
	p, err := policy.Parse([]byte("version: 1\nrules:\n  KPL001: {level: off}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c.Policy = p
	var merged []string
	for _, f := range Run(c) {
		if f.RuleID == "KPL001" {
			t.Fatalf("KPL001 is off: %s", f.Message)
		}
		if strings.Contains(f.Message, "more KPL") {
			merged = append(merged, f.Message[:strings.Index(f.Message, " (")])
		}
	}
	if want := []string{"50 more KPL014 findings about lib/lib0.so were merged into this one"}; !reflect.DeepEqual(merged, want) {
		t.Errorf("merged %q, want %q", merged, want)
	}
	if len(c.tails.byHead) != 0 {
		t.Errorf("%d tails left after Run", len(c.tails.byHead))
	}
}
