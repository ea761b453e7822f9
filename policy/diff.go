package policy

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
)

// Change is one way a policy (HEAD, a pull request's) lets through more
// than another (BASE, its base commit's), as Diff finds it.
type Change struct {
	// Kind is one of the Change* constants.
	Kind string
	// Source is where the change is written, "file:line" in HEAD (in
	// BASE for what HEAD removed), the file as the policy's Path names it;
	// the file alone when the line is not known.
	Source string
	// Parts are the words of the change, in order; Data parts come from
	// the policy files (names, globs, reasons) and are escaped for where
	// they are shown (Text, Markdown).
	Parts []Part
}

// Part is a piece of a Change's words: Data when read from a policy.
type Part struct {
	S    string
	Data bool
}

// The kinds of Change.
const (
	ChangeWaiverAdded    = "waiver added"
	ChangeWaiverExtended = "waiver extended"
	ChangeWaiverWidened  = "waiver widened"
	ChangeRuleLowered    = "rule turned down"
	ChangeVariantRemoved = "variant removed"
	ChangeTargetRemoved  = "target removed"
	ChangeAgentsNarrowed = "agents narrowed"
	ChangeArchList       = "arch_list changed"
	ChangeMachineRemoved = "machine removed"
	ChangeMachineChanged = "machine changed"
	ChangeLoader         = "loader changed"
	ChangeEnv            = "env changed"
	ChangeCUCounts       = "cu_counts removed"
	ChangePolicyRemoved  = "policy removed"
)

// DiffOptions says what Diff judges against.
type DiffOptions struct {
	// DefaultLevel is a rule's level without a policy ("error" for
	// KPL001, from rules.All); nil or "" for an unknown rule counts as
	// error.
	DefaultLevel func(id string) string
	// Today (YYYY-MM-DD) is the day waivers are judged on: a HEAD waiver
	// expired by then waives nothing and is no change. "" judges none
	// expired.
	Today string
	// MaxWaiverDays is BroadWaivers' limit for the waivers HEAD adds or
	// widens (0: no expiry check).
	MaxWaiverDays int
}

// Diff lists what HEAD changes against BASE that can let more of a build
// through the gate, in this order: waivers added, extended (a later or
// no expiry for the same selectors) or widened (a selector dropped or
// made a glob that covers BASE's), each with what BroadWaivers finds too
// broad in it; rules turned down (error > warning > note > off, unset =
// the rule's default level); variants, targets (after the variant's
// transforms), agents (an agents: list that drops ISAs or newly limits a
// target) and machines (or their devices) removed, machines whose HIP
// release, environment, CPU nodes or kpack setting changed; arch_list
// and env changes, the legacy loader replaced by the fall-through one,
// and cu_counts removed. Changes that only tighten the gate
// (a waiver removed, a target added) are not listed. A nil HEAD is a
// deleted policy (one ChangePolicyRemoved); a nil BASE is an empty one.
func Diff(base, head *Policy, opt DiffOptions) []Change {
	if head == nil {
		if base == nil {
			return nil
		}
		return []Change{{Kind: ChangePolicyRemoved, Source: base.Path, Parts: []Part{text("the policy is deleted: the check runs without it")}}}
	}
	if base == nil {
		base = &Policy{}
	}
	d := differ{base: base, head: head, opt: opt}
	d.waivers()
	d.rules()
	d.variants()
	d.machines()
	d.settings()
	return d.out
}

type differ struct {
	base, head *Policy
	opt        DiffOptions
	out        []Change
}

// add records a change at key of p (HEAD, or BASE for removals).
func (d *differ) add(kind string, p *Policy, key string, parts ...Part) {
	d.out = append(d.out, Change{Kind: kind, Source: sourceOf(p, key), Parts: parts})
}

// lineOf is the line of key, or of the nearest enclosing key that has
// one ("variants.asan.targets" for "variants.asan.targets[3]").
func lineOf(p *Policy, key string) int {
	for key != "" {
		if l := p.Line(key); l > 0 {
			return l
		}
		i := strings.LastIndexAny(key, ".[")
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return 0
}

func text(s string) Part { return Part{S: s} }
func data(s string) Part { return Part{S: s, Data: true} }

// waivers lists HEAD waivers in force that BASE does not have as they
// are, each at the file and line it is written (a policy's or a waiver
// file's), with its reason and owner: who answers for the change.
func (d *differ) waivers() {
	for i, h := range d.head.Waivers {
		if d.opt.Today != "" && h.Expired(d.opt.Today) {
			continue
		}
		key := fmt.Sprintf("waivers[%d]", i)
		broad := d.broad(h)
		who := whoParts(h)
		if j := slices.IndexFunc(d.base.Waivers, func(b finding.Waiver) bool { return sameSelectors(b, h) }); j >= 0 {
			b := d.base.Waivers[j]
			if laterExpiry(h.Expires, b.Expires) {
				d.addWaiver(ChangeWaiverExtended, h, key, append(append([]Part{data(Describe(h)), text(" now " + expiryWords(h.Expires) + " (was " + dateWords(b.Expires) + ")")}, who...), broad...)...)
			}
			continue
		}
		if j := slices.IndexFunc(d.base.Waivers, func(b finding.Waiver) bool { return d.replaced(b) && covers(h, b) }); j >= 0 {
			b := d.base.Waivers[j]
			d.addWaiver(ChangeWaiverWidened, h, key, append(append([]Part{data(Describe(h)), text(" replaces "), data(Describe(b)),
				text(" of "), data(waiverSource(d.base, b, fmt.Sprintf("waivers[%d]", j))), text(", matching more findings; " + expiryWords(h.Expires))}, who...), broad...)...)
			continue
		}
		d.addWaiver(ChangeWaiverAdded, h, key, append(append([]Part{data(Describe(h)), text(", " + expiryWords(h.Expires))}, who...), broad...)...)
	}
}

// whoParts words who answers for w: ", reason R, owner O" (", no owner"
// when it names none).
func whoParts(w finding.Waiver) []Part {
	parts := []Part{text(", reason "), data(w.Reason)}
	if w.Owner == "" {
		return append(parts, text(", no owner"))
	}
	return append(parts, text(", owner "), data(w.Owner))
}

// addWaiver records a change of HEAD waiver w at key, at w's own source
// when it has one (a waiver file's waivers are not the policy's lines).
func (d *differ) addWaiver(kind string, w finding.Waiver, key string, parts ...Part) {
	d.out = append(d.out, Change{Kind: kind, Source: waiverSource(d.head, w, key), Parts: parts})
}

// waiverSource is where w is written: its Source ("file:line") when set,
// else key's line in p.
func waiverSource(p *Policy, w finding.Waiver, key string) string {
	if w.Source != "" {
		return w.Source
	}
	return sourceOf(p, key)
}

// replaced reports whether BASE waiver b is gone from HEAD (no HEAD
// waiver has its selectors): a HEAD waiver of the same rule that covers
// it widens it.
func (d *differ) replaced(b finding.Waiver) bool {
	return !slices.ContainsFunc(d.head.Waivers, func(h finding.Waiver) bool { return sameSelectors(b, h) })
}

// broad words what BroadWaivers finds in w: "; too broad: ...".
func (d *differ) broad(w finding.Waiver) []Part {
	bs := BroadWaivers([]finding.Waiver{w}, d.opt.Today, d.opt.MaxWaiverDays)
	if len(bs) == 0 {
		return nil
	}
	var parts []Part
	for i, why := range bs[0].Why {
		sep := ", "
		if i == 0 {
			sep = "; too broad: "
		}
		parts = append(parts, text(sep), data(why))
	}
	return parts
}

// sourceOf is "file:line" of key in p, the file as reports name it
// (Path: SetPath renames it); "" for a policy without a file.
func sourceOf(p *Policy, key string) string {
	if l := lineOf(p, key); l > 0 && p.Path != "" {
		return fmt.Sprintf("%s:%d", p.Path, l)
	}
	return p.Path
}

func sameSelectors(a, b finding.Waiver) bool {
	return a.Rule == b.Rule && a.Path == b.Path && a.Group == b.Group && a.Kernel == b.Kernel && a.Fingerprint == b.Fingerprint
}

// covers reports whether waiver h matches every finding b matches, for
// the same rule (and is not b): each other selector of h is unset, equal
// to b's, or a glob that matches b's value read as a name.
func covers(h, b finding.Waiver) bool {
	if sameSelectors(h, b) {
		return false
	}
	if h.Path == "" && h.Group == "" && h.Kernel == "" && h.Fingerprint == "" {
		return false // matches nothing (the gate's rule)
	}
	globCovers := func(hg, bg string) bool { return hg == "" || hg == bg || (bg != "" && finding.MatchGlob(hg, bg)) }
	return h.Rule == b.Rule && (h.Fingerprint == "" || h.Fingerprint == b.Fingerprint) &&
		globCovers(h.Path, b.Path) && globCovers(h.Group, b.Group) && globCovers(h.Kernel, b.Kernel)
}

// laterExpiry reports whether expiry h ends later than b ("" never ends).
func laterExpiry(h, b string) bool {
	switch {
	case h == b:
		return false
	case h == "":
		return true
	case b == "":
		return false
	}
	return h > b // YYYY-MM-DD orders as text
}

// dateWords is an expiry as a date, "never" for none.
func dateWords(e string) string {
	if e == "" {
		return "never"
	}
	return e
}

func expiryWords(e string) string {
	if e == "" {
		return "never expires"
	}
	return "expires on " + e
}

// levelRank orders levels: what fails more ranks higher.
func levelRank(l string) int {
	switch l {
	case "off", "none":
		return 0
	case "note":
		return 1
	case "warning":
		return 2
	}
	return 3
}

// rules lists rules whose level HEAD makes lower than BASE's.
func (d *differ) rules() {
	ids := slices.Sorted(maps.Keys(d.head.Rules))
	for _, id := range ids {
		hl, bl := d.level(d.head, id), d.level(d.base, id)
		if levelRank(hl) >= levelRank(bl) {
			continue
		}
		what := " turned down to " + hl
		if levelRank(hl) == 0 {
			what = " turned off"
		}
		d.add(ChangeRuleLowered, d.head, "rules."+id+".level", data(id), text(what+" (was "+bl+")"))
	}
	// A rule BASE set and HEAD no longer sets falls back to its default.
	for _, id := range slices.Sorted(maps.Keys(d.base.Rules)) {
		if _, ok := d.head.Rules[id]; ok {
			continue
		}
		hl, bl := d.level(d.head, id), d.level(d.base, id)
		if levelRank(hl) < levelRank(bl) {
			d.add(ChangeRuleLowered, d.base, "rules."+id, data(id), text(" back to its default level "+hl+" (was "+bl+")"))
		}
	}
}

// level is rule id's level in p: its rules: entry, else the default.
func (d *differ) level(p *Policy, id string) string {
	if r := p.Rules[id]; r != nil && r.Level != "" {
		return r.Level
	}
	if d.opt.DefaultLevel != nil {
		if l := d.opt.DefaultLevel(id); l != "" {
			return l
		}
	}
	return "error"
}

// variants lists variants, targets and agents HEAD removes, and arch_list
// changes.
func (d *differ) variants() {
	for _, name := range d.base.VariantNames() {
		bv := d.base.Variants[name]
		hv, ok := d.head.Variants[name]
		key := "variants." + name
		if !ok || hv == nil {
			d.add(ChangeVariantRemoved, d.base, key, text("variant "), data(name), text(" (targets "), data(strings.Join(targetsOf(bv), " ")), text(") is removed"))
			continue
		}
		if bv == nil {
			continue
		}
		ht := targetsOf(hv)
		for _, t := range targetsOf(bv) {
			if !slices.Contains(ht, t) {
				d.add(ChangeTargetRemoved, d.head, key+".targets", text("variant "), data(name), text(": target "), data(t), text(" is no longer checked"))
			}
		}
		d.agents(name, bv, hv)
		for _, proc := range slices.Sorted(maps.Keys(unionKeys(bv.ArchList, hv.ArchList))) {
			b, inB := bv.ArchList[proc]
			h, inH := hv.ArchList[proc]
			if inB == inH && slices.Equal(b, h) {
				continue
			}
			d.add(ChangeArchList, d.head, key+".arch_list."+proc, text("variant "), data(name), text(": arch_list of "), data(proc),
				text(" is now "), data(listWords(h, inH, "HIP's default")), text(" (was "), data(listWords(b, inB, "HIP's default")), text(")"))
		}
	}
}

// targetsOf is a variant's targets after its transforms.
func targetsOf(v *Variant) []string {
	if v == nil {
		return nil
	}
	return v.Apply(v.Targets)
}

// agents lists agent ISAs HEAD's agents: lists drop, and targets HEAD
// newly limits to a list (BASE: every ISA of the target).
func (d *differ) agents(name string, bv, hv *Variant) {
	key := "variants." + name + ".agents"
	for _, t := range slices.Sorted(maps.Keys(hv.Agents)) {
		h := hv.Agents[t]
		b, inB := bv.Agents[t]
		if !inB {
			d.add(ChangeAgentsNarrowed, d.head, key+"."+t, text("variant "), data(name), text(": target "), data(t),
				text(" is now simulated on "), data(strings.Join(h, " ")), text(" only (was every agent ISA of the target)"))
			continue
		}
		for _, a := range b {
			if !slices.Contains(h, a) {
				d.add(ChangeAgentsNarrowed, d.head, key+"."+t, text("variant "), data(name), text(": agent "), data(a), text(" of target "), data(t), text(" is no longer simulated"))
			}
		}
	}
}

func unionKeys(a, b map[string][]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func listWords(l []string, set bool, unset string) string {
	switch {
	case !set:
		return unset
	case len(l) == 0:
		return "[]"
	}
	return "[" + strings.Join(l, ", ") + "]"
}

// machines lists machines HEAD removes or changes.
func (d *differ) machines() {
	for _, name := range d.base.MachineNames() {
		bm := d.base.Machines[name]
		hm, ok := d.head.Machines[name]
		key := "machines." + name
		if !ok || hm == nil {
			d.add(ChangeMachineRemoved, d.base, key, text("machine "), data(name), text(" is removed"))
			continue
		}
		if bm == nil || reflect.DeepEqual(bm, hm) {
			continue
		}
		parts := []Part{text("machine "), data(name), text(":")}
		for _, dev := range bm.Devices {
			if !slices.ContainsFunc(hm.Devices, func(h Device) bool { return h == dev }) {
				parts = append(parts, text(" device "), data(deviceWords(dev)), text(" removed;"))
			}
		}
		if bm.HIP != hm.HIP {
			parts = append(parts, text(" hip "), data(orNewest(hm.HIP)), text(" (was "), data(orNewest(bm.HIP)), text(");"))
		}
		if !maps.Equal(bm.Env, hm.Env) {
			parts = append(parts, text(" env changed;"))
		}
		if bm.CPUNodes != hm.CPUNodes || bm.Kpack != hm.Kpack {
			parts = append(parts, text(" cpu_nodes or kpack changed;"))
		}
		if !slices.Equal(bm.Devices, hm.Devices) && len(parts) == 3 {
			parts = append(parts, text(" devices reordered or added;"))
		}
		last := &parts[len(parts)-1]
		last.S = strings.TrimSuffix(last.S, ";")
		d.add(ChangeMachineChanged, d.head, key, parts...)
	}
}

func deviceWords(dev Device) string {
	if dev.UUID != "" {
		return dev.ISA + " (" + dev.UUID + ")"
	}
	return dev.ISA
}

func orNewest(h string) string {
	if h == "" {
		return "newest"
	}
	return h
}

// settings lists loader, env and cu_counts changes.
func (d *differ) settings() {
	// The fall-through loader loads what the legacy one fails; the other
	// way only tightens.
	if bl, hl := d.base.LoaderOrDefault(), d.head.LoaderOrDefault(); bl == finding.Legacy && hl == finding.Fallthrough {
		p := d.head
		if p.Line("loader") == 0 {
			p = d.base // HEAD drops the key: the default applies
		}
		d.add(ChangeLoader, p, "loader", text("loader "), data(string(hl)), text(" (was "), data(string(bl)), text(")"))
	}
	keys := map[string]bool{}
	for k := range d.base.Env {
		keys[k] = true
	}
	for k := range d.head.Env {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		b, inB := d.base.Env[k]
		h, inH := d.head.Env[k]
		switch {
		case inB && inH && b == h:
		case !inH:
			d.add(ChangeEnv, d.base, "env."+k, text("env "), data(k), text(" is removed (was "), data(b), text(")"))
		case !inB:
			d.add(ChangeEnv, d.head, "env."+k, text("env "), data(k+"="+h), text(" is added"))
		default:
			d.add(ChangeEnv, d.head, "env."+k, text("env "), data(k+"="+h), text(" (was "), data(b), text(")"))
		}
	}
	for _, proc := range slices.Sorted(maps.Keys(d.base.CUCounts)) {
		var gone []string
		for _, n := range d.base.CUCounts[proc] {
			if !slices.Contains(d.head.CUCounts[proc], n) {
				gone = append(gone, fmt.Sprint(n))
			}
		}
		if len(gone) > 0 {
			d.add(ChangeCUCounts, d.head, "cu_counts."+proc, text("cu_counts of "), data(proc), text(": "), data(strings.Join(gone, ", ")),
				text(" no longer checked (MIOpen database names)"))
		}
	}
}
