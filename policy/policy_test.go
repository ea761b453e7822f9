package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

const theRockPolicy = `version: 1
loader: legacy
variants:
  release:
    targets: [gfx90a, gfx942, gfx950, gfx1100]
  asan:
    targets: [gfx90a, gfx942, gfx950, gfx1100]
    transform:
      - {match: "^(gfx90a|gfx942|gfx950)$", replace: "${1}:xnack+"}
    agents:
      "gfx950:xnack+": ["gfx950:sramecc+:xnack+"]
    arch_list:
      gfx942: []
      gfx950: ["gfx9-4-generic:xnack+", gfx9-4-generic]
groups:
  fft_test:
    owners:
      rocfft: ["bin/rocfft*", "lib/librocfft.so*"]
      hipfft: ["lib/**"]
  blas:
rules:
  KPL001: {level: error}
  KPL004: {level: off}
  KPL006: {level: note}
env:
  ROCM_KPACK_PATH_PREFIX: opt/kpack
`

func mustParse(t *testing.T, s string) *Policy {
	t.Helper()
	p, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

func TestParseTheRock(t *testing.T) {
	p := mustParse(t, theRockPolicy)
	if p.Version != 1 || p.Loader != "legacy" || p.LoaderOrDefault() != finding.Legacy {
		t.Errorf("version %d loader %q default %q", p.Version, p.Loader, p.LoaderOrDefault())
	}
	if p.Path != "" {
		t.Errorf("Path = %q for Parse", p.Path)
	}
	if got := p.VariantNames(); !reflect.DeepEqual(got, []string{"asan", "release"}) {
		t.Errorf("VariantNames = %q", got)
	}

	in := []string{"gfx90a", "gfx942", "gfx950", "gfx1100"}
	asan, name, err := p.Variant("asan")
	if err != nil || name != "asan" {
		t.Fatalf("Variant(asan) = %q, %v", name, err)
	}
	if got, want := asan.Apply(asan.Targets), []string{"gfx90a:xnack+", "gfx942:xnack+", "gfx950:xnack+", "gfx1100"}; !reflect.DeepEqual(got, want) {
		t.Errorf("asan Apply = %q, want %q", got, want)
	}
	if got, want := asan.Apply(in), []string{"gfx90a:xnack+", "gfx942:xnack+", "gfx950:xnack+", "gfx1100"}; !reflect.DeepEqual(got, want) {
		t.Errorf("asan Apply = %q, want %q", got, want)
	}
	// The regex is anchored: already-featured or longer names stay.
	if got, want := asan.Apply([]string{"gfx90a:xnack-", "gfx9500", "gfx942", "xgfx942"}), []string{"gfx90a:xnack-", "gfx9500", "gfx942:xnack+", "xgfx942"}; !reflect.DeepEqual(got, want) {
		t.Errorf("asan Apply anchored = %q, want %q", got, want)
	}
	if !reflect.DeepEqual(in, []string{"gfx90a", "gfx942", "gfx950", "gfx1100"}) {
		t.Errorf("Apply modified its input: %q", in)
	}
	if got := asan.Apply(nil); len(got) != 0 {
		t.Errorf("Apply(nil) = %q", got)
	}
	if got, want := asan.Agents, map[string][]string{"gfx950:xnack+": {"gfx950:sramecc+:xnack+"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Agents = %v", got)
	}
	if got, want := asan.ArchList, map[string][]string{"gfx942": {}, "gfx950": {"gfx9-4-generic:xnack+", "gfx9-4-generic"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("ArchList = %v", got)
	}

	rel, name, err := p.Variant("")
	if err != nil || name != "release" {
		t.Fatalf("Variant(\"\") = %q, %v; want release", name, err)
	}
	if got := rel.Apply(in); !reflect.DeepEqual(got, in) {
		t.Errorf("release Apply = %q", got)
	}
	if rel != p.Variants["release"] {
		t.Error("Variant(\"\") did not return the release variant")
	}

	if got := p.RuleLevel("KPL001"); got != "error" {
		t.Errorf("RuleLevel(KPL001) = %q", got)
	}
	if got := p.RuleLevel("KPL004"); got != "none" {
		t.Errorf("RuleLevel(KPL004 off) = %q, want none", got)
	}
	if got := p.RuleLevel("KPL006"); got != "note" {
		t.Errorf("RuleLevel(KPL006) = %q", got)
	}
	if got := p.RuleLevel("KPL999"); got != "" {
		t.Errorf("RuleLevel(unset) = %q", got)
	}

	if got, want := p.Owners("fft_test"), map[string][]string{
		"rocfft": {"bin/rocfft*", "lib/librocfft.so*"},
		"hipfft": {"lib/**"},
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("Owners(fft_test) = %v", got)
	}
	if got := p.Owners("blas"); got != nil {
		t.Errorf("Owners(blas: null) = %v", got)
	}
	if got := p.Owners("nope"); got != nil {
		t.Errorf("Owners(nope) = %v", got)
	}
	if got := p.Env["ROCM_KPACK_PATH_PREFIX"]; got != "opt/kpack" {
		t.Errorf("Env = %v", p.Env)
	}
}

// Several transforms run in order, each on the previous result.
func TestApplyChained(t *testing.T) {
	p := mustParse(t, `variants:
  tsan:
    transform:
      - {match: "^(gfx9[0-9a-f]+)$", replace: "${1}:xnack+"}
      - {match: "^gfx942:(.*)$", replace: "gfx942:sramecc+:${1}"}
`)
	v, name, err := p.Variant("")
	if err != nil || name != "tsan" {
		t.Fatalf("Variant(\"\") = %q, %v; want the single variant tsan", name, err)
	}
	got := v.Apply([]string{"gfx942", "gfx90a", "gfx1100"})
	want := []string{"gfx942:sramecc+:xnack+", "gfx90a:xnack+", "gfx1100"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Apply = %q, want %q", got, want)
	}

	// A hand-built Variant (no compiled regex) still applies; a bad
	// pattern is skipped.
	hb := &Variant{Transform: []Rewrite{{Match: "(", Replace: "x"}, {Match: "^gfx950$", Replace: "gfx950:xnack+"}}}
	if got := hb.Apply([]string{"gfx950", "gfx90a"}); !reflect.DeepEqual(got, []string{"gfx950:xnack+", "gfx90a"}) {
		t.Errorf("hand-built Apply = %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // substrings of the error
	}{
		{"unknown top-level key", "version: 1\nloaders: legacy\n", []string{"loaders"}},
		{"unknown variant key", "variants:\n  asan:\n    target: [gfx942]\n", []string{"target"}},
		{"unknown transform key", "variants:\n  asan:\n    transform:\n      - {match: a, replacement: b}\n", []string{"replacement"}},
		{"unknown rule key", "rules:\n  KPL001: {severity: error}\n", []string{"severity"}},
		{"unknown group key", "groups:\n  g:\n    owner: {}\n", []string{"owner"}},
		{"bad regex", "variants:\n  asan:\n    transform:\n      - {match: \"^(gfx90a\", replace: x}\n", []string{"variants.asan.transform[0].match", "missing closing )"}},
		{"bad regex second", "variants:\n  asan:\n    transform:\n      - {match: a, replace: b}\n      - {match: \"[z-a]\", replace: x}\n", []string{"variants.asan.transform[1].match"}},
		{"bad rule level", "rules:\n  KPL002: {level: fatal}\n", []string{"rules.KPL002.level", "error, warning, note or off"}},
		{"empty rule", "rules:\n  KPL002:\n", []string{"line 2: rules.KPL002: level is missing", "{level: off}"}},
		{"rule level none", "rules:\n  KPL002: {level: none}\n", []string{"rules.KPL002.level: want error, warning, note or off (did you mean note?)"}},
		{"rule level warn", "rules:\n  KPL002: {level: warn}\n", []string{"(did you mean warning?)"}},
		{"rule as a level", "rules:\n  KPL002: off\n", []string{`got "off" (write {level: off})`}},
		{"bad loader", "loader: first-match\n", []string{`loader "first-match"`, "fallthrough or legacy"}},
		{"bad version", "version: 2\n", []string{"version 2"}},
		{"empty variant", "variants:\n  asan:\n", []string{"variants.asan: empty"}},
		{"bad glob", "groups:\n  g:\n    owners:\n      p: [\"bin/[x\"]\n", []string{"groups.g.owners.p"}},
		{"wrong type", "variants: [a, b]\n", []string{"line 1: variants: want a map of names, got a list"}},
		{"wrong scalar", "version: one\n", []string{"line 1: version: want a whole number"}},
		{"typo key", "version: 1\nvariants:\n  asan:\n    targest: [gfx942]\n", []string{"line 4: variants.asan.targest", "did you mean targets?"}},
		{"invalid target", "variants:\n  release:\n    targets: [gfx90a, gfx905]\n", []string{"line 3: variants.release.targets[1]", `"gfx905"`, "did you mean gfx904?"}},
		{"transform breaks", "variants:\n  asan:\n    targets: [gfx942, gfx1100]\n    transform:\n      - {match: \"^(gfx.*)$\", replace: \"${1}:xnack+\"}\n",
			[]string{"line 5: variants.asan.transform[0]", `turns target gfx1100 into "gfx1100:xnack+"`, "does not support xnack", "did you mean gfx1100?"}},
		{"waiver without selector", "waivers:\n  - {rule: KPL003, reason: known}\n", []string{"line 2: waivers[0]", "at least one of path, group, kernel or fingerprint"}},
		{"waiver without reason", "waivers:\n  - {group: fft_test}\n", []string{"line 2: waivers[0]", "reason is required"}},
		{"waiver bad date", "waivers:\n  - {group: g, reason: r, expires: 31.12.2026}\n", []string{"waivers[0].expires", "YYYY-MM-DD"}},
		{"waiver typo", "waivers:\n  - {groups: g, reason: r}\n", []string{"line 2: waivers[0].groups", "did you mean group?"}},
		{"old fallbacks key", "variants:\n  asan:\n    fallbacks: {gfx942: [gfx9-4-generic]}\n", []string{"variants.asan.fallbacks: renamed to arch_list"}},
		{"arch_list generic key", "variants:\n  asan:\n    arch_list: {gfx9-4-generic: []}\n", []string{"variants.asan.arch_list", "not a device processor"}},
		{"arch_list bad entry", "variants:\n  asan:\n    arch_list: {gfx942: [gfx9-4-generik]}\n", []string{"variants.asan.arch_list.gfx942", "gfx9-4-generik"}},
		{"generic agent", "variants:\n  a:\n    targets: [gfx11-generic]\n    agents: {gfx11-generic: [gfx12-generic]}\n", []string{"agent gfx12-generic is a generic target"}},
		{"not yaml", "version: [\n", nil},
		// Newcomer report 13: an arch_list entry for another processor
		// (HIP passes only the ISA and its own generic target).
		{"arch_list other family", "variants:\n  a:\n    arch_list: {gfx942: [gfx1100]}\n",
			[]string{"line 3: variants.a.arch_list.gfx942: gfx1100 is for another processor: HIP passes a gfx942 device only its own ISA and its family's generic target, so an entry names gfx942 or gfx9-4-generic"}},
		{"arch_list other generic", "variants:\n  a:\n    arch_list: {gfx942: [gfx11-generic]}\n", []string{"gfx11-generic is for another processor"}},
		{"arch_list no generic", "variants:\n  a:\n    arch_list: {gfx90a: [gfx908]}\n",
			[]string{"gfx908 is for another processor: HIP passes a gfx90a device only its own ISA (no generic target covers it), so an entry names gfx90a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse([]byte(c.yaml))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", p)
			}
			if p != nil {
				t.Errorf("policy returned with error: %+v", p)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestParseEmptyAndDefaults(t *testing.T) {
	for _, s := range []string{"", "# only a comment\n"} {
		if _, err := Parse([]byte(s)); err == nil || !strings.Contains(err.Error(), "empty policy") {
			t.Errorf("%q: err = %v, want an empty-policy error", s, err)
		}
	}
	for _, s := range []string{"version: 1\n"} {
		p := mustParse(t, s)
		if p.LoaderOrDefault() != finding.Fallthrough {
			t.Errorf("%q: LoaderOrDefault = %q", s, p.LoaderOrDefault())
		}
		v, name, err := p.Variant("")
		if v != nil || name != "" || err != nil {
			t.Errorf("%q: Variant(\"\") = %v, %q, %v", s, v, name, err)
		}
		if _, _, err := p.Variant("asan"); err == nil || !strings.Contains(err.Error(), "asan") {
			t.Errorf("%q: Variant(asan) err = %v", s, err)
		}
		if len(p.VariantNames()) != 0 {
			t.Errorf("%q: VariantNames = %q", s, p.VariantNames())
		}
	}
	for _, l := range []string{"", "fallthrough", "legacy"} {
		if err := parseLoader(l); err != nil {
			t.Errorf("ParseLoader(%q) = %v", l, err)
		}
	}
	for _, l := range []string{"Legacy", "fall-through", "none"} {
		if err := parseLoader(l); err == nil {
			t.Errorf("ParseLoader(%q) accepted", l)
		}
	}
	p := mustParse(t, "loader: fallthrough\n")
	if p.LoaderOrDefault() != finding.Fallthrough {
		t.Errorf("LoaderOrDefault = %q", p.LoaderOrDefault())
	}
}

func TestNilPolicy(t *testing.T) {
	var p *Policy
	if p.LoaderOrDefault() != finding.Fallthrough {
		t.Error("nil LoaderOrDefault")
	}
	if p.VariantNames() != nil || p.RuleLevel("KPL001") != "" || p.Owners("g") != nil {
		t.Error("nil policy returned data")
	}
	if v, n, err := p.Variant(""); v != nil || n != "" || err != nil {
		t.Errorf("nil Variant(\"\") = %v %q %v", v, n, err)
	}
	var ve *VariantError
	if _, _, err := p.Variant("asan"); !errors.As(err, &ve) || ve.Name != "asan" || len(ve.Declared) != 0 || strings.Contains(err.Error(), "--") {
		t.Errorf("nil Variant(asan) err = %v", err)
	}
}

func TestVariantSelection(t *testing.T) {
	multi := mustParse(t, "variants:\n  asan: {targets: [gfx942]}\n  tsan: {targets: [gfx950]}\n  host_asan: {}\n")
	_, _, err := multi.Variant("")
	if err == nil {
		t.Fatal("Variant(\"\") with several variants and no release succeeded")
	}
	var ve *VariantError
	if !strings.Contains(err.Error(), "asan, host_asan, tsan") || !errors.As(err, &ve) || ve.Name != "" || strings.Contains(err.Error(), "--") {
		t.Errorf("error %q does not list the sorted names", err)
	}
	v, name, err := multi.Variant("tsan")
	if err != nil || name != "tsan" || !reflect.DeepEqual(v.Targets, []string{"gfx950"}) {
		t.Errorf("Variant(tsan) = %+v, %q, %v", v, name, err)
	}
	v, name, err = multi.Variant("host_asan")
	if err != nil || name != "host_asan" || v == nil || len(v.Targets) != 0 {
		t.Errorf("Variant(host_asan) = %+v, %q, %v", v, name, err)
	}

	_, _, err = multi.Variant("ubsan")
	if err == nil {
		t.Fatal("unknown variant accepted")
	}
	for _, w := range []string{"ubsan", "not declared", "asan, host_asan, tsan"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}

	single := mustParse(t, "variants:\n  asan: {targets: [gfx942]}\n")
	v, name, err = single.Variant("")
	if err != nil || name != "asan" || !reflect.DeepEqual(v.Targets, []string{"gfx942"}) {
		t.Errorf("single Variant(\"\") = %+v, %q, %v", v, name, err)
	}

	withRelease := mustParse(t, "variants:\n  asan: {targets: [gfx90a]}\n  release: {targets: [gfx1100]}\n  tsan: {targets: [gfx942]}\n")
	v, name, err = withRelease.Variant("")
	if err != nil || name != "release" || !reflect.DeepEqual(v.Targets, []string{"gfx1100"}) {
		t.Errorf("release Variant(\"\") = %+v, %q, %v", v, name, err)
	}
}

func TestMatchGlob(t *testing.T) {
	cases := []struct {
		glob, name string
		want       bool
	}{
		{"bin/rocfft*", "bin/rocfft-test", true},
		{"bin/rocfft*", "bin/rocfft", true},
		{"bin/rocfft*", "bin/rocfft-bench", true},
		{"bin/rocfft*", "bin/hipfft-test", false},
		{"bin/rocfft*", "bin/sub/rocfft-test", false},
		{"bin/rocfft*", "lib/rocfft-test", false},
		{"bin/rocfft*", "xbin/rocfft-test", false},
		{"lib/**", "lib/a/b.so", true},
		{"lib/**", "lib/a.so", true},
		{"lib/**", "lib", true},
		{"lib/**", "lib64/a.so", false},
		{"lib/**", "usr/lib/a.so", false},
		{"lib/**", "libx/a/b.so", false},
		{"lib/*/**", "lib/a/b/c.so", true},
		{"lib/*/**", "lib/a", true},
		{"lib/*/**", "lib", false},
		{"lib/librocfft.so*", "lib/librocfft.so.0.1", true},
		{"lib/librocfft.so*", "lib/librocblas.so", false},
		{"lib/lib?.so", "lib/liba.so", true},
		{"lib/lib?.so", "lib/libab.so", false},
		{"lib/[ab].so", "lib/b.so", true},
		{"lib/[ab].so", "lib/c.so", false},
		{"exact/name", "exact/name", true},
		{"exact/name", "exact/name2", false},
		{"bin/[x", "bin/[x", false}, // malformed never matches
		{"**", "a/b", false},        // only a final "/**" element is special
	}
	for _, c := range cases {
		if got := finding.MatchGlob(c.glob, c.name); got != c.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", c.glob, c.name, got, c.want)
		}
	}
	for _, g := range []string{"bin/rocfft*", "lib/**", "lib/*/**", "a/[ab]"} {
		if err := finding.CheckGlob(g); err != nil {
			t.Errorf("checkGlob(%q) = %v", g, err)
		}
	}
	for _, g := range []string{"bin/[x", "lib/[/**", `a\`} {
		if err := finding.CheckGlob(g); err == nil {
			t.Errorf("checkGlob(%q) accepted", g)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()

	good := filepath.Join(dir, "policies.yaml")
	if err := os.WriteFile(good, []byte(theRockPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(good)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if p.Path != good || p.Loader != "legacy" || len(p.Variants) != 2 {
		t.Errorf("Load = Path %q Loader %q Variants %d", p.Path, p.Loader, len(p.Variants))
	}

	missing := filepath.Join(dir, "nope.yaml")
	if _, err := Load(missing); err == nil || !os.IsNotExist(err) {
		t.Errorf("Load(missing) err = %v, want not-exist", err)
	} else if !strings.Contains(err.Error(), "nope.yaml") {
		t.Errorf("Load(missing) err %q does not name the file", err)
	}

	big := filepath.Join(dir, "big.yaml")
	data := []byte("version: 1\n" + strings.Repeat("# padding padding padding padding\n", MaxSize/34+1))
	if len(data) <= MaxSize {
		t.Fatalf("test data only %d bytes", len(data))
	}
	if err := os.WriteFile(big, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than 4194304 bytes") || !strings.Contains(err.Error(), "big.yaml") {
		t.Errorf("Load(big) err = %v", err)
	}

	// Exactly MaxSize bytes is accepted.
	exact := filepath.Join(dir, "exact.yaml")
	pad := MaxSize - len("version: 1\n") - 1
	if err := os.WriteFile(exact, []byte("version: 1\n#"+strings.Repeat("x", pad-1)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(exact); fi.Size() != MaxSize {
		t.Fatalf("exact file is %d bytes", fi.Size())
	}
	if _, err := Load(exact); err != nil {
		t.Errorf("Load(exactly MaxSize) = %v", err)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("loader: sometimes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":1: loader: ") || !strings.Contains(err.Error(), "sometimes") {
		t.Errorf("Load(bad) err = %v", err)
	}

	if _, err := Load(dir); err == nil {
		t.Error("Load(directory) succeeded")
	}
}

// The repository's own policies.yaml, when present, must parse and declare
// a usable variant.
func TestRepoPolicies(t *testing.T) {
	const f = "../policies.yaml"
	if _, err := os.Stat(f); err != nil {
		t.Skipf("%s: %v", f, err)
	}
	p, err := Load(f)
	if err != nil {
		t.Fatalf("Load(%s): %v", f, err)
	}
	if err := parseLoader(p.Loader); err != nil {
		t.Error(err)
	}
	for _, n := range p.VariantNames() {
		v, name, err := p.Variant(n)
		if err != nil || name != n || v == nil {
			t.Errorf("Variant(%q) = %v, %q, %v", n, v, name, err)
			continue
		}
		if got := v.Apply(v.Targets); len(got) != len(v.Targets) {
			t.Errorf("variant %s: Apply changed the target count: %q -> %q", n, v.Targets, got)
		}
	}
	// TheRock's ASAN builds need XNACK on gfx90a/gfx942/gfx950.
	if asan, ok := p.Variants["asan"]; ok {
		got := asan.Apply([]string{"gfx90a", "gfx942", "gfx950", "gfx1100"})
		if want := []string{"gfx90a:xnack+", "gfx942:xnack+", "gfx950:xnack+", "gfx1100"}; !reflect.DeepEqual(got, want) {
			t.Errorf("asan Apply = %q, want %q", got, want)
		}
	}
	for id := range p.Rules {
		if l := p.RuleLevel(id); l == "" || l == "off" {
			t.Errorf("RuleLevel(%s) = %q", id, l)
		}
	}
}

func TestParseAgentsChecked(t *testing.T) {
	for doc, want := range map[string]string{
		"variants: {r: {targets: [gfx942], agents: {gfx942: [\"bad!\"]}}}":          "variants.r.agents.gfx942",
		"variants: {r: {targets: [gfx942], agents: {gfx942: [gfx942]}}}":            "not an ISA a device reports (a gfx942 device reports gfx942:sramecc+:xnack+",
		"variants: {r: {targets: [gfx90c], agents: {gfx90c: [\"gfx90c:xnack+\"]}}}": "not an ISA a device reports",
		"variants: {r: {targets: [gfx942], agents: {gfx9-4-generic: [gfx942]}}}":    "not one of the variant's targets after its transforms (gfx942)",
		"variants: {r: {targets: [gfx942], agents: {gfx9999: [gfx942]}}}":           "variants.r.agents",
	} {
		if _, err := Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", doc, err, want)
		}
	}
	// --agent and agents: take the same ISAs: one a device of the target
	// does not report is that device reporting another ISA, as under
	// HSA_OVERRIDE_GFX_VERSION (pytorch/pytorch#164346), not an error.
	for _, doc := range []string{
		"variants: {r: {targets: [gfx942], agents: {gfx942: [gfx942:sramecc+:xnack-]}}}",
		"variants: {r: {targets: [gfx1151], agents: {gfx1151: [gfx1100]}}}",
		"variants: {r: {targets: [\"gfx942:xnack+\"], agents: {\"gfx942:xnack+\": [\"gfx942:sramecc+:xnack-\"]}}}",
		"variants: {a: {targets: [gfx11-generic], agents: {gfx11-generic: [gfx1030]}}}",
	} {
		if _, err := Parse([]byte(doc)); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

// TestParseMachines: machines: as docs/machines.md documents it; devices as
// ISAs or {isa, uuid}; what the policy checks itself (the pipeline checks
// ISAs, releases and env keys, internal/lint).
func TestParseMachines(t *testing.T) {
	p, err := Parse([]byte("machines:\n  apu:\n    devices: [gfx1036, {isa: gfx1100, uuid: GPU-0123456789ABCDEF}]\n    hip: 10.0\n" +
		"    env: {HIP_VISIBLE_DEVICES: \"1\"}\n    cpu_nodes: 2\n    kpack: off\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := p.Machines["apu"]
	if m == nil || len(m.Devices) != 2 || m.Devices[0].ISA != "gfx1036" || m.Devices[1] != (Device{ISA: "gfx1100", UUID: "GPU-0123456789ABCDEF"}) ||
		m.HIP != "10.0" || m.Env["HIP_VISIBLE_DEVICES"] != "1" || m.CPUNodes != 2 || m.Kpack != "off" {
		t.Fatalf("machine = %+v", m)
	}
	if got := p.Line("machines.apu.devices[1]"); got != 3 {
		t.Errorf("line of devices[1] = %d, want 3", got)
	}
	for doc, want := range map[string]string{
		"machines: {a: {devices: [gfx1100], hips: newest}}":        `machines.a.hips: unknown key "hips" in machines.a (did you mean hip?)`,
		"machines: {a: {devices: []}}":                             "machines.a: no devices",
		"machines: {a: {}}":                                        "machines.a: no devices",
		"machines: {a: {devices: [gfx1100], kpack: of}}":           `machines.a.kpack: want on or off (off: a HIP built without ROCM_KPACK_ENABLED), got "of" (did you mean off?)`,
		"machines: {a: {devices: [gfx1100], cpu_nodes: 99}}":       "machines.a.cpu_nodes: 99: want 1 to 64",
		"machines: {\"a,b\": {devices: [gfx1100]}}":                "without commas",
		"machines: {a: {devices: [{uuid: GPU-0123456789ABCDEF}]}}": "machines.a.devices[0]: no isa",
		"machines: {a: {devices: [{isa: gfx1100, uid: x}]}}":       `unknown key "uid"`,
	} {
		if _, err := Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", doc, err, want)
		}
	}
}

// Every error of a file is reported, each on one line, in file order.
func TestYAMLErrorsAreOneLineEach(t *testing.T) {
	_, err := Parse([]byte("version: [1]\nloader: {a: b}\n"))
	var es Errors
	if !errors.As(err, &es) || len(es) != 2 || err.Error() != "line 1: version: want a single value, got a list\nline 2: loader: want a single value, got a map" {
		t.Errorf("err = %q, want two lines", err)
	}
	for _, e := range es {
		if strings.Contains(e.Error(), "\n") {
			t.Errorf("multi-line error %q", e)
		}
	}
}

func TestCUCounts(t *testing.T) {
	p := mustParse(t, "version: 1\ncu_counts:\n  gfx90a: [104, 110]\n  gfx942: [304]\n")
	if want := map[string][]int{"gfx90a": {104, 110}, "gfx942": {304}}; !reflect.DeepEqual(p.CUs(), want) {
		t.Errorf("CUs() = %v, want %v", p.CUs(), want)
	}
	if (*Policy)(nil).CUs() != nil {
		t.Error("nil policy has CU counts")
	}
	for doc, want := range map[string]string{
		"cu_counts: {gfx9-4-generic: [304]}":            "cu_counts.gfx9-4-generic: want a processor name",
		"cu_counts: {gfx942:xnack+: [304]}":             "cu_counts.gfx942:xnack+: want a processor name",
		"cu_counts: {gfx942: [0]}":                      "cu_counts.gfx942: 0 compute units",
		"cu_counts: {gfx942: [99999999]}":               "compute units: want 1 to 65536",
		"cu_counts: {gfx942: [ten]}":                    "cu_counts.gfx942[0]: want a whole number",
		"cu_counts: {gfx942: [" + manyCounts(65) + "]}": "cu_counts.gfx942: 65 distinct counts: want at most 64",
	} {
		if _, err := Parse([]byte("version: 1\n" + doc + "\n")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", doc, err, want)
		}
	}
}

// manyCounts is "1, 2, ..., n" with every count twice (repeats count
// once).
func manyCounts(n int) string {
	var parts []string
	for i := 1; i <= n; i++ {
		parts = append(parts, strconv.Itoa(i), strconv.Itoa(i))
	}
	return strings.Join(parts, ", ")
}

// Newcomer report 13: the unknown-key hint never suggests the removed
// fallbacks: key (which still gets its own rename error); a policy without
// version: is version 1; arch_list entries of the processor or its
// generic family are accepted.
func TestPolicyRoughEdges(t *testing.T) {
	_, err := Parse([]byte("variants:\n  a:\n    fallback: {}\n"))
	if err == nil || err.Error() != `line 3: variants.a.fallback: unknown key "fallback" in variants.a; known keys: targets, transform, agents, arch_list` {
		t.Errorf("err = %v", err)
	}
	p := mustParse(t, "variants:\n  a:\n    targets: [gfx942]\n    arch_list: {gfx942: [gfx942:xnack+, gfx9-4-generic:sramecc+], gfx1100: [gfx11-generic]}\n")
	if p.Version != 0 || !reflect.DeepEqual(p.Variants["a"].ArchList["gfx942"], []string{"gfx942:xnack+", "gfx9-4-generic:sramecc+"}) {
		t.Errorf("policy = %+v", p)
	}
	if _, err := Parse([]byte("")); err == nil || !strings.Contains(err.Error(), "empty policy (want variants: with targets") {
		t.Errorf("empty: %v", err)
	}
}

// policy-template-doubling: 32 transforms that each double the target
// (6 * 2^32 bytes) are refused at parse time, naming the transform, and
// Apply never builds more than about MaxTargetLength bytes.
func TestTransformOutputBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nvariants: {release: {targets: [gfx950], transform: [")
	for range 32 {
		b.WriteString(`{match: "^.*$", replace: "${0}${0}"},`)
	}
	b.WriteString("]}}\n")
	_, err := Parse([]byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "variants.release.transform[5]: rewrites") ||
		!strings.Contains(err.Error(), "longer than 256 bytes") {
		t.Fatalf("err = %v", err)
	}
	v := &Variant{Transform: []Rewrite{{Match: "", Replace: strings.Repeat("x", 200)}}}
	if got := v.Apply([]string{"gfx950"}); len(got) != 1 || got[0] != "gfx950" {
		t.Errorf("Apply = %q", got)
	}
	if _, err := Parse([]byte("version: 1\nvariants: {r: {targets: [gfx950], transform: [{match: x, replace: " +
		strings.Repeat("y", 300) + "}]}}\n")); err == nil || !strings.Contains(err.Error(), "replace: longer than 256 bytes") {
		t.Errorf("long template: %v", err)
	}
}

// A second YAML document is an error, not silently ignored.
func TestSecondDocumentRefused(t *testing.T) {
	_, err := Parse([]byte("version: 1\nvariants: {release: {targets: [gfx950]}}\n---\nvariants: {release: {targets: [gfx90a]}}\n"))
	if err == nil || !strings.Contains(err.Error(), "second YAML document") {
		t.Errorf("err = %v", err)
	}
	if _, err := Parse([]byte("version: 1\nvariants: {release: {targets: [gfx950]}}\n---\n")); err == nil {
		t.Error("trailing empty document accepted")
	}
}

// policy-alias-laughs: nested aliases naming millions of nodes are
// refused before the schema walk; a few aliases are fine; an anchor that
// contains its own alias is an error, not an endless walk.
func TestAliasExpansionBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("variants:\n  v0:\n    targets: &t [" + strings.Repeat("gfx942, ", 199) + "gfx942]\n    agents: &a {")
	for j := range 200 {
		fmt.Fprintf(&b, "k%d: *t, ", j)
	}
	b.WriteString("}\n")
	for i := 1; i < 200; i++ {
		fmt.Fprintf(&b, "  v%d: {targets: [gfx942], agents: *a}\n", i)
	}
	_, err := Parse([]byte(b.String()))
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "MaxAliasExpansion") || pe.Line != 4 {
		t.Fatalf("Parse(billion laughs) = %v, want an Error at line 4 naming MaxAliasExpansion", err)
	}
	if _, err := Parse([]byte("variants:\n  a: {targets: &t [gfx942, gfx950]}\n  b: {targets: *t}\n")); err != nil {
		t.Errorf("two aliases: %v", err)
	}
	if _, err := Parse([]byte("variants:\n  a: &a\n    targets: [gfx942, *a]\n")); err == nil || !strings.Contains(err.Error(), "alias of itself") {
		t.Errorf("self-alias: %v", err)
	}
}

func parseLoader(l string) error {
	_, err := finding.ParseLoader(l)
	return err
}
