package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/hip"
)

// checkEmbedded is the KPL001 part for binaries with embedded device code
// (HIPF wrappers, or HIPK ones HIP does not load through kpack): HIP picks
// a code object from each wrapper's offload bundle per device
// (hip.Release.SelectEntry of the matrix's release), and a wrapper
// without one compatible with the agent leaves the device without code; a
// bundle that does not read fails the module load on every device (clr
// hip_fatbin.cpp ExtractFatBinaryUsingCOMGR: "The code object has invalid
// header"). What the user sees is the release's for the only device of a
// process (Context.alone). Embedded
// wrappers are named "<path>[embedded]#<n>", n being the wrapper's index
// in the fat-binary segment, so they never read as kpack kernel keys. One
// finding per binary, kind and set of wrappers.
func checkEmbedded(c *Context) []finding.Finding {
	if c.matrixAsMachines() {
		return nil
	}
	type group struct {
		bin     *model.Binary
		wrapped []int
		broken  bool
		agents  []string
	}
	byCause := map[string]*group{}
	var order []string
	add := func(o *sim.EmbeddedOutcome, wrapped []int, broken bool) {
		if len(wrapped) == 0 {
			return
		}
		cause := fmt.Sprint(o.Binary.Path, broken, wrapped)
		g := byCause[cause]
		if g == nil {
			g = &group{bin: o.Binary, wrapped: wrapped, broken: broken}
			byCause[cause] = g
			order = append(order, cause)
		}
		g.agents = append(g.agents, o.Agent.ISA)
	}
	for i := range c.Embedded {
		o := &c.Embedded[i]
		add(o, o.Missing, false)
		add(o, o.Broken, true)
	}
	var out []finding.Finding
	for _, cause := range order {
		g := byCause[cause]
		slices.Sort(g.agents)
		out = append(out, embeddedFinding(c, g.bin, g.wrapped, g.broken, g.agents))
	}
	return out
}

// EmbeddedMark follows a binary's path in the names of its embedded
// wrappers (EmbeddedName).
const EmbeddedMark = "[embedded]#"

func embeddedFinding(c *Context, bin *model.Binary, wrapped []int, broken bool, agents []string) finding.Finding {
	kernels := make([]string, 0, len(wrapped))
	for _, i := range wrapped {
		kernels = append(kernels, sim.EmbeddedName(bin, bin.Info.Bundles[i]))
	}
	seen := c.alone(true, kpack.Success)
	why := embeddedWhy(bin, wrapped)
	fix := "build the binary for these targets (--offload-arch), or ship it kpack-transformed with archives for them"
	if broken {
		why = "their offload bundles do not read (" + bin.Info.Bundles[wrapped[0]].Err + ")"
		fix = "ship an intact binary (a broken strip or objcopy step is the usual cause)"
	}
	msg := fmt.Sprintf("%s (embedded device code in %s of %s, not kpack) cannot be loaded on %s: %s, so, %s. Fix: %s.",
		finding.ShortKernels(kernels), embeddedKinds(bin, wrapped), bin.Path, listAgents(agents), why, c.seenOnMatrix(seen), fix)
	return finding.Finding{
		Message:   msg,
		Location:  WrapperLocation(bin),
		Kernels:   kernels,
		Agents:    agents,
		HIPError:  seen.Seen.Error(),
		HIPEffect: seen.Seen.Text(),
		Machine:   c.onMatrix(seen),
		Subject:   subject(bin.Path, "embedded", strconv.FormatBool(broken), finding.CompactKernels(kernels), strings.Join(agents, ",")),
	}
}

// embeddedKinds says what the wrappers are: "a HIPF wrapper", "2 HIPF
// wrappers", "a HIPK wrapper of a version HIP does not load through
// kpack", or both.
func embeddedKinds(bin *model.Binary, wrapped []int) string {
	hipf, other := 0, 0
	for _, i := range wrapped {
		if bin.Info.Wrappers[bin.Info.Bundles[i].Wrapper].Magic == hostbin.MagicHIPF {
			hipf++
		} else {
			other++
		}
	}
	var parts []string
	if hipf > 0 {
		parts = append(parts, aOrCount(hipf, "HIPF wrapper"))
	}
	if other > 0 {
		parts = append(parts, aOrCount(other, "HIPK wrapper")+" of a version HIP does not load through kpack")
	}
	return strings.Join(parts, " and ")
}

// aOrCount gives "a wrapper" or "3 wrappers".
func aOrCount(n int, noun string) string {
	if n == 1 {
		return "a " + noun
	}
	return plural(n, noun)
}

// embeddedWhy says what the failing wrappers' bundles hold.
func embeddedWhy(bin *model.Binary, wrapped []int) string {
	if bin.Info.BundleSection == nil {
		return fmt.Sprintf("the binary has no %s section: it embeds no device code at all", bin.Info.Format.BundleSection())
	}
	var targets []string
	for _, i := range wrapped {
		for _, e := range bin.Info.Bundles[i].Entries {
			if id, ok := hip.EntryTarget(e); ok && !slices.Contains(targets, id.String()) {
				targets = append(targets, id.String())
			}
		}
	}
	if len(targets) == 0 {
		return "their offload bundles hold no HIP code object"
	}
	slices.Sort(targets)
	return "their offload bundles hold code objects for " + finding.CapList(targets, finding.MaxListed, ", ") + " only, none compatible with these agents"
}
