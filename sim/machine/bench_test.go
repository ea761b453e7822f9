package machine

import (
	"fmt"
	"math/rand"
	"syscall"
	"testing"
	"time"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// benchMachines returns n machines of 1 to 4 devices drawn from a pool
// of ISAs like a policy's, over the kpack-era releases, some with an
// environment; a pure function of n.
func benchMachines(tb testing.TB, n int) []Machine {
	pool := []string{"gfx942", "gfx950", "gfx90a", "gfx1100", "gfx1101", "gfx1151", "gfx1036", "gfx1201", "gfx1030", "gfx908"}
	rels := []string{"newest", "10.0", "7.13", "7.2"}
	envs := []map[string]string{nil, nil, {"HIP_VISIBLE_DEVICES": "1,0"}, {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}}
	r := rand.New(rand.NewSource(17))
	out := make([]Machine, n)
	for i := range out {
		var devs []Device
		for d := r.Intn(4); d >= 0; d-- {
			isa, err := DeviceISA(pool[r.Intn(len(pool))])
			if err != nil {
				tb.Fatal(err)
			}
			devs = append(devs, Device{ISA: isa})
		}
		rel, _ := hip.Lookup(rels[r.Intn(len(rels))])
		out[i] = Machine{Name: fmt.Sprint("m", i), Devices: devs, HIP: rel, Env: envs[r.Intn(len(envs))]}
	}
	return out
}

// benchResults precomputes an answer per arch_list of p for each of keys
// kernel keys, as the pipeline's simulation would before judging (every
// 7th key misses on gfx1036 and gfx1151, every 11th has KERNEL_NOT_FOUND
// on gfx90a): results[key][list].
func benchResults(p *Plan, keys int) [][]Load {
	out := make([][]Load, keys)
	for k := range out {
		out[k] = make([]Load, len(p.ArchLists()))
		for _, l := range p.ArchLists() {
			out[k][l.Index] = benchLoad(k, l.Targets)
		}
	}
	return out
}

func benchLoad(k int, targets []string) Load {
	for _, t := range targets {
		id, err := targetid.Parse(t)
		if err != nil {
			continue
		}
		switch {
		case k%7 == 0 && (id.Processor == "gfx1036" || id.Processor == "gfx1151"):
			continue
		case k%11 == 0 && id.Processor == "gfx90a":
			return Load{Code: kpack.KernelNotFound}
		}
		return Load{Code: kpack.Success, Target: id.Processor}
	}
	return Load{Code: kpack.ArchNotFound}
}

// cpuTime is the process's user and system CPU time so far, so a
// benchmark can report CPU per operation on a machine shared with other
// jobs (wall time per op then overstates it).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportPerMachine reports wall and CPU ns per machine x module.
func reportPerMachine(b *testing.B, cpu0 time.Duration, machines int) {
	n := float64(b.N) * float64(machines)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/machine-module")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/n, "cpu-ns/machine-module")
}

// BenchmarkJudgeKpack judges kpack modules on 64 machines from answers
// cached per arch_list; ns/op is per module, ns/machine-module per
// machine x module.
func BenchmarkJudgeKpack(b *testing.B) {
	p, err := NewPlan(benchMachines(b, 64))
	if err != nil {
		b.Fatal(err)
	}
	const keys = 1024
	results := benchResults(p, keys)
	j := p.NewJudge()
	mods := make([]Module, keys)
	for k := range mods {
		r := results[k]
		mods[k] = Module{Kpack: func(l ArchList) Load { return r[l.Index] }}
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	bad := 0
	for i := 0; i < b.N; i++ {
		bad += len(j.Module(mods[i%keys], false))
	}
	reportPerMachine(b, cpu0, 64)
	if bad == 0 {
		b.Fatal("no machine failed: the benchmark judges nothing interesting")
	}
}

// BenchmarkJudgeFat judges fat-binary modules on 64 machines, the bundle
// lookups cached per agent.
func BenchmarkJudgeFat(b *testing.B) {
	p, err := NewPlan(benchMachines(b, 64))
	if err != nil {
		b.Fatal(err)
	}
	const keys = 64
	mods := make([]Module, keys)
	for k := range mods {
		targets := []string{"gfx942", "gfx90a", "gfx1100", "gfx1101", "gfx1201", "gfx1030", "gfx908", "gfx950"}
		if k%3 == 0 {
			targets = append(targets, "gfx1036", "gfx1151")
		}
		picks := make([]bool, len(p.Agents()))
		for _, a := range p.Agents() {
			_, picks[a.Index] = a.Release.SelectEntry(bundle(targets...), a.ISA)
		}
		mods[k] = Module{Fat: func(a Agent) (int, bool) { return 1, picks[a.Index] }}
	}
	j := p.NewJudge()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		j.Module(mods[i%keys], false)
	}
	reportPerMachine(b, cpu0, 64)
}

// BenchmarkNewPlan prepares 64 machines.
func BenchmarkNewPlan(b *testing.B) {
	ms := benchMachines(b, 64)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := NewPlan(ms); err != nil {
			b.Fatal(err)
		}
	}
}
