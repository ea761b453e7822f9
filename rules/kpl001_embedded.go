package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/hip"
	"github.com/rocm-tools/kpack-lint/model"
)

// checkEmbedded is the KPL001 part for binaries with embedded device code
// (HIPF wrappers, not kpack-transformed): HIP picks a code object from each
// wrapper's offload bundle per device (hip.SelectEntry); a wrapper without
// one compatible with the agent leaves the device without code. The
// embedded wrappers of a binary are named "<path>#<n>", n counting them in
// wrapper order. One finding per binary and set of failing wrappers.
func checkEmbedded(c *Context) []Finding {
	type group struct {
		o      *EmbeddedOutcome
		agents []string
	}
	byCause := map[string]*group{}
	var order []string
	for i := range c.Embedded {
		o := &c.Embedded[i]
		cause := o.Binary.Path + "\x00" + fmt.Sprint(o.Missing)
		g := byCause[cause]
		if g == nil {
			g = &group{o: o}
			byCause[cause] = g
			order = append(order, cause)
		}
		g.agents = append(g.agents, o.Agent.ISA)
	}
	var out []Finding
	for _, cause := range order {
		g := byCause[cause]
		slices.Sort(g.agents)
		out = append(out, embeddedFinding(g.o.Binary, g.o.Missing, g.agents))
	}
	return out
}

func embeddedFinding(bin *model.Binary, missing []int, agents []string) Finding {
	kernels := make([]string, 0, len(missing))
	for _, i := range missing {
		kernels = append(kernels, bin.Path+"#"+strconv.Itoa(i))
	}
	effect := hip.MissingCodeObject()
	msg := fmt.Sprintf("%s (embedded device code: %s has HIPF wrappers, not kpack) cannot be loaded on %s: %s, so %s. "+
		"Fix: build the binary for these targets (--offload-arch), or ship it kpack-transformed with archives for them.",
		ShortKernels(kernels), bin.Path, listAgents(agents), embeddedWhy(bin, missing), effect.Text)
	return Finding{
		RuleID:    "KPL001",
		Message:   msg,
		Location:  BinaryLocation(bin),
		Kernels:   kernels,
		Agents:    agents,
		HIPError:  effect.Error,
		HIPEffect: effect.Text,
		Subject:   subject(bin.Path, "embedded", CompactKernels(kernels), strings.Join(agents, ",")),
	}
}

// embeddedWhy says what the failing wrappers' bundles hold.
func embeddedWhy(bin *model.Binary, missing []int) string {
	if bin.Info.BundleSection == nil {
		return fmt.Sprintf("the binary has no %s section: it embeds no device code at all", bin.Info.Format.BundleSection())
	}
	var targets []string
	for _, i := range missing {
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
	return "their offload bundles hold code objects for " + strings.Join(targets, ", ") + " only, none compatible with these agents"
}
