package rules

import (
	"encoding/binary"
	mathbits "math/bits"
	"slices"
	"sort"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim"
)

// cluster gathers (kernel, agent) pairs that share one root cause: per
// kernel (in first-seen order) a bit set of the agents it fails on.
type cluster struct {
	cause   string
	first   *sim.Outcome // a representative outcome, for messages
	rows    map[string]int
	kernels []string
	bits    []uint64 // kernel i's agents: bits[i*words : (i+1)*words]
}

// clusters collects pairs by cause, keeping causes in first-seen order.
// Agents are bits, numbered as they are first seen.
type clusters struct {
	order []*cluster
	byKey map[string]*cluster
	memo  map[causeKey]*cluster
	bit   map[string]int // agent ISA -> bit
	isas  []string       // by bit
	words int

	// The last cause and agent added: outcomes come in site, agent,
	// kernel order, so most adds repeat both.
	lastKey causeKey
	last    *cluster
	lastISA string
	lastBit int
}

// causeKey names what a rule derives a cause from: a site and up to two
// interned values (results, plans). Equal keys have equal causes.
type causeKey struct {
	site *sim.Site
	a, b any
}

func newClusters() *clusters {
	return &clusters{byKey: map[string]*cluster{}, memo: map[causeKey]*cluster{}, bit: map[string]int{}, words: 1}
}

// add files o under the cause that cause() computes for k; cause is
// called once per distinct k.
func (cs *clusters) add(k causeKey, cause func() string, o *sim.Outcome) {
	c := cs.last
	if c == nil || k != cs.lastKey {
		if c = cs.memo[k]; c == nil {
			c = cs.get(cause(), o)
			cs.memo[k] = c
		}
		cs.lastKey, cs.last = k, c
	}
	row := cs.row(c, o)
	b := cs.agentBit(o.Agent.ISA)
	c.bits[row*cs.words+b/64] |= 1 << (b % 64)
}

// row returns the row of o's kernel in c, adding one for a new kernel.
func (cs *clusters) row(c *cluster, o *sim.Outcome) int {
	row, ok := c.rows[o.Key]
	if !ok {
		row = len(c.kernels)
		c.rows[o.Key] = row
		c.kernels = append(c.kernels, o.Key)
		c.bits = append(c.bits, make([]uint64, cs.words)...)
	}
	return row
}

func (cs *clusters) get(cause string, o *sim.Outcome) *cluster {
	c := cs.byKey[cause]
	if c == nil {
		c = &cluster{cause: cause, first: o, rows: map[string]int{}}
		cs.byKey[cause] = c
		cs.order = append(cs.order, c)
	}
	return c
}

// agentBit numbers an agent, widening every cluster's sets when the bits
// run out.
func (cs *clusters) agentBit(isa string) int {
	if len(cs.isas) > 0 && isa == cs.lastISA {
		return cs.lastBit
	}
	b, ok := cs.bit[isa]
	if !ok {
		b = cs.newBit(isa)
	}
	cs.lastISA, cs.lastBit = isa, b
	return b
}

// newBit numbers a new agent.
func (cs *clusters) newBit(isa string) int {
	b := len(cs.isas)
	cs.bit[isa] = b
	cs.isas = append(cs.isas, isa)
	if b/64 >= cs.words {
		cs.widen(cs.words + 1)
	}
	return b
}

func (cs *clusters) widen(words int) {
	for _, c := range cs.order {
		bits := make([]uint64, len(c.kernels)*words)
		for i := range c.kernels {
			copy(bits[i*words:], c.bits[i*cs.words:(i+1)*cs.words])
		}
		c.bits = bits
	}
	cs.words = words
}

// part is one aggregated finding: kernels that fail on the same agents for
// the same cause.
type part struct {
	first   *sim.Outcome
	kernels []string
	agents  []string
}

// parts splits every cluster into groups of kernels with identical agent
// sets, so each finding's kernel x agent product is exactly what failed.
// Parts of a cluster are ordered by their sorted agent lists.
func (cs *clusters) parts() []part {
	var out []part
	for _, c := range cs.order {
		out = append(out, cs.clusterParts(c)...)
	}
	return out
}

// clusterParts is parts of one cluster.
func (cs *clusters) clusterParts(c *cluster) []part {
	var out []part
	var sig []byte
	byAgents := map[string]*part{}
	var keys []string
	for i, kernel := range c.kernels {
		set := c.bits[i*cs.words : (i+1)*cs.words]
		sig = sig[:0]
		for _, w := range set {
			sig = binary.LittleEndian.AppendUint64(sig, w)
		}
		p := byAgents[string(sig)]
		if p == nil {
			p = &part{first: c.first, agents: cs.agents(set)}
			byAgents[string(sig)] = p
			keys = append(keys, string(sig))
		}
		p.kernels = append(p.kernels, kernel)
	}
	sort.Slice(keys, func(i, j int) bool {
		return slices.Compare(byAgents[keys[i]].agents, byAgents[keys[j]].agents) < 0
	})
	for _, k := range keys {
		p := byAgents[k]
		finding.SortKernels(p.kernels)
		out = append(out, *p)
	}
	return out
}

// agents returns the sorted ISAs of a bit set.
func (cs *clusters) agents(set []uint64) []string {
	var out []string
	for w, bits := range set {
		for ; bits != 0; bits &= bits - 1 {
			out = append(out, cs.isas[w*64+mathbits.TrailingZeros64(bits)])
		}
	}
	sort.Strings(out)
	return out
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// listAgents renders agents for a message: all of them up to four, else the
// first three and a count.
func listAgents(agents []string) string {
	return finding.CapList(agents, finding.MaxListed, ", ")
}
