package rules

import (
	"fmt"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
)

// untransformedBinary is KPL011: archives hold kernels of a binary that was
// not kpack-transformed. Its findings take their ID from it (Run); explain
// shows nothing of it: an untransformed binary's kernels never go through
// kpack.
var untransformedBinary = Rule{
	Rule: finding.Rule{
		ID: "KPL011", Name: "untransformed-binary", Level: finding.LevelError,
		Title: "Archives hold kernels of a binary that was not kpack-transformed",
		Text: "A kpack group's archives hold TOC keys of a host binary that ships with embedded device code (HIPF wrappers, " +
			"a .hip_fatbin offload bundle) and no .rocm_kpack_ref: HIP loads the embedded code and never reads the archives, " +
			"so a GPU the embedded code lacks gets \"invalid device function\" (rocm-libraries#8660). HIP loads a wrapper " +
			"through kpack only when its magic is HIPK and its version 1.",
		Help: "Ship the kpack-transformed binary (run the kpack splitter on it), or drop its kernels from the archives.",
	},
	Checks: []Check{checkUntransformed},
}

// checkUntransformed is KPL011: a kpack group's archives hold TOC keys of
// a host binary that ships with embedded device code (HIPF wrappers) and no
// kpack reference. HIP loads the embedded code and never reads the
// archives, so a GPU the embedded code lacks gets "invalid device function"
// although the archives hold its kernels (rocm-libraries#8660: rocwmma test
// binaries on gfx942). One finding per binary and group.
func checkUntransformed(c *Context) []finding.Finding {
	type claim struct {
		bin      *model.Binary
		group    string
		keys     map[string]bool
		archives []*model.Archive
	}
	if !c.Build.HasUntransformed() {
		return nil
	}
	claims := map[string]*claim{}
	for _, g := range c.Build.Groups {
		for _, a := range g.Archives {
			if a.Info == nil {
				continue
			}
			for key := range a.Info.Kernels {
				name, _, _ := finding.SplitKey(key)
				bin := c.Build.Untransformed(name)
				if bin == nil {
					continue
				}
				id := bin.Path + "\x00" + g.Name
				cl := claims[id]
				if cl == nil {
					cl = &claim{bin: bin, group: g.Name, keys: map[string]bool{}}
					claims[id] = cl
				}
				cl.keys[key] = true
				if n := len(cl.archives); n == 0 || cl.archives[n-1] != a {
					cl.archives = append(cl.archives, a)
				}
			}
		}
	}
	var out []finding.Finding
	for _, id := range sortedKeys(claims) {
		cl := claims[id]
		out = append(out, untransformedFinding(cl.bin, cl.group, sortedSet(cl.keys), cl.archives))
	}
	return out
}

// plural gives "1 wrapper" or "3 wrappers".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func untransformedFinding(bin *model.Binary, group string, keys []string, archives []*model.Archive) finding.Finding {
	paths, related := archiveLocations(archives)
	msg := fmt.Sprintf("%s ships %s (HIPF) and no kpack reference, yet kpack group %s holds its kernels %s (%s): "+
		"the binary was not kpack-transformed, so HIP loads its embedded code and never reads these archives; "+
		"a GPU the embedded code lacks fails with \"invalid device function\" (rocm-libraries#8660). "+
		"Fix: ship the kpack-transformed binary (run the kpack splitter on it), or drop its kernels from the archives.",
		bin.Path, plural(len(bin.Info.Bundles), "embedded fat-binary wrapper"), group, finding.ShortKernels(keys), finding.CapList(paths, finding.MaxListed, ", "))
	return finding.Finding{
		Message:  msg,
		Location: sim.BinaryLocation(bin),
		Related:  related,
		Kernels:  keys,
		Group:    group,
		Subject:  subject(group, bin.Path, "untransformed"),
	}
}
