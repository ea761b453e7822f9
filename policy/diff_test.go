package policy

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// loadPair reads testdata/diff/NAME.yaml files as the base commit's and
// the pull request's policies.yaml.
func loadPair(t *testing.T, base, head string) (*Policy, *Policy) {
	t.Helper()
	b, err := Load("testdata/diff/" + base + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	h, err := Load("testdata/diff/" + head + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	b.SetPath("policies.yaml@abc1234")
	h.SetPath("policies.yaml")
	return b, h
}

var diffOpts = DiffOptions{DefaultLevel: func(id string) string { return map[string]string{"KPL013": "note"}[id] }, Today: "2026-01-01", MaxWaiverDays: 365}

// TestDiff: the count, then every kind of loosening change of the example
// pair, one line each at its file:line, in order; the expired waiver HEAD adds and the
// tightening changes (gfx950 added, a waiver's agents list widened) are
// not listed.
func TestDiff(t *testing.T) {
	b, h := loadPair(t, "base", "head")
	var got bytes.Buffer
	if err := WriteDiffText(&got, Diff(b, h, diffOpts), "policies.yaml@abc1234", "policies.yaml"); err != nil {
		t.Fatal(err)
	}
	want := `19 changes to policies.yaml can let more through the gate than policies.yaml@abc1234:
policies.yaml:25: waiver extended: (KPL003, group fft_test) now expires on 2027-06-30 (was 2026-03-31), reason ROCM-31644, no owner; too broad: it expires on 2027-06-30, 545 days ahead (more than 365)
policies.yaml:26: waiver widened: (KPL004, path bin/*) replaces (KPL004, path bin/rocfft-test) of policies.yaml@abc1234:26, matching more findings; expires on 2026-03-31, reason dup, no owner
policies.yaml:27: waiver added: (group *), expires on 9999-12-31, reason ` + "`tracked`" + ` <b>elsewhere</b> [x](https://e.example) @team, no owner; too broad: it names no rule (it waives every rule's findings), group "*" matches every kpack group, it expires on 9999-12-31, 2912442 days ahead (more than 365)
policies.yaml:28: waiver added: (KPL005, fingerprint ab12), expires on 2026-02-01, reason one finding, owner <b>@ml-team</b>
policies.yaml:15: rule turned down: KPL002 turned down to note (was error)
policies.yaml:16: rule turned down: KPL009 turned off (was error)
policies.yaml@abc1234:16: rule turned down: KPL013 back to its default level note (was warning)
policies.yaml:6: target removed: variant asan: target gfx942:xnack+ is no longer checked
policies.yaml:11: agents narrowed: variant asan: target gfx90a:xnack+ is now simulated on gfx90a:sramecc+:xnack+ only (was every agent ISA of the target)
policies.yaml:10: agents narrowed: variant asan: target gfx942 is now simulated on gfx942:sramecc+:xnack- only (was every agent ISA of the target)
policies.yaml:13: arch_list changed: variant asan: arch_list of gfx942 is now [] (was HIP's default)
policies.yaml:4: target removed: variant release: target gfx942 is no longer checked
policies.yaml@abc1234:12: variant removed: variant tsan (targets gfx942) is removed
policies.yaml:21: machine changed: machine apu: device gfx1036 removed; hip 7.0 (was 6.2)
policies.yaml@abc1234:21: machine removed: machine mi300 is removed
policies.yaml@abc1234:2: loader changed: loader fallthrough (was legacy)
policies.yaml:19: env changed: env ROCM_KPACK_DISABLE=1 is added
policies.yaml:18: env changed: env ROCM_KPACK_PATH_PREFIX=opt/b (was opt/a)
policies.yaml:23: cu_counts removed: cu_counts of gfx90a: 104 no longer checked (MIOpen database names)
`
	if got.String() != want {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want)
	}
}

// TestDiffMarkdown: the job summary section of the example pair is
// testdata/diff/want.md; what a policy holds is in code spans (the reason
// with HTML, a link and a mention renders as text), and nothing else
// opens markup.
func TestDiffMarkdown(t *testing.T) {
	b, h := loadPair(t, "base", "head")
	var got bytes.Buffer
	if err := WriteDiffMarkdown(&got, Diff(b, h, diffOpts), "policies.yaml@abc1234", "policies.yaml"); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/diff/want.md")
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want)
	}
	if !strings.Contains(got.String(), "reason `'tracked' <b>elsewhere</b> [x](https://e.example) @team`\\, no owner\\; too broad") {
		t.Error("the reason is not one code span with its backticks replaced")
	}
}

// A name or value with a backtick, a newline or a bidi control stays in
// its code span on one line; mdText escapes every ASCII punctuation mark.
func TestDiffMarkdownEscapes(t *testing.T) {
	c := Change{Kind: ChangeWaiverAdded, Source: "p.yaml:3", Parts: []Part{data("(group `x`\n## pwned \u202e)"), text(" <img src=x> *bold* [l](u)")}}
	want := "- **waiver added** at `p.yaml:3`: `(group 'x'\\x0a## pwned \\u202e)` \\<img src\\=x\\> \\*bold\\* \\[l\\]\\(u\\)"
	if got := c.Markdown(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := c.Text(); got != "p.yaml:3: waiver added: (group `x`\\x0a## pwned \\u202e) <img src=x> *bold* [l](u)" {
		t.Errorf("text %q", got)
	}
}

// No change, a deleted policy, a first policy, and a pull request that
// only tightens (a waiver removed, a target added, a rule raised).
func TestDiffEdges(t *testing.T) {
	b, same := loadPair(t, "base", "base")
	if cs := Diff(b, same, diffOpts); len(cs) != 0 {
		t.Errorf("same policy: %v", cs)
	}
	var out bytes.Buffer
	WriteDiffMarkdown(&out, nil, "policies.yaml@abc1234", "policies.yaml")
	if want := "### Policy changes\n\nNo change to `policies.yaml` lets more through the gate than `policies.yaml@abc1234`.\n"; out.String() != want {
		t.Errorf("no changes: %q", out.String())
	}
	if cs := Diff(b, nil, diffOpts); len(cs) != 1 || cs[0].Text() != "policies.yaml@abc1234: policy removed: the policy is deleted: the check runs without it" {
		t.Errorf("deleted: %v", cs)
	}
	first := Diff(nil, same, diffOpts) // base.yaml as the first policy: its waivers and env are new
	b, h := loadPair(t, "base", "tighter")
	if len(first) != 4 || first[0].Kind != ChangeWaiverAdded || first[2].Kind != ChangeWaiverAdded || first[3].Kind != ChangeEnv {
		for _, c := range first {
			t.Log(c.Text())
		}
		t.Errorf("first policy: %d changes", len(first))
	}
	if cs := Diff(b, h, diffOpts); len(cs) != 0 {
		for _, c := range cs {
			t.Log(c.Text())
		}
		t.Errorf("tighter: %d changes, want 0", len(cs))
	}
}

// TestDiffMarkdownCaps: a pull request's policy of 5,000 waivers with
// 10 KB reasons gives a section under MaxDiffBytes that lists at most
// MaxDiffItems changes, each value cut, and says how many it left out.
func TestDiffMarkdownCaps(t *testing.T) {
	var changes []Change
	long := strings.Repeat("r", 10<<10)
	for i := 0; i < 5000; i++ {
		changes = append(changes, Change{Kind: ChangeWaiverAdded, Source: "p.yaml:3", Parts: []Part{data("(group *)"), text(", reason "), data(long)}})
	}
	var b bytes.Buffer
	if err := WriteDiffMarkdown(&b, changes, "base", "head"); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	items := strings.Count(s, "\n- **waiver added**")
	if b.Len() > MaxDiffBytes+1024 || items == 0 || items > MaxDiffItems || strings.Contains(s, long[:MaxDiffValue+1]) ||
		!strings.Contains(s, "\n- ... and "+strconv.Itoa(5000-items)+" more changes, left out to keep the job summary small") {
		t.Errorf("%d bytes, %d items:\n%.400s", b.Len(), items, s)
	}
}
