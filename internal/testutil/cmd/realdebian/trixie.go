package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// The Debian 13 (trixie) suite (-debian 13): the packages pinned in
// testdata/real-debian-13/packages.json are downloaded by name and version
// through a private apt state for trixie (apt.go), checked by size and
// sha256, and linted in place (.deb) and extracted (dpkg-deb -x), plain
// and --deep, each package on its own matrix (its own targets and the
// extra ones of its ground truth). Each run's verdicts are compared with
// <package>.gt.json: every wrapper x agent HIP module load (KPL001, by
// LLVM 19's entry lists), every embedded code object against its entry ID
// (KPL009, by llvm-readobj), and for rocBLAS every agent's kernel
// database verdict (KPL013, by rocBLAS 5.5.1's lookup with Debian's
// patches, derived from the source: see the folder's README).

// TrixiePackage is one pin of testdata/real-debian-13/packages.json.
// InPlace lists the modes the package is read in place in ("plain",
// "deep"; both when empty) and Why says why one is left out.
type TrixiePackage struct {
	Package     string   `json:"package"`
	Version     string   `json:"version"`
	File        string   `json:"file"`
	Size        int64    `json:"size"`
	SHA256      string   `json:"sha256"`
	GroundTruth string   `json:"groundTruth"`
	InPlace     []string `json:"inPlace"`
	Why         string   `json:"why"`
}

// PackageTruth is a package's ground truth (<package>.gt.json, written by
// gt.py from LLVM 19's tools): the matrix it is checked on, its host
// binaries with embedded device code and, for rocBLAS, the kernel
// database verdict of every agent.
type PackageTruth struct {
	Package  string        `json:"package"`
	Version  string        `json:"version"`
	LLVM     string        `json:"llvm"`
	Targets  []string      `json:"targets"`
	Agents   []string      `json:"agents"`
	Rocblas  *RocblasTruth `json:"rocblas"`
	Binaries []Truth       `json:"binaries"`
}

// RocblasTruth is what rocBLAS 5.5.1+dfsg-7 does on each agent (gt.py
// rocblas_verdict): Verdict "ok", "no-kernels" (no code object matched
// or none loads: Tensile has no kernels on that GPU), "abort" (no
// index: rocblas_abort), DeepVerdict the same with --deep ("broken-co":
// a matched code object is built for another processor).
type RocblasTruth struct {
	Library     string                    `json:"library"`
	Release     string                    `json:"release"`
	CodeObjects map[string]string         `json:"codeObjects"`
	Agents      map[string]RocblasVerdict `json:"agents"`
}

// RocblasVerdict is one agent's rocBLAS verdict and the facts behind it.
type RocblasVerdict struct {
	Processor   string   `json:"processor"`
	Folder      string   `json:"folder"`
	Index       string   `json:"index"`
	Matched     []string `json:"matched"`
	Loads       []string `json:"loads"`
	Broken      []string `json:"broken"`
	Verdict     string   `json:"verdict"`
	DeepVerdict string   `json:"deepVerdict"`
}

// failing says whether rocBLAS has no working GEMM kernels (or aborts)
// on the agent, with --deep or without.
func (v RocblasVerdict) failing(deep bool) bool {
	if deep {
		return v.DeepVerdict != "ok"
	}
	return v.Verdict != "ok"
}

// trixieMode is one way of reading a package.
type trixieMode struct {
	inPlace, deep bool
}

func (m trixieMode) String() string {
	s := "extracted"
	if m.inPlace {
		s = "in place (.deb)"
	}
	if m.deep {
		s += " --deep"
	}
	return s
}

var trixieModes = []trixieMode{{true, false}, {true, true}, {false, false}, {false, true}}

// tally is the figures of one package in one mode.
type tally struct {
	pkg, mode           string
	hip, hipAgreed      int
	deep, deepAgreed    int
	blas, blasAgreed    int
	wall, cpu           time.Duration
	disagreements       []string
	skipped             string
	wrappers, agentsRun int
	// entries and decoded: bundle entries explain listed as LLVM's tools
	// did (extracted --deep).
	entries, decoded int
}

// runTrixie is the -debian 13 suite.
func runTrixie(bin, data, dir string) error {
	pkgs, truths, err := loadTrixie(data)
	if err != nil {
		return err
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := downloadTrixie(pkgs, dir); err != nil {
		return err
	}
	root, err := os.MkdirTemp(dir, "x-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	var all []tally
	for i, p := range pkgs {
		ts, err := checkPackage(bin, p, truths[i], dir, root)
		all = append(all, ts...)
		if err != nil {
			return err
		}
	}
	return summarize(all)
}

// checkPackage runs every mode of one package and compares each report.
// The two in-place runs and dpkg-deb -x of the tree (under root, removed
// after) run at once: reading a .deb in place is mostly one core
// decompressing its data.tar.xz, so on two cores this halves the step.
// The figures are printed in mode order.
func checkPackage(bin string, p TrixiePackage, t PackageTruth, dir, root string) ([]tally, error) {
	tree := filepath.Join(root, p.Package)
	defer os.RemoveAll(tree)
	out := make([]tally, len(trixieModes))
	errs := make([]error, len(trixieModes))
	var wg sync.WaitGroup
	run := func(i int, in string) {
		m := trixieModes[i]
		out[i] = tally{pkg: p.Package + " " + p.Version, mode: m.String()}
		errs[i] = runMode(bin, in, t, m, &out[i])
	}
	for i, m := range trixieModes {
		if !m.inPlace {
			continue
		}
		if !p.reads(m) {
			out[i] = tally{pkg: p.Package + " " + p.Version, mode: m.String(), skipped: p.Why}
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); run(i, filepath.Join(dir, p.File)) }()
	}
	extracted, xerr := extractTrixie(p, t, filepath.Join(dir, p.File), tree)
	wg.Wait()
	if xerr != nil {
		return nil, xerr
	}
	for i, m := range trixieModes {
		switch {
		case m.inPlace:
		case !extracted:
			out[i] = tally{pkg: p.Package + " " + p.Version, mode: m.String(), skipped: "dpkg-deb not found"}
		default:
			run(i, tree)
		}
	}
	for i := range out {
		if errs[i] != nil {
			return out, errs[i]
		}
		out[i].print()
	}
	return out, nil
}

// reads says whether p is read in place in mode m.
func (p TrixiePackage) reads(m trixieMode) bool {
	want := "plain"
	if m.deep {
		want = "deep"
	}
	return len(p.InPlace) == 0 || slices.Contains(p.InPlace, want)
}

// runMode runs kpack-lint check on one input in one mode and compares.
func runMode(bin, in string, t PackageTruth, m trixieMode, ty *tally) error {
	args := []string{"check", "--no-policy", "--format", "json", "--fail-on", "none"}
	for _, target := range t.Targets {
		args = append(args, "--target", target)
	}
	if m.deep {
		args = append(args, "--deep")
	}
	rep, run, err := runTimed(bin, append(args, in)...)
	if err != nil {
		return err
	}
	ty.wall, ty.cpu = run.wall, run.cpu
	if !sameStrings(rep.Checked.Agents, t.Agents) {
		return fmt.Errorf("%s %s: the report's agents %v are not the ground truth's %v (LLVM's processor features)", t.Package, m, rep.Checked.Agents, t.Agents)
	}
	res, err := Compare(t.Binaries, rep)
	if err != nil {
		return err
	}
	ty.hip, ty.hipAgreed = res.Verdicts, res.Agreed
	ty.wrappers, ty.agentsRun = res.Bundles, res.Agents
	for _, v := range res.Missed {
		ty.disagreements = append(ty.disagreements, "HIP MISSED (LLVM: no compatible entry; kpack-lint: loads) "+v.String())
	}
	for _, v := range res.Extra {
		ty.disagreements = append(ty.disagreements, "HIP EXTRA (LLVM: a compatible entry; kpack-lint: KPL001) "+v.String())
	}
	if m.deep {
		compareDeep(t, rep, ty)
	}
	if m.deep && !m.inPlace {
		if err := compareDecoded(bin, in, t, ty); err != nil {
			return err
		}
	}
	if t.Rocblas != nil {
		compareRocblas(t.Rocblas, rep, m.deep, ty)
	}
	return nil
}

// compareDeep: KPL009 must name exactly the wrappers with a code object
// for another target than its entry ID (llvm-readobj).
func compareDeep(t PackageTruth, rep Report, ty *tally) {
	want, got := expectedMismatches(t.Binaries), embeddedFindings(rep, "KPL009")
	ty.deep = bundles(t.Binaries)
	ty.deepAgreed = ty.deep
	for _, k := range keys(want) {
		if !got[k] {
			ty.deepAgreed--
			ty.disagreements = append(ty.disagreements, "KPL009 MISSED (llvm-readobj: a code object for another target) "+k)
		}
	}
	for _, k := range keys(got) {
		if !want[k] {
			ty.deepAgreed--
			ty.disagreements = append(ty.disagreements, "KPL009 EXTRA (llvm-readobj: every code object is for its entry's target) "+k)
		}
	}
}

// compareRocblas: the agents with a KPL013 error for rocBLAS must be
// exactly those rocBLAS 5.5.1+dfsg-7 has no kernels for (or aborts on),
// and a finding may say rocBLAS aborts only on an agent where it does.
func compareRocblas(rt *RocblasTruth, rep Report, deep bool, ty *tally) {
	errs, aborts := map[string]bool{}, map[string]bool{}
	for _, f := range rep.Findings {
		if f.RuleID != "KPL013" || f.Library != "rocBLAS" {
			continue
		}
		for _, a := range f.Agents {
			errs[a] = errs[a] || f.Level == "error"
			aborts[a] = aborts[a] || f.Effect == "aborts"
		}
	}
	for _, a := range sortedAgents(rt) {
		v := rt.Agents[a]
		ty.blas++
		switch {
		case v.failing(deep) != errs[a]:
			ty.disagreements = append(ty.disagreements, fmt.Sprintf("rocBLAS %s: the source says %s (folder %s, index %s, matched %v, loads %v); kpack-lint: KPL013 error %v",
				a, v.verdictIn(deep), v.Folder, v.Index, v.Matched, v.Loads, errs[a]))
		case aborts[a] && v.Verdict != "abort":
			ty.disagreements = append(ty.disagreements, fmt.Sprintf("rocBLAS %s: the source says %s, not an abort; kpack-lint: KPL013 says rocBLAS aborts", a, v.verdictIn(deep)))
		default:
			ty.blasAgreed++
		}
	}
}

// explained is the part of kpack-lint explain's JSON compared: each
// bundle entry and the target its code object's ELF header gives.
type explained struct {
	Entries []struct {
		ID     string `json:"id"`
		Target string `json:"code_object_target"`
	} `json:"entries"`
}

// compareDecoded runs explain on the first wrapper of each binary of the
// tree (it decodes the bundle's code objects as --deep does,
// verify.VerifyBundle) and compares every entry and code object target
// with clang-offload-bundler's list and llvm-readobj's targets.
func compareDecoded(bin, tree string, t PackageTruth, ty *tally) error {
	for _, b := range t.Binaries {
		if len(b.Wrappers) == 0 || b.Wrappers[0].Entries == nil {
			continue
		}
		w := b.Wrappers[0]
		key := fmt.Sprintf("%s[embedded]#%d", b.Binary, w.Index)
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, "explain", "--no-policy", "--agent", t.Agents[0], "--format", "json", key, tree)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 1 {
			return fmt.Errorf("kpack-lint explain %s: %v: %s", key, err, lastLines(stderr.Bytes(), 3))
		}
		var e explained
		if err := json.Unmarshal(stdout.Bytes(), &e); err != nil {
			return fmt.Errorf("kpack-lint explain %s: the JSON does not read: %v", key, err)
		}
		want, got := map[string]string{}, map[string]string{}
		for _, id := range w.Entries {
			want[id] = w.Objects[id].target()
		}
		for _, en := range e.Entries {
			got[en.ID] = en.Target
		}
		ty.entries += len(want)
		for id, tg := range want {
			if g, ok := got[id]; ok && g == tg {
				ty.decoded++
				continue
			}
			ty.disagreements = append(ty.disagreements, fmt.Sprintf("decoded %s entry %s: kpack-lint %q, llvm-readobj %q", key, id, got[id], tg))
		}
		for id := range got {
			if _, ok := want[id]; !ok {
				ty.disagreements = append(ty.disagreements, fmt.Sprintf("decoded %s entry %s: not in clang-offload-bundler's list", key, id))
			}
		}
	}
	return nil
}

func (v RocblasVerdict) verdictIn(deep bool) string {
	if deep {
		return v.DeepVerdict
	}
	return v.Verdict
}

func sortedAgents(rt *RocblasTruth) []string {
	var out []string
	for a := range rt.Agents {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

func (ty tally) print() {
	if ty.skipped != "" {
		fmt.Printf("real-debian-13: %s %s: not run (%s)\n", ty.pkg, ty.mode, ty.skipped)
		return
	}
	line := fmt.Sprintf("real-debian-13: %s %s: %.1f s wall, %.1f s CPU; HIP: %d wrappers x %d agents, %d of %d verdicts agreed",
		ty.pkg, ty.mode, ty.wall.Seconds(), ty.cpu.Seconds(), ty.wrappers, ty.agentsRun, ty.hipAgreed, ty.hip)
	if ty.deep > 0 {
		line += fmt.Sprintf("; KPL009: %d of %d wrappers agreed", ty.deepAgreed, ty.deep)
	}
	if ty.entries > 0 {
		line += fmt.Sprintf("; explain of each binary's first wrapper: %d of %d entries and code object targets as clang-offload-bundler and llvm-readobj list them", ty.decoded, ty.entries)
	}
	if ty.blas > 0 {
		line += fmt.Sprintf("; rocBLAS kernel database: %d of %d agents agreed", ty.blasAgreed, ty.blas)
	}
	fmt.Println(line)
	printSome("", ty.disagreements)
}

// summarize prints the totals and fails on any disagreement.
func summarize(all []tally) error {
	var hip, hipOK, deep, deepOK, blas, blasOK, runs int
	var wall, cpu time.Duration
	var bad []string
	for _, t := range all {
		if t.skipped != "" {
			continue
		}
		runs++
		hip, hipOK, deep, deepOK, blas, blasOK = hip+t.hip, hipOK+t.hipAgreed, deep+t.deep, deepOK+t.deepAgreed, blas+t.blas, blasOK+t.blasAgreed
		wall, cpu = wall+t.wall, cpu+t.cpu
		if len(t.disagreements) > 0 {
			bad = append(bad, fmt.Sprintf("%s %s (%d)", t.pkg, t.mode, len(t.disagreements)))
		}
	}
	fmt.Printf("real-debian-13: %d runs (%.1f s wall, %.1f s CPU in kpack-lint): HIP %d of %d wrapper x agent verdicts agreed, KPL009 %d of %d wrapper verdicts, rocBLAS kernel database %d of %d agent verdicts\n",
		runs, wall.Seconds(), cpu.Seconds(), hipOK, hip, deepOK, deep, blasOK, blas)
	if len(bad) > 0 {
		return fmt.Errorf("verdicts disagree with the ground truth in %s", strings.Join(bad, ", "))
	}
	return nil
}

// loadTrixie reads packages.json and each package's ground truth.
func loadTrixie(dir string) ([]TrixiePackage, []PackageTruth, error) {
	var pkgs []TrixiePackage
	if err := readJSON(filepath.Join(dir, "packages.json"), &pkgs); err != nil {
		return nil, nil, err
	}
	var truths []PackageTruth
	for _, p := range pkgs {
		var t PackageTruth
		if err := readJSON(filepath.Join(dir, p.GroundTruth), &t); err != nil {
			return nil, nil, err
		}
		if t.Package != p.Package || t.Version != p.Version || len(t.Agents) == 0 || len(t.Binaries) == 0 {
			return nil, nil, fmt.Errorf("%s: ground truth of %s %s with %d agents and %d binaries, packages.json pins %s %s",
				p.GroundTruth, t.Package, t.Version, len(t.Agents), len(t.Binaries), p.Package, p.Version)
		}
		truths = append(truths, t)
	}
	return pkgs, truths, nil
}

func sameStrings(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
