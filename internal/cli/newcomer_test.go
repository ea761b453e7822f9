package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyTree copies a build tree, keeping its symlinks.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, out)
		case d.IsDir():
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// chdir changes the working directory for the rest of the test.
func chdir(t *testing.T, dir string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
}

// Newcomer report 2: a policy found by discovery that does not fit the
// build says where it was found and how to choose another; pointed at a
// subdirectory of the install tree, the error names the root to pass.
func TestDiscoveredPolicyErrors(t *testing.T) {
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	copyTree(t, filepath.Join(testdata, "example"), filepath.Join(repo, "dist"))
	data, err := os.ReadFile("../../policies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "policies.yaml"), string(data))
	chdir(t, filepath.Join(repo, "dist"))

	code, _, stderr := run(t, "check", "bin")
	want := `kpack-lint: ../policies.yaml:25: groups.fft_test.owners.hipFFT[0]: "bin/hipfft*" matches no host binary or kernel name of kpack group fft_test; ` +
		"bin looks like a subdirectory of an install tree (hipfft-test searches ../lib/.kpack/fft_test_@GFXARCH@.kpack, outside it): pass its root (kpack-lint check .) " +
		"(../policies.yaml was found in .., a parent of the input bin: pass --policy FILE for another, or --no-policy for none)\n"
	if code != ExitUsage || stderr != want {
		t.Errorf("check bin: exit %d\n got %s\nwant %s", code, stderr, want)
	}
	// A policy named with --policy that describes another build.
	other := writeFile(t, filepath.Join(repo, "torch.yaml"), "version: 1\nvariants: {release: {targets: [gfx942]}}\ngroups:\n  torch: {owners: {torch: [lib/libtorch*]}}\n")
	code, _, stderr = run(t, "check", "--policy", other, ".")
	if code != ExitUsage || stderr != "kpack-lint: "+other+":4: groups.torch: no kpack group torch in the inputs (they have blas_lib, fft_test, sparse_lib) "+
		"(a policy describes one build: check a partial build with a policy of its own, or --no-policy)\n" {
		t.Errorf("other build's policy: exit %d %q", code, stderr)
	}
	// An unknown variant of a discovered policy says where it came from.
	chdir(t, repo)
	code, _, stderr = run(t, "check", "--variant", "tsan", "dist")
	if code != ExitUsage || !strings.Contains(stderr, "--variant tsan: not declared in policies.yaml:8 (have asan, release; did you mean asan?)") ||
		!strings.Contains(stderr, "(policies.yaml was found in the working directory: pass --policy FILE for another, or --no-policy for none)") {
		t.Errorf("unknown variant: exit %d %q", code, stderr)
	}
	// explain says on stderr which policy it found and what it loads on.
	code, _, stderr = run(t, "explain", "bin/rocfft-test#0", "dist")
	if code != ExitOK || stderr != "kpack-lint: note: using policies.yaml (found in the working directory; --no-policy for none): its loader, env: and arch_list apply; "+
		"without --agent, every agent of its release variant (14) is loaded on\n" {
		t.Errorf("explain: exit %d %q", code, stderr)
	}
}

// Newcomer report 3: an extension that names a format wins for that file
// over --format; --format still applies to files without one.
func TestOutputExtensionWinsOverFormat(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(testdata, "example")
	sarif, md, plain := filepath.Join(dir, "f.sarif"), filepath.Join(dir, "f.md"), filepath.Join(dir, "report.out")
	code, out, stderr := run(t, "check", "--policy", "../../policies.yaml", "--format", "json", "-o", sarif, "-o", md, "-o", plain, ex)
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }
	if !strings.Contains(read(sarif), `"version": "2.1.0"`) || !strings.HasPrefix(read(md), "## ") || !strings.Contains(read(plain), `"checked": {`) {
		t.Errorf("formats: sarif %.40q, md %.40q, plain %.40q", read(sarif), read(md), read(plain))
	}
	if !strings.Contains(stderr, "kpack-lint: note: --output "+sarif+" is written as sarif, as its extension says (--format json applies to files whose extension names no format); write json="+sarif+" to force json\n") {
		t.Errorf("stderr = %q", stderr)
	}
	if !strings.HasPrefix(out, "kpack-lint 0.1.0-dev: checked ../../testdata/example") {
		t.Errorf("stdout is not the text report: %.80q", out)
	}
	// FORMAT=PATH always wins.
	run(t, "check", "--policy", "../../policies.yaml", "-q", "-o", "json="+sarif, ex)
	if !strings.Contains(read(sarif), `"checked": {`) {
		t.Errorf("json=f.sarif is not JSON: %.40q", read(sarif))
	}
}

// Newcomer report 14: --quiet without --output is a usage error, not
// silently ignored.
func TestQuietNeedsOutput(t *testing.T) {
	code, out, stderr := run(t, "check", "-q", filepath.Join(testdata, "example"))
	if code != ExitUsage || out != "" || stderr != "kpack-lint: --quiet without --output: nothing would be written; give --output FILE (--quiet drops the report on stdout), or drop --quiet\n" {
		t.Errorf("exit %d %q %q", code, out, stderr)
	}
}

// Newcomer report 4: a missing baseline says how to make the first one; a
// baseline of another matrix is a warning on stderr and in the report.
func TestBaselineBootstrapAndMismatch(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(testdata, "example")
	base := filepath.Join(dir, "nightly.sarif")
	code, _, stderr := run(t, "check", "--policy", "../../policies.yaml", "--baseline", base, ex)
	if code != ExitUsage || stderr != "kpack-lint: --baseline "+base+": no such file. A baseline is an earlier report of kpack-lint: for the first one, "+
		"run without --baseline and keep the report (-o sarif="+base+"), then pass it on later runs\n" {
		t.Errorf("missing baseline: exit %d %q", code, stderr)
	}
	run(t, "check", "--policy", "../../policies.yaml", "--variant", "asan", "-q", "-o", base, ex)
	// Same matrix: no warning.
	if _, _, stderr := run(t, "check", "--policy", "../../policies.yaml", "--variant", "asan", "--baseline", base, ex); stderr != "" {
		t.Errorf("same matrix: stderr %q", stderr)
	}
	js := filepath.Join(dir, "now.json")
	_, out, stderr := run(t, "check", "--policy", "../../policies.yaml", "--variant", "release", "--baseline", base, "-o", js, ex)
	wantMsg := "the baseline checked another matrix: variant asan (this run: release); targets gfx90a:xnack+ gfx942:xnack+ gfx950:xnack+ " +
		"(this run: gfx90a gfx942 gfx950 gfx1100 gfx1151); 4 agents (this run: 14); findings of what only one run checked show as new " +
		"or fixed (KPL012 compares the build's archives, which do not depend on the matrix): compare with a baseline of the same variant and targets"
	if stderr != "kpack-lint: warning: --baseline "+base+": "+wantMsg+"\n" {
		t.Errorf("stderr = %q", stderr)
	}
	if !strings.Contains(out, "nightly.sarif: warning "+wantMsg+"\n") {
		t.Errorf("text report lacks the warning:\n%s", out)
	}
	if strings.Contains(out, " KPL012 ") {
		t.Errorf("a variant switch gave KPL012 (the inventory is the build's):\n%s", out)
	}
	data, _ := os.ReadFile(js)
	var rep struct {
		Notifications []struct{ Level, Kind, Source, Message string } `json:"notifications"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Notifications) != 1 || rep.Notifications[0].Kind != "baseline-mismatch" || rep.Notifications[0].Level != "warning" ||
		rep.Notifications[0].Source != "nightly.sarif" || rep.Notifications[0].Message != wantMsg {
		t.Errorf("notifications = %+v", rep.Notifications)
	}
}

// Newcomer report 14: the everyday CLI.
func TestEverydayCLIFixes(t *testing.T) {
	if code, out, _ := run(t, "version"); code != ExitOK || out != "kpack-lint version "+Version+"\n" {
		t.Errorf("version: exit %d %q", code, out)
	}
	if code, out, _ := run(t, "--version"); code != ExitOK || out != "kpack-lint version "+Version+"\n" {
		t.Errorf("--version: exit %d %q", code, out)
	}
	ex := filepath.Join(testdata, "example")
	// A flag after the arguments is read as before them.
	code, out, stderr := run(t, "explain", "--no-policy", "bin/rocfft-test#0", ex, "--agent", "gfx942:sramecc+:xnack-")
	if code != ExitOK || !strings.Contains(out, "kpack: load bin/rocfft-test#0, arch_list [gfx942:sramecc+:xnack-, gfx9-4-generic:sramecc+:xnack-]") {
		t.Errorf("explain flag after inputs: exit %d %q\n%s", code, stderr, out)
	}
	// A key without its folder gets the kernel name of the build.
	code, _, stderr = run(t, "explain", "--no-policy", "--agent", "gfx942:sramecc+:xnack-", "rocfft-test#0", ex)
	if code != ExitUsage || !strings.HasSuffix(stderr, `no host binary in the input has kernel_name "rocfft-test" and no archive holds rocfft-test#0; did you mean bin/rocfft-test#0?`+"\n") {
		t.Errorf("near key: exit %d %q", code, stderr)
	}
	// A bare --agent: explain simulates it, worded as explain-db refuses it.
	_, _, stderr = run(t, "explain", "--no-policy", "--agent", "gfx942", "bin/rocfft-test#0", ex)
	_, _, dbErr := run(t, "explain-db", "--agent", "gfx942", "rocblas", filepath.Join(testdata, "kerneldb", "rocblas-flat-lazy", "tree"))
	const same = "--agent gfx942: not an ISA a device reports (a gfx942 device reports gfx942:sramecc+:xnack+, gfx942:sramecc+:xnack-, gfx942:sramecc-:xnack+, gfx942:sramecc-:xnack-)"
	if !strings.HasPrefix(stderr, "kpack-lint: note: "+same+"; explain simulates the arch_list as given") || dbErr != "kpack-lint: "+same+"\n" {
		t.Errorf("bare agent:\nexplain    %q\nexplain-db %q", stderr, dbErr)
	}
	// merge's help names its real default.
	if _, out, _ := run(t, "merge", "--help"); !strings.Contains(out, "without --output, the first REPORT's format on stdout") {
		t.Errorf("merge --help:\n%s", out)
	}
	// The text report shows fingerprints, and a waiver written from one
	// waives that finding.
	_, out, _ = run(t, "check", "--policy", "../../policies.yaml", "--variant", "asan", ex)
	fps := printedCommands(out, "fingerprint")
	if len(fps) != 3 || len(fps[0]) != 64 {
		t.Fatalf("fingerprints %q", fps)
	}
	w := writeFile(t, filepath.Join(t.TempDir(), "w.yaml"), "- {fingerprint: "+fps[1]+", reason: from the text report}\n")
	_, out, _ = run(t, "check", "--policy", "../../policies.yaml", "--variant", "asan", "--waivers", w, ex)
	if strings.Contains(out, "fingerprint: "+fps[1]) || !strings.Contains(out, "2 findings: 1 error, 1 warning, 0 notes (1 waived)") {
		t.Errorf("fingerprint waiver:\n%s", out)
	}
}

// Newcomer report 16: explain-db with several CU counts labels each probe
// with the CU count it is for.
func TestExplainDBLabelsCUCounts(t *testing.T) {
	tree := filepath.Join(testdata, "kerneldb", "miopen", "tree")
	code, out, _ := run(t, "explain-db", "--agent", "gfx90a:sramecc+:xnack-", "--cu", "104", "--cu", "110", "miopen", tree)
	if code != ExitOK || !strings.Contains(out, "MIOpen:   [104 CUs] share/miopen/db/gfx90a68.kdb: found (used)\n") ||
		!strings.Contains(out, "MIOpen:   [110 CUs] share/miopen/db/gfx90a6e.db.txt: found (used)\n") {
		t.Errorf("exit %d\n%s", code, out)
	}
	_, js, _ := run(t, "explain-db", "--format", "json", "--agent", "gfx90a:sramecc+:xnack-", "--cu", "104", "--cu", "110", "miopen", tree)
	if !strings.Contains(js, `"path": "share/miopen/db/gfx90a6e.kdb",
              "found": true,
              "note": "used",
              "cus": 110`) {
		t.Errorf("JSON lacks the CU count:\n%s", js)
	}
}

// Newcomer report 11: the job summary's cells reflect the findings about
// their group and target, so no row looks fine under a failing verdict;
// the findings come first, so a red cell says why before its loads.
func TestMarkdownCellsCountErrors(t *testing.T) {
	_, out, _ := run(t, "check", "--policy", "../../policies.yaml", "--variant", "asan", "--format", "markdown", filepath.Join(testdata, "example"))
	for _, row := range []string{
		"| `fft_test` | ❌ 2 errors, 1 warning; 10/10 loads (legacy loader: 6 fail) | ❌ 2 errors, 1 warning; 5/5 loads (legacy loader: 3 fail) | ❌ 2 errors, 1 warning; 5/5 loads (legacy loader: 3 fail) |\n",
		"| `blas_lib` | ✅ 8/8 | ✅ 4/4 | ✅ 4/4 |\n",
	} {
		if !strings.Contains(out, row) {
			t.Errorf("summary lacks %q:\n%s", row, out)
		}
	}
}

// Newcomer report 12: an absolute input gets a root hint without a
// machine path and without "folder(s)".
func TestRootHintForAbsoluteInput(t *testing.T) {
	abs, err := filepath.Abs(filepath.Join(testdata, "example", "bin"))
	if err != nil {
		t.Fatal(err)
	}
	_, out, _ := run(t, "check", "--no-policy", abs)
	if !strings.Contains(out, "Fix: if bin is a subdirectory of an install tree, pass its parent folder instead; else ship the archives") || strings.Contains(out, "folder(s)") {
		t.Errorf("root hint:\n%s", out)
	}
}

// Newcomer report 12: where the targets came from reads as a sentence in
// every message that names it.
func TestTargetSourceWording(t *testing.T) {
	build := filepath.Join(t.TempDir(), "build")
	writeBuild(t, build, map[string]int{"apu_lib": 1}, []string{"gfx90c:xnack+"}, nil)
	_, out, stderr := run(t, "check", "--no-policy", build)
	if !strings.Contains(out, "targets (the archives' gfx_arches without a policy): gfx90c:xnack+") ||
		!strings.Contains(out, "Nothing was simulated: no target from the archives' gfx_arches without a policy stands for a device") {
		t.Errorf("%s%s", out, stderr)
	}
}
