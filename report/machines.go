package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// The simulated machines in every format: what each machine is
// (Checked.Machines: devices, release, environment, what each process
// kind sees) and its verdict on the binaries (Run.Machines).

// verdictOf returns the verdict of the named machine (nil when none).
func verdictOf(r Run, name string) *finding.MachineVerdict {
	for i := range r.Machines {
		if r.Machines[i].Machine == name {
			return &r.Machines[i]
		}
	}
	return nil
}

// machineDevices says a machine's GPUs in enumeration order: "0 gfx1036,
// 1 gfx1100".
func machineDevices(m finding.MachineInfo) string {
	parts := make([]string, len(m.Devices))
	for i, d := range m.Devices {
		parts[i] = fmt.Sprintf("%d %s", i, d.ISA)
	}
	return strings.Join(parts, ", ")
}

// viewWords says what a process kind sees when the environment changed
// it: "Linux: HIP sees device 0 = GPU 1 (gfx1100)", "" when it sees the
// machine's GPUs as they are.
func viewWords(kind string, m finding.MachineInfo, v *finding.MachineView) string {
	if v == nil {
		return ""
	}
	if v.NoRuntime || len(v.Devices) == 0 {
		return kind + ": no device"
	}
	plain := len(v.Devices) == len(m.Devices)
	parts := make([]string, len(v.Devices))
	for i, d := range v.Devices {
		parts[i] = fmt.Sprintf("device %d = GPU %d (%s)", d.Index, d.Device, d.ISA)
		if d.Device != i || d.Real != "" {
			plain = false
		}
	}
	if plain {
		return ""
	}
	return kind + ": HIP sees " + strings.Join(parts, ", ")
}

// verdictWords is a machine's verdict: "12 binaries: 10 clean, 2 failing
// (failed-by-other 1, no-code 2)".
func verdictWords(v *finding.MachineVerdict) string {
	if v == nil || v.Binaries == 0 {
		return "no binary judged"
	}
	noun := "binaries"
	if v.Binaries == 1 {
		noun = "binary"
	}
	s := fmt.Sprintf("%d %s: %d clean", v.Binaries, noun, v.Clean)
	if n := v.Binaries - v.Clean; n > 0 {
		s += fmt.Sprintf(", %d failing (%s)", n, outcomeCounts(v))
	}
	return s
}

// outcomeCounts is a verdict's failing binaries per outcome, by outcome
// name (a binary counts once per outcome its devices have):
// "failed-by-other 1, no-code 2".
func outcomeCounts(v *finding.MachineVerdict) string {
	names := slices.Sorted(maps.Keys(v.Outcomes))
	parts := make([]string, len(names))
	for i, o := range names {
		parts[i] = fmt.Sprintf("%s %d", o, v.Outcomes[o])
	}
	return strings.Join(parts, ", ")
}

// writeTextMachines writes one header line per machine.
func writeTextMachines(b *strings.Builder, r Run) {
	if r.Checked == nil {
		return
	}
	for _, m := range r.Checked.Machines {
		parts := []string{"HIP " + m.HIP, "devices " + machineDevices(m)}
		if len(m.Env) > 0 {
			parts = append(parts, "env "+strings.Join(m.Env, " "))
		}
		for _, w := range []string{viewWords("Linux", m, m.Linux), viewWords("Windows", m, m.Windows)} {
			if w != "" {
				parts = append(parts, w)
			}
		}
		fmt.Fprintf(b, "  machine %s: %s: %s\n", escape.String(m.Name), escape.String(strings.Join(parts, "; ")), verdictWords(verdictOf(r, m.Name)))
	}
}

// writeMarkdownMachines draws a table of machines x verdict.
func writeMarkdownMachines(b *strings.Builder, r Run) {
	if r.Checked == nil || len(r.Checked.Machines) == 0 {
		return
	}
	b.WriteString("| machine | HIP | devices (HIP order) | env | binaries clean | failing |\n|---|---|---|---|---:|---|\n")
	for i, m := range r.Checked.Machines {
		if i == maxSummaryRows {
			fmt.Fprintf(b, "\n... and %d more machines: %s.\n", len(r.Checked.Machines)-i, summaryFullReports)
			break
		}
		devices := machineDevices(m)
		for _, w := range []string{viewWords("Linux", m, m.Linux), viewWords("Windows", m, m.Windows)} {
			if w != "" {
				devices += "; " + w
			}
		}
		v := verdictOf(r, m.Name)
		clean, failing := "–", "–"
		if v != nil {
			clean = fmt.Sprintf("%d/%d", v.Clean, v.Binaries)
			failing = "✅ none"
			if n := v.Binaries - v.Clean; n > 0 {
				failing = fmt.Sprintf("❌ %d (%s)", n, outcomeCounts(v))
			}
		}
		env := "–"
		if len(m.Env) > 0 {
			env = mdCellCode(strings.Join(m.Env, " "))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", mdCellCode(m.Name), mdCut(m.HIP), mdCut(devices), env, clean, mdCut(failing))
	}
	b.WriteString("\nMachines: each process loads every module for every visible device, as its HIP release does; failing counts the binaries " +
		"some device does not load its own code from (outcomes: no-code, failed-by-other, foreign-code, aborted, unsupported).\n\n")
}

// writeGitHubMachines writes a notice per machine with failing binaries,
// at most MaxAnnotations.
func writeGitHubMachines(b *strings.Builder, r Run) {
	if r.Checked == nil {
		return
	}
	n := 0
	for _, m := range r.Checked.Machines {
		v := verdictOf(r, m.Name)
		if v == nil || v.Binaries == v.Clean {
			continue
		}
		if n == MaxAnnotations {
			break
		}
		n++
		fmt.Fprintf(b, "::notice title=%s::%s\n", escapeProperty("kpack-lint machine "+escape.String(m.Name)),
			escapeData(escape.String(fmt.Sprintf("HIP %s, devices %s: %s", m.HIP, machineDevices(m), verdictWords(v)))))
	}
}

// MergeMachines joins the shards' verdicts of each machine (gate.Merge):
// binaries, clean ones and outcome counts add up, failing binaries are
// sorted by input and path and the first finding.MaxFailingListed kept
// (each shard lists its first ones, so the run's first are among them).
// Counts that would add up past math.MaxInt are an error naming the
// machine.
func MergeMachines(runs []Run) ([]finding.MachineVerdict, error) {
	var out []finding.MachineVerdict
	index := map[string]int{}
	for _, r := range runs {
		for _, v := range r.Machines {
			i, ok := index[v.Machine]
			if !ok {
				i = len(out)
				index[v.Machine] = i
				out = append(out, finding.MachineVerdict{Machine: v.Machine})
			}
			if err := addVerdict(&out[i], v); err != nil {
				return nil, fmt.Errorf("machine %s: %v", escape.String(v.Machine), err)
			}
		}
	}
	for i := range out {
		slices.SortFunc(out[i].Failing, func(a, b finding.BinaryVerdict) int {
			if a.Input != b.Input {
				return a.Input - b.Input
			}
			return strings.Compare(a.Path, b.Path)
		})
		out[i].Failing = out[i].Failing[:min(len(out[i].Failing), finding.MaxFailingListed)]
	}
	return out, nil
}

// addVerdict adds a shard's verdict v to the merged one.
func addVerdict(to *finding.MachineVerdict, v finding.MachineVerdict) error {
	var ok bool
	if to.Binaries, ok = addCount(to.Binaries, v.Binaries); !ok {
		return fmt.Errorf("the shards' binaries add up past %d", math.MaxInt)
	}
	if to.Clean, ok = addCount(to.Clean, v.Clean); !ok {
		return fmt.Errorf("the shards' clean binaries add up past %d", math.MaxInt)
	}
	to.Failing = append(to.Failing, v.Failing...)
	for k, n := range v.Outcomes {
		if to.Outcomes == nil {
			to.Outcomes = map[string]int{}
		}
		if to.Outcomes[k], ok = addCount(to.Outcomes[k], n); !ok {
			return fmt.Errorf("the shards' %s binaries add up past %d", k, math.MaxInt)
		}
	}
	return nil
}

// sanitizeMachines escapes the strings of machines and verdicts.
func sanitizeMachines(ms []finding.MachineInfo) []finding.MachineInfo {
	e := escape.String
	return each(ms, func(m finding.MachineInfo) finding.MachineInfo {
		m.Name, m.HIP, m.Loader, m.Env = e(m.Name), e(m.HIP), e(m.Loader), strs(m.Env)
		m.Devices = each(m.Devices, func(d finding.MachineDevice) finding.MachineDevice { d.ISA, d.UUID = e(d.ISA), e(d.UUID); return d })
		m.Linux, m.Windows = sanitizeView(m.Linux), sanitizeView(m.Windows)
		return m
	})
}

func sanitizeView(v *finding.MachineView) *finding.MachineView {
	if v == nil {
		return nil
	}
	e := escape.String
	c := *v
	c.Devices = each(c.Devices, func(d finding.ViewDevice) finding.ViewDevice {
		d.ISA, d.Real, d.Override = e(d.ISA), e(d.Real), e(d.Override)
		return d
	})
	c.Notes = each(c.Notes, func(n finding.MachineNote) finding.MachineNote { n.Var, n.Text = e(n.Var), e(n.Text); return n })
	return &c
}

func sanitizeVerdicts(vs []finding.MachineVerdict) []finding.MachineVerdict {
	e := escape.String
	return each(vs, func(v finding.MachineVerdict) finding.MachineVerdict {
		v.Machine = e(v.Machine)
		if v.Outcomes != nil {
			o := make(map[string]int, len(v.Outcomes))
			for k, n := range v.Outcomes {
				o[e(k)] = n
			}
			v.Outcomes = o
		}
		v.Failing = each(v.Failing, func(b finding.BinaryVerdict) finding.BinaryVerdict {
			b.Path = e(b.Path)
			b.Devices = each(b.Devices, func(d finding.DeviceVerdict) finding.DeviceVerdict {
				d.ISA, d.Outcome = e(d.ISA), e(d.Outcome)
				return d
			})
			return b
		})
		return v
	})
}
