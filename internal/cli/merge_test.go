package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocm-tools/kpack-lint/report"
)

// Merging the shards' JSON or SARIF reports writes, in every format, the
// bytes one unsharded check writes: waivers (with their dates), file sizes
// and explain commands survive either way, and merge --baseline gives the
// baseline states check --baseline gives.
func TestMergeAcrossFormats(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(testdata, "example")
	base := filepath.Join(dir, "base.sarif")
	run(t, "check", "--policy", "../../policies.yaml", "--variant", "release", "-q", "-o", base, ex)
	waivers := writeFile(t, filepath.Join(dir, "w.yaml"), "- {rule: KPL003, group: fft_test, reason: known, expires: 2999-01-01}\n"+
		"- {rule: KPL004, group: fft_test, reason: old, expires: 2000-01-01}\n- {group: torch, reason: unused}\n")
	db := filepath.Join(testdata, "kerneldb", "therock-5179")
	for name, args := range map[string][]string{
		"gate": {"--policy", "../../policies.yaml", "--variant", "asan", "--baseline", base, "--waivers", waivers, "--path-prefix", "build/dist", "--today", "2026-01-01", ex},
		"deep": {"--policy", "../../policies.yaml", "--variant", "release", "--deep", ex},
		"db":   {"--policy", filepath.Join(db, "policies.yaml"), filepath.Join(db, "tree")},
	} {
		check := func(extra ...string) { run(t, append(append([]string{"check"}, extra...), args...)...) }
		for _, f := range report.Formats() {
			check("-q", "-o", f+"="+filepath.Join(dir, name+".full."+f))
		}
		for _, in := range []string{"json", "sarif"} {
			for _, s := range []string{"1", "2"} {
				check("--shard", s+"/2", "-q", "-o", in+"="+filepath.Join(dir, name+".s"+s+"."+in))
			}
			for _, out := range report.Formats() {
				got := filepath.Join(dir, name+".m-"+in+"."+out)
				margs := append([]string{"merge", "-q", "-o", out + "=" + got}, mergeFlags(args)...)
				if name == "gate" {
					margs = append(margs, "--baseline", base)
				}
				if code, _, stderr := run(t, append(margs, filepath.Join(dir, name+".s1."+in), filepath.Join(dir, name+".s2."+in))...); code == ExitUsage {
					t.Fatalf("%s: merge %s -> %s: %s", name, in, out, stderr)
				}
				a, _ := os.ReadFile(got)
				b, _ := os.ReadFile(filepath.Join(dir, name+".full."+out))
				if string(a) != string(b) || len(a) == 0 {
					t.Errorf("%s: %s shards merged to %s differ from the unsharded report (%d and %d bytes)", name, in, out, len(a), len(b))
				}
			}
		}
	}
}
