package sim

import (
	"slices"
	"strconv"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// EmbeddedName is how findings name an embedded wrapper of a binary:
// "<path>[embedded]#<wrapper index>".
func EmbeddedName(bin *model.Binary, bd hostbin.Bundle) string {
	return bin.Path + finding.EmbeddedMark + strconv.Itoa(bd.Wrapper)
}

// HasEmbedded reports whether the build has binaries with embedded device
// code to simulate.
func HasEmbedded(b *model.Build) bool {
	for _, bin := range b.Binaries {
		if bin.Info != nil && bin.Info.Embedded() {
			return true
		}
	}
	return false
}

// SimulateEmbedded picks, for every binary with embedded device code and
// every agent, the offload-bundle entry rel's HIP would load for each
// embedded wrapper (hip.Release.SelectEntry), and records the wrappers
// that get none, and the wrappers whose bundle does not read (HIP fails
// the module load on every device). Each distinct bundle is judged once
// per agent.
func SimulateEmbedded(b *model.Build, rel hip.Release, agents []*Agent) []EmbeddedOutcome {
	var out []EmbeddedOutcome
	for _, bin := range b.Binaries {
		if bin.Info == nil || !bin.Info.Embedded() {
			continue
		}
		shared, broken := bundleGroups(bin.Info.Bundles)
		for _, a := range agents {
			isa, err := targetid.Parse(a.ISA)
			if err != nil {
				continue
			}
			var missing []int
			for _, g := range shared {
				if _, ok := rel.SelectEntry(bin.Info.Bundles[g[0]].Entries, isa); !ok {
					missing = append(missing, g...)
				}
			}
			slices.Sort(missing)
			if len(missing) > 0 || len(broken) > 0 {
				out = append(out, EmbeddedOutcome{Binary: bin, Agent: a, Missing: missing, Broken: broken})
			}
		}
	}
	return out
}

// bundleGroups splits bundle indexes into groups sharing one readable
// bundle (by file offset; -1, no bundle section, is one group) and the
// indexes of bundles that do not read.
func bundleGroups(bundles []hostbin.Bundle) (shared [][]int, broken []int) {
	byOffset := map[int64]int{}
	for i, bd := range bundles {
		if bd.Err != "" {
			broken = append(broken, i)
			continue
		}
		g, ok := byOffset[bd.Offset]
		if !ok {
			g = len(shared)
			byOffset[bd.Offset] = g
			shared = append(shared, nil)
		}
		shared[g] = append(shared[g], i)
	}
	return shared, broken
}
