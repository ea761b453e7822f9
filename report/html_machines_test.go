package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// The page shows the simulated machines as the markdown table does (the
// machine, its release, its devices in HIP order and what a process sees
// when the environment changes it, its environment, its binaries clean
// and failing), each finding's machine and release, and the release in
// the header.
func TestHTMLMachines(t *testing.T) {
	r := testRun("")
	r.Checked = &Checked{Inputs: []string{"dist"}, Loader: "fallthrough", TargetSource: "none: machines replace the archives' gfx_arches", HIP: "6.2",
		Machines: []finding.MachineInfo{
			{Name: "apu", HIP: "6.2", Loader: "legacy", Devices: []finding.MachineDevice{{ISA: "gfx1036"}, {ISA: "gfx1100"}},
				Env:   []string{"HIP_VISIBLE_DEVICES=1"},
				Linux: &finding.MachineView{Devices: []finding.ViewDevice{{Index: 0, Device: 1, ISA: "gfx1100"}}}},
			{Name: "gfx1100", HIP: "newest", Loader: "fallthrough", Devices: []finding.MachineDevice{{ISA: "gfx1100"}}},
			{Name: "<b>idle</b>", HIP: "newest", Loader: "fallthrough", Devices: []finding.MachineDevice{{ISA: "gfx942:sramecc+:xnack-"}}},
		}}
	r.Machines = []finding.MachineVerdict{
		{Machine: "apu", Binaries: 3, Clean: 1, Outcomes: map[string]int{"no-code": 2, "failed-by-other": 1}},
		{Machine: "gfx1100", Binaries: 3, Clean: 3},
	}
	r.Findings = []finding.Finding{{RuleID: "KPL001", Message: "device 1 has no code", Location: finding.Location{Path: "lib/libx.so"},
		Kernels: []string{"lib/libx.so[embedded]#0"}, Agents: []string{"gfx1100"}, HIPError: "hipErrorNoBinaryForGpu", Subject: "x",
		Machine: &finding.OnMachine{Machine: "apu", HIP: "6.2", Devices: []int{0}, DeviceISA: "gfx1100", Outcome: "no-code"}}}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	var rows, cells []htmlNode
	var article htmlNode
	inMachines := false
	for _, n := range parseHTML(t, page) {
		switch {
		case n.name == "table":
			inMachines = n.attrs["id"] == "machines"
		case n.name == "tr" && n.attrs["data-machine"] != "":
			rows = append(rows, n)
		case n.name == "td" && inMachines:
			cells = append(cells, n)
		case n.name == "article":
			article = n
		}
	}
	got := make([]string, len(rows))
	for i, row := range rows {
		got[i] = row.attrs["data-machine"] + " hip=" + row.attrs["data-hip"] + " devices=" + row.attrs["data-devices"] + " " +
			row.attrs["data-binaries"] + "/" + row.attrs["data-clean"] + "/" + row.attrs["data-failing"] + " " + row.attrs["class"]
	}
	want := []string{"apu hip=6.2 devices=2 3/1/2 error", "gfx1100 hip=newest devices=1 3/3/0 ok", "<b>idle</b> hip=newest devices=1 // none"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("machine rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var texts []string
	for _, c := range cells[:6] {
		texts = append(texts, strings.TrimSpace(c.text))
	}
	if want := "|6.2|0 gfx1036, 1 gfx1100; Linux: HIP sees device 0 = GPU 1 (gfx1100)|HIP_VISIBLE_DEVICES=1|1/3|2 (failed-by-other 1, no-code 2)"; strings.Join(texts, "|") != want {
		t.Errorf("apu cells %q, want %q", strings.Join(texts, "|"), want)
	}
	if article.attrs["data-machine"] != "apu" || article.attrs["data-hip"] != "6.2" ||
		!strings.Contains(page, "<dt>machine</dt><dd class=\"mono\">apu, device 0 (gfx1100)</dd><dt>hip</dt><dd class=\"mono\">hipErrorNoBinaryForGpu (HIP 6.2)</dd>") {
		t.Errorf("finding %v:\n%s", article.attrs, page)
	}
	if !strings.Contains(page, "0 agents, HIP 6.2, 3 machines.</p>") || strings.Contains(page, "<b>idle</b>") {
		t.Errorf("header or escaping:\n%s", page)
	}
}
