package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Package is one pinned Debian package of packages.json.
type Package struct {
	Package   string    `json:"package"`
	Version   string    `json:"version"`
	File      string    `json:"file"`
	Size      int64     `json:"size"`
	SHA256    string    `json:"sha256"`
	Libraries []Library `json:"libraries"`
}

// Library is a host library of a package: its installed path and the
// file of its ground truth.
type Library struct {
	Path        string `json:"path"`
	GroundTruth string `json:"groundTruth"`
}

// Truth is the ground truth of one host library, written by gt.py from
// LLVM's tools: every .hipFatBinSegment wrapper with the entry IDs
// clang-offload-bundler --list prints for its bundle.
type Truth struct {
	Package  string    `json:"package"`
	Binary   string    `json:"binary"` // installed path
	Size     int64     `json:"size"`
	SHA256   string    `json:"sha256"`
	Wrappers []Wrapper `json:"wrappers"`
}

// Wrapper is one fat-binary wrapper. Entries is nil when the bundle did
// not read (BundleError or BundlerError say why): HIP then fails on every
// agent.
type Wrapper struct {
	Index        int      `json:"index"`
	Magic        string   `json:"magic"`
	Entries      []string `json:"entries"`
	BundleError  string   `json:"bundle_error"`
	BundlerError string   `json:"bundler_error"`
	// FatbinOffset is the bundle's offset in .hip_fatbin; Objects the
	// device entries' code objects, by entry ID.
	FatbinOffset int               `json:"fatbin_offset"`
	Objects      map[string]Object `json:"objects"`
}

// Report is the part of kpack-lint's JSON report compared.
type Report struct {
	Checked struct {
		Agents []string `json:"agents"`
		HIP    string   `json:"hip"` // the --hip release ("5.2", "newest")
	} `json:"checked"`
	Findings        []Finding        `json:"findings"`
	MachineVerdicts []MachineVerdict `json:"machineVerdicts"`
}

// Finding is the part of a JSON finding compared: the rule, its level,
// the kernel keys and agents it names, for KPL013 the library and what
// its failure does and, where HIP's effect is simulated, what the
// user sees (finding/machine.go: hipRelease, outcome, registration,
// launch) and, on a machine, the machine and HIP device indexes.
type Finding struct {
	RuleID       string   `json:"ruleId"`
	Level        string   `json:"level"`
	Library      string   `json:"library"` // KPL013: "rocBLAS", "hipBLASLt", ...
	Effect       string   `json:"effect"`  // KPL013: "aborts", "fails later", ...
	Message      string   `json:"message"`
	Kernels      []string `json:"kernels"`
	Agents       []string `json:"agents"`
	HIPRelease   string   `json:"hipRelease"`
	Outcome      string   `json:"outcome"`
	Registration string   `json:"registration"`
	Launch       string   `json:"launch"`
	Machine      string   `json:"machine"`
	Devices      []int    `json:"devices"`
}

// MachineVerdict is one machine's verdict of the JSON report
// (machineVerdicts): per failing binary, the outcome of each device that
// does not load its own code.
type MachineVerdict struct {
	Machine string `json:"machine"`
	Failing []struct {
		Path    string `json:"path"`
		Devices []struct {
			Device  int    `json:"device"`
			ISA     string `json:"isa"`
			Outcome string `json:"outcome"`
		} `json:"devices"`
	} `json:"failing"`
}

// verdict names one wrapper x agent load: the library's installed path,
// the wrapper index and the agent ISA.
type verdict struct {
	path  string
	index int
	agent string
}

func (v verdict) String() string {
	return fmt.Sprintf("%s[embedded]#%d on %s", v.path, v.index, v.agent)
}

// Result is one comparison: the counts printed and the disagreements.
type Result struct {
	Bundles, Entries, Agents, Verdicts, ExpectedFailures, Reported, Agreed int
	Missed, Extra                                                          []verdict
}

// parseTarget splits a target ID ("gfx906:sramecc+:xnack-") into its
// processor and its feature settings.
func parseTarget(id string) (string, map[string]byte) {
	parts := strings.Split(id, ":")
	feats := map[string]byte{}
	for _, f := range parts[1:] {
		if n := len(f); n > 1 {
			feats[f[:n-1]] = f[n-1]
		}
	}
	return parts[0], feats
}

// compatible is LLVM's isCompatibleTargetID (clang/lib/Basic/TargetID.cpp)
// as clang-offload-bundler and HIP apply it, written here apart from
// kpack-lint's own targetid package: same processor, and each feature the
// code object sets is set the same way by the agent.
func compatible(codeObject, agent string) bool {
	cp, cf := parseTarget(codeObject)
	ap, af := parseTarget(agent)
	if cp != ap {
		return false
	}
	for k, v := range cf {
		if af[k] != v {
			return false
		}
	}
	return true
}

// deviceTargets returns the target IDs of a bundle's HIP entries
// ("hipv4-amdgcn-amd-amdhsa--gfx906:xnack-" -> "gfx906:xnack-").
func deviceTargets(entries []string) []string {
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e, "hip") {
			continue
		}
		if _, t, ok := strings.Cut(e, "--"); ok {
			out = append(out, t)
		}
	}
	return out
}

var embeddedKey = regexp.MustCompile(`^(.*)\[embedded\]#([0-9,\-]+)$`)

// expand turns a finding's kernel key "path[embedded]#1-3,7" into its
// (path, wrapper index) pairs; other keys give none.
func expand(key string) ([]verdict, error) {
	m := embeddedKey.FindStringSubmatch(key)
	if m == nil {
		return nil, nil
	}
	var out []verdict
	for _, part := range strings.Split(m[2], ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || b < a {
			return nil, fmt.Errorf("kernel key %q: bad wrapper index %q", key, part)
		}
		for i := a; i <= b; i++ {
			out = append(out, verdict{path: m[1], index: i})
		}
	}
	return out, nil
}

// Compare checks every wrapper x agent verdict of the report against the
// ground truth: a load fails (KPL001) exactly when no HIP entry of the
// wrapper's bundle is compatible with the agent.
func Compare(truths []Truth, rep Report) (Result, error) {
	var r Result
	r.Agents = len(rep.Checked.Agents)
	r.Bundles, r.Entries = bundles(truths), entries(truths)
	expected := expectedFailures(truths, rep.Checked.Agents)
	got := map[verdict]bool{}
	for _, f := range rep.Findings {
		if f.RuleID != "KPL001" {
			continue
		}
		vs, err := findingVerdicts(f)
		if err != nil {
			return r, err
		}
		for _, v := range vs {
			got[v] = true
		}
	}
	r.Verdicts = r.Bundles * r.Agents
	r.ExpectedFailures, r.Reported = len(expected), len(got)
	for v := range expected {
		if !got[v] {
			r.Missed = append(r.Missed, v)
		}
	}
	for v := range got {
		if !expected[v] {
			r.Extra = append(r.Extra, v)
		}
	}
	sortVerdicts(r.Missed)
	sortVerdicts(r.Extra)
	r.Agreed = r.Verdicts - len(r.Missed) - len(r.Extra)
	return r, nil
}

// lacksCode says whether HIP finds no code object for agent in wrapper
// w's bundle: no HIP entry is compatible with it (a bundle that did not
// read has none).
func lacksCode(w Wrapper, agent string) bool {
	for _, d := range deviceTargets(w.Entries) {
		if compatible(d, agent) {
			return false
		}
	}
	return true
}

// expectedFailures are the wrapper x agent verdicts LLVM's entry lists
// fail: every wrapper of the ground truth on every agent lacking code.
func expectedFailures(truths []Truth, agents []string) map[verdict]bool {
	out := map[verdict]bool{}
	for _, t := range truths {
		for _, w := range t.Wrappers {
			for _, a := range agents {
				if lacksCode(w, a) {
					out[verdict{t.Binary, w.Index, a}] = true
				}
			}
		}
	}
	return out
}

// findingVerdicts are the wrapper x agent verdicts a finding names: each
// embedded kernel key's wrappers on each of its agents.
func findingVerdicts(f Finding) ([]verdict, error) {
	var out []verdict
	for _, k := range f.Kernels {
		vs, err := expand(k)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			for _, a := range f.Agents {
				out = append(out, verdict{v.path, v.index, a})
			}
		}
	}
	return out, nil
}

func sortVerdicts(vs []verdict) {
	sort.Slice(vs, func(i, j int) bool { return vs[i].String() < vs[j].String() })
}

// loadData reads packages.json and every ground truth it names from dir.
func loadData(dir string) ([]Package, []Truth, error) {
	var pkgs []Package
	if err := readJSON(filepath.Join(dir, "packages.json"), &pkgs); err != nil {
		return nil, nil, err
	}
	var truths []Truth
	for _, p := range pkgs {
		for _, lib := range p.Libraries {
			var t Truth
			if err := readJSON(filepath.Join(dir, lib.GroundTruth), &t); err != nil {
				return nil, nil, err
			}
			if t.Binary != lib.Path || t.Package != p.Package {
				return nil, nil, fmt.Errorf("%s: ground truth of %s (%s), packages.json says %s (%s)", lib.GroundTruth, t.Binary, t.Package, lib.Path, p.Package)
			}
			truths = append(truths, t)
		}
	}
	return pkgs, truths, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
