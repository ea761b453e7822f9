package sim

import (
	"slices"

	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim/hip"
)

// EmbeddedSource is the target source of a build whose only device code
// is embedded (HIPF wrappers), checked without a policy or --target.
const EmbeddedSource = "the embedded offload bundles' entries without a policy"

// EmbeddedTargets returns, sorted, every target the HIP entries of the
// build's embedded offload bundles name ("hipv4-amdgcn-amd-amdhsa--gfx906:xnack-"
// gives gfx906:xnack-): the targets an untransformed binary was built
// for, which a run without a policy simulates when nothing else names
// any. Each distinct bundle of a binary is read once.
func EmbeddedTargets(b *model.Build) []string {
	seen := map[string]bool{}
	for _, bin := range b.Binaries {
		if bin.Info == nil || !bin.Info.Embedded() {
			continue
		}
		done := map[int64]bool{}
		for _, bd := range bin.Info.Bundles {
			if bd.Err != "" || done[bd.Offset] {
				continue
			}
			done[bd.Offset] = true
			for _, e := range bd.Entries {
				if id, ok := hip.EntryTarget(e); ok {
					seen[id.String()] = true
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}
