// Package policy reads policies.yaml: the declared target matrix of a build
// (targets per build variant, TheRock's sanitizer transform), the loader to
// simulate, kpack group owners and rule levels.
package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// MaxTargetLength bounds a transform's replace template and what the
// transforms make of a target, in bytes. The longest real target IDs are
// about 30 bytes; without a bound 32 doubling rewrites of one target need
// 24 GiB.
const MaxTargetLength = 256

// MaxSize bounds the policy file read, in bytes.
const MaxSize = 4 << 20

// Policy is the decoded policies.yaml. Unknown keys are an error.
type Policy struct {
	Version  int                     `yaml:"version"`
	Loader   string                  `yaml:"loader"`
	Variants map[string]*Variant     `yaml:"variants"`
	Groups   map[string]*Group       `yaml:"groups"`
	Rules    map[string]*RuleSetting `yaml:"rules"`
	Env      map[string]string       `yaml:"env"`
	// CUCounts gives, per processor ("gfx942"), the compute-unit counts
	// its devices report (hipDeviceProp_t multiProcessorCount; on gfx10,
	// gfx11 and gfx12 the WGP count), e.g. gfx90a: [104, 110] for MI210
	// and MI250X. MIOpen names its kernel, find and perf databases after
	// them (gfx90a68.kdb); KPL013 checks those names only for the counts
	// given here.
	CUCounts map[string][]int `yaml:"cu_counts"`
	// Waivers accept known findings (see Waiver).
	Waivers []finding.Waiver `yaml:"waivers"`
	// Machines are the machines the build must run on, by name (Machine).
	Machines map[string]*Machine `yaml:"machines"`

	// Path is the file the policy came from, as given ("" for none), or
	// as reports name it after SetPath.
	Path string `yaml:"-"`
	// loaded is the file as given to Load, which errors name, once
	// SetPath renamed Path.
	loaded string

	lines map[string]int // key path -> line, see Line
}

// Variant is one build variant (release, asan, ...): its GPU targets and
// the transforms the build applies to them.
type Variant struct {
	// Targets are target IDs (gfx942:xnack+, gfx11-generic) or TheRock
	// target families (gfx94X-dcgpu, gfx110X-all), which stand for their
	// processors (targetid.ExpandTarget) before the transforms run.
	Targets   []string  `yaml:"targets"`
	Transform []Rewrite `yaml:"transform"`
	// Agents lists the agent ISAs to simulate per (transformed) target,
	// replacing the default expansion (every ISA a device can report). A
	// key may be a TheRock family of the targets: its agents then go to
	// the family's processors they belong to (AgentsFor).
	Agents map[string][]string `yaml:"agents"`
	// ArchList replaces, per processor, the arch_list entries HIP passes
	// after the agent's own ISA. By default HIP passes the agent ISA and
	// then its family's generic target with the agent's feature settings
	// (gfx942:sramecc+:xnack- -> gfx9-4-generic:sramecc+:xnack-; hip.ArchList).
	// An empty list leaves the ISA alone, as HIP did before it appended
	// the generic target.
	ArchList map[string][]string `yaml:"arch_list"`
	// Fallbacks is the old name of ArchList (which appended entries); it
	// is rejected with a message that says what to write instead, and
	// left out of the known keys unknown-key errors list.
	Fallbacks map[string][]string `yaml:"fallbacks" policy:"renamed"`
}

// Rewrite is one `{match: regex, replace: template}` step applied to every
// target, as TheRock's cmake/therock_sanitizers.cmake rewrites GPU_TARGETS
// (`gfx950` -> `gfx950:xnack+`). replace uses Go regexp template syntax
// (`${1}`).
type Rewrite struct {
	Match   string `yaml:"match"`
	Replace string `yaml:"replace"`

	re *regexp.Regexp
}

// Group describes one kpack group.
type Group struct {
	// Owners maps a project name to path globs (relative to the input
	// root, `**` allowed as a final element) of its host binaries or
	// kernel names.
	Owners map[string][]string `yaml:"owners"`
}

// RuleSetting overrides a rule's level: error, warning, note or off.
type RuleSetting struct {
	Level string `yaml:"level"`
}

// Options says what a policy or waiver file is checked against besides
// its schema.
type Options struct {
	// RuleIDs are the rules that exist ("KPL001", ...): a rules.<ID>
	// entry or a waiver's rule naming another is an error, with the
	// closest one. nil checks nothing.
	RuleIDs []string
	// Machine checks machines.<name> beyond what the policy checks by
	// itself (device ISAs, the hip: release, env keys: what needs the
	// simulation's packages, which the policy must not import); its
	// errors (*Error from p.Errorf) are reported with the policy's own,
	// in file order. nil checks nothing more.
	Machine func(p *Policy, name string) []error
}

// Load reads and validates a policy file.
func Load(path string) (*Policy, error) { return LoadWith(path, Options{}) }

// LoadWith is Load checking what opt says too. Every error of the file
// is reported at once: one *Error, or Errors in file order.
func LoadWith(path string, opt Options) (*Policy, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, err
	}
	p, err := parse(data, path, opt)
	if err != nil {
		return nil, err
	}
	p.Path = path
	return p, nil
}

// Parse decodes and validates policy YAML. Errors are *Error values naming
// the offending key and its line, or Errors when there are several.
func Parse(data []byte) (*Policy, error) {
	return parse(data, "", Options{})
}

func parse(data []byte, file string, opt Options) (*Policy, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		e := syntaxError(data, err)
		e.File = file
		return nil, e
	}
	if err := checkAliases(&doc); err != nil {
		err.(*Error).File = file
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, &Error{File: file, Msg: "empty policy (want variants: with targets, e.g. variants: {release: {targets: [gfx942]}})"}
	}
	p := &Policy{lines: map[string]int{}}
	w := walker{lines: p.lines}
	w.walk(&doc, reflect.TypeOf(*p), "")
	schemaOK := len(w.errs.list) == 0
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(schemaOK) // past schema errors, decode what reads so the values are checked too
	if err := dec.Decode(p); err != nil && !errors.Is(err, io.EOF) && schemaOK {
		return nil, &Error{File: file, Msg: oneLine(err).Error()}
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, &Error{File: file, Msg: `a second YAML document (after "---") is not allowed: the policy is one document`}
	}
	p.Path = file
	w.errs.add(p.validate(opt))
	if err := w.errs.err(file); err != nil {
		return nil, err
	}
	p.Path = ""
	return p, nil
}

// Line returns the line of a key path ("variants.asan.targets[2]"), 0 when
// the policy did not come from YAML or does not have the key.
func (p *Policy) Line(key string) int {
	if p == nil {
		return 0
	}
	return p.lines[key]
}

// Errorf returns an *Error at key (its file and line), as every policy
// check reports.
func (p *Policy) Errorf(key, format string, args ...any) error {
	e := &Error{Key: key, Msg: fmt.Sprintf(format, args...)}
	if p != nil {
		e.File, e.Line = p.File(), p.Line(key)
	}
	return e
}

// File names the policy file for errors: as it was given to Load (Path
// may have been renamed for reports since).
func (p *Policy) File() string {
	if p.loaded != "" {
		return p.loaded
	}
	return p.Path
}

// validate checks what the schema cannot: versions, loaders, targets and
// transforms, agents, levels, CU counts, globs, waivers, and with
// opt.RuleIDs the rules named. It reports every problem, in file order.
func (p *Policy) validate(opt Options) error {
	var l errList
	if p.Version != 0 && p.Version != 1 {
		l.add(p.Errorf("version", "version %d is not supported (want 1)", p.Version))
	}
	if _, err := finding.ParseLoader(p.Loader); err != nil {
		l.add(p.Errorf("loader", "%v%s", err, DidYouMean(p.Loader, finding.Loaders())))
	}
	for _, name := range p.VariantNames() {
		p.validateVariant(name, &l)
	}
	for _, id := range slices.Sorted(maps.Keys(p.Rules)) {
		if opt.RuleIDs != nil && !slices.Contains(opt.RuleIDs, id) {
			l.add(p.Errorf("rules."+id, "no such rule%s (see kpack-lint rules)", DidYouMean(id, opt.RuleIDs)))
		} else if r := p.Rules[id]; r == nil || !validLevel(r.Level) {
			l.add(p.levelError(id, r))
		}
	}
	p.validateMachines(&l, opt)
	for _, err := range checkCUCounts(p.CUCounts) {
		l.add(&Error{File: p.Path, Line: p.Line("cu_counts"), Msg: err.Error()})
	}
	for _, g := range slices.Sorted(maps.Keys(p.Groups)) {
		grp := p.Groups[g]
		if grp == nil {
			continue
		}
		for _, proj := range slices.Sorted(maps.Keys(grp.Owners)) {
			for i, gl := range grp.Owners[proj] {
				if err := finding.CheckGlob(gl); err != nil {
					l.add(p.Errorf(fmt.Sprintf("groups.%s.owners.%s[%d]", g, proj, i), "%v", err))
				}
			}
		}
	}
	p.validateWaivers(&l, opt)
	return l.err(p.File())
}

// validateVariant checks one variant: transforms compile, targets and
// what the transforms make of them are valid target IDs, agents fit.
// Targets are checked against the transforms only when every transform
// compiles.
func (p *Policy) validateVariant(name string, l *errList) {
	v := p.Variants[name]
	key := "variants." + name
	if v == nil {
		l.add(p.Errorf(key, "empty (want at least targets: [...])"))
		return
	}
	transformsOK := true
	for i := range v.Transform {
		re, err := regexp.Compile(v.Transform[i].Match)
		if err != nil {
			l.add(p.Errorf(fmt.Sprintf("%s.transform[%d].match", key, i), "%v", err))
			transformsOK = false
			continue
		}
		if len(v.Transform[i].Replace) > MaxTargetLength {
			l.add(p.Errorf(fmt.Sprintf("%s.transform[%d].replace", key, i), "longer than %d bytes", MaxTargetLength))
			transformsOK = false
		}
		v.Transform[i].re = re
	}
	for i, given := range v.Targets {
		_, fam, err := targetid.ExpandTarget(given)
		if err != nil {
			l.add(p.Errorf(fmt.Sprintf("%s.targets[%d]", key, i), "%v%s", err, suggestTarget(given)))
			continue
		}
		if !transformsOK {
			continue
		}
		members := []string{given}
		if fam != nil {
			members = fam.Processors
		}
		for _, t := range members {
			if step, at := v.overflows(t); step >= 0 {
				l.add(p.Errorf(fmt.Sprintf("%s.transform[%d]", key, step), "rewrites %.60q to a target longer than %d bytes", at, MaxTargetLength))
				break
			}
			if step, out := v.breaks(t); step >= 0 {
				_, err := targetid.Parse(out)
				l.add(p.Errorf(fmt.Sprintf("%s.transform[%d]", key, step), "turns target %s into %q, which is not a valid target ID (%s); narrow its match%s",
					t, out, err.(*targetid.Error).Msg, suggestTarget(out)))
			}
		}
	}
	archKey := "variants." + name + ".arch_list"
	if v.Fallbacks != nil {
		archKey = "variants." + name + ".fallbacks"
	}
	for _, err := range v.checkArchList(name) {
		l.add(&Error{File: p.Path, Line: p.Line(archKey), Msg: err.Error()})
	}
	if transformsOK {
		v.checkAgents(p, name, l)
	}
}

// overflows returns the first transform step whose rewrite of t would be
// longer than MaxTargetLength, and its input; -1 when none is.
func (v *Variant) overflows(t string) (int, string) {
	for i, rw := range v.Transform {
		next, ok := boundedReplace(rw.re, t, rw.Replace, MaxTargetLength)
		if !ok {
			return i, t
		}
		t = next
	}
	return -1, ""
}

// breaks returns the index of the transform step after which target t is
// no longer a valid target ID and the final result, or -1.
func (v *Variant) breaks(t string) (int, string) {
	step := -1
	for i, rw := range v.Transform {
		next := rw.re.ReplaceAllString(t, rw.Replace)
		if _, err := targetid.Parse(next); err != nil && next != t {
			step = i
		} else if err == nil {
			step = -1
		}
		t = next
	}
	return step, t
}

// suggestTarget is " (did you mean X?)" for the closest valid target ID.
func suggestTarget(t string) string {
	if s := targetid.Suggest(t); s != "" {
		return " (did you mean " + s + "?)"
	}
	return ""
}

// Levels are the values a rule's level takes in a policy.
var Levels = []string{"error", "warning", "note", "off"}

// levelError says what is wrong with rules.ID's level: missing (at the
// rule's own line) or not one of Levels (with the nearest one).
func (p *Policy) levelError(id string, r *RuleSetting) error {
	key := "rules." + id + ".level"
	if r == nil || r.Level == "" {
		if p.Line(key) == 0 {
			key = "rules." + id
		}
		return p.Errorf(key, "level is missing: want error, warning, note or off, e.g. {level: off}")
	}
	return p.Errorf(key, "want error, warning, note or off%s", DidYouMean(r.Level, Levels))
}

func validLevel(l string) bool {
	switch l {
	case "error", "warning", "note", "off":
		return true
	}
	return false
}

// LoaderOrDefault returns the policy's loader (finding.ParseLoader: the
// default, fallthrough, when unset or without a policy).
func (p *Policy) LoaderOrDefault() finding.Loader {
	if p == nil {
		return finding.Fallthrough
	}
	l, _ := finding.ParseLoader(p.Loader) // validate checked it
	return l
}

// VariantNames returns the declared variant names, sorted.
func (p *Policy) VariantNames() []string {
	if p == nil {
		return nil
	}
	names := make([]string, 0, len(p.Variants))
	for n := range p.Variants {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Variant returns the named variant. With name "" it picks `release` when
// declared, else the only variant; otherwise it is a *VariantError that
// lists the choices. A nil policy has no variants and gives (nil, nil).
func (p *Policy) Variant(name string) (*Variant, string, error) {
	if p == nil || len(p.Variants) == 0 {
		if name != "" {
			return nil, "", &VariantError{Name: name}
		}
		return nil, "", nil
	}
	if name == "" {
		if _, ok := p.Variants["release"]; ok {
			name = "release"
		} else if len(p.Variants) == 1 {
			name = p.VariantNames()[0]
		} else {
			return nil, "", &VariantError{Declared: p.VariantNames()}
		}
	}
	v, ok := p.Variants[name]
	if !ok {
		where := p.File()
		if l := p.Line("variants"); l > 0 && where != "" {
			where = fmt.Sprintf("%s:%d", where, l)
		}
		hint := strings.TrimSuffix(strings.TrimPrefix(DidYouMean(name, p.VariantNames()), " ("), ")")
		return nil, "", &VariantError{Name: name, Declared: p.VariantNames(), Where: where, Hint: hint}
	}
	return v, name, nil
}

// VariantError is a variant the policy cannot give. Name is the variant
// asked for, "" when none was and the policy declares several, none of
// them release; Declared lists the policy's variants, none when it
// declares no variants; Where is the file (and line) that declares them,
// "policies.yaml:8" ("" when unknown); Hint names a close one ("did you
// mean asan?", "" when none is close).
type VariantError struct {
	Name     string
	Declared []string
	Where    string
	Hint     string
}

func (e *VariantError) Error() string {
	switch {
	case len(e.Declared) == 0:
		return fmt.Sprintf("variant %s: the policy declares no variants", e.Name)
	case e.Name == "":
		return fmt.Sprintf("several variants declared (%s): choose one", strings.Join(e.Declared, ", "))
	}
	return fmt.Sprintf("variant %s: not declared%s (have %s%s)", e.Name, e.In(), strings.Join(e.Declared, ", "), e.HintSuffix())
}

// In is " in <Where>", or "" when Where is unknown.
func (e *VariantError) In() string {
	if e.Where == "" {
		return ""
	}
	return " in " + e.Where
}

// HintSuffix is "; <Hint>", or "" without a hint.
func (e *VariantError) HintSuffix() string {
	if e.Hint == "" {
		return ""
	}
	return "; " + e.Hint
}

// ArchLists returns the variant's arch_list replacements per processor;
// nil for a nil variant (no policy).
func (v *Variant) ArchLists() map[string][]string {
	if v == nil {
		return nil
	}
	return v.ArchList
}

// Apply runs the variant's transforms over targets, in order: each rewrite
// whose regex matches a target replaces it with the expanded template. A
// TheRock family (gfx110X-all) is first replaced by its processors
// (targetid.ExpandTargets), each then transformed.
// Parse rejects a policy whose transforms rewrite one of its targets past
// MaxTargetLength bytes; for other targets (or a hand-built Variant) a
// rewrite that would pass it leaves the target as it was before that step,
// and a target longer than the limit is not rewritten. No input makes a
// rewrite allocate much more than the limit.
func (v *Variant) Apply(targets []string) []string {
	targets, _ = targetid.ExpandTargets(targets)
	out := make([]string, 0, len(targets))
	for _, t := range targets {
		for _, rw := range v.Transform {
			re := rw.re
			if re == nil {
				var err error
				if re, err = regexp.Compile(rw.Match); err != nil {
					continue // Parse rejects bad patterns; a hand-built Variant skips them
				}
			}
			if next, ok := boundedReplace(re, t, rw.Replace, MaxTargetLength); ok {
				t = next
			}
		}
		out = append(out, t)
	}
	return out
}

// boundedReplace is re.ReplaceAllString(s, tmpl) that gives up (ok false)
// once the result passes limit bytes, or at once when s is longer than
// limit (matching it alone could allocate without bound).
func boundedReplace(re *regexp.Regexp, s, tmpl string, limit int) (string, bool) {
	if len(s) > limit {
		return "", false
	}
	var dst []byte
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		dst = append(dst, s[last:m[0]]...)
		dst = re.ExpandString(dst, tmpl, s, m)
		last = m[1]
		if len(dst) > limit {
			return "", false
		}
	}
	dst = append(dst, s[last:]...)
	return string(dst), len(dst) <= limit
}

// RuleLevel returns the level the policy sets for rule id ("" when unset).
// "off" is returned as "none".
func (p *Policy) RuleLevel(id string) string {
	if p == nil {
		return ""
	}
	r, ok := p.Rules[id]
	if !ok || r == nil {
		return ""
	}
	if r.Level == "off" {
		return "none"
	}
	return r.Level
}

// Owners returns the owner globs of a group (nil when none are declared).
func (p *Policy) Owners(group string) map[string][]string {
	if p == nil || p.Groups[group] == nil {
		return nil
	}
	return p.Groups[group].Owners
}

// checkAgents requires every agents: key to be one of the variant's
// targets after its transforms, and every agent to be an ISA a device
// reports (targetid.IsDeviceISA), as --agent does. An agent that cannot
// run code built for its target (agents: {gfx1151: [gfx1100]}) is the
// target's device reporting another ISA, as under
// HSA_OVERRIDE_GFX_VERSION (pytorch/pytorch#164346), not an error.
func (v *Variant) checkAgents(p *Policy, name string, l *errList) {
	targets := v.Apply(v.Targets)
	for _, target := range slices.Sorted(maps.Keys(v.Agents)) {
		key := fmt.Sprintf("variants.%s.agents.%s", name, target)
		_, fam, err := targetid.ExpandTarget(target)
		if err != nil {
			l.add(p.Errorf(key, "%v%s", err, suggestTarget(target)))
			continue
		}
		if fam != nil && !slices.Contains(v.Targets, target) || fam == nil && !slices.Contains(targets, target) {
			l.add(p.Errorf(key, "%s is not one of the variant's targets after its transforms (%s)", target, strings.Join(targets, ", ")))
			continue
		}
		for i, isa := range v.Agents[target] {
			err := checkAgent(isa)
			if err == nil && fam != nil {
				err = inFamily(isa, *fam)
			}
			if err != nil {
				l.add(p.Errorf(fmt.Sprintf("%s[%d]", key, i), "%v", err))
			}
		}
	}
}

// inFamily requires agent isa (a device ISA) to be a device of one of
// the family's processors: a family key's agents go to their own
// processor's target (AgentsFor).
func inFamily(isa string, fam targetid.TargetFamily) error {
	a, _ := targetid.Parse(isa)
	if !slices.Contains(fam.Processors, a.Processor) {
		return fmt.Errorf("agent %s is not a device of TheRock family %s (%s); key it by its own target", isa, fam.Name, strings.Join(fam.Processors, ", "))
	}
	return nil
}

// AgentsFor returns the agents: list for target t (one of the variant's
// targets after its transforms): its own key's, else those a key naming
// a TheRock family lists for t's processor, when the family's processors
// after the transforms include t; nil when neither lists any (every ISA
// of the target is simulated).
func (v *Variant) AgentsFor(t string) []string {
	if v == nil {
		return nil
	}
	if a := v.Agents[t]; len(a) > 0 {
		return a
	}
	id, err := targetid.Parse(t)
	if err != nil {
		return nil
	}
	var out []string
	for _, key := range slices.Sorted(maps.Keys(v.Agents)) {
		if _, fam := targetid.LookupFamily(key); !fam || !slices.Contains(v.Apply([]string{key}), t) {
			continue
		}
		for _, a := range v.Agents[key] {
			if isa, err := targetid.Parse(a); err == nil && isa.Processor == id.Processor && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// checkAgent requires isa to be a device ISA (not a generic target).
func checkAgent(isa string) error {
	a, err := targetid.Parse(isa)
	if err != nil {
		return fmt.Errorf("%v%s", err, suggestTarget(isa))
	}
	if p, _ := targetid.LookupProcessor(a.Processor); p.Generic {
		return fmt.Errorf("agent %s is a generic target, not a device ISA (name a member device)", isa)
	}
	if !targetid.IsDeviceISA(a) {
		return fmt.Errorf("agent %s is not an ISA a device reports (%s)", isa, DeviceISAHint(a))
	}
	return nil
}

// DeviceISAHint names the ISAs devices of id's processor report, for
// messages: "a gfx942 device reports gfx942:sramecc+:xnack+, ...".
func DeviceISAHint(id targetid.ID) string {
	var isas []string
	for _, a := range targetid.AgentISAs(targetid.ID{Processor: id.Processor}) {
		isas = append(isas, a.String())
	}
	if len(isas) == 0 {
		return "no device reports " + id.Processor
	}
	return fmt.Sprintf("a %s device reports %s", id.Processor, strings.Join(isas, ", "))
}

// checkArchList requires arch_list keys to be processors and entries to be
// target IDs, and rejects the old fallbacks: key. It returns every
// problem.
func (v *Variant) checkArchList(name string) []error {
	if v.Fallbacks != nil {
		return []error{fmt.Errorf("variants.%s.fallbacks: renamed to arch_list, which replaces the entries HIP passes after the agent ISA "+
			"(by default its generic target, e.g. gfx9-4-generic:sramecc+:xnack-); drop fallbacks that name that generic target", name)}
	}
	var out []error
	for _, proc := range slices.Sorted(maps.Keys(v.ArchList)) {
		if p, ok := targetid.LookupProcessor(proc); !ok || p.Generic {
			out = append(out, fmt.Errorf("variants.%s.arch_list: %q is not a device processor (e.g. gfx942)", name, proc))
			continue
		}
		for _, e := range v.ArchList[proc] {
			id, err := targetid.Parse(e)
			if err != nil {
				out = append(out, fmt.Errorf("variants.%s.arch_list.%s: %v", name, proc, err))
			} else if id.Processor != proc && !targetid.GenericCovers(id.Processor, proc) {
				out = append(out, fmt.Errorf("variants.%s.arch_list.%s: %s is for another processor: HIP passes a %s device only %s",
					name, proc, e, proc, ownTargets(proc)))
			}
		}
	}
	return out
}

// ownTargets says which arch_list entries fit a processor: its own ISA
// and the generic target covering it.
func ownTargets(proc string) string {
	for _, p := range targetid.Processors() {
		if p.Generic && targetid.GenericCovers(p.Name, proc) {
			return fmt.Sprintf("its own ISA and its family's generic target, so an entry names %s or %s (with feature settings)", proc, p.Name)
		}
	}
	return fmt.Sprintf("its own ISA (no generic target covers it), so an entry names %s (with feature settings)", proc)
}

// MaxCUs bounds a cu_counts entry.
const MaxCUs = 1 << 16

// MaxCUCounts bounds the distinct counts of one processor's cu_counts
// (repeats count once): real devices of one processor come in a few
// (MI300X reports 304, MI300A 228, MI308X 80), and every count is looked
// up in each MIOpen database of every device of the processor, so a
// policy listing 65,536 of them would make a run of minutes and a report
// of gigabytes.
const MaxCUCounts = 64

// checkCUCounts requires known, non-generic processors, counts in
// 1..MaxCUs and at most MaxCUCounts distinct counts per processor; it
// returns every problem, by processor.
func checkCUCounts(m map[string][]int) []error {
	var out []error
	for _, proc := range slices.Sorted(maps.Keys(m)) {
		p, ok := targetid.LookupProcessor(proc)
		if !ok || p.Generic {
			out = append(out, fmt.Errorf("cu_counts.%s: want a processor name such as gfx942 (no features, not generic)", proc))
			continue
		}
		distinct := map[int]bool{}
		for _, n := range m[proc] {
			if n < 1 || n > MaxCUs {
				out = append(out, fmt.Errorf("cu_counts.%s: %d compute units: want 1 to %d", proc, n, MaxCUs))
			}
			distinct[n] = true
		}
		if len(distinct) > MaxCUCounts {
			out = append(out, fmt.Errorf("cu_counts.%s: %d distinct counts: want at most %d (the counts its devices report)", proc, len(distinct), MaxCUCounts))
		}
	}
	return out
}

// CUs returns the policy's cu_counts (nil for a nil policy).
func (p *Policy) CUs() map[string][]int {
	if p == nil {
		return nil
	}
	return p.CUCounts
}

// oneLine folds a multi-line YAML error (yaml.TypeError lists one line per
// problem) into one line: the CLI prints errors as one line on stderr.
func oneLine(err error) error {
	msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	if len(msg) > 500 {
		msg = msg[:500] + "..."
	}
	return errors.New(msg)
}
