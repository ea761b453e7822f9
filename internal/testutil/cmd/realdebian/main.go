// Command realdebian checks kpack-lint against real ROCm binaries nobody
// here wrote: the Debian 12 packages pinned in
// testdata/real-debian/packages.json (librocrand1, librocsparse0) are
// downloaded with apt-get download and checked by size and sha256, linted
// in place as .deb inputs and, where dpkg-deb is present, as the folders
// dpkg-deb -x makes of them; every wrapper x agent verdict of each JSON
// report is compared with the ground truth LLVM's tools wrote
// (testdata/real-debian/*.gt.json, see its README); on the folders,
// check --hip with Debian 12's HIP 5.2.3 (hip.json) must report the
// process aborting for every failing verdict, and a machine of a device
// with code and one without must abort on every device with it and fail
// only the one without code with the newest HIP (hip.go); check --deep
// must find every embedded code object consistent with its entry ID (no
// KPL009, as llvm-readelf found them) and the one entry of a mutated copy
// of librocrand that says gfx1100 under the gfx1030 ID (deep.go). It
// needs neither LLVM nor Python. .ci/run runs it.
//
// With -debian 13 it checks Debian 13's packages instead
// (testdata/real-debian-13, trixie.go): in place and extracted, plain and
// --deep, HIP, KPL009 and rocBLAS kernel-database verdicts.
//
// It prints its figures and exits 1 on a disagreement, a size or sha256
// mismatch or a failing kpack-lint run; 0 with "skipped: why" where
// apt-get is missing or cannot download the packages (exit 1 then with
// KPACK_LINT_REAL_DEBIAN=required).
//
//	go run ./internal/testutil/cmd/realdebian -bin KPACK_LINT [-debian 12|13] [-data DIR] [-dir CACHE] [-tree=false]
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "", "kpack-lint binary to check (required)")
	debian := flag.Int("debian", 12, "the Debian release whose packages are checked: 12 (bookworm) or 13 (trixie)")
	data := flag.String("data", "", "folder of packages.json and the ground truth (default testdata/real-debian, or testdata/real-debian-13)")
	dir := flag.String("dir", "", "folder the packages are downloaded into (kept between runs) and extracted under (removed after); default $TMPDIR/kpack-lint-real-debian, or $TMPDIR/kpack-lint-real-debian-13")
	tree := flag.Bool("tree", true, "also check the packages extracted by dpkg-deb -x (Debian 12)")
	flag.Parse()
	if *bin == "" || flag.NArg() != 0 || (*debian != 12 && *debian != 13) {
		fmt.Fprintln(os.Stderr, "usage: realdebian -bin KPACK_LINT [-debian 12|13] [-data DIR] [-dir CACHE] [-tree=false]")
		os.Exit(2)
	}
	name, folder := "real-debian", "testdata/real-debian"
	if *debian == 13 {
		name, folder = "real-debian-13", "testdata/real-debian-13"
	}
	if *data == "" {
		*data = folder
	}
	if *dir == "" {
		*dir = filepath.Join(os.TempDir(), "kpack-lint-"+name)
	}
	var err error
	if *debian == 13 {
		err = runTrixie(*bin, *data, *dir)
	} else {
		err = run(*bin, *data, *dir, *tree)
	}
	var skip skipError
	switch {
	case errors.As(err, &skip) && os.Getenv("KPACK_LINT_REAL_DEBIAN") != "required":
		fmt.Printf("%s: skipped: %v\n", name, err)
	case err != nil:
		fmt.Fprintf(os.Stderr, "%s: FAILED: %v\n", name, err)
		os.Exit(1)
	}
}

// skipError is a reason to skip the check: no apt-get, no download.
type skipError struct{ why string }

func (s skipError) Error() string { return s.why }

// total sums the comparisons of every run.
type total struct {
	runs, verdicts, agreed int
}

func run(bin, data, dir string, tree bool) error {
	pkgs, truths, err := loadData(data)
	if err != nil {
		return err
	}
	pin, err := loadHIP(data)
	if err != nil {
		return err
	}
	bin, err = filepath.Abs(bin)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := download(pkgs, dir); err != nil {
		return err
	}
	policy := filepath.Join(data, "policy.yaml")
	var sum total
	var debs []string
	for _, p := range pkgs {
		debs = append(debs, filepath.Join(dir, p.File))
	}
	if err := checkRun(bin, policy, "all", debs, "in place", truths, &sum); err != nil {
		return err
	}
	if tree {
		if err := checkTrees(bin, policy, pkgs, truths, pin, dir, &sum); err != nil {
			return err
		}
	}
	fmt.Printf("real-debian: %d packages, %d bundles, %d entries: %d wrapper x agent verdicts compared in %d runs, %d agreed\n",
		len(pkgs), bundles(truths), entries(truths), sum.verdicts, sum.runs, sum.agreed)
	return nil
}

// checkTrees checks the folders dpkg-deb -x makes of the packages with
// every variant of the policy, with the pinned HIP release (hip.go), on
// a machine and with --deep.
func checkTrees(bin, policy string, pkgs []Package, truths []Truth, pin HIPPin, dir string, sum *total) error {
	root, roots, err := extract(pkgs, truths, dir)
	if root != "" {
		defer os.RemoveAll(root)
	}
	if err != nil || roots == nil {
		return err
	}
	for _, v := range []string{"release", "wide", "all"} {
		if err := checkRun(bin, policy, v, roots, "extracted", truths, sum); err != nil {
			return err
		}
	}
	if err := checkHIP(bin, policy, pin, roots, truths, sum); err != nil {
		return err
	}
	if err := checkMachine(bin, pin, roots, truths); err != nil {
		return err
	}
	return checkDeep(bin, policy, roots, truths, root, sum)
}

// download fetches the packages not yet in dir with apt-get download
// (into a folder of its own, then moved in, so that runs sharing dir never
// see a partial file) and checks every file's size and sha256.
func download(pkgs []Package, dir string) error {
	var missing []string
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, p.File)); err != nil {
			missing = append(missing, p.Package+"="+p.Version)
		}
	}
	start := time.Now()
	if len(missing) > 0 {
		if err := fetch(pkgs, missing, dir); err != nil {
			return err
		}
	}
	took := time.Since(start)
	for _, p := range pkgs {
		how := "cached"
		if contains(missing, p.Package+"="+p.Version) {
			how = "downloaded"
		}
		if err := checkFile(filepath.Join(dir, p.File), p.Size, p.SHA256); err != nil {
			return err
		}
		fmt.Printf("real-debian: %s %s: %s, %d bytes, sha256 %s..., %s\n", p.Package, p.Version, p.File, p.Size, p.SHA256[:12], how)
	}
	if len(missing) > 0 {
		fmt.Printf("real-debian: download: %.1f s\n", took.Seconds())
	}
	return nil
}

// fetch runs apt-get download for the missing name=version pins in a new
// folder under dir and moves the files it got into dir.
func fetch(pkgs []Package, missing []string, dir string) error {
	if _, err := exec.LookPath("apt-get"); err != nil {
		return skipError{"apt-get not found (not a Debian system): the pinned Debian 12 packages cannot be downloaded"}
	}
	tmp, err := os.MkdirTemp(dir, "download-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	args := append([]string{"download"}, missing...)
	if out, err := apt(tmp, args...); err != nil {
		// A fresh machine may have no package lists yet.
		if _, uerr := apt(tmp, "update", "-qq"); uerr == nil {
			out, err = apt(tmp, args...)
		}
		if err != nil {
			return skipError{fmt.Sprintf("apt-get download %s failed: %v: %s", strings.Join(missing, " "), err, lastLines(out, 3))}
		}
	}
	for _, p := range pkgs {
		if !contains(missing, p.Package+"="+p.Version) {
			continue
		}
		if err := os.Rename(filepath.Join(tmp, p.File), filepath.Join(dir, p.File)); err != nil {
			return fmt.Errorf("apt-get download %s=%s: %w", p.Package, p.Version, err)
		}
	}
	return nil
}

func apt(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("apt-get", args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// checkFile checks a file's size and SHA-256 (hex).
func checkFile(path string, size int64, sum string) error {
	got, n, err := sha256File(path)
	if err != nil {
		return err
	}
	if n != size || got != sum {
		return fmt.Errorf("%s: %d bytes, sha256 %s; want %d bytes, sha256 %s (pinned in packages.json; delete the file to download it again)", path, n, got, size, sum)
	}
	return nil
}

func sha256File(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// extract unpacks each package with dpkg-deb -x into a new folder under
// dir, root/<package>, and checks each library against the ground truth's
// sha256. It returns root and the package folders, or "" and nil where
// dpkg-deb is missing; the caller removes root.
func extract(pkgs []Package, truths []Truth, dir string) (string, []string, error) {
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		fmt.Println("real-debian: dpkg-deb not found: the extracted folders are not checked")
		return "", nil, nil
	}
	start := time.Now()
	root, err := os.MkdirTemp(dir, "x-")
	if err != nil {
		return "", nil, err
	}
	var folders []string
	byPackage := map[string]string{}
	for _, p := range pkgs {
		f := filepath.Join(root, p.Package)
		folders = append(folders, f)
		byPackage[p.Package] = f
		if out, err := exec.Command("dpkg-deb", "-x", filepath.Join(dir, p.File), f).CombinedOutput(); err != nil {
			return root, nil, fmt.Errorf("dpkg-deb -x %s: %v: %s", p.File, err, lastLines(out, 3))
		}
	}
	for _, t := range truths {
		if err := checkFile(filepath.Join(byPackage[t.Package], filepath.FromSlash(t.Binary)), t.Size, t.SHA256); err != nil {
			return root, nil, fmt.Errorf("the ground truth's library: %w", err)
		}
	}
	fmt.Printf("real-debian: dpkg-deb -x and the libraries' sha256: %.1f s\n", time.Since(start).Seconds())
	return root, folders, nil
}

// checkRun runs kpack-lint check with a variant of the policy on inputs,
// compares its JSON report with the ground truth and prints the figures.
func checkRun(bin, policy, variant string, inputs []string, how string, truths []Truth, sum *total) error {
	args := append([]string{"check", "--policy", policy, "--variant", variant, "--format", "json", "--fail-on", "none"}, inputs...)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return fmt.Errorf("kpack-lint %s: %v: %s", strings.Join(args, " "), err, lastLines(stderr.Bytes(), 5))
	}
	var rep Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return fmt.Errorf("kpack-lint %s: the JSON report does not read: %v", strings.Join(args, " "), err)
	}
	res, err := Compare(truths, rep)
	if err != nil {
		return err
	}
	var names []string
	for _, in := range inputs {
		names = append(names, filepath.Base(in))
	}
	fmt.Printf("real-debian: check --variant %s %s (%s): %.2f s; %d bundles, %d entries, %d agents: %d wrapper x agent verdicts, %d agreed (LLVM: %d failing loads; kpack-lint KPL001: %d)\n",
		variant, strings.Join(names, " "), how, took.Seconds(), res.Bundles, res.Entries, res.Agents, res.Verdicts, res.Agreed, res.ExpectedFailures, res.Reported)
	sum.runs++
	sum.verdicts += res.Verdicts
	sum.agreed += res.Agreed
	if len(res.Missed)+len(res.Extra) == 0 && res.Agents > 0 {
		return nil
	}
	for i, v := range res.Missed {
		if i == 20 {
			fmt.Printf("  ... and %d more missed\n", len(res.Missed)-20)
			break
		}
		fmt.Printf("  MISSED (LLVM: no compatible entry; kpack-lint: loads) %v\n", v)
	}
	for i, v := range res.Extra {
		if i == 20 {
			fmt.Printf("  ... and %d more extra\n", len(res.Extra)-20)
			break
		}
		fmt.Printf("  EXTRA (LLVM: a compatible entry; kpack-lint: KPL001) %v\n", v)
	}
	return fmt.Errorf("check --variant %s (%s): %d of %d verdicts disagree with LLVM's (%d agents)", variant, how, res.Verdicts-res.Agreed, res.Verdicts, res.Agents)
}

func bundles(ts []Truth) int {
	n := 0
	for _, t := range ts {
		n += len(t.Wrappers)
	}
	return n
}

func entries(ts []Truth) int {
	n := 0
	for _, t := range ts {
		for _, w := range t.Wrappers {
			n += len(w.Entries)
		}
	}
	return n
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// lastLines is the last n lines of out, for error messages.
func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " / ")
}
