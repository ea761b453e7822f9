// Package version says which kpack-lint this is: the release version, the
// commit and the build date. A release build (.goreleaser.yaml) stamps all
// three at link time:
//
//	-ldflags "-X github.com/rocm-tools/kpack-lint/internal/version.version=1.2.3
//	          -X github.com/rocm-tools/kpack-lint/internal/version.commit=<sha>
//	          -X github.com/rocm-tools/kpack-lint/internal/version.date=<RFC 3339>"
//
// Any other build falls back to what the Go toolchain recorded
// (runtime/debug.ReadBuildInfo): the module version of `go install
// ...@v1.2.3` (or its pseudo-version), and for `go build` inside a git
// clone the settings vcs.revision, vcs.time and vcs.modified. Go records
// no VCS settings with -buildvcs=false, in a git worktree (cmd/go stamps
// only where .git is a directory) or in a test binary.
package version

import (
	"runtime/debug"
	"strings"
)

// Dev is the version of a build that carries neither a stamped nor a
// module version (go build, go run, go test).
const Dev = "0.1.0-dev"

// Stamped by -ldflags -X (strings only); empty when not stamped.
var (
	version string
	commit  string
	date    string
)

// Info is what one build knows about itself. Empty fields are unknown.
type Info struct {
	Version  string // "1.2.3" (no leading v), a pseudo-version, or Dev
	Commit   string // full commit hash
	Date     string // commit (vcs.time) or build (release) time, RFC 3339
	Modified bool   // built from a work tree with uncommitted changes
}

// Get returns this binary's Info: the stamped values, each missing one
// filled from the build info the Go toolchain embedded.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(version, commit, date, bi)
}

// resolve merges the stamped values with bi (nil when the binary carries
// none): a stamped value wins, then bi's module version and VCS settings,
// then Dev for the version.
func resolve(version, commit, date string, bi *debug.BuildInfo) Info {
	in := Info{Version: strings.TrimPrefix(version, "v"), Commit: commit, Date: date}
	if bi != nil {
		if v := bi.Main.Version; in.Version == "" && v != "" && v != "(devel)" {
			in.Version = strings.TrimPrefix(v, "v")
		}
		stamped := commit != ""
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if !stamped {
					in.Commit = s.Value
				}
			case "vcs.time":
				if in.Date == "" {
					in.Date = s.Value
				}
			case "vcs.modified":
				in.Modified = !stamped && s.Value == "true"
			}
		}
	}
	if in.Version == "" {
		in.Version = Dev
	}
	return in
}

// Version returns the version reports carry ("1.2.3", a pseudo-version,
// or Dev): no commit, so a report's tool version stays the same across
// rebuilds of one release.
func Version() string { return Get().Version }

// String returns the --version text:
// "1.2.3 (commit 0123abcd..., 2026-01-02T03:04:05Z)", with ", modified"
// after the commit when the work tree had uncommitted changes, and the
// version alone when nothing else is known.
func (in Info) String() string {
	var extra []string
	if in.Commit != "" {
		c := "commit " + in.Commit
		if in.Modified {
			c += ", modified"
		}
		extra = append(extra, c)
	}
	if in.Date != "" {
		extra = append(extra, in.Date)
	}
	if len(extra) == 0 {
		return in.Version
	}
	return in.Version + " (" + strings.Join(extra, ", ") + ")"
}
