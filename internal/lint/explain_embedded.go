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
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/machine"
	"github.com/rocm-tools/kpack-lint/sim/verify"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// embeddedKey splits a key as check names an embedded wrapper,
// "<binary>[embedded]#<n>", into the binary's path and n.
func embeddedKey(key string) (string, int, bool) {
	name, co, ok := finding.SplitKey(key)
	bin, isEmbedded := strings.CutSuffix(name, strings.TrimSuffix(finding.EmbeddedMark, "#"))
	if !ok || !isEmbedded || co > 1<<31 {
		return "", 0, false
	}
	return bin, int(co), true
}

// embeddedBundle finds the binary and the bundle of wrapper n that an
// embedded key names.
func embeddedBundle(b *model.Build, key, path string, n int) (*model.Binary, hostbin.Bundle, error) {
	for _, bin := range b.Binaries {
		if bin.Path != path {
			continue
		}
		if bin.Info == nil || !bin.Info.Embedded() {
			return nil, hostbin.Bundle{}, errs.Usagef("explain: %s: %s has no embedded device code (no HIPF wrapper)", key, path)
		}
		var have []string
		for _, bd := range bin.Info.Bundles {
			if bd.Wrapper == n {
				return bin, bd, nil
			}
			have = append(have, path+finding.EmbeddedMark+strconv.Itoa(bd.Wrapper))
		}
		return nil, hostbin.Bundle{}, errs.Usagef("explain: %s: wrapper %d of %s is not an embedded wrapper; it has %s", key, n, path, finding.CompactKernels(have))
	}
	return nil, hostbin.Bundle{}, errs.Usagef("explain: %s: no binary %s in the input", key, path)
}

// embeddedDevices are the devices an embedded key is explained on: each
// --agent that is a device ISA (HIP picks a bundle entry per device; a
// generic --agent, which only extends a kpack arch_list, is left out),
// else the devices of the policy's variant.
func embeddedDevices(cfg *Config, devices []device) []device {
	if len(cfg.Agents) == 0 {
		return devices
	}
	var out []device
	for _, a := range cfg.Agents {
		id, err := targetid.Parse(a)
		if p, _ := targetid.LookupProcessor(id.Processor); err != nil || p.Generic {
			continue
		}
		out = append(out, device{isa: id.String(), archList: []string{id.String()}})
	}
	return out
}

// explainEmbedded explains wrapper bd of bin on device d, the only device
// of its process, as rel's HIP loads it: the entry HIP picks
// (Release.EntryPick, the pick check simulates) and why, and the picked
// entry's code object decoded within opt.MaxMemory, judged against the
// agent as HIP does. It reports whether the device gets code that runs.
func explainEmbedded(key string, bin *model.Binary, bd hostbin.Bundle, d device, objs []verify.EmbeddedObject, rel hip.Release) (report.Explanation, bool) {
	e := &report.EmbeddedLoad{Kernel: key, Agent: d.isa, Binary: bin.Path, Wrapper: bd.Wrapper,
		BundleOffset: bd.Offset, Compressed: bd.Compressed, Entries: []report.EmbeddedEntry{}, Picked: -1, Why: hip.PickNone}
	ex := report.Explanation{Kernel: key, Embedded: e}
	noCode := machine.Alone(rel, false, true, kpack.Success).Seen
	hipErr, hipEffect := noCode.Error(), "HIP "+rel.Name+": "+noCode.Text()
	switch {
	case bin.Info.BundleSection == nil:
		e.BundleError = fmt.Sprintf("the binary has no %s section: it embeds no device code at all", bin.Info.Format.BundleSection())
		e.HIP, e.HIPEffect = hipErr, hipEffect
		return ex, false
	case bd.Err != "":
		e.BundleError = bd.Err
		e.HIP, e.HIPEffect = hipErr, hipEffect
		return ex, false
	}
	agent, err := targetid.Parse(d.isa)
	if err != nil {
		return ex, false
	}
	decoded := map[int]verify.EmbeddedObject{}
	for _, o := range objs {
		decoded[o.Entry] = o
	}
	for i, id := range bd.Entries {
		en := report.EmbeddedEntry{Index: i, ID: id, Fits: entryFits(id, agent)}
		if o, ok := decoded[i]; ok {
			en.CodeObject = objectText(o)
		}
		e.Entries = append(e.Entries, en)
	}
	e.Picked, e.Why = rel.EntryPick(bd.Entries, agent)
	if e.Picked < 0 {
		e.HIP, e.HIPEffect = hipErr, hipEffect
		return ex, false
	}
	o, ok := decoded[e.Picked]
	if !ok { // SPIR-V: compiled for the device
		e.HIP = "hipSuccess"
		return ex, true
	}
	e.CodeObject, e.HIP = checkCodeObject(verify.Object{Code: verify.Success, Target: o.Target, Err: o.Err}, d.isa)
	switch {
	case o.Limit != "":
		e.CodeObject, e.HIP = "", ""
		e.Note = "the code object was not verified: " + o.Limit
		return ex, false
	case o.HeaderOnly:
		e.Note = fmt.Sprintf("the code object (%d bytes) is larger than --deep-memory: only its ELF header was decoded", o.Size)
	}
	return ex, e.HIP == "hipSuccess"
}

// entryFits says how a bundle entry relates to the agent: native (its
// target is compatible), generic (a generic target covering it), SPIR-V,
// or "" when HIP cannot load it there.
func entryFits(id string, agent targetid.ID) string {
	t, ok := hip.EntryTarget(id)
	switch {
	case !ok && hip.IsSPIRVEntry(id):
		return hip.PickSPIRV
	case !ok:
		return ""
	case targetid.Compatible(t, agent):
		return hip.PickNative
	case targetid.CompatibleOrGeneric(t, agent):
		return hip.PickGeneric
	}
	return ""
}

// objectText is a decoded entry's target as explain shows it.
func objectText(o verify.EmbeddedObject) string {
	switch {
	case o.Limit != "":
		return "not verified"
	case o.Err != "":
		return "none (" + o.Err + ")"
	}
	return o.Target
}
