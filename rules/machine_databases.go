package rules

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// The kernel databases on the machines: each library (rocBLAS, hipBLASLt,
// MIOpen, AOTriton) is looked up for every device its process sees, by
// the ISA the device reports (an override changes it). A device whose
// lookup misses is the library's KPL013 on that machine; when the miss
// aborts or crashes the process (rocBLAS's rocblas_abort, TheRock#7790),
// every other device of the process stops with it, which is KPL014 for
// those that have their own files (rocm-jax#389, rocm-libraries#7026:
// gfx906 + gfx908, rocBLAS without gfx906's Tensile index; with
// ROCR_VISIBLE_DEVICES=1 the same work runs). A Windows library (a
// .dll) runs in a Windows process.

// windowsLibrary reports whether a library site is a Windows one (a
// .dll), which runs in a Windows process.
func windowsLibrary(s *kerneldb.Site) bool {
	return strings.HasSuffix(strings.ToLower(s.Path), ".dll")
}

// dbOutcome is one miss of one library on some devices of one machine's
// process: the devices (HIP indexes, one ISA) whose lookup misses alike,
// the first one's lookup and the misses of one severity, and, when the
// miss ends the process, the other visible devices it takes down.
type dbOutcome struct {
	machine int
	windows bool
	site    *kerneldb.Site
	lookup  *kerneldb.Lookup
	misses  []kerneldb.Miss
	severe  bool
	devices []int
	down    []int
}

// dbOutcomes judges every library site on every machine, once per Run.
func (c *Context) dbOutcomes() []dbOutcome {
	ms := c.Machines
	if ms == nil || ms.Databases == nil {
		return nil
	}
	d := ms.Databases
	if c.dbs == nil { // a check run without Run
		return judgeDatabases(ms.Plan, d)
	}
	c.dbs.once.Do(func() { c.dbs.outcomes = judgeDatabases(ms.Plan, d) })
	return c.dbs.outcomes
}

// dbCache holds dbOutcomes, judged once per Run (prepare makes it).
type dbCache struct {
	once     sync.Once
	outcomes []dbOutcome
}

// judgeDatabases is dbOutcomes: per machine, library site (in its
// process kind) and miss cluster (clusterKey), the devices that meet it.
func judgeDatabases(p *machine.Plan, d *sim.MachineDatabases) []dbOutcome {
	var out []dbOutcome
	for mi, m := range p.Machines() {
		rel := m.Release().Name
		for _, s := range d.Result.Sites {
			w := windowsLibrary(s)
			view := p.View(mi, w)
			index := map[string]int{}
			var aborting []int
			for _, v := range view.Devices {
				l := d.Lookup(s, rel, v.ISA.String())
				if l == nil {
					continue
				}
				for _, severe := range []bool{true, false} {
					ms := missesOf(l, severe)
					if len(ms) == 0 {
						continue
					}
					key := clusterKey(l, ms) + "\x00" + l.Agent // one ISA per outcome: its devices are worded by it
					i, ok := index[key]
					if !ok {
						i = len(out)
						index[key] = i
						out = append(out, dbOutcome{machine: mi, windows: w, site: s, lookup: l, misses: ms, severe: severe})
					}
					out[i].devices = append(out[i].devices, v.Index)
					if endsProcess(leadMiss(ms).Effect) {
						aborting = append(aborting, v.Index)
					}
				}
			}
			if len(aborting) == 0 {
				continue
			}
			for i := range out {
				o := &out[i]
				if o.machine != mi || o.site != s || !o.severe || !endsProcess(leadMiss(o.misses).Effect) {
					continue
				}
				for _, v := range view.Devices {
					if !slices.Contains(aborting, v.Index) {
						o.down = append(o.down, v.Index)
					}
				}
			}
		}
	}
	return out
}

// endsProcess reports whether a miss with effect e ends the whole
// process: an abort (rocblas_abort) or a crash.
func endsProcess(e kerneldb.Effect) bool { return e == kerneldb.Abort || e == kerneldb.Crash }

// checkMachineDatabases is KPL013 for the machines: a library's lookup
// misses on some devices of a machine's process.
func checkMachineDatabases(c *Context) []finding.Finding {
	outs := c.dbOutcomes()
	out := make([]finding.Finding, 0, len(outs))
	for i := range outs {
		out = append(out, machineDBFinding(c, &outs[i], outs[i].lookup))
	}
	return out
}

// checkMachineDatabaseAborts is KPL014 for the machines: devices that
// have their library's files but stop because the library ends the
// process on another device.
func checkMachineDatabaseAborts(c *Context) []finding.Finding {
	var out []finding.Finding
	outs := c.dbOutcomes()
	for i := range outs {
		o := &outs[i]
		if len(o.down) == 0 {
			continue
		}
		// the devices taken down that miss nothing severe themselves
		var clean []int
		for _, d := range o.down {
			if !severeOn(outs, o, d) {
				clean = append(clean, d)
			}
		}
		if len(clean) > 0 {
			out = append(out, machineDBDownFinding(c, o, clean))
		}
	}
	return out
}

// severeOn reports whether device d of o's machine and library has a
// severe miss of its own.
func severeOn(outs []dbOutcome, o *dbOutcome, d int) bool {
	for i := range outs {
		p := &outs[i]
		if p.machine == o.machine && p.site == o.site && p.severe && slices.Contains(p.devices, d) {
			return true
		}
	}
	return false
}

// machineDBFinding words one library miss on a machine.
func machineDBFinding(c *Context, o *dbOutcome, l *kerneldb.Lookup) finding.Finding {
	ms := c.Machines
	m := ms.Plan.Machines()[o.machine]
	view := ms.Plan.View(o.machine, o.windows)
	s := o.site
	lead := leadMiss(o.misses)
	effect := lead.Effect
	var texts []string
	for _, x := range o.misses {
		texts = append(texts, x.Text)
	}
	devs := devicesWords(view, o.devices)
	what := fmt.Sprintf("on %s %s", devs, effectPhrase(effect, len(o.devices)))
	if len(o.down) > 0 {
		what = fmt.Sprintf("on %s the process aborts, so every device of the process stops with it (%s)", devs, devicesList(view, o.down))
		if effect == kerneldb.Crash {
			what = fmt.Sprintf("on %s the process crashes, so every device of the process stops with it (%s)", devs, devicesList(view, o.down))
		}
	}
	sees := "The user sees"
	if effect == kerneldb.NotChecked {
		sees = "Details"
	}
	procs := []string{l.Processor}
	fixes := append([]string{strings.TrimSuffix(dbFix(l, lead, procs, true), ".")}, dbHideFixes(c, o)...)
	lvl := finding.LevelError
	outcome := "no-code"
	switch {
	case !effect.Severe():
		lvl, outcome = finding.LevelNote, ""
	case endsProcess(effect):
		outcome = "aborted"
	}
	first := view.Devices[o.devices[0]]
	om := &finding.OnMachine{Machine: m.Name, HIP: m.Release().Name, Windows: o.windows, Devices: o.devices,
		DeviceISA: first.ISA.String(), Outcome: outcome, Fixes: fixes}
	if !first.Real.Equal(first.ISA) {
		om.RealISA = first.Real.String()
	}
	missing, total := dbMissing(o.misses)
	return finding.Finding{
		Level: lvl,
		Message: fmt.Sprintf("%s (%s) %s on machine %s: %s. %s: %s. Fix: %s.",
			s.Library, s.Path, headline(l, lead, procs), machineWords(m, view), what, sees, strings.Join(texts, "; also "), strings.Join(fixes, "; ")),
		Location:     finding.Location{Input: s.Input, Path: s.Path},
		Agents:       []string{first.ISA.String()},
		Trace:        lookupTrace(l),
		Subject:      subject("machine-kernel-db", m.Name, string(s.Library), s.Path, l.Dir, l.Processor, deviceList(o.devices), string(effect)),
		Library:      string(s.Library),
		Effect:       string(effect),
		Missing:      missing,
		MissingTotal: total,
		Machine:      om,
	}
}

// machineDBDownFinding words the devices a library's abort on another
// device of the process takes down.
func machineDBDownFinding(c *Context, o *dbOutcome, down []int) finding.Finding {
	ms := c.Machines
	m := ms.Plan.Machines()[o.machine]
	view := ms.Plan.View(o.machine, o.windows)
	s := o.site
	lead := leadMiss(o.misses)
	verb := "aborts"
	if lead.Effect == kerneldb.Crash {
		verb = "crashes"
	}
	culprit := devicesWords(view, o.devices)
	first := view.Devices[down[0]]
	fixes := dbHideFixes(c, o)
	msg := fmt.Sprintf("%s (%s) on machine %s: %s %s its files, but the process %s on %s, where the library %s, so %s too. The user sees: %s.",
		s.Library, s.Path, machineWords(m, view), devicesWords(view, down), hasVerb(down), verb, culprit, strings.TrimSuffix(headline(o.lookup, lead, []string{o.lookup.Processor}), "."),
		deviceNouns(down), lead.Text)
	if len(fixes) > 0 {
		msg += " Fix: " + strings.Join(fixes, "; ") + "."
	}
	other := o.devices[0]
	om := &finding.OnMachine{Machine: m.Name, HIP: m.Release().Name, Windows: o.windows, Devices: down,
		DeviceISA: first.ISA.String(), Outcome: "failed-by-other", OtherDevice: &other, Fixes: fixes}
	if !first.Real.Equal(first.ISA) {
		om.RealISA = first.Real.String()
	}
	return finding.Finding{
		Level:    finding.LevelError,
		Message:  msg,
		Location: finding.Location{Input: s.Input, Path: s.Path},
		Agents:   []string{first.ISA.String()},
		Subject:  subject("machine-kernel-db-down", m.Name, string(s.Library), s.Path, deviceList(down), deviceList(o.devices)),
		Library:  string(s.Library),
		Effect:   string(lead.Effect),
		Machine:  om,
	}
}

// dbHideFixes is hiding o's devices from the process (HIP_VISIBLE_DEVICES),
// offered when it is checked: the machine with the fix applied still sees
// a device, and no device it sees misses the library's files (severely
// for a severe miss, at all for a slow-down).
func dbHideFixes(c *Context, o *dbOutcome) []string {
	ms := c.Machines
	m := ms.Plan.Machines()[o.machine]
	view := ms.Plan.View(o.machine, o.windows)
	why := "so the library finds every visible device's files"
	if len(o.down) > 0 {
		why = "so the process does not abort"
	}
	f, ok := machine.HideFix(view, o.devices, why)
	if !ok {
		return nil
	}
	m2, ok := machine.ApplyFix(m, f)
	if !ok {
		return nil
	}
	after := m2.View(o.windows)
	if len(after.Devices) == 0 {
		return nil
	}
	for _, d := range after.Devices {
		l := ms.Databases.Lookup(o.site, m2.Release().Name, d.ISA.String())
		if l == nil || len(missesOf(l, true)) > 0 || (!o.severe && len(missesOf(l, false)) > 0) {
			return nil
		}
	}
	return []string{f.Text}
}

// dbMissing lists the missing files of misses (at most MaxMissing) and
// counts them all.
func dbMissing(misses []kerneldb.Miss) ([]string, int) {
	set := map[string]bool{}
	total := 0
	for _, m := range misses {
		if m.Exist {
			continue
		}
		total += m.Count
		for _, p := range m.Paths {
			set[p] = true
		}
	}
	listed := sortedKeys(set)
	if len(listed) > MaxMissing {
		listed = listed[:MaxMissing]
	}
	return listed, max(total, len(listed))
}

// devicesList names devices of a view one by one: "device 1 (gfx908:sramecc+:xnack-)",
// "devices 1 (gfx908), 2 (gfx90a)".
func devicesList(v *machine.View, devs []int) string {
	parts := make([]string, len(devs))
	for i, d := range devs {
		parts[i] = fmt.Sprintf("%d (%s)", d, v.Devices[d].ISA)
	}
	if len(devs) == 1 {
		return "device " + parts[0]
	}
	return "devices " + finding.CapList(parts, finding.MaxListed, ", ")
}

// hasVerb agrees "has" with devices.
func hasVerb(devs []int) string {
	if len(devs) == 1 {
		return "has"
	}
	return "have"
}

// deviceNouns is "it" or "they" for devices.
func deviceNouns(devs []int) string {
	if len(devs) == 1 {
		return "it stops"
	}
	return "they stop"
}
