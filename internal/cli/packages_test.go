package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/testutil/pkgbuild"
)

// reportWithoutInputs is a JSON report with checked.inputs removed and
// every location's input index set to 0, so that runs on the same files
// given as a folder or as packages compare.
func reportWithoutInputs(t *testing.T, out string) string {
	t.Helper()
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	delete(r["checked"].(map[string]any), "inputs")
	delete(r["checked"].(map[string]any), "rerun") // the paths given
	delete(r, "artifacts")                         // sorted by input
	b, _ := json.MarshalIndent(r, "", " ")
	return inputIndex.ReplaceAllString(string(b), `"input": 0`)
}

var (
	inputIndex  = regexp.MustCompile(`"input": [0-9]+`)
	fingerprint = regexp.MustCompile(`"(fingerprint|coverage)": "[0-9a-f]+",?`) // both hash the paths
)

// checkedInputs returns checked.inputs of a JSON report.
func checkedInputs(t *testing.T, out string) []string {
	t.Helper()
	var r struct {
		Checked struct{ Inputs []string }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r.Checked.Inputs
}

// packageBuilders build a package holding files, by kind.
var packageBuilders = map[string]func(*testing.T, []pkgbuild.File) []byte{
	"data.tar.xz.deb":  func(t *testing.T, f []pkgbuild.File) []byte { return pkgbuild.Deb(t, "xz", f) },
	"data.tar.zst.deb": func(t *testing.T, f []pkgbuild.File) []byte { return pkgbuild.Deb(t, "zst", f) },
	"data.tar.deb":     func(t *testing.T, f []pkgbuild.File) []byte { return pkgbuild.Deb(t, "", f) },
	"gzip.rpm":         func(t *testing.T, f []pkgbuild.File) []byte { return pkgbuild.RPM(t, "gzip", f) },
	"xz.rpm":           func(t *testing.T, f []pkgbuild.File) []byte { return pkgbuild.RPM(t, "xz", f) },
	"zstd.rpm":         func(t *testing.T, f []pkgbuild.File) []byte { return pkgbuild.RPM(t, "zstd", f) },
}

// `kpack-lint check X.deb` and `X.rpm` report what the same files report as
// a folder, paths as installed: the ROCM-31644 seed's findings, and a HIPF
// binary with embedded code (also with --deep).
func TestCheckPackagesLikeTree(t *testing.T) {
	seed := scenario("seed-fft-asan")
	for _, sc := range []struct {
		tree string
		args []string
	}{
		{filepath.Join(seed, "tree"), []string{"--policy", filepath.Join(seed, "policies.yaml"), "--variant", "asan"}},
		{filepath.Join(scenario("rocwmma-hipf"), "tree"), []string{"--no-policy", "--target", "gfx942", "--target", "gfx1100", "--deep"}},
	} {
		args := append([]string{"check", "--format", "json"}, sc.args...)
		code, want, stderr := run(t, append(args, sc.tree)...)
		if code != ExitFindings {
			t.Fatalf("tree: exit %d: %s", code, stderr)
		}
		want = reportWithoutInputs(t, want)
		files := pkgbuild.FromTree(t, sc.tree)
		for kind, build := range packageBuilders {
			t.Run(filepath.Base(filepath.Dir(sc.tree))+"/"+kind, func(t *testing.T) {
				p := pkgbuild.Write(t, "pkg_1.0-"+kind, build(t, files))
				code, out, stderr := run(t, append(args, p)...)
				if code != ExitFindings {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				if got := reportWithoutInputs(t, out); got != want {
					t.Errorf("report differs from the folder's:\n%s\nwant:\n%s", got, want)
				}
				if in := checkedInputs(t, out); len(in) != 1 || in[0] != "pkg_1.0-"+kind {
					t.Errorf("inputs %q, want the package's file name", in)
				}
			})
		}
	}
}

// Several packages overlay in the order given, like device wheels: the
// host binaries in one package and the archives in others give the
// folder's findings.
func TestCheckPackagesOverlaid(t *testing.T) {
	policy := filepath.Join(scenario("seed-fft-asan"), "policies.yaml")
	tree := filepath.Join(scenario("seed-fft-asan"), "tree")
	args := []string{"check", "--policy", policy, "--variant", "asan", "--format", "json"}
	_, want, _ := run(t, append(args, tree)...)
	var host, arch, arch2 []pkgbuild.File
	for _, f := range pkgbuild.FromTree(t, tree) {
		switch {
		case strings.HasPrefix(f.Path, "bin"):
			host = append(host, f)
		case strings.HasSuffix(f.Path, "xnack+.kpack"):
			arch2 = append(arch2, f)
		default:
			arch = append(arch, f)
		}
	}
	dir := t.TempDir()
	inputs := []string{
		filepath.Join(dir, "rocfft_1.0_amd64.deb"), filepath.Join(dir, "rocfft-gfx950-1.0-1.x86_64.rpm"), filepath.Join(dir, "rocfft-gfx950-xnack_1.0_amd64.deb"),
	}
	for i, data := range [][]byte{pkgbuild.Deb(t, "xz", host), pkgbuild.RPM(t, "zstd", arch), pkgbuild.Deb(t, "gz", arch2)} {
		if err := os.WriteFile(inputs[i], data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, stderr := run(t, append(args, inputs...)...)
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got, want := reportWithoutInputs(t, out), reportWithoutInputs(t, want); got != want {
		t.Errorf("overlaid packages report differs from the folder's:\n%s\nwant:\n%s", got, want)
	}
	// Each archive is located in the package that holds it.
	for _, want := range []string{`"input": 1,\s+"path": "\.kpack/fft_test_gfx950\.kpack"`,
		`"input": 2,\s+"path": "\.kpack/fft_test_gfx950:xnack\+\.kpack"`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("report lacks %s", want)
		}
	}
	if in := checkedInputs(t, out); strings.Join(in, " ") != "rocfft_1.0_amd64.deb rocfft-gfx950-1.0-1.x86_64.rpm rocfft-gfx950-xnack_1.0_amd64.deb" {
		t.Errorf("inputs %q", in)
	}
}

// A .deb or .rpm that is not one (bad magic, truncated) is exit 2 naming
// the input and what is wrong, like a bad tarball.
func TestCheckBadPackage(t *testing.T) {
	files := pkgbuild.FromTree(t, filepath.Join(scenario("seed-fft-asan"), "tree"))
	deb := pkgbuild.Deb(t, "xz", files)
	rpm := pkgbuild.RPM(t, "xz", files)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"fft_1.0_amd64.deb", []byte("<html>404</html>"), "fft_1.0_amd64.deb: not a Debian package: no ar archive magic"},
		{"fft_1.0_amd64.deb", deb[:len(deb)/2], "fft_1.0_amd64.deb: truncated Debian package: ar member \"data.tar.xz\" declares"},
		{"fft-1.0-1.x86_64.rpm", []byte("<html>404</html>"), "fft-1.0-1.x86_64.rpm: not an rpm package: no lead magic"},
		{"fft-1.0-1.x86_64.rpm", rpm[:len(rpm)-64], "fft-1.0-1.x86_64.rpm: payload of test-1.0-1: bad cpio.xz"},
		{"fft-1.0-1.x86_64.rpm", rpm[:200], "fft-1.0-1.x86_64.rpm: truncated rpm package: the signature header at offset 96 declares"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			p := pkgbuild.Write(t, tc.name, tc.data)
			code, _, stderr := run(t, "check", "--target", "gfx950", p)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "(rebuild or re-download the package)") {
				t.Fatalf("exit %d, stderr %q\nwant %q", code, stderr, tc.want)
			}
		})
	}
}

// A member climbing out of the package root is a KPL005 finding naming
// the package and the member; the rest is still checked.
func TestCheckPackageMemberRefused(t *testing.T) {
	files := append(pkgbuild.FromTree(t, filepath.Join(scenario("seed-fft-asan"), "tree")), pkgbuild.Reg("../../etc/cron.d/evil", []byte("x")))
	for name, data := range map[string][]byte{"evil_1.0_amd64.deb": pkgbuild.Deb(t, "gz", files), "evil-1.0-1.x86_64.rpm": pkgbuild.RPM(t, "gzip", files)} {
		p := pkgbuild.Write(t, name, data)
		code, out, stderr := run(t, "check", "--target", "gfx950", p)
		if code != ExitFindings || !strings.Contains(out, "KPL005") || !strings.Contains(out, name+`: entry "`) ||
			!strings.Contains(out, `/../../etc/cron.d/evil": member path climbs out of the archive root`) {
			t.Errorf("%s: exit %d\n%s%s", name, code, out, stderr)
		}
	}
}

// A policies.yaml next to a package is refused as next to a wheel: the
// package's folder is the build's; --policy reads it.
func TestCheckPackagePolicyDiscovery(t *testing.T) {
	dir := t.TempDir()
	seed := scenario("seed-fft-asan")
	pol, err := os.ReadFile(filepath.Join(seed, "policies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	polFile := filepath.Join(dir, "policies.yaml")
	os.WriteFile(polFile, pol, 0o644)
	p := filepath.Join(dir, "fft_1.0_amd64.deb")
	os.WriteFile(p, pkgbuild.Deb(t, "xz", pkgbuild.FromTree(t, filepath.Join(seed, "tree"))), 0o644)
	code, out, stderr := run(t, "check", "--variant", "asan", "--format", "json", p)
	if want := "kpack-lint: " + polFile + " is next to the input " + p + ": "; code != ExitUsage || !strings.HasPrefix(stderr, want) {
		t.Fatalf("exit %d, want 2 and %q\n%s%s", code, want, out, stderr)
	}
	code, out, stderr = run(t, "check", "--policy", polFile, "--variant", "asan", "--format", "json", p)
	if code != ExitFindings || !strings.Contains(out, `"variant": "asan"`) || !strings.Contains(out, `policies.yaml"`) {
		t.Fatalf("--policy: exit %d\n%s%s", code, out, stderr)
	}
}

// A package built by Debian's dpkg-deb checks like the folder it was
// built from (skipped where dpkg-deb is absent).
func TestCheckDpkgDebPackage(t *testing.T) {
	dpkg, err := exec.LookPath("dpkg-deb")
	if err != nil {
		t.Skip("dpkg-deb not installed")
	}
	seed := scenario("seed-fft-asan")
	args := []string{"check", "--policy", filepath.Join(seed, "policies.yaml"), "--variant", "asan", "--format", "json"}
	_, want, _ := run(t, append(args, filepath.Join(seed, "tree"))...)
	root := t.TempDir()
	for _, f := range pkgbuild.FromTree(t, filepath.Join(seed, "tree")) {
		p := filepath.Join(root, "opt/rocm", filepath.FromSlash(f.Path))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if !f.Dir {
			os.WriteFile(p, f.Data, 0o644)
		}
	}
	os.MkdirAll(filepath.Join(root, "DEBIAN"), 0o755)
	os.WriteFile(filepath.Join(root, "DEBIAN/control"), []byte("Package: rocfft-test\nVersion: 1.0\nArchitecture: amd64\nMaintainer: t <t@example.org>\nDescription: test\n"), 0o644)
	p := filepath.Join(t.TempDir(), "rocfft-test_1.0_amd64.deb")
	if out, err := exec.Command(dpkg, "--root-owner-group", "-Zxz", "--build", root, p).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb: %v\n%s", err, out)
	}
	code, out, stderr := run(t, append(args, p)...)
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The package installs under opt/rocm: the same findings, paths (and
	// so fingerprints) one level down.
	got := fingerprint.ReplaceAllString(strings.ReplaceAll(reportWithoutInputs(t, out), "opt/rocm/", ""), "")
	if w := fingerprint.ReplaceAllString(reportWithoutInputs(t, want), ""); got != w {
		t.Errorf("dpkg-deb package report differs:\n%s\nwant:\n%s", got, w)
	}
}
