package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// machineRun is a run on one machine of two devices with a verdict and a
// finding naming device 1.
func machineRun() Run {
	r := testRun("seed")
	r.Inputs = []string{"dist"}
	r.Checked = &Checked{Inputs: []string{"dist"}, Loader: "fallthrough", Targets: []string{"gfx1100"},
		Machines: []finding.MachineInfo{{Name: "m", HIP: "7.1", Loader: "fallthrough",
			Devices: []finding.MachineDevice{{ISA: "gfx1030"}, {ISA: "gfx1100"}},
			Linux:   &finding.MachineView{Devices: []finding.ViewDevice{{Index: 0, Device: 1, ISA: "gfx1100"}, {Index: 1, Device: 0, ISA: "gfx1030"}}}}}}
	r.Machines = []finding.MachineVerdict{{Machine: "m", Binaries: 3, Clean: 1, Outcomes: map[string]int{"no-code": 2},
		Failing: []finding.BinaryVerdict{{Input: 0, Path: "lib/a.so", Devices: []finding.DeviceVerdict{{Device: 1, ISA: "gfx1030", Outcome: "no-code", Modules: 1}}}}}}
	one := 1
	r.Findings[0].Machine = &finding.OnMachine{Machine: "m", HIP: "7.1", Devices: []int{1}, OtherDevice: &one, Outcome: "no-code"}
	return r
}

// written is r in format as generic JSON.
func written(t *testing.T, format string, r Run) map[string]any {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, format, r); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// node walks doc by keys and indexes.
func node(doc any, path ...any) map[string]any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			doc = doc.(map[string]any)[k]
		case int:
			doc = doc.([]any)[k]
		}
	}
	return doc.(map[string]any)
}

// TestReadChecksMachines: a report whose machine counts, outcomes or
// device indexes cannot be kpack-lint's is not read; the error names the
// field as the format writes it.
func TestReadChecksMachines(t *testing.T) {
	roots := map[string]struct {
		verdict, machine, finding []any
		prefix                    string
	}{
		"json":  {[]any{"machineVerdicts", 0}, []any{"checked", "machines", 0}, []any{"findings", 0}, ""},
		"sarif": {[]any{"runs", 0, "properties", "machineVerdicts", 0}, []any{"runs", 0, "invocations", 0, "properties", "machines", 0}, []any{"runs", 0, "results", 0, "properties"}, ""},
	}
	cases := []struct {
		name   string
		edit   func(verdict, machine, finding map[string]any)
		field  string // after the format's path to the verdict, machine or finding
		where  string // verdict, machine, finding
		reason string
	}{
		{"negative binaries", func(v, _, _ map[string]any) { v["binaries"] = -1 }, "binaries", "verdict", "-1 is negative"},
		{"clean over binaries", func(v, _, _ map[string]any) { v["clean"] = 4 }, "clean", "verdict", "4 is not within 0 to binaries (3)"},
		{"unknown outcome", func(v, _, _ map[string]any) { v["outcomes"] = map[string]any{"exploded": 1} }, "outcomes", "verdict",
			`unknown outcome "exploded" (want one of [no-code failed-by-other foreign-code aborted unsupported])`},
		{"negative outcome", func(v, _, _ map[string]any) { v["outcomes"] = map[string]any{"no-code": -5} }, `outcomes["no-code"]`, "verdict",
			"-5 is not within 0 to the failing binaries (2)"},
		{"device verdict -1", func(v, _, _ map[string]any) { node(v, "failing", 0, "devices", 0)["device"] = -1 }, "failing[0].devices[0].device", "verdict",
			"-1 is not a device index (0 to 63)"},
		{"view index -1", func(_, m, _ map[string]any) { node(m, "linux", "devices", 0)["index"] = -1 }, "linux.devices[0].index", "machine",
			"-1 is not a HIP index of the 2 devices HIP sees"},
		{"view device 2^40", func(_, m, _ map[string]any) { node(m, "linux", "devices", 1)["device"] = 1 << 40 }, "linux.devices[1].device", "machine",
			"1099511627776 is not one of the machine's 2 devices"},
		{"finding device 2^40", func(_, _, f map[string]any) { f["devices"] = []any{1 << 40} }, "devices[0]", "finding",
			"1099511627776 is not a device index (0 to 63)"},
	}
	for format, root := range roots {
		doc := written(t, format, machineRun())
		data, _ := json.Marshal(doc)
		if _, _, err := Read(data); err != nil {
			t.Fatalf("%s: the valid report does not read: %v", format, err)
		}
		for _, c := range cases {
			doc := written(t, format, machineRun())
			c.edit(node(doc, root.verdict...), node(doc, root.machine...), node(doc, root.finding...))
			data, _ := json.Marshal(doc)
			_, _, err := Read(data)
			path := map[string][]any{"verdict": root.verdict, "machine": root.machine, "finding": root.finding}[c.where]
			want := jsonPath(path) + "." + c.field + ": " + c.reason
			if err == nil || err.Error() != want {
				t.Errorf("%s %s: err %v\nwant %s", format, c.name, err, want)
			}
		}
	}
}

// jsonPath writes a path of keys and indexes as the errors do:
// machineVerdicts[0], runs[0].properties.
func jsonPath(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch k := p.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		case int:
			b.WriteString("[" + string(rune('0'+k)) + "]")
		}
	}
	return b.String()
}

// Counts that are valid in each shard but add up past math.MaxInt fail
// the merge, naming the machine, instead of wrapping to negative counts.
func TestMergeMachinesOverflow(t *testing.T) {
	big := Run{Machines: []finding.MachineVerdict{{Machine: "m", Binaries: math.MaxInt, Clean: math.MaxInt}}}
	if _, err := MergeMachines([]Run{big, big}); err == nil || err.Error() != "machine m: the shards' binaries add up past 9223372036854775807" {
		t.Errorf("err %v", err)
	}
	nc := Run{Machines: []finding.MachineVerdict{{Machine: "m", Binaries: math.MaxInt / 2, Outcomes: map[string]int{"no-code": math.MaxInt / 2}}}}
	one := Run{Machines: []finding.MachineVerdict{{Machine: "m", Binaries: 2, Outcomes: map[string]int{"no-code": 2}}}}
	if _, err := MergeMachines([]Run{nc, nc, one}); err == nil || err.Error() != "machine m: the shards' binaries add up past 9223372036854775807" {
		t.Errorf("err %v", err)
	}
	huge := Run{Machines: []finding.MachineVerdict{{Machine: "m", Binaries: 1, Outcomes: map[string]int{"no-code": math.MaxInt}}}}
	if _, err := MergeMachines([]Run{huge, huge}); err == nil || err.Error() != "machine m: the shards' no-code binaries add up past 9223372036854775807" {
		t.Errorf("err %v", err)
	}
	got, err := MergeMachines([]Run{one, one})
	if err != nil || got[0].Binaries != 4 || got[0].Outcomes["no-code"] != 4 {
		t.Errorf("merge %+v, %v", got, err)
	}
}

// MaxReadDevices is the most devices a machine definition may have.
func TestMaxReadDevicesIsMachineLimit(t *testing.T) {
	if MaxReadDevices != machine.MaxDevices {
		t.Errorf("report.MaxReadDevices %d, machine.MaxDevices %d", MaxReadDevices, machine.MaxDevices)
	}
}
