package finding

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"slices"
	"strconv"
	"strings"
)

// A finding's fingerprint names its cause (rule and Subject), so a defect
// that spreads to more agents, kernels or devices keeps it. What the
// finding covers is compared separately: a finding that now covers
// loads its baseline's finding did not is new for what grew (Growth), and
// its coverage key (CoverageKey) changes, so code scanning opens a new
// alert; a finding that covers the same or less keeps its baseline's key
// and alert.

// coverageVersion starts every coverage key's hash: the scheme's name,
// also the SARIF partialFingerprints key that holds it.
const coverageVersion = "kpackLint/coverage/v1"

// MaxGrownListed bounds the kernels, binaries and kernel-database files a
// Growth lists; its totals count them all.
const MaxGrownListed = 100

// Growth is what a finding covers that the baseline's findings with its
// fingerprint did not: agent ISAs, the policy targets of processors the
// baseline's did not name (for a finding that names no agent: where
// agents are named they are the loads, and targets only their labels in
// the run's matrix), kernel keys, the
// binaries those kernels name (the part of a key before "#"), devices
// (HIP indexes) of the finding's machine (Machine; NewMachine when no
// baseline finding was on that machine), kernel-database files (KPL013's
// Missing). Agents, Targets and Devices are listed whole (the run's
// matrix and machines bound them); Kernels, Binaries and Missing at most
// MaxGrownListed each, their totals counting all. Unrecorded names the
// dimensions ("agents", "targets", "kernels", "devices", "missing") the
// baseline's finding, written by a kpack-lint without coverage keys,
// lists nothing of while this one does: that report cannot tell what the
// finding covered, so all of them count as grown. Untold names the
// dimensions ("missing") whose list the baseline's finding cut (it
// lists the first files of more) where this finding names files past the
// cut: the baseline cannot tell whether they are new, so the finding
// counts as new rather than unchanged. Level is set when the finding's
// level rose above the baseline's findings' (WasLevel, the highest of
// them): a warning the baseline tolerated that is now an error (a rule or
// policy change) is new. JSON writes it as a finding's "grown", SARIF as
// result property "grown".
type Growth struct {
	Agents        []string `json:"agents,omitempty"`
	Targets       []string `json:"targets,omitempty"`
	Kernels       []string `json:"kernels,omitempty"`
	KernelsTotal  int      `json:"kernelsTotal,omitempty"`
	Binaries      []string `json:"binaries,omitempty"`
	BinariesTotal int      `json:"binariesTotal,omitempty"`
	Machine       string   `json:"machine,omitempty"`
	NewMachine    bool     `json:"newMachine,omitempty"`
	Devices       []int    `json:"devices,omitempty"`
	Missing       []string `json:"missing,omitempty"`
	MissingTotal  int      `json:"missingTotal,omitempty"`
	Unrecorded    []string `json:"unrecorded,omitempty"`
	Untold        []string `json:"untold,omitempty"`
	Level         Level    `json:"level,omitempty"`
	WasLevel      Level    `json:"wasLevel,omitempty"`
}

// IsCoverageKey reports whether s has the shape of a coverage key (64
// lowercase hex digits), as a baseline read back should hold.
func IsCoverageKey(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Coverage returns f's coverage key: the one the gate set (f.Coverage,
// carried from the baseline or chained to it) or, without one,
// CoverageKey(f, "").
func Coverage(f Finding) string {
	if f.Coverage != "" {
		return f.Coverage
	}
	return CoverageKey(f, "")
}

// CoverageKey is the lowercase hex SHA-256 of the scheme's name, f's
// fingerprint, prev (the coverage key of the baseline's finding it grew
// from, "" for none) and what f covers: its agents (sorted), the
// processors of its targets when it names no agent (see GrowthOf), kernel keys (sorted as SortKernels), machine and devices, and
// kernel-database files with their total. Chaining prev makes a finding
// that grows back to what an earlier one covered a new key all the same.
func CoverageKey(f Finding, prev string) string {
	k := keyWriter{buf: make([]byte, 0, min(keySize(f, prev), maxKeyBuffer))}
	k.put(coverageVersion)
	k.put(Fingerprint(f))
	k.put(prev)
	k.list("agents", sortedStrings(f.Agents))
	if byTargets(f) {
		k.list("processors", targetProcessors(f.Targets))
		if ts := featuredTargets(f.Targets); ts != nil { // bare processors: the key of before
			k.list("targets", ts)
		}
	}
	k.list("kernels", sortedKernelKeys(f.Kernels))
	if m := f.Machine; m != nil && m.Machine != "" {
		k.put("machine")
		k.put(m.Machine)
		for _, d := range m.Devices {
			k.put(strconv.Itoa(d))
		}
	}
	k.list("missing", f.Missing)
	k.put(strconv.Itoa(max(f.MissingTotal, len(f.Missing))))
	if k.h == nil { // all of it in the buffer: one call, no digest to allocate
		sum := sha256.Sum256(k.buf)
		return hex.EncodeToString(sum[:])
	}
	k.flush()
	return hex.EncodeToString(k.h.Sum(nil))
}

// maxKeyBuffer bounds the buffer CoverageKey hashes through (a finding
// may list a million kernel keys).
const maxKeyBuffer = 64 << 10

// keySize is about how many bytes CoverageKey hashes for f.
func keySize(f Finding, prev string) int {
	n := 256 + len(prev) + len(f.Subject) + len(f.RuleID)
	for _, l := range [][]string{f.Agents, f.Targets, f.Kernels, f.Missing} {
		for _, s := range l {
			n += len(s) + 1
		}
	}
	return n
}

// keyWriter feeds NUL-terminated strings to a hash through one buffer
// (a Write per string would copy each into a slice of its own); the
// hash is made when the buffer first fills.
type keyWriter struct {
	h   hash.Hash
	buf []byte
}

func (k *keyWriter) put(s string) {
	k.buf = append(append(k.buf, s...), 0)
	if len(k.buf) >= maxKeyBuffer {
		k.flush()
	}
}

func (k *keyWriter) list(name string, xs []string) {
	k.put(name)
	k.put(strconv.Itoa(len(xs)))
	for _, x := range xs {
		k.put(x)
	}
}

func (k *keyWriter) flush() {
	if k.h == nil {
		k.h = sha256.New()
	}
	k.h.Write(k.buf)
	k.buf = k.buf[:0]
}

func sortedStrings(xs []string) []string {
	if slices.IsSorted(xs) {
		return xs
	}
	return slices.Sorted(slices.Values(xs))
}

func sortedKernelKeys(keys []string) []string {
	if sortedKernels(keys) {
		return keys
	}
	return distinctKernelKeys(keys)
}

// SameCoverage reports whether a and b cover exactly the same (the same
// lists CoverageKey hashes, in the same order): then, with one
// fingerprint, they have one coverage key, unhashed.
func SameCoverage(a, b Finding) bool {
	ma, mb := a.Machine, b.Machine
	if ma == nil {
		ma = &OnMachine{}
	}
	if mb == nil {
		mb = &OnMachine{}
	}
	return slices.Equal(a.Agents, b.Agents) && slices.Equal(a.Kernels, b.Kernels) && slices.Equal(a.Missing, b.Missing) &&
		max(a.MissingTotal, len(a.Missing)) == max(b.MissingTotal, len(b.Missing)) &&
		(!byTargets(a) || slices.Equal(a.Targets, b.Targets)) && byTargets(a) == byTargets(b) &&
		ma.Machine == mb.Machine && slices.Equal(ma.Devices, mb.Devices)
}

// GrowthOf compares f with base, the baseline's findings with f's
// fingerprint (at least one), and returns what f covers that none of
// them does, or nil when f covers no more than they did together.
// Kernel keys, agents and files are compared as sets; lists sorted as the
// rules sort them are merged in one pass, so a finding of a million
// kernel keys costs no map. A kernel-database list the baseline cut
// (MissingTotal above its length) counts as grown only where the cut
// list proves it, or where this finding misses more files in all.
func GrowthOf(f Finding, base []Finding) *Growth {
	recorded := slices.ContainsFunc(base, func(b Finding) bool { return b.Coverage != "" })
	g := &Growth{}
	agents := lists(base, func(b Finding) []string { return b.Agents })
	targets := lists(base, func(b Finding) []string { return b.Targets })
	kernels := lists(base, func(b Finding) []string { return b.Kernels })
	g.Agents = newStrings(f.Agents, agents, strLess)
	g.Kernels = newStrings(f.Kernels, kernels, kernelLess)
	if byTargets(f) && allEmpty(agents) {
		g.Targets = newTargets(f.Targets, targets)
	}
	g.growLevel(f, base)
	if !recorded {
		g.Unrecorded = unrecorded(f, base, agents, targets, kernels)
	}
	g.Binaries = newBinaries(g.Kernels, kernels)
	g.growMachine(f, base)
	g.growMissing(f, base)
	if g.empty() {
		return nil
	}
	g.KernelsTotal, g.Kernels = len(g.Kernels), capped(g.Kernels)
	g.BinariesTotal, g.Binaries = len(g.Binaries), capped(g.Binaries)
	return g
}

func strLess(a, b string) bool { return a < b }

// byTargets reports whether f's targets say what it covers: it names no
// agent. Where agents are named they are the loads; targets only label
// them by the run's matrix (a baseline of another variant names other
// targets for the same agents).
func byTargets(f Finding) bool { return len(f.Agents) == 0 }

// newTargets returns the targets of now that no target of base names:
// neither its processor nor its whole target ID (features in any order:
// "gfx942:xnack+:sramecc-" is "gfx942:sramecc-:xnack+"). A finding that
// names no agent covers its targets' loads: gfx942:xnack+ is not the
// load gfx942:xnack- was.
func newTargets(now []string, base [][]string) []string {
	procs, ids := map[string]bool{}, map[string]bool{}
	for _, l := range base {
		for _, t := range l {
			procs[agentProcessor(t)] = true
			ids[canonicalTarget(t)] = true
		}
	}
	var out []string
	for _, t := range now {
		if !procs[agentProcessor(t)] || !ids[canonicalTarget(t)] {
			out = append(out, t)
		}
	}
	return out
}

// canonicalTarget is a target ID with its features sorted:
// "gfx942:sramecc-:xnack+" for "gfx942:xnack+:sramecc-".
func canonicalTarget(t string) string {
	p, feats, ok := strings.Cut(t, ":")
	if !ok || !strings.Contains(feats, ":") {
		return t
	}
	fs := strings.Split(feats, ":")
	slices.Sort(fs)
	return p + ":" + strings.Join(fs, ":")
}

// featuredTargets lists the canonical target IDs of targets that name a
// feature (gfx942:xnack+), sorted and distinct; nil when every target is
// a bare processor.
func featuredTargets(targets []string) []string {
	var out []string
	for _, t := range targets {
		if strings.Contains(t, ":") {
			out = append(out, canonicalTarget(t))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// growLevel records a level above the highest of the baseline's
// findings (a finding read back always has one; "" ranks lowest).
func (g *Growth) growLevel(f Finding, base []Finding) {
	was := Level("")
	for _, b := range base {
		if b.Level.Rank() > was.Rank() || was == "" {
			was = b.Level
		}
	}
	if f.Level.Rank() > was.Rank() && was != "" {
		g.Level, g.WasLevel = f.Level, was
	}
}

// targetProcessors lists the processors of targets, sorted and distinct.
func targetProcessors(targets []string) []string {
	out := make([]string, len(targets))
	for i, t := range targets {
		out[i] = agentProcessor(t)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func lists(base []Finding, of func(Finding) []string) [][]string {
	out := make([][]string, 0, len(base))
	for _, b := range base {
		out = append(out, of(b))
	}
	return out
}

func allEmpty(ls [][]string) bool {
	return !slices.ContainsFunc(ls, func(l []string) bool { return len(l) > 0 })
}

// unrecorded names the dimensions an older report's findings (base, no
// coverage key) list nothing of while f lists some.
func unrecorded(f Finding, base []Finding, agents, targets, kernels [][]string) []string {
	var out []string
	add := func(dim string, now int, was bool) {
		if now > 0 && !was {
			out = append(out, dim)
		}
	}
	add("agents", len(f.Agents), !allEmpty(agents))
	if byTargets(f) {
		add("targets", len(f.Targets), !allEmpty(targets) || !allEmpty(agents))
	}
	add("kernels", len(f.Kernels), !allEmpty(kernels))
	devices := f.Machine != nil && len(f.Machine.Devices) > 0
	add("devices", btoi(devices), slices.ContainsFunc(base, func(b Finding) bool { return b.Machine != nil && len(b.Machine.Devices) > 0 }))
	add("missing", len(f.Missing), slices.ContainsFunc(base, func(b Finding) bool { return len(b.Missing) > 0 }))
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// newStrings returns the items of now in none of base. When now and a
// single base list are sorted (strictly, by less) they are merged;
// otherwise the base items go into a set.
func newStrings(now []string, base [][]string, less func(a, b string) bool) []string {
	if len(now) == 0 || len(base) == 1 && slices.Equal(now, base[0]) {
		return nil
	}
	if len(base) == 1 && strictlySorted(now, less) && strictlySorted(base[0], less) {
		var out []string
		b := base[0]
		j := 0
		for _, x := range now {
			for j < len(b) && less(b[j], x) {
				j++
			}
			if j < len(b) && b[j] == x {
				continue
			}
			out = append(out, x)
		}
		return out
	}
	seen := map[string]bool{}
	for _, l := range base {
		for _, x := range l {
			seen[x] = true
		}
	}
	var out []string
	for _, x := range now {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func strictlySorted(xs []string, less func(a, b string) bool) bool {
	for i := 1; i < len(xs); i++ {
		if !less(xs[i-1], xs[i]) {
			return false
		}
	}
	return true
}

// newBinaries lists the names (kernel_name, the part before "#") of the
// grown kernel keys that no baseline key has.
func newBinaries(grown []string, base [][]string) []string {
	if len(grown) == 0 {
		return nil
	}
	had := map[string]bool{}
	for _, l := range base {
		last := ""
		for _, k := range l {
			if name, _, _ := SplitKey(k); name != last {
				had[name], last = true, name
			}
		}
	}
	var out []string
	for _, k := range grown {
		if name, _, _ := SplitKey(k); !had[name] {
			had[name] = true
			out = append(out, name)
		}
	}
	return out
}

// growMachine records the devices of f's machine no baseline finding on
// that machine names (all of them, and NewMachine, when none is on it).
func (g *Growth) growMachine(f Finding, base []Finding) {
	m := f.Machine
	if m == nil || m.Machine == "" {
		return
	}
	var had []int
	same := false
	for _, b := range base {
		if b.Machine != nil && b.Machine.Machine == m.Machine {
			same = true
			had = append(had, b.Machine.Devices...)
		}
	}
	if !same {
		g.Machine, g.NewMachine, g.Devices = m.Machine, true, slices.Clone(m.Devices)
		return
	}
	for _, d := range m.Devices {
		if !slices.Contains(had, d) {
			g.Devices = append(g.Devices, d)
		}
	}
	if len(g.Devices) > 0 {
		g.Machine = m.Machine
	}
}

// growMissing records the kernel-database files f misses that the
// baseline's findings did not. Lists are sorted and cut after their
// first entries, so a file past the last one a cut baseline list shows
// is not known to be new; the totals still count.
func (g *Growth) growMissing(f Finding, base []Finding) {
	if len(f.Missing) == 0 && f.MissingTotal == 0 {
		return
	}
	had := map[string]bool{}
	baseTotal, limit, cut := 0, "", false
	for _, b := range base {
		for _, m := range b.Missing {
			had[m] = true
		}
		total := max(b.MissingTotal, len(b.Missing))
		baseTotal = max(baseTotal, total)
		if total > len(b.Missing) {
			cut = true
			if n := len(b.Missing); n > 0 && (limit == "" || b.Missing[n-1] < limit) {
				limit = b.Missing[n-1]
			}
		}
	}
	untold := false
	for _, m := range f.Missing {
		switch {
		case had[m]:
		case !cut || m < limit:
			g.Missing = append(g.Missing, m)
		default: // past the cut list: the baseline may or may not have missed it
			untold = true
		}
	}
	if untold {
		g.Untold = append(g.Untold, "missing")
	}
	g.MissingTotal = max(len(g.Missing), max(f.MissingTotal, len(f.Missing))-baseTotal)
	g.Missing = capped(g.Missing)
}

func capped(xs []string) []string {
	if len(xs) > MaxGrownListed {
		return slices.Clip(xs[:MaxGrownListed])
	}
	return xs
}

func (g *Growth) empty() bool {
	return len(g.Agents) == 0 && len(g.Targets) == 0 && len(g.Kernels) == 0 && !g.NewMachine &&
		len(g.Devices) == 0 && g.MissingTotal == 0 && len(g.Missing) == 0 && len(g.Unrecorded) == 0 &&
		len(g.Untold) == 0 && g.Level == ""
}
