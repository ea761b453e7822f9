package lint_test

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/lint"
)

// Every fix a machine finding prints that is an environment setting
// (HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, HSA_OVERRIDE_GFX_VERSION[_<n>],
// unset ...) or a policy change (use HIP newest), applied as its words say
// and checked again, removes the finding: no error remains on the machine
// for the file and the device it was about (its real ISA), which then
// loads its code or is hidden. Build changes (build the module for ...,
// ship the files ...) are not applied.

// envFix reads a fix's settings from its words: KEY=VALUE for the
// machine variables, "unset KEY", "use HIP newest".
type envFix struct {
	set   map[string]string
	unset []string
	hip   string
}

var (
	fixSetting = regexp.MustCompile(`\b(HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|HSA_OVERRIDE_GFX_VERSION(?:_[0-9]+)?)=([0-9A-Za-z.,_-]+)`)
	fixUnset   = regexp.MustCompile(`\bunset (HSA_OVERRIDE_GFX_VERSION(?:_[0-9]+)?|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES)\b`)
	fixHIP     = regexp.MustCompile(`^use HIP (newest)\b|\(--hip (newest)\)`)
)

// readFix returns the fix's settings, ok false for a build change.
func readFix(text string) (envFix, bool) {
	f := envFix{set: map[string]string{}}
	for _, m := range fixUnset.FindAllStringSubmatch(text, -1) {
		f.unset = append(f.unset, m[1])
	}
	for _, m := range fixSetting.FindAllStringSubmatch(text, -1) {
		f.set[m[1]] = strings.TrimRight(m[2], ".,")
	}
	if m := fixHIP.FindStringSubmatch(text); m != nil {
		f.hip = m[1] + m[2]
	}
	return f, len(f.set) > 0 || len(f.unset) > 0 || f.hip != ""
}

// apply returns cfg with the fix applied to its machine environment and
// release.
func (f envFix) apply(cfg lint.Config) lint.Config {
	env := maps.Clone(cfg.MachineEnv)
	if env == nil {
		env = map[string]string{}
	}
	for _, k := range f.unset {
		delete(env, k)
	}
	maps.Copy(env, f.set)
	cfg.MachineEnv = env
	if f.hip != "" {
		cfg.HIP = f.hip
	}
	return cfg
}

// deviceOf is the real ISA of a machine finding's device.
func deviceOf(f finding.Finding) string {
	if f.Machine.RealISA != "" {
		return f.Machine.RealISA
	}
	return f.Machine.DeviceISA
}

// sameIssue reports whether g is an error of f's machine, file and
// device.
func sameIssue(f, g finding.Finding) bool {
	return g.Machine != nil && g.Level == finding.LevelError && g.Machine.Machine == f.Machine.Machine &&
		f.Location.Path == g.Location.Path && deviceOf(f) == deviceOf(g)
}

func TestEveryFixWorks(t *testing.T) {
	apuKpack := kpackTree(t, 2, map[string][]int{"gfx1100": nil})
	pair := kpackTree(t, 2, map[string][]int{"gfx90a": nil, "gfx1100": nil})
	rollback := kpackTree(t, 2, map[string][]int{"gfx942": nil, "gfx1100": {0}})
	gfx10 := kpackTree(t, 2, map[string][]int{"gfx1030": nil, "gfx1200": nil})
	tests := []struct {
		name string
		dir  string
		cfg  lint.Config
		// wantFix must be among the fixes of some finding, noFix among none
		wantFix, noFix string
	}{
		{"TheRock#5543 10.0", scenarioTree("therock-5543-igpu-first"), lint.Config{Machines: []string{"gfx1036,gfx1100"}, HIP: "10.0"}, "HIP_VISIBLE_DEVICES=1", ""},
		{"TheRock#5543 6.2", scenarioTree("therock-5543-igpu-first"), lint.Config{Machines: []string{"gfx1036,gfx1100"}, HIP: "6.2"}, "HIP_VISIBLE_DEVICES=1", ""},
		{"TheRock#5543 5.6", scenarioTree("therock-5543-igpu-first"), lint.Config{Machines: []string{"gfx1036,gfx1100"}, HIP: "5.6"}, "HIP_VISIBLE_DEVICES=1", ""},
		// PR 2622 registers gfx1100's code object on the iGPU; alone the
		// iGPU has no archive, so HIP_VISIBLE_DEVICES=0 is no fix
		{"APU kpack 10.0", apuKpack, lint.Config{Machines: []string{"gfx1036,gfx1100"}, HIP: "10.0"}, "HIP_VISIBLE_DEVICES=1", "HIP_VISIBLE_DEVICES=0"},
		{"gfx90a + gfx1100 10.0", pair, lint.Config{Machines: []string{"gfx90a,gfx1100"}, HIP: "10.0"}, "HIP_VISIBLE_DEVICES=1", ""},
		{"rollback newest", rollback, lint.Config{Machines: []string{"gfx942,gfx1100"}}, "HIP_VISIBLE_DEVICES=0", ""},
		{"pytorch#164346", scenarioTree("pytorch-164346-gfx1151-override"), lint.Config{Machines: []string{"gfx1151"}}, "HSA_OVERRIDE_GFX_VERSION=11.0.0", ""},
		{"rocm-jax#389", scenarioTree("rocm-jax-389-gfx906-gfx908"), lint.Config{Machines: []string{"gfx906,gfx908"}, HIP: "7.2"}, "HIP_VISIBLE_DEVICES=1", ""},
		{"cross-generation override 6.4", gfx10, lint.Config{Machines: []string{"gfx1200,gfx1032"}, HIP: "6.4", MachineEnv: map[string]string{"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}},
			"HSA_OVERRIDE_GFX_VERSION_2=10.3.0", ""},
		{"cross-generation override 7.13", gfx10, lint.Config{Machines: []string{"gfx1200,gfx1032"}, HIP: "7.13", MachineEnv: map[string]string{"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}},
			"HSA_OVERRIDE_GFX_VERSION_2=10.3.0", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := runCheck(t, tt.cfg, tt.dir)
			var offered []string
			checked := 0
			for _, f := range fs {
				if f.Machine == nil || f.Machine.Machine == "" {
					continue
				}
				for _, text := range f.Machine.Fixes {
					offered = append(offered, text)
					fix, ok := readFix(text)
					if !ok {
						continue
					}
					checked++
					for _, g := range runCheck(t, fix.apply(tt.cfg), tt.dir) {
						if sameIssue(f, g) {
							t.Errorf("fix %q of %s %q leaves %s", text, f.RuleID, f.Message, g.Message)
						}
					}
				}
			}
			t.Logf("fixes: %q", offered)
			if checked == 0 {
				t.Fatalf("no environment or policy fix among %q", offered)
			}
			if !slices.ContainsFunc(offered, func(s string) bool { return strings.Contains(s, tt.wantFix) }) {
				t.Errorf("no fix with %s among %q", tt.wantFix, offered)
			}
			if tt.noFix != "" && slices.ContainsFunc(offered, func(s string) bool { return strings.Contains(s, tt.noFix) }) {
				t.Errorf("a fix with %s, which does not work, among %q", tt.noFix, offered)
			}
		})
	}
}
