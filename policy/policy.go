// Package policy reads policies.yaml: the declared target matrix of a build
// (targets per build variant, TheRock's sanitizer transform), the loader to
// simulate, kpack group owners and rule levels.
package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// Loader names accepted in `loader:` and --loader.
const (
	LoaderFallthrough = "fallthrough"
	LoaderLegacy      = "legacy"
)

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

	// Path is the file the policy came from, as given ("" for none).
	Path string `yaml:"-"`
}

// Variant is one build variant (release, asan, ...): its GPU targets and
// the transforms the build applies to them.
type Variant struct {
	Targets   []string  `yaml:"targets"`
	Transform []Rewrite `yaml:"transform"`
	// Agents lists the agent ISAs to simulate per (transformed) target,
	// replacing the default expansion (every ISA a device can report).
	Agents map[string][]string `yaml:"agents"`
	// ArchList replaces, per processor, the arch_list entries HIP passes
	// after the agent's own ISA. By default HIP passes the agent ISA and
	// then its family's generic target with the agent's feature settings
	// (gfx942:sramecc+:xnack- -> gfx9-4-generic:sramecc+:xnack-; hip.ArchList).
	// An empty list leaves the ISA alone, as HIP did before it appended
	// the generic target.
	ArchList map[string][]string `yaml:"arch_list"`
	// Fallbacks is the old name of ArchList (which appended entries); it
	// is rejected with a message that says what to write instead.
	Fallbacks map[string][]string `yaml:"fallbacks"`
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

// Load reads and validates a policy file.
func Load(path string) (*Policy, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, MaxSize)
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.Path = path
	return p, nil
}

// Parse decodes and validates policy YAML. Errors name the offending key.
func Parse(data []byte) (*Policy, error) {
	var p Policy
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty policy (want at least version: 1 and variants)")
		}
		return nil, oneLine(err)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

func (p *Policy) validate() error {
	if p.Version != 0 && p.Version != 1 {
		return fmt.Errorf("version %d is not supported (want 1)", p.Version)
	}
	if err := CheckLoader(p.Loader); err != nil {
		return err
	}
	for name, v := range p.Variants {
		if v == nil {
			return fmt.Errorf("variants.%s: empty", name)
		}
		if err := v.checkAgents(name); err != nil {
			return err
		}
		if err := v.checkArchList(name); err != nil {
			return err
		}
		for i := range v.Transform {
			re, err := regexp.Compile(v.Transform[i].Match)
			if err != nil {
				return fmt.Errorf("variants.%s.transform[%d].match: %v", name, i, err)
			}
			v.Transform[i].re = re
		}
	}
	for id, r := range p.Rules {
		if r == nil || !validLevel(r.Level) {
			return fmt.Errorf("rules.%s.level: want error, warning, note or off", id)
		}
	}
	if err := checkCUCounts(p.CUCounts); err != nil {
		return err
	}
	for g, grp := range p.Groups {
		if grp == nil {
			continue
		}
		for proj, globs := range grp.Owners {
			for _, gl := range globs {
				if err := checkGlob(gl); err != nil {
					return fmt.Errorf("groups.%s.owners.%s: %v", g, proj, err)
				}
			}
		}
	}
	return nil
}

// CheckLoader accepts "", "fallthrough" and "legacy".
func CheckLoader(l string) error {
	switch l {
	case "", LoaderFallthrough, LoaderLegacy:
		return nil
	}
	return fmt.Errorf("loader %q: want fallthrough or legacy", l)
}

func validLevel(l string) bool {
	switch l {
	case "error", "warning", "note", "off":
		return true
	}
	return false
}

// LoaderOrDefault returns the policy's loader, fallthrough when unset.
func (p *Policy) LoaderOrDefault() string {
	if p == nil || p.Loader == "" {
		return LoaderFallthrough
	}
	return p.Loader
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
// declared, else the only variant; otherwise it is an error that lists the
// choices. A nil policy has no variants and gives (nil, nil).
func (p *Policy) Variant(name string) (*Variant, string, error) {
	if p == nil || len(p.Variants) == 0 {
		if name != "" {
			return nil, "", fmt.Errorf("--variant %s: the policy declares no variants (no --policy given and no ./policies.yaml here?)", name)
		}
		return nil, "", nil
	}
	if name == "" {
		if _, ok := p.Variants["release"]; ok {
			name = "release"
		} else if len(p.Variants) == 1 {
			name = p.VariantNames()[0]
		} else {
			return nil, "", fmt.Errorf("several variants declared (%s): choose one with --variant", strings.Join(p.VariantNames(), ", "))
		}
	}
	v, ok := p.Variants[name]
	if !ok {
		return nil, "", fmt.Errorf("--variant %s: not declared (have %s)", name, strings.Join(p.VariantNames(), ", "))
	}
	return v, name, nil
}

// Apply runs the variant's transforms over targets, in order: each rewrite
// whose regex matches a target replaces it with the expanded template.
func (v *Variant) Apply(targets []string) []string {
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
			t = re.ReplaceAllString(t, rw.Replace)
		}
		out = append(out, t)
	}
	return out
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

// checkAgents requires every explicit agent to be a valid target ID of the
// processor of the target it stands for (LLVM AMDGPU target IDs).
func (v *Variant) checkAgents(name string) error {
	for target, isas := range v.Agents {
		t, err := targetid.Parse(target)
		if err != nil {
			return fmt.Errorf("variants.%s.agents: %v", name, err)
		}
		for _, isa := range isas {
			a, err := targetid.Parse(isa)
			if err != nil {
				return fmt.Errorf("variants.%s.agents.%s: %v", name, target, err)
			}
			if a.Processor != t.Processor && !targetid.GenericCovers(t.Processor, a.Processor) {
				return fmt.Errorf("variants.%s.agents.%s: agent %s is not a %s device", name, target, isa, t.Processor)
			}
		}
	}
	return nil
}

// checkArchList requires arch_list keys to be processors and entries to be
// target IDs, and rejects the old fallbacks: key.
func (v *Variant) checkArchList(name string) error {
	if v.Fallbacks != nil {
		return fmt.Errorf("variants.%s.fallbacks: renamed to arch_list, which replaces the entries HIP passes after the agent ISA "+
			"(by default its generic target, e.g. gfx9-4-generic:sramecc+:xnack-); drop fallbacks that name that generic target", name)
	}
	for proc, entries := range v.ArchList {
		if p, ok := targetid.LookupProcessor(proc); !ok || p.Generic {
			return fmt.Errorf("variants.%s.arch_list: %q is not a device processor (e.g. gfx942)", name, proc)
		}
		for _, e := range entries {
			if _, err := targetid.Parse(e); err != nil {
				return fmt.Errorf("variants.%s.arch_list.%s: %v", name, proc, err)
			}
		}
	}
	return nil
}

// MaxCUs bounds a cu_counts entry.
const MaxCUs = 1 << 16

// checkCUCounts requires known, non-generic processors and counts in
// 1..MaxCUs.
func checkCUCounts(m map[string][]int) error {
	for proc, cus := range m {
		p, ok := targetid.LookupProcessor(proc)
		if !ok || p.Generic {
			return fmt.Errorf("cu_counts.%s: want a processor name such as gfx942 (no features, not generic)", proc)
		}
		for _, n := range cus {
			if n < 1 || n > MaxCUs {
				return fmt.Errorf("cu_counts.%s: %d compute units: want 1 to %d", proc, n, MaxCUs)
			}
		}
	}
	return nil
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
