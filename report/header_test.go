package report

import (
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// TestMachineHeader: the text and markdown headers say what was simulated:
// machines instead of a target matrix, each with its own HIP release and
// loader, or the target matrix's release next to the machines'.
func TestMachineHeader(t *testing.T) {
	apu := finding.MachineInfo{Name: "apu", HIP: "6.2", Loader: "legacy", Devices: []finding.MachineDevice{{ISA: "gfx1036"}, {ISA: "gfx1100"}}}
	dgpu := finding.MachineInfo{Name: "dgpu", HIP: "newest", Loader: "fallthrough", Devices: []finding.MachineDevice{{ISA: "gfx1100"}}}
	for _, tt := range []struct {
		name     string
		checked  Checked
		text, md []string
	}{
		{"machines only", Checked{Inputs: []string{"tree"}, Loader: "fallthrough", HIP: "newest", TargetSource: "none: machines replace the archives' gfx_arches",
			Machines: []finding.MachineInfo{apu, dgpu}},
			[]string{"checked tree with no policy, loader per machine, HIP per machine: 6.2, newest\n" +
				"  simulated: 2 machines instead of a target matrix (the archives' gfx_arches are not used), each with its own devices, HIP release and environment\n" +
				"  machine apu: HIP 6.2;"},
			[]string{"Checked `tree` with no policy, loader per machine: 2 machines simulated instead of a target matrix, each with its own devices, HIP release and environment; HIP per machine: 6.2, newest."}},
		{"targets and machines", Checked{Inputs: []string{"tree"}, Loader: "fallthrough", HIP: "newest", TargetSource: "--target",
			Targets: []string{"gfx1100"}, Agents: []string{"gfx1100"}, Machines: []finding.MachineInfo{apu}},
			[]string{"checked tree with no policy, fallthrough loader, HIP newest for the targets; 6.2 on every machine\n  targets (--target): gfx1100\n  agents: gfx1100\n  machine apu:"},
			[]string{": 1 target (--target), 1 agent, 1 machine; HIP newest for the targets; 6.2 on every machine."}},
		{"targets alone", Checked{Inputs: []string{"tree"}, Loader: "fallthrough", HIP: "newest", TargetSource: "--target", Targets: []string{"gfx1100", "gfx942"}, Agents: []string{"gfx1100"}},
			[]string{"checked tree with no policy, fallthrough loader, HIP newest\n  targets (--target): gfx1100 gfx942\n"},
			[]string{": 2 targets (--target), 1 agent; HIP newest."}},
	} {
		r := Run{ToolName: "kpack-lint", ToolVersion: "0", Inputs: []string{"tree"}, Checked: &tt.checked}
		var text, md strings.Builder
		if err := WriteText(&text, r); err != nil {
			t.Fatal(err)
		}
		if err := WriteMarkdown(&md, r); err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.text {
			if !strings.Contains(text.String(), w) {
				t.Errorf("%s: text lacks %q:\n%s", tt.name, w, text.String())
			}
		}
		for _, w := range tt.md {
			if !strings.Contains(md.String(), w) {
				t.Errorf("%s: markdown lacks %q:\n%s", tt.name, w, md.String())
			}
		}
	}
}
