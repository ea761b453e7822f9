package lint

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/report"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// explainMachines is explain --machine: for every kernel key (or embedded
// wrapper "<binary>[embedded]#<n>") of cfg.Explain and every machine of
// cfg.Machines, the per-device trace (report.MachineExplanation): what the
// environment did, each device's real and reported ISA, its arch_list and
// loader result or bundle entry, the release's rule, the outcome, what the
// user sees and the fixes. It returns ErrFindings when a device does not
// load its own code.
func explainMachines(cfg *Config, b *model.Build, objs *fetched, _ hip.Release) error {
	ms, err := sim.ResolveMachines(cfg.machineConfig())
	if err != nil {
		return errs.AsUsage(err)
	}
	plan, err := machine.NewPlan(ms)
	if err != nil {
		return errs.AsUsage(err)
	}
	var out []report.MachineExplanation
	failed := false
	for _, key := range cfg.Explain.Keys {
		mod, ex, err := explainModule(cfg, b, key)
		if err != nil {
			return err
		}
		for mi := range ms {
			e := explainOnMachine(plan, mi, mod, ex)
			failed = failed || !machineClean(e)
			out = append(out, e)
		}
	}
	if err := budgetSpent(b.Tree); err != nil {
		return err
	}
	return explained(report.WriteMachineExplanations(cfg.Report.Stdout, cfg.Report.Format, out), objs, failed)
}

// explainedModule is one module explain --machine judges: the oracle and
// what the trace shows of it.
type explainedModule struct {
	mod     machine.Module
	key     string
	binary  string
	windows bool
	loads   func(machine.ArchList) (machine.Load, *report.MachineLoad)
	entries []string // fat binary: the bundle's entry IDs
}

// explainModule finds key's module: an embedded wrapper of a binary, or a
// kernel key loaded through kpack as explain finds its search paths.
func explainModule(cfg *Config, b *model.Build, key string) (machine.Module, explainedModule, error) {
	if path, n, ok := strings.Cut(key, finding.EmbeddedMark); ok {
		return embeddedModule(b, key, path, n)
	}
	req, binPath, err := explainRequest(cfg, b, key)
	if err != nil {
		return machine.Module{}, explainedModule{}, err
	}
	req.Env = cfg.Env
	ex := explainedModule{key: key, binary: binPath, windows: req.Windows}
	cache := map[string]*report.MachineLoad{}
	ex.loads = func(l machine.ArchList) (machine.Load, *report.MachineLoad) {
		loader := sim.FindingLoader(l.Loader)
		k := string(loader) + "\x00" + strings.Join(l.Targets, "\x00")
		ml := cache[k]
		if ml == nil {
			r := req
			r.ArchList = l.Targets
			res, _ := resolver.Resolve(b, r, key, loader)
			ml = &report.MachineLoad{ArchList: l.Targets, Loader: string(loader), Result: res.Code.String(), Code: int(res.Code),
				Archive: res.Archive, Target: res.Target}
			cache[k] = ml
		}
		return machine.Load{Code: kpack.Code(ml.Code), Target: ml.Target}, ml
	}
	ex.mod = machine.Module{Kpack: func(l machine.ArchList) machine.Load { ld, _ := ex.loads(l); return ld }}
	return ex.mod, ex, nil
}

// embeddedModule is the embedded wrapper n of the binary at path.
func embeddedModule(b *model.Build, key, path, n string) (machine.Module, explainedModule, error) {
	w, err := strconv.Atoi(n)
	for _, bin := range b.Binaries {
		if bin.Path != path || bin.Info == nil || err != nil {
			continue
		}
		for _, bd := range bin.Info.Bundles {
			if bd.Wrapper != w {
				continue
			}
			ex := explainedModule{key: key, binary: bin.Path, windows: bin.Info.Format == hostbin.FormatPE, entries: bd.Entries}
			ex.mod = machine.Module{Fat: machine.BundlePick(bd.Entries)}
			if bd.Err != "" {
				ex.mod = machine.Module{Fat: func(machine.Agent) (int, bool) { return -1, false }}
			}
			return ex.mod, ex, nil
		}
	}
	return machine.Module{}, explainedModule{}, errs.Usagef("explain: %s is not an embedded wrapper of a host binary in the input (want <binary>%s<wrapper index>, as findings name them)", key, finding.EmbeddedMark)
}

// explainOnMachine traces mod on machine mi of plan.
func explainOnMachine(plan *machine.Plan, mi int, mod machine.Module, ex explainedModule) report.MachineExplanation {
	m := plan.Machines()[mi]
	rel := m.Release()
	view := plan.View(mi, ex.windows)
	out := report.MachineExplanation{Machine: m.Name, HIP: rel.Name, Module: ex.key, Binary: ex.binary, Windows: ex.windows,
		NoDevice: len(view.Devices) == 0, Devices: []report.DeviceTrace{}}
	for _, n := range view.Notes {
		out.Notes = append(out.Notes, finding.MachineNote{Var: n.Var, Text: n.Text})
	}
	if mod.Kpack != nil {
		out.Path = "kpack"
		out.Rule = kpackRule(rel, &m)
	} else {
		out.Path = "fat-binary"
		out.Rule = fmt.Sprintf("fat-binary loop: %s; source: %s", rel.Fat.Value, rel.Cite.Fat)
	}
	out.Rule += fmt.Sprintf("; at launch: %s; source: %s", rel.Launch.Value, rel.Cite.Launch)
	if out.NoDevice {
		return out
	}
	jd := plan.NewJudge()
	v := jd.Verdict(mod, ex.windows, mi)
	out.Failed = v.Failed
	own, combined, isCombined := plan.Lists(mi, ex.windows)
	if mod.Kpack != nil && isCombined && kpackLoads(rel, &m) {
		_, out.Combined = ex.loads(combined)
	}
	for d, o := range v.Devices {
		vis := view.Devices[d]
		t := report.DeviceTrace{Index: d, Device: vis.Device, Real: vis.Real.String(), ISA: vis.ISA.String(), Override: vis.Override,
			Outcome: o.Kind.String(), Target: o.Target, Registration: o.Seen.Registration, Launch: o.Seen.Launch, Then: o.Seen.Then,
			Seen: o.Seen.Text()}
		if o.Kind == machine.Loaded {
			t.Seen = "it runs its own code"
		}
		if o.Other >= 0 {
			other := o.Other
			t.Other = &other
		}
		switch {
		case mod.Kpack != nil && kpackLoads(rel, &m) && d < len(own):
			_, t.Load = ex.loads(own[d])
		case mod.Fat != nil:
			if i, ok := mod.Fat(machine.Agent{Index: -1, ISA: vis.ISA, Release: rel}); ok && i < len(ex.entries) {
				t.Entry = ex.entries[i]
			}
		}
		for _, f := range jd.Fixes(mod, &v, d) {
			t.Fixes = append(t.Fixes, f.Text)
		}
		out.Devices = append(out.Devices, t)
	}
	return out
}

// kpackLoads reports whether m's HIP loads kpack'd modules at all.
func kpackLoads(rel hip.Release, m *machine.Machine) bool {
	return rel.Kpack.Value != hip.KpackUnknown && rel.KpackBuiltIn.Value && !m.KpackOff
}

// kpackRule is the release's rule for a kpack'd module on m, with what
// it rests on (hip.Release.Cite).
func kpackRule(rel hip.Release, m *machine.Machine) string {
	switch {
	case m.KpackOff && rel.Kpack.Value != hip.KpackUnknown:
		return fmt.Sprintf("kpack: built without ROCM_KPACK_ENABLED (kpack: off): the HIPK wrapper is rejected; source: %s", rel.Cite.KpackOff)
	case !kpackLoads(rel, m):
		return fmt.Sprintf("kpack: %s; source: %s", rel.Kpack.Value, rel.Cite.Kpack)
	}
	return fmt.Sprintf("kpack: %s, %s loader; source: %s", rel.Kpack.Value, sim.FindingLoader(m.KpackLoader()), rel.Cite.Kpack)
}

// machineClean reports whether every device of e loads its own code.
func machineClean(e report.MachineExplanation) bool {
	if e.NoDevice {
		return false
	}
	for _, d := range e.Devices {
		if d.Outcome != machine.Loaded.String() {
			return false
		}
	}
	return true
}
