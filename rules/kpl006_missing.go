package rules

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"path"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/internal/util/par"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim"
)

// missingArchive is KPL006: no kpack archive opens for a host binary on an
// agent. Its findings take their ID from it (Run); explain shows the search
// paths that open no archive.
var missingArchive = Rule{
	Rule: finding.Rule{
		ID: "KPL006", Name: "missing-archive", Level: finding.LevelError, Explain: finding.ExplainLoad,
		Title: "No kpack archive opens for a host binary on an agent",
		Text: "None of the binary's search paths (with @GFXARCH@ expanded for the agent's compatible targets) names an " +
			"archive that exists and opens: the runtime returns ARCHIVE_NOT_FOUND (error 13).",
		Help: "Ship the archive the loader looks for (the message names it), or fix the binary's kpack_search_paths.",
	},
	Checks: []Check{checkMissing, checkMachineMissing},
}

// checkMissing is KPL006: no archive opens for a site on an agent
// (ARCHIVE_NOT_FOUND, error 13). Sites of one group that look for the same
// files (binaries of one folder) share a finding per agent set; a copy of a
// binary in another folder (TheRock PR 5768) looks elsewhere and gets its own.
//
// The outcomes are split by cause over the workers (a cause's outcomes
// all go to one), each clusters its share, and the findings come back in
// the order of each cluster's first outcome, as one pass would give them.
func checkMissing(c *Context) []finding.Finding {
	if c.matrixAsMachines() {
		return nil
	}
	shards := missingShards(c, par.Workers(c.Workers))
	per := make([][]clusterFindings, len(shards))
	par.Each[any](len(shards), len(shards), 1, nil, func(_ any, i int) { per[i] = missingShard(c, shards[i]) })
	all := slices.Concat(per...)
	slices.SortFunc(all, func(a, b clusterFindings) int { return cmp.Compare(a.first, b.first) })
	var out []finding.Finding
	for _, cf := range all {
		out = append(out, cf.findings...)
	}
	return out
}

// clusterFindings are the findings of one cluster and the index in
// c.Outcomes of its first outcome.
type clusterFindings struct {
	first    int
	findings []finding.Finding
}

// missingShards splits the indexes of the ARCHIVE_NOT_FOUND outcomes into
// n lists by their cause (missingCause), in outcome order within each.
func missingShards(c *Context, n int) [][]int {
	shards := make([][]int, max(n, 1))
	var last *sim.Site
	shard := 0
	for i := range c.Outcomes {
		o := &c.Outcomes[i]
		if o.Fallthrough.Code != kpack.ArchiveNotFound {
			continue
		}
		if o.Site != last { // a site's outcomes come together
			h := fnv.New32a()
			h.Write([]byte(missingCause(o.Site)))
			shard, last = int(h.Sum32()%uint32(len(shards))), o.Site
		}
		shards[shard] = append(shards[shard], i)
	}
	return shards
}

// missingCause is what KPL006 clusters a site's failures by: its group,
// folder and search paths.
func missingCause(s *sim.Site) string {
	return s.Group + "\x00" + s.Request.BinaryDir + "\x00" + strings.Join(s.Request.SearchPaths, "\x00")
}

// missingShard clusters the outcomes at idx and returns each cluster's
// findings.
func missingShard(c *Context, idx []int) []clusterFindings {
	cs := newClusters()
	plans := sitePlans{} // each agent's plan, for the files it looks for
	var last siteAgent
	var firsts []int // per cluster of cs.order, its first outcome
	for _, i := range idx {
		o := &c.Outcomes[i]
		if k := (siteAgent{o.Site, o.Agent.ISA}); k != last { // outcomes come in site, agent order
			plans[o.Site] = append(plans[o.Site], agentPlan{o.Agent.ISA, o.Plan})
			last = k
		}
		cs.add(causeKey{site: o.Site}, func() string { return missingCause(o.Site) }, o)
		if len(cs.order) > len(firsts) {
			firsts = append(firsts, i)
		}
	}
	out := make([]clusterFindings, len(cs.order))
	dirs := map[string][]string{} // folder listings, for near misses
	for k, cl := range cs.order {
		out[k].first = firsts[k]
		for _, p := range cs.clusterParts(cl) {
			out[k].findings = append(out[k].findings, missingFinding(c, p, plans, dirs))
		}
	}
	return out
}

type siteAgent struct {
	site  *sim.Site
	agent string
}

// sitePlans holds, per site, the plan of each agent whose load of it
// fails with ARCHIVE_NOT_FOUND: a site's outcomes come together, so a
// site is one map entry (a build has some thousands, each failing on
// about twenty agents), its agents a short list.
type sitePlans map[*sim.Site][]agentPlan

type agentPlan struct {
	agent string
	plan  *resolver.Plan
}

// plan returns the plan of agent for site s, nil if none is recorded.
func (sp sitePlans) plan(s *sim.Site, agent string) *resolver.Plan {
	for _, ap := range sp[s] {
		if ap.agent == agent {
			return ap.plan
		}
	}
	return nil
}

func missingFinding(c *Context, p part, plans sitePlans, dirs map[string][]string) finding.Finding {
	o := p.first
	looked := lookedForAll(o.Site, p.agents, plans)
	near := nearMisses(c, allLooked(o.Site, p.agents, plans), p.kernels, dirs)
	why := missingWhy(o, looked)
	context, fix := missingContext(c, o.Site, looked)
	switch {
	case len(near) > 0:
		why += nearMissText(near)
		fix = nearMissFix(near)
	case fix == "" || o.Site.Request.Overridden():
		fix = missingFix(o)
	}
	if context != "" {
		context += " "
	}
	seen := c.alone(false, kpack.ArchiveNotFound)
	msg := fmt.Sprintf("No kpack archive of group %s opens for %s on %s: %s, so the runtime returns ARCHIVE_NOT_FOUND (error 13) "+
		"and, %s. %sFix: %s", groupName(o.Site.Group), siteKernels(o.Site, p.kernels), listAgents(p.agents), why, c.seenOnMatrix(seen), context, fix)
	return finding.Finding{
		Message:    msg,
		Location:   o.Site.Location,
		Related:    nearMissLocations(c, near),
		Kernels:    p.kernels,
		Agents:     p.agents,
		Group:      o.Site.Group,
		KpackError: kpack.ArchiveNotFound.String(),
		HIPError:   seen.Seen.Error(),
		HIPEffect:  seen.Seen.Text(),
		Machine:    c.onMatrix(seen),
		Trace:      looked,
		Subject:    subject(o.Site.Group, o.Site.Path),
	}
}

// lookedForAll lists the distinct archive paths the agents' loads tried,
// in agent order, at most finding.MaxListed (lookedFor).
func lookedForAll(s *sim.Site, agents []string, plans sitePlans) []string {
	return lookedFor(allLooked(s, agents, plans))
}

// allLooked lists every archive path the agents' loads tried (with
// repeats).
func allLooked(s *sim.Site, agents []string, plans sitePlans) []string {
	var paths []string
	for _, a := range agents {
		if pl := plans.plan(s, a); pl != nil {
			paths = append(paths, pl.Paths...)
		}
	}
	return paths
}

// groupName names a group in messages; a binary whose search paths name no
// <group>_@GFXARCH@.kpack pattern has none.
func groupName(g string) string {
	if g == "" {
		return "(none named by its search paths)"
	}
	return g
}

func missingWhy(o *sim.Outcome, looked []string) string {
	switch {
	case len(o.Plan.Faulted) > 0 && len(looked) > 0:
		return fmt.Sprintf("it looks for %s; %s exists but the fixed runtime's kpack_open refuses its TOC (see KPL005)",
			strings.Join(looked, ", "), strings.Join(o.Plan.Faulted, ", "))
	case len(looked) == 0:
		return "the search paths name no file inside the build"
	case len(looked) == 1:
		return "it looks for " + looked[0] + ", which does not exist or does not open"
	}
	return "it looks for " + strings.Join(looked, ", ") + ", and none of them exists and opens"
}

func missingFix(o *sim.Outcome) string {
	if o.Site.Request.Overridden() {
		return "ROCM_KPACK_PATH replaces the binary's own search paths; point it at the archives or unset it."
	}
	if o.Site.Group == "" {
		return "ship an archive the binary's kpack_search_paths name for these agents' targets, or fix the search paths."
	}
	return fmt.Sprintf("ship the %s archive for these agents' targets, or fix the binary's kpack_search_paths.", o.Site.Group)
}

// lookedFor lists the distinct archive paths tried, at most
// finding.MaxListed.
func lookedFor(paths []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	if n := finding.MaxListed; len(out) > n {
		out = append(out[:n], fmt.Sprintf("... %d more under %s", len(out)-n, path.Dir(out[0])))
	}
	return out
}
