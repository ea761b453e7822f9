package main

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// The HIP part of the step: Debian 12 ships HIP 5.2.3 (libamdhip64-5
// 5.2.3-8, pinned in hip.json), whose fat-binary loop aborts the process
// at HIP init when a device has no compatible code object
// (guarantee(false, "hipErrorNoBinaryForGpu: Unable to find code object
// for all current devices!"), hipamd src/hip_code_object.cpp@rocm-5.2.3;
// the message is in the package's libamdhip64.so.5.2.21153). check --hip
// with that release must say so for every failing wrapper x agent verdict
// and nothing for the others; on a machine of two devices, one with and
// one without code (by the ground truth's entry lists), every device must
// fail with HIP 5.2 and only the one without code with the newest HIP
// (rocm-systems PR 9498).

// HIPPin is hip.json: the pinned Debian package of the HIP runtime the
// libraries run on, its library, and the kpack-lint --hip release (a
// name of sim/hip's release table) that covers it. The package is not
// downloaded by the step; it is the provenance of the release.
type HIPPin struct {
	Package string `json:"package"`
	Version string `json:"version"`
	File    string `json:"file"`
	Size    int64  `json:"size"`
	SHA256  string `json:"sha256"`
	Library struct {
		Path   string `json:"path"`
		Size   int64  `json:"size"`
		SHA256 string `json:"sha256"`
	} `json:"library"`
	HIP string `json:"hip"`
}

// The JSON words of the abort (sim/hip.Aborted for registration and
// launch, machine.Aborted's String for the outcome) and of a device
// without code (machine.NoCode).
const (
	abortSymptom  = "process abort"
	abortOutcome  = "aborted"
	noCodeOutcome = "no-code"
)

// loadHIP reads hip.json from dir.
func loadHIP(dir string) (HIPPin, error) {
	var p HIPPin
	if err := readJSON(filepath.Join(dir, "hip.json"), &p); err != nil {
		return p, err
	}
	if p.Package == "" || p.Version == "" || len(p.SHA256) != 64 || p.HIP == "" {
		return p, fmt.Errorf("hip.json: package, version, sha256 and hip are required")
	}
	return p, nil
}

// HIPResult is the comparison of a check --hip run of a release that
// aborts: Aborts counts the failing verdicts whose findings all report
// the abort; Missed are failing verdicts without a finding, Wrong the
// failing ones with a finding saying another effect, Extra the passing
// ones with a finding.
type HIPResult struct {
	Agents, Verdicts, ExpectedFailures, Aborts, Agreed int
	Missed, Extra                                      []verdict
	Wrong                                              []string
}

// effect words what a finding says HIP does, for comparison and messages.
func effect(f Finding) string {
	return fmt.Sprintf("%s outcome %q, registration %q, launch %q, HIP %q", f.RuleID, f.Outcome, f.Registration, f.Launch, f.HIPRelease)
}

// abortEffect is the effect every failing verdict's finding must have
// with HIP release rel: KPL001, the process aborts.
func abortEffect(rel string) string {
	return effect(Finding{RuleID: "KPL001", Outcome: abortOutcome, Registration: abortSymptom, Launch: abortSymptom, HIPRelease: rel})
}

// CompareHIP checks a report made with --hip rel, a release that aborts,
// against the ground truth: each wrapper x agent verdict LLVM fails has
// findings and all of them report the abort; a verdict LLVM passes has
// none. Findings on other than embedded keys are not compared.
func CompareHIP(truths []Truth, rep Report, rel string) (HIPResult, error) {
	var r HIPResult
	if rep.Checked.HIP != rel {
		return r, fmt.Errorf("the report's checked.hip is %q, want %q", rep.Checked.HIP, rel)
	}
	r.Agents = len(rep.Checked.Agents)
	r.Verdicts = bundles(truths) * r.Agents
	expected := expectedFailures(truths, rep.Checked.Agents)
	r.ExpectedFailures = len(expected)
	said := map[verdict][]string{}
	for _, f := range rep.Findings {
		vs, err := findingVerdicts(f)
		if err != nil {
			return r, err
		}
		for _, v := range vs {
			said[v] = append(said[v], effect(f))
		}
	}
	want := abortEffect(rel)
	for v := range expected {
		effects := said[v]
		switch {
		case len(effects) == 0:
			r.Missed = append(r.Missed, v)
		case allEqual(effects, want):
			r.Aborts++
		default:
			r.Wrong = append(r.Wrong, fmt.Sprintf("%v: %s", v, strings.Join(effects, "; ")))
		}
	}
	for v := range said {
		if !expected[v] {
			r.Extra = append(r.Extra, v)
		}
	}
	sortVerdicts(r.Missed)
	sortVerdicts(r.Extra)
	sort.Strings(r.Wrong)
	r.Agreed = r.Verdicts - len(r.Missed) - len(r.Wrong) - len(r.Extra)
	return r, nil
}

func allEqual(list []string, s string) bool {
	for _, x := range list {
		if x != s {
			return false
		}
	}
	return true
}

// checkHIP runs check --hip pin.HIP --variant all on the extracted
// folders and compares every verdict's reported effect.
func checkHIP(bin, policy string, pin HIPPin, roots []string, truths []Truth, sum *total) error {
	args := append([]string{"check", "--policy", policy, "--variant", "all", "--hip", pin.HIP, "--format", "json", "--fail-on", "none"}, roots...)
	rep, took, err := runReport(bin, args...)
	if err != nil {
		return err
	}
	res, err := CompareHIP(truths, rep, pin.HIP)
	if err != nil {
		return fmt.Errorf("check --hip %s: %w", pin.HIP, err)
	}
	fmt.Printf("real-debian: check --hip %s --variant all %s (extracted; HIP of %s %s): %.2f s; %d agents, %d wrapper x agent verdicts: %d failing verdicts (LLVM), %d report the abort (KPL001, outcome %s, registration and launch %q); %d passing, %d with a finding; %d agreed\n",
		pin.HIP, baseNames(roots), pin.Package, pin.Version, took.Seconds(), res.Agents, res.Verdicts, res.ExpectedFailures, res.Aborts, abortOutcome, abortSymptom,
		res.Verdicts-res.ExpectedFailures, len(res.Extra), res.Agreed)
	sum.runs++
	sum.verdicts += res.Verdicts
	sum.agreed += res.Agreed
	if res.Agreed == res.Verdicts && res.Agents > 0 {
		return nil
	}
	printSome("MISSED (LLVM: no compatible entry; kpack-lint: no finding)", stringsOf(res.Missed))
	printSome("WRONG (want "+abortEffect(pin.HIP)+")", res.Wrong)
	printSome("EXTRA (LLVM: a compatible entry; kpack-lint: a finding)", stringsOf(res.Extra))
	return fmt.Errorf("check --hip %s: %d of %d verdicts disagree (%d agents)", pin.HIP, res.Verdicts-res.Agreed, res.Verdicts, res.Agents)
}

// The machine run: HIP device 0 has a compatible entry in librocrand's
// bundle, device 1 none (the ground truth must say so).
var (
	machinePackage = "librocrand1"
	machineISAs    = []string{"gfx1030", "gfx1100"}
)

// machineWant is what a report of machine devices (HIP device order) on
// the library t must say with a release that aborts (abort) or loads
// each device apart (the newest): its findings, one line per wrapper and
// device named ("KPL001 path[embedded]#0 device 1: aborted"), and its
// machine verdict's failing devices ("path device 0 gfx1030: aborted").
// A device lacks code in a wrapper by LLVM's entry lists (lacksCode);
// with abort, a wrapper where any device lacks code aborts the process,
// so every device of the machine fails, and the findings name the
// devices without code.
func machineWant(t Truth, devices []string, abort bool) (findings, verdicts []string) {
	failing := map[int]bool{}
	outcome := noCodeOutcome
	if abort {
		outcome = abortOutcome
	}
	for _, w := range t.Wrappers {
		for d, isa := range devices {
			if lacksCode(w, isa) {
				findings = append(findings, fmt.Sprintf("KPL001 %s[embedded]#%d device %d: %s", t.Binary, w.Index, d, outcome))
				failing[d] = true
			}
		}
	}
	for d, isa := range devices {
		if failing[d] || (abort && len(failing) > 0) {
			verdicts = append(verdicts, fmt.Sprintf("%s device %d %s: %s", t.Binary, d, isa, outcome))
		}
	}
	sort.Strings(findings)
	return findings, verdicts
}

// machineGot is what the report says of machine name with HIP release
// rel, in machineWant's words; a finding of another machine or release,
// or on no embedded key, is listed as it is.
func machineGot(rep Report, name, rel string) (findings, verdicts []string, err error) {
	for _, f := range rep.Findings {
		var vs []verdict
		for _, k := range f.Kernels {
			kv, err := expand(k)
			if err != nil {
				return nil, nil, err
			}
			vs = append(vs, kv...)
		}
		if f.Machine != name || f.HIPRelease != rel || len(vs) == 0 || len(f.Devices) == 0 {
			findings = append(findings, fmt.Sprintf("%s %v on machine %q (HIP %q) devices %v: %s", f.RuleID, f.Kernels, f.Machine, f.HIPRelease, f.Devices, f.Outcome))
			continue
		}
		for _, v := range vs {
			for _, d := range f.Devices {
				findings = append(findings, fmt.Sprintf("%s %s[embedded]#%d device %d: %s", f.RuleID, v.path, v.index, d, f.Outcome))
			}
		}
	}
	for _, mv := range rep.MachineVerdicts {
		for _, b := range mv.Failing {
			for _, d := range b.Devices {
				line := fmt.Sprintf("%s device %d %s: %s", b.Path, d.Device, d.ISA, d.Outcome)
				if mv.Machine != name {
					line = "machine " + mv.Machine + ": " + line
				}
				verdicts = append(verdicts, line)
			}
		}
	}
	sort.Strings(findings)
	return findings, verdicts, nil
}

// CompareMachine compares a report of the machine devices on library t
// made with HIP release rel (abort: a release that aborts) with
// machineWant; it returns the disagreements, none when it agrees.
func CompareMachine(t Truth, devices []string, rel string, abort bool, rep Report) ([]string, error) {
	name := strings.Join(devices, ",")
	wantF, wantV := machineWant(t, devices, abort)
	gotF, gotV, err := machineGot(rep, name, rel)
	if err != nil {
		return nil, err
	}
	var out []string
	if g, w := strings.Join(gotF, "; "), strings.Join(wantF, "; "); g != w {
		out = append(out, fmt.Sprintf("findings [%s], want [%s]", g, w))
	}
	if g, w := strings.Join(gotV, "; "), strings.Join(wantV, "; "); g != w {
		out = append(out, fmt.Sprintf("machine verdict [%s], want [%s]", g, w))
	}
	return out, nil
}

// checkMachine runs check --machine on the extracted librocrand with the
// pinned HIP release and with the newest, and compares both with what
// the ground truth's entry lists make of the machine.
func checkMachine(bin string, pin HIPPin, roots []string, truths []Truth) error {
	var t Truth
	var root string
	for _, tr := range truths {
		for _, r := range roots {
			if tr.Package == machinePackage && filepath.Base(r) == tr.Package {
				t, root = tr, r
			}
		}
	}
	if root == "" {
		return fmt.Errorf("machine: no extracted %s", machinePackage)
	}
	with, without := devicesByCode(t, machineISAs)
	if len(with) == 0 || len(without) == 0 {
		return fmt.Errorf("machine %s: the ground truth of %s gives code to devices %v and none to %v; the run needs both", strings.Join(machineISAs, ","), t.Binary, with, without)
	}
	name := strings.Join(machineISAs, ",")
	var words []string
	for _, run := range []struct {
		rel   string
		abort bool
	}{{pin.HIP, true}, {"newest", false}} {
		rep, took, err := runReport(bin, "check", "--no-policy", "--machine", name, "--hip", run.rel, "--format", "json", "--fail-on", "none", root)
		if err != nil {
			return err
		}
		bad, err := CompareMachine(t, machineISAs, run.rel, run.abort, rep)
		if err != nil {
			return err
		}
		if len(bad) > 0 {
			return fmt.Errorf("check --machine %s --hip %s on %s: %s", name, run.rel, t.Binary, strings.Join(bad, "; "))
		}
		_, verdicts := machineWant(t, machineISAs, run.abort)
		words = append(words, fmt.Sprintf("--hip %s (%.2f s): %s", run.rel, took.Seconds(), strings.Join(trimPath(verdicts, t.Binary), ", ")))
	}
	fmt.Printf("real-debian: check --machine %s %s (extracted; LLVM: a compatible entry for %s, none for %s): %s; agreed\n",
		name, filepath.Base(t.Binary), deviceWords(with, machineISAs), deviceWords(without, machineISAs), strings.Join(words, "; "))
	return nil
}

// devicesByCode splits the devices (HIP indexes) into those with a
// compatible entry in every wrapper of t and those lacking one in some.
func devicesByCode(t Truth, devices []string) (with, without []int) {
	for d, isa := range devices {
		lacks := false
		for _, w := range t.Wrappers {
			lacks = lacks || lacksCode(w, isa)
		}
		if lacks {
			without = append(without, d)
		} else {
			with = append(with, d)
		}
	}
	return with, without
}

// deviceWords names HIP devices by index and ISA ("device 1 (gfx1100)").
func deviceWords(indexes []int, isas []string) string {
	var out []string
	for _, d := range indexes {
		out = append(out, fmt.Sprintf("device %d (%s)", d, isas[d]))
	}
	return strings.Join(out, ", ")
}

func trimPath(lines []string, path string) []string {
	var out []string
	for _, l := range lines {
		out = append(out, strings.TrimPrefix(l, path+" "))
	}
	return out
}

func baseNames(paths []string) string {
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	return strings.Join(names, " ")
}

func stringsOf(vs []verdict) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.String())
	}
	return out
}

// printSome prints the first 20 lines of list, each after label.
func printSome(label string, list []string) {
	for i, s := range list {
		if i == 20 {
			fmt.Printf("  ... and %d more\n", len(list)-20)
			return
		}
		fmt.Printf("  %s %s\n", label, s)
	}
}
