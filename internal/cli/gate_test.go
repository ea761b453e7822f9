package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/report"
)

// writeBuild writes a kpack'd install tree: per group a library with n
// kernels and archives for arches (each holding every kernel, unless
// partial names an arch whose archive holds only the first kernel).
func writeBuild(t *testing.T, dir string, groups map[string]int, arches []string, partial map[string]string) {
	t.Helper()
	kdir := filepath.Join(dir, "lib", ".kpack")
	if err := os.MkdirAll(kdir, 0o755); err != nil {
		t.Fatal(err)
	}
	for g, n := range groups {
		lib := "lib/lib" + g + ".so"
		for _, arch := range arches {
			var ks []kpacktest.Kernel
			for i := 0; i < n; i++ {
				if partial[g] == arch && i > 0 {
					break
				}
				ks = append(ks, kpacktest.Kernel{Key: fmt.Sprintf("%s#%d", lib, i), Arch: arch, Data: []byte(fmt.Sprintf("co %s %d %s", g, i, arch))})
			}
			kpacktest.WriteFile(t, kdir, g+"_"+arch+".kpack", kpacktest.Spec{Group: g, Scheme: kpack.SchemeZstd, Kernels: ks})
		}
		elf := hostbintest.ELF(hostbintest.RefBytes(lib, ".kpack/"+g+"_@GFXARCH@.kpack"), hostbintest.HIPK(n))
		if err := os.WriteFile(filepath.Join(dir, lib), elf, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, p, s string) string {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestShardMergeEqualsOneRun: the merge of N shards is byte for byte the
// report of the unsharded run, in JSON and SARIF, for several N, and
// gates as it does (the same exit code): without a baseline, and with
// one given to the shards and to merge (merge computes the states
// itself), against an older build (new, unchanged and fixed findings) and
// against the same build (nothing new: exit 0).
func TestShardMergeEqualsOneRun(t *testing.T) {
	dir := t.TempDir()
	build := filepath.Join(dir, "build")
	groups := map[string]int{}
	for i := 0; i < 12; i++ {
		groups[fmt.Sprintf("g%02d_lib", i)] = 3 + i%4
	}
	writeBuild(t, build, groups, []string{"gfx90a", "gfx942", "gfx1100"}, map[string]string{"g03_lib": "gfx942", "g07_lib": "gfx90a"})
	os.Remove(filepath.Join(build, "lib", ".kpack", "g05_lib_gfx1100.kpack"))
	waivers := writeFile(t, filepath.Join(dir, "w.yaml"), "- {group: g07_lib, reason: known}\n- {group: nothing, reason: unused}\n")
	// The baselines: an older build (g09_lib's gfx90a archive was partial,
	// g03_lib's was whole) and this build.
	old := filepath.Join(dir, "old")
	writeBuild(t, old, groups, []string{"gfx90a", "gfx942", "gfx1100"}, map[string]string{"g09_lib": "gfx90a", "g07_lib": "gfx90a"})
	targets := []string{"--no-policy", "--target", "gfx90a", "--target", "gfx942", "--target", "gfx1100"}
	run(t, append(append([]string{"check", "-q", "-o", filepath.Join(dir, "old.json")}, targets...), old)...)
	run(t, append(append([]string{"check", "-q", "-o", filepath.Join(dir, "same.sarif")}, targets...), build)...)
	cases := []struct {
		name  string
		args  []string
		merge []string // merge's own flags
	}{
		{"many groups", append(targets, "--waivers", waivers, "--today", "2026-01-01", build), nil},
		{"example asan", []string{"--policy", filepath.Join(testdata, "..", "policies.yaml"), "--variant", "asan", filepath.Join(testdata, "example")}, nil},
		{"example deep", []string{"--deep", "--policy", filepath.Join(testdata, "..", "policies.yaml"), "--variant", "release", filepath.Join(testdata, "example")}, nil},
		{"machines", []string{"--no-policy", "--target", "gfx942", "--machine", "gfx90a,gfx1100", "--machine", "gfx942,gfx1100", "--hip", "10.0", build}, nil},
		{"older baseline", append(targets, "--baseline", filepath.Join(dir, "old.json"), "--waivers", waivers, "--today", "2026-01-01", build),
			[]string{"--baseline", filepath.Join(dir, "old.json")}},
		{"same baseline", append(targets, "--baseline", filepath.Join(dir, "same.sarif"), build), []string{"--baseline", filepath.Join(dir, "same.sarif")}},
	}
	for _, c := range cases {
		whole := filepath.Join(dir, "whole")
		wholeCode, _, _ := run(t, append([]string{"check", "-q", "-o", whole + ".json", "-o", whole + ".sarif"}, c.args...)...)
		if data, _ := os.ReadFile(whole + ".json"); c.name == "older baseline" &&
			(!strings.Contains(string(data), `"baselineState": "new"`) || !strings.Contains(string(data), `"baselineState": "unchanged"`) ||
				!strings.Contains(string(data), `"baselineState": "absent"`) || wholeCode != ExitFindings) {
			t.Errorf("against the older build, check should find new, unchanged and fixed findings (exit 1, got %d):\n%s", wholeCode, data)
		}
		if c.name == "same baseline" && wholeCode != ExitOK {
			t.Errorf("against the same build: exit %d, want 0", wholeCode)
		}
		if data, _ := os.ReadFile(whole + ".json"); c.name == "many groups" &&
			(!strings.Contains(string(data), `"unused-waiver"`) || strings.Count(string(data), `"ruleId"`) < 3 || !strings.Contains(string(data), `"justification": "known"`)) {
			t.Errorf("the many-groups case should have findings, a waived one and an unused waiver:\n%s", data)
		}
		for _, n := range []int{2, 3, 5} {
			var jsons, sarifs []string
			for i := 1; i <= n; i++ {
				p := filepath.Join(dir, fmt.Sprintf("s%d", i))
				code, _, stderr := run(t, append([]string{"check", "-q", "--shard", fmt.Sprintf("%d/%d", i, n), "-o", p + ".json", "-o", p + ".sarif"}, c.args...)...)
				if code == ExitUsage {
					t.Fatalf("%s shard %d/%d: %s", c.name, i, n, stderr)
				}
				jsons, sarifs = append(jsons, p+".json"), append(sarifs, p+".sarif")
			}
			for _, format := range []string{"json", "sarif"} {
				list := map[string][]string{"json": jsons, "sarif": sarifs}[format]
				list[0], list[len(list)-1] = list[len(list)-1], list[0] // order does not matter
				code, merged, stderr := run(t, append(append(append([]string{"merge"}, mergeFlags(c.args)...), c.merge...), list...)...)
				want, _ := os.ReadFile(whole + "." + format)
				if merged != string(want) || code != wholeCode {
					t.Errorf("%s: merge of %d %s shards: exit %d (one run: %d), report differs: %v (%s)", c.name, n, format, code, wholeCode, merged != string(want), stderr)
				}
			}
		}
	}
}

func TestMergeRefusesIncompleteShards(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(testdata, "example")
	pol := filepath.Join(testdata, "..", "policies.yaml")
	for i := 1; i <= 3; i++ {
		run(t, "check", "-q", "--policy", pol, "--shard", fmt.Sprintf("%d/3", i), "-o", filepath.Join(dir, fmt.Sprintf("s%d.json", i)), ex)
	}
	run(t, "check", "-q", "--policy", pol, "--variant", "asan", "--shard", "2/3", "-o", filepath.Join(dir, "other.json"), ex)
	run(t, "check", "-q", "--policy", pol, "-o", filepath.Join(dir, "whole.json"), ex)
	// Newcomer report 8: shards made with another --env or --deep mix
	// matrices; they are refused like foreign shards, naming what differs.
	run(t, "check", "-q", "--policy", pol, "--env", "ROCM_KPACK_DISABLE=1", "--shard", "2/3", "-o", filepath.Join(dir, "env.json"), ex)
	run(t, "check", "-q", "--policy", pol, "--deep", "--shard", "2/3", "-o", filepath.Join(dir, "deep.json"), ex)
	s := func(n string) string { return filepath.Join(dir, n+".json") }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{s("s1"), s("s2")}, "shard 3/3 is missing"},
		{[]string{s("s1"), s("s2"), s("s2")}, "given twice (" + s("s2") + ")"},
		{[]string{s("s1"), s("other"), s("s3")}, s("other") + " did not check what " + s("s1") + " checked (agents, targetSource, targets, variant differ)"},
		{[]string{s("s1"), s("env"), s("s3")}, s("env") + " did not check what " + s("s1") + " checked (env differs)"},
		{[]string{s("s1"), s("deep"), s("s3")}, s("deep") + " did not check what " + s("s1") + " checked (deep differs)"},
		{[]string{s("whole")}, "is not a shard"},
		{[]string{filepath.Join(testdata, "..", "policies.yaml")}, "not a kpack-lint JSON or SARIF report"},
	} {
		code, _, stderr := run(t, append([]string{"merge", "--policy", pol}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("merge %v: exit %d, stderr %q; want exit 2 with %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestBaselineInventoryRegression: TheRock PR 6362 end to end. The nightly
// baseline has 646 blas_lib kernels for gfx906; a stray 3-kernel artifact
// overwrote the archive. Only that is new; the old findings are unchanged.
func TestBaselineInventoryRegression(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good"), filepath.Join(dir, "bad")
	arches := []string{"gfx906", "gfx90a"}
	writeBuild(t, good, map[string]int{"blas_lib": 646, "fft_lib": 4}, arches, map[string]string{"fft_lib": "gfx90a"})
	writeBuild(t, bad, map[string]int{"blas_lib": 646, "fft_lib": 4}, arches, map[string]string{"fft_lib": "gfx90a", "blas_lib": "gfx906"})
	// The stray artifact: 3 kernels for gfx906.
	kdir := filepath.Join(bad, "lib", ".kpack")
	var ks []kpacktest.Kernel
	for i := 0; i < 3; i++ {
		ks = append(ks, kpacktest.Kernel{Key: fmt.Sprintf("lib/libblas_lib.so#%d", i), Arch: "gfx906", Data: []byte{byte(i)}})
	}
	kpacktest.WriteFile(t, kdir, "blas_lib_gfx906.kpack", kpacktest.Spec{Group: "blas_lib", Scheme: kpack.SchemeZstd, Kernels: ks})

	args := []string{"check", "--no-policy", "--target", "gfx906", "--target", "gfx90a"}
	for _, format := range []string{"json", "sarif"} {
		base := filepath.Join(dir, "nightly."+format)
		if code, _, stderr := run(t, append(args, "-q", "-o", base, good)...); code != ExitFindings {
			t.Fatalf("baseline run: exit %d: %s", code, stderr)
		}
		// Same build against its own baseline: nothing new, exit 0.
		code, out, _ := run(t, append(args, "--baseline", base, good)...)
		if code != ExitOK || !strings.Contains(out, "0 new, 1 unchanged, 0 fixed since the baseline") {
			t.Errorf("%s: unchanged build: exit %d\n%s", format, code, out)
		}
		if code, _, _ := run(t, append(args, "--baseline", base, "--fail-on-baseline", good)...); code != ExitFindings {
			t.Errorf("%s: --fail-on-baseline: exit %d, want 1", format, code)
		}
		sarifOut := filepath.Join(dir, "now.sarif")
		code, out, _ = run(t, append(args, "--baseline", base, "-o", sarifOut, bad)...)
		if code != ExitFindings || !strings.Contains(out, "KPL012 inventory-regression") || !strings.Contains(out, "lost 643 of its 646 kernel keys for gfx906") {
			t.Errorf("%s: regressed build: exit %d\n%s", format, code, out)
		}
		var log struct {
			Runs []struct {
				Results []struct {
					RuleID        string `json:"ruleId"`
					BaselineState string `json:"baselineState"`
				} `json:"results"`
			} `json:"runs"`
		}
		data, _ := os.ReadFile(sarifOut)
		if err := json.Unmarshal(data, &log); err != nil {
			t.Fatal(err)
		}
		states := map[string]string{}
		for _, r := range log.Runs[0].Results {
			states[r.RuleID+" "+r.BaselineState] += "x"
		}
		if states["KPL012 new"] != "x" || states["KPL001 new"] != "x" || states["KPL001 unchanged"] != "x" {
			t.Errorf("%s: baseline states %v", format, states)
		}
	}
}

// TestWaiversEndToEnd: a waiver moves a finding out of the exit code into
// SARIF suppressions; expired it counts again and says so; unused is a note.
func TestWaiversEndToEnd(t *testing.T) {
	dir := t.TempDir()
	seedTree := filepath.Join(scenario("seed-fft-asan"), "tree")
	pol := writeFile(t, filepath.Join(dir, "policies.yaml"), `version: 1
variants:
  asan:
    targets: [gfx950]
    transform:
      - {match: "^(gfx950)$", replace: "${1}:xnack+"}
groups:
  fft_test:
    owners:
      rocFFT: ["bin/rocfft*"]
      hipFFT: ["bin/hipfft*"]
waivers:
  - rule: KPL003
    group: fft_test
    reason: rocFFT strips feature flags (ROCM-31644); fixed in the next release
    expires: 2026-06-30
  - rule: KPL004
    group: fft_test
    reason: same root cause as the KPL003 waiver
  - {group: torch, reason: no torch in this build}
`)
	args := []string{"check", "--policy", pol, "--variant", "asan"}
	code, out, _ := run(t, append(args, "--today", "2026-06-30", seedTree)...)
	if code != ExitOK || !strings.Contains(out, "(2 waived)") ||
		!strings.Contains(out, "policies.yaml:20: note waiver (group torch) matched no finding; delete it") {
		t.Errorf("waived: exit %d\n%s", code, out)
	}
	sarifOut := filepath.Join(dir, "r.sarif")
	code, out, _ = run(t, append(args, "--today", "2026-07-01", "-o", sarifOut, seedTree)...)
	if code != ExitFindings || !strings.Contains(out, "waiver: policies.yaml:13 expired on 2026-06-30 and no longer applies") ||
		!strings.Contains(out, "warning waiver (KPL003, group fft_test) expired on 2026-06-30") {
		t.Errorf("expired: exit %d\n%s", code, out)
	}
	data, _ := os.ReadFile(sarifOut)
	if !strings.Contains(string(data), `"justification": "same root cause as the KPL003 waiver"`) || !strings.Contains(string(data), `"expiredWaiver"`) ||
		!strings.Contains(string(data), `"toolConfigurationNotifications"`) {
		t.Errorf("SARIF lacks suppressions or notifications:\n%s", data)
	}
	if code, _, stderr := run(t, append(args, "--today", "July", seedTree)...); code != ExitUsage || !strings.Contains(stderr, "--today") {
		t.Errorf("bad --today: exit %d %s", code, stderr)
	}
}

// Newcomer report 9: a shard that does not check a waiver's group does not
// tell the user to delete the waiver; the merged report judges it on the
// whole run, in the words of one unsharded run.
func TestShardUnusedWaiverNote(t *testing.T) {
	dir := t.TempDir()
	build := filepath.Join(dir, "build")
	writeBuild(t, build, map[string]int{"g00_lib": 2, "g01_lib": 2, "g07_lib": 2}, []string{"gfx90a", "gfx942"}, map[string]string{"g07_lib": "gfx90a"})
	waivers := writeFile(t, filepath.Join(dir, "w.yaml"), "- {group: g07_lib, reason: known}\n- {group: nothing, reason: unused}\n")
	args := []string{"--no-policy", "--target", "gfx90a", "--target", "gfx942", "--waivers", waivers, "--today", "2026-01-01"}
	used := "waiver (group g07_lib) matched no finding"
	sawShardNote := false
	var shards []string
	for i := 1; i <= 2; i++ {
		p := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		_, out, _ := run(t, append(append([]string{"check", "--shard", fmt.Sprintf("%d/2", i), "-o", p}, args...), build)...)
		shards = append(shards, p)
		if strings.Contains(out, "delete it\n") {
			t.Errorf("shard %d tells to delete a waiver on its own findings:\n%s", i, out)
		}
		if strings.Contains(out, used+"; delete it (in this shard; kpack-lint merge of every shard tells whether another shard uses it)\n") {
			sawShardNote = true
		}
	}
	if !sawShardNote {
		t.Errorf("no shard says the g07_lib waiver matched nothing in it")
	}
	_, merged, stderr := run(t, append(append([]string{"merge", "--format", "text"}, mergeFlags(args)...), shards...)...)
	if strings.Contains(merged, used) || !strings.Contains(merged, "waiver (group nothing) matched no finding; delete it\n") {
		t.Errorf("merged report (%s):\n%s", stderr, merged)
	}
}

// A shard whose findings carry baseline states although it was checked
// without a baseline (its job is the pull request's) is refused, exit 2,
// naming the shard, the finding and the field; so is a state that is no
// state. The shards as check wrote them merge and fail (exit 1).
func TestMergeRefusesForgedShards(t *testing.T) {
	dir := t.TempDir()
	ex, pol := filepath.Join(testdata, "example"), filepath.Join(testdata, "..", "policies.yaml")
	for _, f := range []string{"json", "sarif"} {
		for i := 1; i <= 2; i++ {
			run(t, "check", "-q", "--policy", pol, "--variant", "asan", "--shard", fmt.Sprintf("%d/2", i), "-o", filepath.Join(dir, fmt.Sprintf("s%d.%s", i, f)), ex)
		}
		s1, s2 := filepath.Join(dir, "s1."+f), filepath.Join(dir, "s2."+f)
		if code, _, stderr := run(t, "merge", "--policy", pol, "--variant", "asan", s1, s2); code != ExitFindings {
			t.Fatalf("%s: the shards as written: exit %d (%s), want 1", f, code, stderr)
		}
		anchor := map[string]string{"json": `"fingerprint": "`, "sarif": `"ruleIndex": `}[f]
		data, _ := os.ReadFile(s1)
		if !strings.Contains(string(data), anchor) { // forge the shard that has findings
			s1, s2 = s2, s1
			data, _ = os.ReadFile(s1)
		}
		for state, want := range map[string]string{
			"unchanged": `: finding 0 (KPL002 bin/rocfft-test`,
			"absent":    `: finding 0 (KPL002 bin/rocfft-test`,
			"bogus":     `baselineState "bogus": want new, unchanged or absent`,
		} {
			forged := filepath.Join(dir, "forged."+f)
			writeFile(t, forged, strings.Replace(string(data), anchor, `"baselineState": "`+state+`", `+anchor, 1))
			code, out, stderr := run(t, "merge", "--policy", pol, "--variant", "asan", "--format", "text", forged, s2)
			if state != "bogus" {
				want += "): baselineState \"" + state + "\", but the shard was checked without a baseline (checked.baseline is empty)"
			}
			if code != ExitUsage || out != "" || !strings.Contains(stderr, "merge: "+forged+": ") || !strings.Contains(stderr, want) {
				t.Errorf("%s shard with baselineState %s: exit %d, stderr %q; want exit 2 with %q", f, state, code, stderr, want)
			}
		}
	}
}

// Merge takes the baseline from its own --baseline: shards checked with
// one and merged without it count every finding as new (and say so);
// shards checked without one merged with it are compared, with a note
// that KPL012 needs the shards checked with it.
func TestMergeBaselineNotes(t *testing.T) {
	dir := t.TempDir()
	ex, pol := filepath.Join(testdata, "example"), filepath.Join(testdata, "..", "policies.yaml")
	base := filepath.Join(dir, "base.json")
	run(t, "check", "-q", "--policy", pol, "--variant", "asan", "-o", base, ex)
	for i := 1; i <= 2; i++ {
		run(t, "check", "-q", "--policy", pol, "--variant", "asan", "--baseline", base, "--shard", fmt.Sprintf("%d/2", i), "-o", filepath.Join(dir, fmt.Sprintf("b%d.json", i)), ex)
		run(t, "check", "-q", "--policy", pol, "--variant", "asan", "--shard", fmt.Sprintf("%d/2", i), "-o", filepath.Join(dir, fmt.Sprintf("p%d.json", i)), ex)
	}
	b1, b2, p1, p2 := filepath.Join(dir, "b1.json"), filepath.Join(dir, "b2.json"), filepath.Join(dir, "p1.json"), filepath.Join(dir, "p2.json")
	asan := []string{"merge", "--policy", pol, "--variant", "asan"}
	if code, out, stderr := run(t, append(asan, "--baseline", base, b1, b2)...); code != ExitOK || stderr != "" || !strings.Contains(out, `"unchanged": `) {
		t.Errorf("merge --baseline of shards checked with it: exit %d, stderr %q", code, stderr)
	}
	code, out, stderr := run(t, append(asan, b1, b2)...)
	if code != ExitFindings || strings.Contains(out, `"baselineState"`) || strings.Contains(out, `"baseline": `) ||
		!strings.Contains(stderr, "kpack-lint: note: the shards were checked against baseline base.json; merge takes no baseline state from a shard") {
		t.Errorf("merge without --baseline of shards checked with one: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = run(t, append(asan, "--baseline", base, p1, p2)...)
	if code != ExitOK || !strings.Contains(stderr, "KPL012 (inventory-regression) is found only by check --baseline") {
		t.Errorf("merge --baseline of shards checked without: exit %d, stderr %q", code, stderr)
	}
}

// The planted build-output policy of the waive-all recipe (group "*",
// every path depth, year 9999) waives nothing: check exits 2 naming it,
// with no report on stdout, and --no-policy (the control) finds both
// errors.
func TestPlantedDistPolicyRefused(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("HOME", filepath.Dir(ws))
	t.Setenv("GITHUB_WORKSPACE", ws)
	dist := filepath.Join(ws, "dist")
	writeBuild(t, dist, map[string]int{"blas_lib": 2}, []string{"gfx942"}, map[string]string{"blas_lib": "gfx942"})
	writeFile(t, filepath.Join(dist, "policies.yaml"), "version: 1\nvariants:\n  release:\n    targets: [gfx942]\nwaivers:\n"+
		"  - {path: \"*\", reason: \"tracked elsewhere\", expires: 9999-12-31}\n  - {group: \"*\", reason: \"tracked elsewhere\", expires: 9999-12-31}\n")
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(ws)
	code, out, stderr := run(t, "check", "--format", "github", "dist")
	if code != ExitUsage || out != "" || !strings.HasPrefix(stderr, "kpack-lint: dist/policies.yaml is in the input dist: ") ||
		!strings.Contains(stderr, "pass --policy dist/policies.yaml to use it anyway, --policy FILE for the repository's own, or --no-policy for none") {
		t.Errorf("exit %d, want 2\nstdout %q\nstderr %q", code, out, stderr)
	}
	if code, out, _ := run(t, "check", "--no-policy", "--target", "gfx942", "dist"); code != ExitFindings || !strings.Contains(out, "1 finding: 1 error") {
		t.Errorf("--no-policy: exit %d\n%s", code, out)
	}
}

// A waiver that matches everything or expires in year 9999 is a warning
// at its file:line in every report; --max-waiver-days moves the limit.
func TestBroadWaiverWarning(t *testing.T) {
	dir := t.TempDir()
	build := filepath.Join(dir, "build")
	writeBuild(t, build, map[string]int{"blas_lib": 2}, []string{"gfx942"}, map[string]string{"blas_lib": "gfx942"})
	w := writeFile(t, filepath.Join(dir, "w.yaml"), "waivers:\n  - {rule: KPL001, group: blas_lib, reason: known, expires: 2026-03-01}\n"+
		"  - {group: \"*\", reason: \"tracked elsewhere\", expires: 9999-12-31}\n")
	args := []string{"check", "--no-policy", "--target", "gfx942", "--today", "2026-01-01", "--waivers", w}
	code, out, _ := run(t, append(args, build)...)
	want := `w.yaml:3: warning waiver (group *) is too broad: it names no rule (it waives every rule's findings); group "*" matches every kpack group; ` +
		"it expires on 9999-12-31, 2912442 days ahead (more than 365). Fix: "
	if code != ExitOK || !strings.Contains(out, want) || strings.Count(out, "is too broad") != 1 {
		t.Errorf("exit %d, want 0 and one line %q:\n%s", code, want, out)
	}
	_, out, _ = run(t, append(append(args, "--format", "github"), build)...)
	if !strings.Contains(out, "::warning file=") || !strings.Contains(out, "is too broad: it names no rule") {
		t.Errorf("github:\n%s", out)
	}
	// 59 days ahead passes 365, not 30.
	_, out, _ = run(t, append(append(args, "--max-waiver-days", "30"), build)...)
	if !strings.Contains(out, "w.yaml:2: warning waiver (KPL001, group blas_lib) is too broad: it expires on 2026-03-01, 59 days ahead (more than 30). Fix: give an expires date at most 30 days ahead") {
		t.Errorf("--max-waiver-days 30:\n%s", out)
	}
	if code, _, stderr := run(t, append(append(args, "--max-waiver-days", "-1"), build)...); code != ExitUsage || !strings.Contains(stderr, "--max-waiver-days -1: want a number of days") {
		t.Errorf("--max-waiver-days -1: exit %d %s", code, stderr)
	}
}

// mergeFlags are the flags of check args that merge takes too (the
// policy, the target matrix, the waivers and their date): merge
// recomputes what depends on them and refuses shards that disagree.
func mergeFlags(args []string) []string {
	valued := map[string]bool{"--policy": true, "--variant": true, "--target": true, "--agent": true, "--loader": true,
		"--waivers": true, "--today": true, "--warn-expiring": true, "--max-waiver-days": true}
	var out []string
	for i := 0; i < len(args); i++ {
		switch {
		case valued[args[i]] && i+1 < len(args):
			out = append(out, args[i], args[i+1])
			i++
		case args[i] == "--no-policy":
			out = append(out, args[i])
		}
	}
	return out
}

// TestMergeForgedShardsGateAsOneRun splits a build into shards, forges
// each field a shard's job could rewrite, and merges: a forgery merge can
// see is exit 2 naming the shard and the field; what merge recomputes
// (waived state, waiver notifications) is recomputed, so the merge is
// byte for byte the unsharded report and gates as the unsharded check
// does.
func TestMergeForgedShardsGateAsOneRun(t *testing.T) {
	dir := t.TempDir()
	build := filepath.Join(dir, "build")
	groups := map[string]int{}
	for i := 0; i < 8; i++ {
		groups[fmt.Sprintf("g%02d_lib", i)] = 2 + i%3
	}
	writeBuild(t, build, groups, []string{"gfx90a", "gfx942", "gfx1100"}, map[string]string{"g03_lib": "gfx942", "g06_lib": "gfx90a"})
	os.Remove(filepath.Join(build, "lib", ".kpack", "g05_lib_gfx1100.kpack"))
	waivers := writeFile(t, filepath.Join(dir, "w.yaml"), "- {group: g06_lib, reason: known, expires: 2026-06-01}\n- {group: nothing, reason: unused, expires: 2026-06-01}\n")
	args := []string{"--no-policy", "--target", "gfx90a", "--target", "gfx942", "--target", "gfx1100", "--waivers", waivers, "--today", "2026-01-01", build}
	whole := filepath.Join(dir, "whole.json")
	wholeCode, _, _ := run(t, append([]string{"check", "-q", "-o", whole}, args...)...)
	want, _ := os.ReadFile(whole)
	if wholeCode != ExitFindings || !strings.Contains(string(want), `"justification": "known"`) {
		t.Fatalf("the unsharded check: exit %d, want 1 with a waived finding:\n%s", wholeCode, want)
	}
	const n = 3
	shards := make([]map[string]any, n)
	for i := range shards {
		p := filepath.Join(dir, fmt.Sprintf("s%d.json", i+1))
		run(t, append([]string{"check", "-q", "--shard", fmt.Sprintf("%d/%d", i+1, n), "-o", p}, args...)...)
		data, _ := os.ReadFile(p)
		if err := json.Unmarshal(data, &shards[i]); err != nil {
			t.Fatal(err)
		}
	}
	findings := func(s map[string]any) []any { fs, _ := s["findings"].([]any); return fs }
	// which shard has an error, a waived finding, findings at all
	withError, waived := -1, -1
	for i, s := range shards {
		for _, f := range findings(s) {
			m := f.(map[string]any)
			if m["suppression"] != nil {
				waived = i
			} else if m["level"] == "error" && withError < 0 {
				withError = i
			}
		}
	}
	if withError < 0 || waived < 0 {
		t.Fatalf("no shard with an open error (%d) or a waived finding (%d)", withError, waived)
	}
	firstOpenError := func(s map[string]any) map[string]any {
		for _, f := range findings(s) {
			if m := f.(map[string]any); m["level"] == "error" && m["suppression"] == nil {
				return m
			}
		}
		return nil
	}
	mergeFlags := []string{"merge", "--no-policy", "--target", "gfx90a", "--target", "gfx942", "--target", "gfx1100", "--waivers", waivers, "--today", "2026-01-01"}
	for _, c := range []struct {
		name  string
		forge func(ss []map[string]any) []map[string]any
		want  string // "" : the unsharded report and exit code
	}{
		{"as written", func(ss []map[string]any) []map[string]any { return ss }, ""},
		{"an error turned into a note", func(ss []map[string]any) []map[string]any {
			firstOpenError(ss[withError])["level"] = "note"
			return ss
		}, "level note, but under merge's policy a KPL"},
		{"an error turned into a warning", func(ss []map[string]any) []map[string]any {
			firstOpenError(ss[withError])["level"] = "warning"
			return ss
		}, "level warning, but under merge's policy a KPL"},
		{"an open error waived", func(ss []map[string]any) []map[string]any {
			firstOpenError(ss[withError])["suppression"] = map[string]any{"justification": "forged", "source": waivers + ":1"}
			return ss
		}, ""},
		{"a waived finding unwaived", func(ss []map[string]any) []map[string]any {
			for _, f := range findings(ss[waived]) {
				delete(f.(map[string]any), "suppression")
			}
			return ss
		}, ""},
		{"waiver notifications dropped", func(ss []map[string]any) []map[string]any {
			for _, s := range ss {
				delete(s, "notifications")
			}
			return ss
		}, ""},
		{"a baseline state", func(ss []map[string]any) []map[string]any {
			firstOpenError(ss[withError])["baselineState"] = "unchanged"
			return ss
		}, `baselineState "unchanged", but the shard was checked without a baseline`},
		{"a finding moved to another shard", func(ss []map[string]any) []map[string]any {
			other := (withError + 1) % n
			ss[other]["findings"] = append(findings(ss[other]), firstOpenError(ss[withError]))
			return ss
		}, "not to this shard"},
		{"a finding twice", func(ss []map[string]any) []map[string]any {
			ss[withError]["findings"] = append(findings(ss[withError]), firstOpenError(ss[withError]))
			return ss
		}, "again: check reports each finding once"},
		{"a null level", func(ss []map[string]any) []map[string]any {
			firstOpenError(ss[withError])["level"] = nil
			return ss
		}, "level: null, where check writes a value"},
		{"a shard left out", func(ss []map[string]any) []map[string]any { return ss[1:] }, "is missing"},
		{"a shard claiming another's index", func(ss []map[string]any) []map[string]any {
			ss[1]["checked"].(map[string]any)["shard"] = ss[0]["checked"].(map[string]any)["shard"]
			return ss
		}, "not to this shard 1/3"}, // its findings are another shard's
		{"an empty shard claiming another's index", func(ss []map[string]any) []map[string]any {
			for i := range ss {
				if i != withError {
					ss[withError]["checked"].(map[string]any)["shard"] = ss[i]["checked"].(map[string]any)["shard"]
					ss[withError]["findings"], ss[withError]["inventory"], ss[withError]["matrix"] = []any{}, []any{}, []any{}
					break
				}
			}
			return ss
		}, "given twice"},
		{"a target dropped from every shard", func(ss []map[string]any) []map[string]any {
			for _, s := range ss {
				k := s["checked"].(map[string]any)
				k["targets"] = []any{"gfx90a", "gfx942"}
				var agents []any
				for _, a := range k["agents"].([]any) {
					if !strings.HasPrefix(a.(string), "gfx1100") {
						agents = append(agents, a)
					}
				}
				k["agents"] = agents
				var cells []any
				for _, c := range s["matrix"].([]any) {
					if c.(map[string]any)["target"] != "gfx1100" {
						cells = append(cells, c)
					}
				}
				s["matrix"] = cells
				var fs []any
				for _, f := range findings(s) {
					if ts, _ := f.(map[string]any)["targets"].([]any); !slices.Contains(ts, any("gfx1100")) {
						fs = append(fs, f)
					}
				}
				s["findings"] = fs
			}
			return ss
		}, "the shards checked targets gfx90a gfx942, merge's policy and flags give gfx90a gfx942 gfx1100"},
	} {
		forged := c.forge(cloneShards(t, shards))
		var paths []string
		for i, s := range forged {
			data, _ := json.Marshal(s)
			paths = append(paths, writeFile(t, filepath.Join(dir, fmt.Sprintf("f%d.json", i+1)), string(data)))
		}
		code, out, stderr := run(t, append(mergeFlags, paths...)...)
		switch {
		case c.want == "" && (code != wholeCode || out != string(want)):
			t.Errorf("%s: exit %d (one run: %d), the report differs from the unsharded one: %v (%s)", c.name, code, wholeCode, out != string(want), stderr)
		case c.want != "" && (code != ExitUsage || out != "" || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "merge: ")):
			t.Errorf("%s: exit %d, stderr %q; want exit 2 with %q", c.name, code, stderr, c.want)
		}
	}
}

// cloneShards deep-copies decoded shard reports.
func cloneShards(t *testing.T, ss []map[string]any) []map[string]any {
	out := make([]map[string]any, len(ss))
	for i, s := range ss {
		data, _ := json.Marshal(s)
		if err := json.Unmarshal(data, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// Targets check took from the archives merge cannot check: it merges
// them as written and says so on stderr.
func TestMergeTellsUncheckedTargets(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(testdata, "example")
	var shards []string
	for i := 1; i <= 2; i++ {
		p := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		run(t, "check", "-q", "--no-policy", "--shard", fmt.Sprintf("%d/2", i), "-o", p, ex)
		shards = append(shards, p)
	}
	wholeCode, _, _ := run(t, "check", "--no-policy", ex)
	code, _, stderr := run(t, append([]string{"merge", "--no-policy"}, shards...)...)
	if code != wholeCode || !strings.Contains(stderr, "kpack-lint: note: the shards' targets (") ||
		!strings.Contains(stderr, ") come from the archives' gfx_arches without a policy: merge does not read the build") {
		t.Errorf("exit %d (one run: %d), stderr %q", code, wholeCode, stderr)
	}
}

// Shards that each stay within a report's bounds but together hold more
// findings than one report may are refused (exit 2), naming the bound:
// the merged report must read back as a baseline.
func TestMergeBoundsTheShardsTogether(t *testing.T) {
	dir := t.TempDir()
	const n = 3
	per := report.MaxReadFindings/n + 1
	var paths []string
	for i := 1; i <= n; i++ {
		var b strings.Builder
		b.WriteString(`{"tool":{"name":"kpack-lint","version":"0.1.0-dev"},"checked":{"inputs":["dist"],"policy":null,"loader":"fallthrough","targets":["gfx942"],` +
			`"targetSource":"--target","agents":["gfx942:sramecc+:xnack-"],"hip":"newest","policySource":"--no-policy","shard":"` + fmt.Sprintf("%d/%d", i, n) + `"},"findings":[`)
		k := 0
		for j := 0; k < per; j++ {
			p := fmt.Sprintf("f%d.kpack", j)
			if finding.OwnerOf("", p, n).Index != i {
				continue
			}
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"ruleId":"KPL005","level":"error","message":"m","location":{"input":0,"path":%q}}`, p)
			k++
		}
		b.WriteString("]}")
		paths = append(paths, writeFile(t, filepath.Join(dir, fmt.Sprintf("s%d.json", i)), b.String()))
	}
	code, _, stderr := run(t, append([]string{"merge", "--no-policy", "--target", "gfx942", "--agent", "gfx942:sramecc+:xnack-"}, paths...)...)
	if code != ExitUsage || !strings.Contains(stderr, "s3.json: the shards up to it hold 131073 findings, more than the 131072 a report may hold (report.MaxReadFindings)") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// SARIF shards alike: a suppression written into a result of a shard
// checked with waivers is dropped and the waivers applied again, so the
// merge is the unsharded SARIF and exit code; a result level outside
// SARIF's words is refused.
func TestMergeForgedSARIFShards(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(testdata, "example")
	waivers := writeFile(t, filepath.Join(dir, "w.yaml"), "- {rule: KPL003, group: fft_test, reason: known, expires: 2026-06-01}\n")
	args := []string{"--policy", filepath.Join(testdata, "..", "policies.yaml"), "--variant", "asan", "--waivers", waivers, "--today", "2026-01-01", ex}
	whole := filepath.Join(dir, "whole.sarif")
	wholeCode, _, _ := run(t, append([]string{"check", "-q", "-o", whole}, args...)...)
	want, _ := os.ReadFile(whole)
	var shards []string
	for i := 1; i <= 2; i++ {
		p := filepath.Join(dir, fmt.Sprintf("s%d.sarif", i))
		run(t, append([]string{"check", "-q", "--shard", fmt.Sprintf("%d/2", i), "-o", p}, args...)...)
		shards = append(shards, p)
	}
	forge := func(old, new string) []string {
		var out []string
		for i, p := range shards {
			data, _ := os.ReadFile(p)
			out = append(out, writeFile(t, filepath.Join(dir, fmt.Sprintf("f%d.sarif", i)), strings.ReplaceAll(string(data), old, new)))
		}
		return out
	}
	merge := append([]string{"merge"}, mergeFlags(args)...)
	// every open error waived by the shard's job
	forged := forge(`"level": "error",`, `"level": "error", "suppressions": [{"kind": "external", "justification": "forged"}],`)
	if data, _ := os.ReadFile(forged[0]); !strings.Contains(string(data), "forged") {
		if data, _ := os.ReadFile(forged[1]); !strings.Contains(string(data), "forged") {
			t.Fatal("no result forged")
		}
	}
	if code, out, stderr := run(t, append(merge, forged...)...); code != wholeCode || out != string(want) {
		t.Errorf("forged suppressions: exit %d (one run: %d), report differs: %v (%s)", code, wholeCode, out != string(want), stderr)
	}
	forged = forge(`"level": "error",`, `"level": "none",`)
	if code, _, stderr := run(t, append(merge, forged...)...); code != ExitUsage || !strings.Contains(stderr, `level "none": want error, warning or note`) {
		t.Errorf("level none: exit %d, stderr %q", code, stderr)
	}
}
