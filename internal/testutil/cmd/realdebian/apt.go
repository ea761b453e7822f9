package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Downloads of the Debian 13 suite: the pins are trixie's, a Debian 12
// machine's apt knows bookworm only, so apt-get runs with a private state
// under the cache folder (APT_CONFIG: its own lists, cache and sources,
// the system's dpkg status read only) whose one source is trixie main on
// the mirror the system's own sources name. Nothing of the system's apt
// configuration is changed.

// trixieKeyring is the key trixie's Release file is checked with
// (debian-archive-keyring, on every Debian system).
const trixieKeyring = "/usr/share/keyrings/debian-archive-keyring.gpg"

// downloadTrixie fetches the pins not yet in dir and checks every file's
// size and sha256 (a mismatch fails; no apt-get, no mirror or a failed
// download is a skipError).
func downloadTrixie(pkgs []TrixiePackage, dir string) error {
	var missing []string
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, p.File)); err != nil {
			missing = append(missing, p.Package+"="+p.Version)
		}
	}
	start := time.Now()
	if len(missing) > 0 {
		if err := aptDownload(dir, missing, pkgs); err != nil {
			return err
		}
		fmt.Printf("real-debian-13: download of %s: %.1f s\n", strings.Join(missing, " "), time.Since(start).Seconds())
	}
	start = time.Now()
	for _, p := range pkgs {
		if err := checkFile(filepath.Join(dir, p.File), p.Size, p.SHA256); err != nil {
			return err
		}
		how := "cached"
		if contains(missing, p.Package+"="+p.Version) {
			how = "downloaded"
		}
		fmt.Printf("real-debian-13: %s %s: %s, %d bytes, sha256 %s..., %s\n", p.Package, p.Version, p.File, p.Size, p.SHA256[:12], how)
	}
	fmt.Printf("real-debian-13: sha256 of the packages: %.1f s\n", time.Since(start).Seconds())
	return nil
}

// aptDownload runs apt-get update and apt-get download name=version for
// the missing pins with the private trixie state under dir/apt, in a new
// folder under dir, and moves the files it got into dir.
func aptDownload(dir string, missing []string, pkgs []TrixiePackage) error {
	if _, err := exec.LookPath("apt-get"); err != nil {
		return skipError{"apt-get not found (not a Debian system): the pinned Debian 13 packages cannot be downloaded"}
	}
	uri, err := mirrorURI()
	if err != nil {
		return skipError{err.Error()}
	}
	if _, err := os.Stat(trixieKeyring); err != nil {
		return skipError{trixieKeyring + " not found (apt-get install debian-archive-keyring): trixie's package lists cannot be checked"}
	}
	conf, err := aptState(filepath.Join(dir, "apt"), uri)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(dir, "download-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if out, err := aptWith(conf, tmp, "update", "-qq"); err != nil {
		return skipError{fmt.Sprintf("apt-get update of trixie from %s failed: %v: %s", uri, err, lastLines(out, 3))}
	}
	if out, err := aptWith(conf, tmp, append([]string{"download", "-q"}, missing...)...); err != nil {
		return skipError{fmt.Sprintf("apt-get download %s failed: %v: %s", strings.Join(missing, " "), err, lastLines(out, 3))}
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

// mirrorURI is the first URI the system's apt sources name
// (/etc/apt/sources.list.d/*.sources "URIs:", else a "deb URI ..." line
// of /etc/apt/sources.list).
func mirrorURI() (string, error) {
	files, _ := filepath.Glob("/etc/apt/sources.list.d/*.sources")
	for _, f := range files {
		if u := firstField(f, "URIs:"); u != "" {
			return u, nil
		}
	}
	if u := firstField("/etc/apt/sources.list", "deb"); u != "" {
		return u, nil
	}
	return "", fmt.Errorf("no Debian mirror in the system's apt sources (/etc/apt/sources.list.d/*.sources, /etc/apt/sources.list)")
}

// firstField returns the first URI (a word holding "://") after key on
// the lines of file that start with key ("" when none).
func firstField(file, key string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != key {
			continue
		}
		for _, w := range f[1:] {
			if strings.Contains(w, "://") {
				return w
			}
		}
	}
	return ""
}

// aptState writes the private apt state under dir for trixie main on uri
// and returns its apt.conf.
func aptState(dir, uri string) (string, error) {
	for _, d := range []string{"lists/partial", "cache/archives/partial", "state", "sources"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return "", err
		}
	}
	sources := fmt.Sprintf("Types: deb\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: %s\n", uri, trixieKeyring)
	conf := strings.Join([]string{
		fmt.Sprintf("Dir::State %q;", filepath.Join(dir, "state")),
		fmt.Sprintf("Dir::State::Lists %q;", filepath.Join(dir, "lists")),
		`Dir::State::status "/var/lib/dpkg/status";`,
		fmt.Sprintf("Dir::Cache %q;", filepath.Join(dir, "cache")),
		`Dir::Etc::SourceList "/dev/null";`,
		fmt.Sprintf("Dir::Etc::SourceParts %q;", filepath.Join(dir, "sources")),
		`Dir::Etc::Preferences "/dev/null";`,
		`Dir::Etc::PreferencesParts "/dev/null";`,
		`APT::Architecture "amd64";`,
		`Acquire::Languages "none";`,
	}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "sources", "trixie.sources"), []byte(sources), 0o644); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "apt.conf")
	return path, os.WriteFile(path, []byte(conf), 0o644)
}

func aptWith(conf, dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("apt-get", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "APT_CONFIG="+conf)
	return cmd.CombinedOutput()
}

// extractTrixie unpacks the package with dpkg-deb -x into tree and checks
// each host binary of the ground truth by size and sha256. It returns
// false, with a line saying so, where dpkg-deb is missing.
func extractTrixie(p TrixiePackage, t PackageTruth, deb, tree string) (bool, error) {
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		fmt.Printf("real-debian-13: dpkg-deb not found: %s is not checked extracted\n", p.Package)
		return false, nil
	}
	start := time.Now()
	if out, err := exec.Command("dpkg-deb", "-x", deb, tree).CombinedOutput(); err != nil {
		return false, fmt.Errorf("dpkg-deb -x %s: %v: %s", p.File, err, lastLines(out, 3))
	}
	took := time.Since(start)
	start = time.Now()
	for _, b := range t.Binaries {
		if err := checkFile(filepath.Join(tree, filepath.FromSlash(b.Binary)), b.Size, b.SHA256); err != nil {
			return false, fmt.Errorf("the ground truth's library: %w", err)
		}
	}
	fmt.Printf("real-debian-13: %s: dpkg-deb -x %.1f s, the libraries' sha256 %.1f s\n", p.Package, took.Seconds(), time.Since(start).Seconds())
	return true, nil
}

// timedRun is what runTimed measured of a kpack-lint run: wall time and
// CPU time (user + system).
type timedRun struct {
	wall, cpu time.Duration
}

// runTimed runs kpack-lint, reads its JSON report and measures it.
func runTimed(bin string, args ...string) (Report, timedRun, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	var run timedRun
	run.wall = time.Since(start)
	if cmd.ProcessState != nil {
		run.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var rep Report
	if err != nil {
		return rep, run, fmt.Errorf("kpack-lint %s: %v: %s", strings.Join(args, " "), err, lastLines(stderr.Bytes(), 5))
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return rep, run, fmt.Errorf("kpack-lint %s: the JSON report does not read: %v", strings.Join(args, " "), err)
	}
	return rep, run, nil
}
