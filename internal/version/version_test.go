package version

import (
	"runtime/debug"
	"testing"
)

func buildInfo(mainVersion string, settings ...string) *debug.BuildInfo {
	bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/rocm-tools/kpack-lint", Version: mainVersion}}
	for i := 0; i+1 < len(settings); i += 2 {
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
	}
	return bi
}

const rev = "c51771478e680fb83cd3584b91707371358819c4"

func TestResolve(t *testing.T) {
	tests := []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  Info
		wantString            string
	}{
		{"no build info", "", "", "", nil,
			Info{Version: Dev}, Dev},
		{"go run / go test: (devel), no VCS", "", "", "", buildInfo("(devel)"),
			Info{Version: Dev}, Dev},
		{"go build in a clean clone", "", "", "", buildInfo("v0.0.0-20261201201043-c51771478e68", "vcs", "git", "vcs.revision", rev, "vcs.time", "2026-12-01T20:10:43Z", "vcs.modified", "false"),
			Info{Version: "0.0.0-20261201201043-c51771478e68", Commit: rev, Date: "2026-12-01T20:10:43Z"},
			"0.0.0-20261201201043-c51771478e68 (commit " + rev + ", 2026-12-01T20:10:43Z)"},
		{"go build with uncommitted changes, -buildvcs on but no module version", "", "", "", buildInfo("(devel)", "vcs.revision", rev, "vcs.time", "2026-12-01T20:10:43Z", "vcs.modified", "true"),
			Info{Version: Dev, Commit: rev, Date: "2026-12-01T20:10:43Z", Modified: true},
			Dev + " (commit " + rev + ", modified, 2026-12-01T20:10:43Z)"},
		{"go install ...@v1.2.3 (module mode: no VCS settings)", "", "", "", buildInfo("v1.2.3"),
			Info{Version: "1.2.3"}, "1.2.3"},
		{"release build: stamped values win", "1.2.3", rev, "2026-12-02T00:00:00Z", buildInfo("(devel)", "vcs.revision", "ffff", "vcs.time", "2020-01-01T00:00:00Z", "vcs.modified", "true"),
			Info{Version: "1.2.3", Commit: rev, Date: "2026-12-02T00:00:00Z"},
			"1.2.3 (commit " + rev + ", 2026-12-02T00:00:00Z)"},
		{"stamped v-prefixed version", "v2.0.0", "", "", nil,
			Info{Version: "2.0.0"}, "2.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolve(tt.version, tt.commit, tt.date, tt.bi)
			if got != tt.want {
				t.Errorf("resolve = %+v, want %+v", got, tt.want)
			}
			if s := got.String(); s != tt.wantString {
				t.Errorf("String = %q, want %q", s, tt.wantString)
			}
		})
	}
}

// A test binary carries no VCS settings and no module version, so the
// golden reports keep Dev.
func TestVersionInTests(t *testing.T) {
	if v := Version(); v != Dev {
		t.Errorf("Version() = %q in a test binary, want %q", v, Dev)
	}
}
