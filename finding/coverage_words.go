package finding

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Words says what grew, for people: "now also on gfx90a (4 agents:
// gfx90a:sramecc+:xnack+, ...); now also for 2 kernels: bin/y#0-1",
// processors first (each with its agents), then targets not of those
// processors, binaries, kernels, the machine or its devices and
// kernel-database files, each list naming at most MaxListed items ("...
// and N more"). A level that rose is said first ("now an error (was a
// warning)"); what a cut baseline list cannot tell and an older
// baseline's unrecorded dimensions are said last.
// "" for nil.
func (g *Growth) Words() string {
	if g == nil {
		return ""
	}
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if g.Level.Rank() > g.WasLevel.Rank() {
		add("now " + article(string(g.Level)) + " (was " + article(string(g.WasLevel)) + ")")
	}
	add(g.processorWords())
	add(g.targetWords())
	if len(g.Binaries) > 0 {
		n := max(g.BinariesTotal, len(g.Binaries))
		add("now also for " + counted(n, "binary", "binaries") + ": " + capTotal(g.Binaries, n))
	}
	if len(g.Kernels) > 0 {
		n := max(g.KernelsTotal, len(g.Kernels))
		sep := ": "
		if n > len(g.Kernels) {
			sep = ", among them "
		}
		add("now also for " + counted(n, "kernel", "kernels") + sep + ShortKernels(g.Kernels))
	}
	add(g.machineWords())
	if n := max(g.MissingTotal, len(g.Missing)); n > 0 {
		s := "now also missing " + counted(n, "kernel-database file", "kernel-database files")
		if len(g.Missing) > 0 {
			s += ": " + capTotal(g.Missing, n)
		}
		add(s)
	}
	if slices.Contains(g.Untold, "missing") {
		add("the baseline cannot tell: its finding lists only the first of the kernel-database files it misses, and this one names files past them, so it counts as new")
	}
	if len(g.Unrecorded) > 0 {
		add("the baseline's finding records no " + strings.Join(g.Unrecorded, ", ") + " (a report of an older kpack-lint), so all of them count as grown")
	}
	return strings.Join(parts, "; ")
}

// processorWords names the grown agents by processor: "now also on
// gfx1151, gfx90a (4 agents: ...)"; a bare agent that is its processor
// is named alone.
func (g *Growth) processorWords() string {
	if len(g.Agents) == 0 {
		return ""
	}
	var procs []string
	byProc := map[string][]string{}
	for _, a := range g.Agents {
		p := agentProcessor(a)
		if _, ok := byProc[p]; !ok {
			procs = append(procs, p)
		}
		byProc[p] = append(byProc[p], a)
	}
	words := make([]string, 0, len(procs))
	for _, p := range procs {
		as := byProc[p]
		switch {
		case len(as) == 1 && as[0] == p:
			words = append(words, p)
		case len(as) == 1:
			words = append(words, p+" (agent "+as[0]+")")
		default:
			words = append(words, p+" ("+strconv.Itoa(len(as))+" agents: "+CapList(as, MaxListed, ", ")+")")
		}
	}
	return "now also on " + CapList(words, MaxListed, ", ")
}

// targetWords names the grown targets whose processor no grown agent
// has: "now also for target gfx942:xnack+".
func (g *Growth) targetWords() string {
	var ts []string
	for _, t := range g.Targets {
		p := agentProcessor(t)
		if !slices.ContainsFunc(g.Agents, func(a string) bool { return agentProcessor(a) == p }) {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return ""
	}
	return "now also for " + pluralWord(len(ts), "target", "targets") + " " + CapList(ts, MaxListed, ", ")
}

func (g *Growth) machineWords() string {
	devs := make([]string, len(g.Devices))
	for i, d := range g.Devices {
		devs[i] = strconv.Itoa(d)
	}
	list := CapList(devs, MaxListed, ", ")
	switch {
	case g.NewMachine && len(devs) > 0:
		return "now also on machine " + g.Machine + " (" + pluralWord(len(devs), "device", "devices") + " " + list + ")"
	case g.NewMachine:
		return "now also on machine " + g.Machine
	case len(devs) > 0:
		return "now also on " + pluralWord(len(devs), "device", "devices") + " " + list + " of machine " + g.Machine
	}
	return ""
}

// agentProcessor is the processor of an agent ISA or target ID
// ("gfx942" of "gfx942:sramecc+:xnack-").
func agentProcessor(id string) string {
	p, _, _ := strings.Cut(id, ":")
	return p
}

// article is "an error", "a warning", "a note".
func article(level string) string {
	if level != "" && strings.ContainsRune("aeiou", rune(level[0])) {
		return "an " + level
	}
	return "a " + level
}

func counted(n int, one, many string) string {
	return strconv.Itoa(n) + " " + pluralWord(n, one, many)
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// capTotal names the first MaxListed items of a list of total (the list
// may be cut shorter than total): "a, b ... and 7 more".
func capTotal(items []string, total int) string {
	shown := items[:min(len(items), MaxListed)]
	s := strings.Join(shown, ", ")
	if left := max(total, len(items)) - len(shown); left > 0 {
		s += fmt.Sprintf(" ... and %d more", left)
	}
	return s
}
