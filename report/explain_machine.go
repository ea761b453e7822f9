package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
)

// MachineExplanation is explain --machine for one module (a kernel key of
// an HIPK wrapper, or an embedded wrapper "<binary>[embedded]#<n>") on one
// machine: what the process sees (the environment's notes, the devices),
// the release's rule for the module's path, PR 2622's one load for every
// device when the release makes it, and per device what it gets. Its JSON
// form is explain --machine's JSON output.
type MachineExplanation struct {
	Machine string `json:"machine"`
	HIP     string `json:"hip"`
	Module  string `json:"module"`
	Binary  string `json:"binary,omitempty"`
	// Path is "kpack" (an HIPK wrapper) or "fat-binary" (an offload
	// bundle); Rule is the release's behaviour for it and its source.
	Path    string                `json:"path"`
	Rule    string                `json:"rule"`
	Windows bool                  `json:"windows,omitempty"`
	Notes   []finding.MachineNote `json:"notes,omitempty"`
	// NoDevice is set when the process sees no device at all.
	NoDevice bool `json:"no_device,omitempty"`
	// Combined is PR 2622's one load of every device's arch_list.
	Combined *MachineLoad  `json:"combined,omitempty"`
	Devices  []DeviceTrace `json:"devices"`
	// Failed: the module load fails for every device.
	Failed bool `json:"failed"`
}

// MachineLoad is one simulated kpack_load_code_object of a machine: the
// arch_list and loader, the result, and on success the archive and target
// served.
type MachineLoad struct {
	ArchList []string `json:"arch_list"`
	Loader   string   `json:"loader"`
	Result   string   `json:"result"`
	Code     int      `json:"code"`
	Archive  string   `json:"archive,omitempty"`
	Target   string   `json:"matched_target,omitempty"`
}

// DeviceTrace is what one visible device gets from the module: its HIP
// index, its place in the machine, its real and reported ISA (and the
// setting that changed it), its own kpack load or the bundle entry HIP
// picks for it, the outcome and what the user sees, and the fixes.
type DeviceTrace struct {
	Index    int          `json:"index"`
	Device   int          `json:"device"`
	Real     string       `json:"real"`
	ISA      string       `json:"isa"`
	Override string       `json:"override,omitempty"`
	Load     *MachineLoad `json:"load,omitempty"`
	// Entry is the bundle entry picked ("" when none fits).
	Entry        string   `json:"entry,omitempty"`
	Outcome      string   `json:"outcome"`
	Other        *int     `json:"other_device,omitempty"`
	Target       string   `json:"code_object_target,omitempty"`
	Registration string   `json:"registration,omitempty"`
	Launch       string   `json:"launch,omitempty"`
	Then         string   `json:"then,omitempty"`
	Seen         string   `json:"seen"`
	Fixes        []string `json:"fixes,omitempty"`
}

// WriteMachineExplanations writes explain --machine's output in format
// "json" (one explanation as an object, several as an array) or "text"
// (each as a per-device trace, separated by a blank line; every line
// escaped: names come from the inputs and the policy).
func WriteMachineExplanations(w io.Writer, format string, exs []MachineExplanation) error {
	return writeExplained(w, format, exs, writeMachineText)
}

func writeMachineText(w io.Writer, ex MachineExplanation) {
	kind := "Linux"
	if ex.Windows {
		kind = "Windows"
	}
	fmt.Fprintf(w, "machine %s: HIP %s, a %s process, module %s (%s)\n", ex.Machine, ex.HIP, kind, ex.Module, ex.Path)
	fmt.Fprintf(w, "hip: %s\n", ex.Rule)
	for _, n := range ex.Notes {
		fmt.Fprintf(w, "env: %s: %s\n", n.Var, n.Text)
	}
	if ex.NoDevice {
		fmt.Fprintf(w, "hip: the process sees no device: nothing is loaded\n")
		return
	}
	if l := ex.Combined; l != nil {
		fmt.Fprintf(w, "kpack: one load for every device: %s\n", loadWords(l))
	}
	for _, d := range ex.Devices {
		isa := d.ISA
		if d.Real != d.ISA {
			isa = fmt.Sprintf("%s reporting %s (%s)", d.Real, d.ISA, d.Override)
		}
		fmt.Fprintf(w, "device %d (GPU %d): %s\n", d.Index, d.Device, isa)
		switch {
		case d.Load != nil:
			fmt.Fprintf(w, "  kpack: own load: %s\n", loadWords(d.Load))
		case ex.Path == "fat-binary" && d.Entry != "":
			fmt.Fprintf(w, "  bundle: entry %s\n", d.Entry)
		case ex.Path == "fat-binary":
			fmt.Fprintf(w, "  bundle: no entry for %s\n", d.ISA)
		}
		outcome := d.Outcome
		if d.Other != nil {
			outcome += fmt.Sprintf(" (device %d)", *d.Other)
		}
		if d.Target != "" {
			outcome += ", code object for " + d.Target
		}
		fmt.Fprintf(w, "  outcome: %s: %s\n", outcome, d.Seen)
		for _, f := range d.Fixes {
			fmt.Fprintf(w, "  fix: %s\n", f)
		}
	}
}

// loadWords says one load: "arch_list [a, b], legacy loader: KPACK_SUCCESS
// from x.kpack (target gfx1100)".
func loadWords(l *MachineLoad) string {
	s := fmt.Sprintf("arch_list [%s], %s loader: %s", strings.Join(l.ArchList, ", "), l.Loader, l.Result)
	if l.Archive != "" {
		s += fmt.Sprintf(" from %s (target %s)", l.Archive, l.Target)
	}
	return s
}
