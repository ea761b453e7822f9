package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim/hip"
)

// The user documents: README.md at the top, the pages under docs/ and
// CONTRIBUTING.md. The tests below keep them true to the code.
const repoRoot = "../.."

// readDoc returns one document, by its path from the repository root.
func readDoc(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// userDocs lists README.md, CONTRIBUTING.md and docs/*.md, by their paths
// from the repository root.
func userDocs(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md (%v)", err)
	}
	docs := []string{"README.md", "CONTRIBUTING.md"}
	for _, p := range pages {
		docs = append(docs, filepath.ToSlash(strings.TrimPrefix(p, repoRoot+string(filepath.Separator))))
	}
	return docs
}

// TestReadmeRuleTable keeps the README's rule table in step with the
// registry that SARIF and `kpack-lint rules` read: one row per rule with
// the anchor SARIF helpUri points at, its name linking to its section of
// docs/rules.md, its default level and its title; docs/rules.md has that
// section.
func TestReadmeRuleTable(t *testing.T) {
	readme := readDoc(t, "README.md")
	page := readDoc(t, "docs/rules.md")
	if !strings.HasSuffix(rules.DocsURI, "/README.md") {
		t.Errorf("rules.DocsURI %q: SARIF helpUri should point at the README's rule table", rules.DocsURI)
	}
	for _, r := range rules.All() {
		id := strings.ToLower(r.ID)
		row := fmt.Sprintf(`| <a id="%s"></a>%s | [%s](docs/rules.md#%s) | %s | %s |`, id, r.ID, r.Name, id, r.Level, r.Title)
		if !strings.Contains(readme, row+"\n") {
			t.Errorf("README lacks the row\n%s", row)
		}
		if want := rules.DocsURI + "#" + id; r.HelpURI != want {
			t.Errorf("%s helpUri %q, want %q", r.ID, r.HelpURI, want)
		}
		section := fmt.Sprintf("<a id=\"%s\"></a>\n### %s %s (%s)\n", id, r.ID, r.Name, r.Level)
		if !strings.Contains(page, section) {
			t.Errorf("docs/rules.md lacks the section\n%s", section)
		}
	}
}

func TestRulesCommandListsRegistry(t *testing.T) {
	code, out, _ := run(t, "rules")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, r := range rules.All() {
		if !strings.Contains(out, r.ID+"  "+r.Name) {
			t.Errorf("rules output lacks %s %s", r.ID, r.Name)
		}
	}
}

// TestReadmeHIPTable: the --hip table of docs/machines.md has one row per
// release of the table in sim/hip, in its order, and no other.
func TestReadmeHIPTable(t *testing.T) {
	var rows []string
	in := false
	for _, line := range strings.Split(readDoc(t, "docs/machines.md"), "\n") {
		switch {
		case strings.HasPrefix(line, "| `--hip` |"):
			in = true
		case in && strings.HasPrefix(line, "| `"):
			rows = append(rows, strings.SplitN(line, "`", 3)[1])
		case in && !strings.HasPrefix(line, "|"):
			in = false
		}
	}
	if want := hip.Names(); !slices.Equal(rows, want) {
		t.Errorf("docs/machines.md --hip rows %v, want %v", rows, want)
	}
}

// TestReadmeMachineOutput: the outputs the documents show for machines,
// explain and explain-db are what the commands print (the lines that do
// not name the input folder, which the test reaches from another working
// directory).
func TestReadmeMachineOutput(t *testing.T) {
	machines := readDoc(t, "docs/machines.md")
	commands := readDoc(t, "docs/commands.md")
	tree := func(name string) string { return filepath.Join(scenario(name), "tree") }
	for _, tc := range []struct {
		doc  string
		args []string
		keep func(line string) bool
	}{
		{commands, []string{"explain", "--agent", "gfx950:sramecc+:xnack+", "--loader", "legacy", "bin/rocfft-test#0", tree("seed-fft-asan")}, nil},
		{commands, []string{"explain-db", "--agent", "gfx90a:sramecc+:xnack-", "lib/librocblas.so.5", filepath.Join(testdata, "kerneldb", "rocm-systems-7645", "tree")}, nil},
		{machines, []string{"explain", "--no-policy", "--machine", "gfx1036,gfx1100", "--hip", "10.0", "torch/lib/libc10_hip.so[embedded]#0", tree("therock-5543-igpu-first")}, nil},
		{machines, []string{"check", "--no-policy", "--machine", "gfx1036,gfx1100", "--hip", "10.0", tree("therock-5543-igpu-first")},
			func(l string) bool {
				return strings.HasPrefix(l, "  simulated: ") || strings.HasPrefix(l, "  machine gfx1036") ||
					strings.HasPrefix(l, "torch/lib/libc10_hip.so[256+24]: error KPL014 ")
			}},
		{machines, []string{"check", "--no-policy", "--machine", "gfx1151", "--env", "HSA_OVERRIDE_GFX_VERSION=11.0", tree("pytorch-164346-gfx1151-override")},
			func(l string) bool { return strings.Contains(l, " error KPL010 ") }},
	} {
		_, out, _ := run(t, tc.args...)
		n := 0
		for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if tc.keep != nil && !tc.keep(line) {
				continue
			}
			n++
			if !strings.Contains(tc.doc, line+"\n") {
				t.Errorf("%v: the document lacks the line\n%s", tc.args, line)
			}
		}
		if n == 0 {
			t.Errorf("%v: no line compared:\n%s", tc.args, out)
		}
	}
}

// TestMachinesOverrideExample: docs/machines.md's example of a machine
// variable without --machine: the override makes gfx1151 report gfx1100,
// which loads the gfx1100 archive, so the example's KPL006 is gone.
func TestMachinesOverrideExample(t *testing.T) {
	doc := readDoc(t, "docs/machines.md")
	for _, want := range []string{
		"`check --variant release --env HSA_OVERRIDE_GFX_VERSION=11.0.0\ntestdata/example` has no KPL006 on gfx1151",
		"`machine gfx1151: ... Linux: HIP\nsees device 0 = GPU 0 (gfx1100)`",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/machines.md lacks %q", want)
		}
	}
	_, out, _ := run(t, "check", "--policy", filepath.Join(repoRoot, "policies.yaml"), "--variant", "release", "--env", "HSA_OVERRIDE_GFX_VERSION=11.0.0", exampleDir)
	if strings.Contains(out, " KPL006 ") {
		t.Errorf("the override leaves a KPL006:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^  machine gfx1151: .* Linux: HIP sees device 0 = GPU 0 \(gfx1100\)`).MatchString(out) {
		t.Errorf("no machine gfx1151 line seeing gfx1100:\n%s", out)
	}
}

// TestReadmeNightlyShards: the README's sharded nightly (four shards of
// check with --path-prefix, then merge) writes the SARIF report one
// unsharded check writes.
func TestReadmeNightlyShards(t *testing.T) {
	readme := readDoc(t, "README.md")
	for _, want := range []string{
		`kpack-lint check --variant asan --shard "${{ matrix.shard }}/4" --fail-on none --path-prefix dist -q -o "shard-${{ matrix.shard }}.sarif" dist`,
		"kpack-lint merge --variant asan --fail-on none -q -o nightly.sarif -o nightly.html shards/shard-*.sarif",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q", want)
		}
	}
	dir := t.TempDir()
	pol := filepath.Join(repoRoot, "policies.yaml")
	common := []string{"--policy", pol, "--variant", "asan", "--fail-on", "none", "--path-prefix", "dist", "-q"}
	var shards []string
	for i := 1; i <= 4; i++ {
		out := filepath.Join(dir, fmt.Sprintf("shard-%d.sarif", i))
		args := append(append([]string{"check"}, common...), "--shard", fmt.Sprintf("%d/4", i), "-o", out, exampleDir)
		if code, _, stderr := run(t, args...); code != ExitOK {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		shards = append(shards, out)
	}
	merged := filepath.Join(dir, "nightly.sarif")
	args := append([]string{"merge", "--policy", pol, "--variant", "asan", "--fail-on", "none", "-q", "-o", merged, "-o", filepath.Join(dir, "nightly.html")}, shards...)
	if code, _, stderr := run(t, args...); code != ExitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	whole := filepath.Join(dir, "whole.sarif")
	if code, _, stderr := run(t, append(append([]string{"check"}, common...), "-o", whole, exampleDir)...); code != ExitOK {
		t.Fatalf("check: exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(merged)
	b, _ := os.ReadFile(whole)
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("the merged nightly (%d bytes) is not the unsharded check's SARIF (%d bytes)", len(a), len(b))
	}
}

// TestReadmeQuickstart: the README's first command prints what its
// comment says: 3 findings, one per rule (a KPL002 warning, KPL003 and
// KPL004 errors), and exits 1.
func TestReadmeQuickstart(t *testing.T) {
	readme := readDoc(t, "README.md")
	for _, want := range []string{
		"go run ./cmd/kpack-lint check --variant asan testdata/example\n",
		"# 2. Run the tests\ngo test ./...\n",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q", want)
		}
	}
	code, out, _ := run(t, "check", "--policy", filepath.Join(repoRoot, "policies.yaml"), "--variant", "asan", exampleDir)
	if code != ExitFindings {
		t.Errorf("exit %d, want %d", code, ExitFindings)
	}
	for _, want := range []string{
		"KPL002 legacy-loader-shadowing: 1 warning\nKPL003 stripped-feature-flags: 1 error\nKPL004 group-collision: 1 error\n",
		"3 findings: 2 errors, 1 warning, 0 notes\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the example's report lacks %q:\n%s", want, out)
		}
	}
}

// TestReadmeShort: the README stays a first screen and a map: at most
// 250 lines, and no paragraph (or list item) over 80 words.
func TestReadmeShort(t *testing.T) {
	readme := readDoc(t, "README.md")
	if n := strings.Count(readme, "\n"); n > 250 {
		t.Errorf("README.md has %d lines, want at most 250 (move the detail to docs/)", n)
	}
	for _, p := range proseBlocks(readme) {
		if n := len(strings.Fields(p)); n > 80 {
			t.Errorf("README paragraph of %d words (at most 80):\n%s", n, p)
		}
	}
}

// proseBlocks splits Markdown into its paragraphs and list items, leaving
// out code fences, tables and headings.
func proseBlocks(md string) []string {
	var blocks []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			blocks = append(blocks, strings.Join(cur, " "))
			cur = nil
		}
	}
	fence := false
	for _, line := range strings.Split(md, "\n") {
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "```"):
			flush()
			fence = !fence
		case fence:
		case trim == "", strings.HasPrefix(trim, "|"), strings.HasPrefix(trim, "#"):
			flush()
		case strings.HasPrefix(trim, "- "), regexp.MustCompile(`^\d+\. `).MatchString(trim):
			flush()
			cur = append(cur, trim)
		default:
			cur = append(cur, trim)
		}
	}
	flush()
	return blocks
}

// internalRef matches what a reader outside the project cannot follow:
// the project's own issue numbers, sections of its internal specification,
// its milestones ("stop 22") and its helpers' branch names. Public
// reports are named as their projects name them (TheRock#5543,
// rocm-systems PR 9167) and do not match.
var internalRef = regexp.MustCompile(`(?i)\bissues?[ -]\d+|\bSPEC\b|\bstop \d+|\b[gir]\d\d-[a-z]+\b`)

// TestDocsNoInternalReferences: no user document names an internal issue,
// a specification section, a milestone or a branch.
func TestDocsNoInternalReferences(t *testing.T) {
	for _, doc := range userDocs(t) {
		for i, line := range strings.Split(readDoc(t, doc), "\n") {
			for _, m := range internalRef.FindAllString(line, -1) {
				t.Errorf("%s:%d: %q is an internal reference: say what it means\n%s", doc, i+1, m, line)
			}
		}
	}
}

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	anchorTag  = regexp.MustCompile(`<a id="([^"]+)"></a>`)
	slugDelete = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// anchors returns the fragment IDs a GitHub-rendered Markdown file has:
// its explicit <a id> tags and its headings' slugs (lower case, spaces to
// hyphens, punctuation but hyphens and underscores dropped; repeats get
// -1, -2, ...).
func anchors(md string) map[string]bool {
	ids := map[string]bool{}
	for _, m := range anchorTag.FindAllStringSubmatch(md, -1) {
		ids[m[1]] = true
	}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		slug := strings.ReplaceAll(slugDelete.ReplaceAllString(strings.ToLower(text), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			ids[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			ids[slug] = true
		}
		seen[slug]++
	}
	return ids
}

// TestDocsLinks: every relative link of the user documents names a file
// of the repository and, with a #fragment, an anchor that file has.
func TestDocsLinks(t *testing.T) {
	for _, doc := range userDocs(t) {
		md := readDoc(t, doc)
		fence := false
		for i, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fence = !fence
			}
			if fence {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				rel := doc
				if file != "" {
					rel = filepath.ToSlash(filepath.Join(filepath.Dir(doc), file))
				}
				data, err := os.ReadFile(filepath.Join(repoRoot, rel))
				if err != nil {
					t.Errorf("%s:%d: link %s: %v", doc, i+1, target, err)
					continue
				}
				if frag != "" && !anchors(string(data))[frag] {
					t.Errorf("%s:%d: link %s: %s has no anchor #%s", doc, i+1, target, rel, frag)
				}
			}
		}
	}
}

// TestDocsPolicies: every policy the documents show (a yaml block that is
// not a workflow or a list of workflow steps) parses.
func TestDocsPolicies(t *testing.T) {
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```")
	n := 0
	for _, doc := range userDocs(t) {
		for _, m := range block.FindAllStringSubmatch(readDoc(t, doc), -1) {
			y := m[1]
			if regexp.MustCompile(`(?m)^jobs:`).MatchString(y) || strings.HasPrefix(y, "- ") {
				continue
			}
			n++
			if _, err := policy.Parse([]byte(y)); err != nil {
				t.Errorf("%s: the policy shown does not parse: %v\n%s", doc, err, y)
			}
		}
	}
	if n < 3 {
		t.Errorf("%d policies found in the documents, want the README's, docs/policy.md's and more", n)
	}
}

// TestReadmePolicyIsShipped: the README's policy is the shipped
// policies.yaml with a waiver: without its waivers: lines it gives the
// example the findings policies.yaml gives, and with them KPL003 is waived.
func TestReadmePolicyIsShipped(t *testing.T) {
	readme := readDoc(t, "README.md")
	m := regexp.MustCompile("(?s)The shipped \\[`policies.yaml`\\].*?```yaml\n(.*?)```").FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README shows no policy after naming the shipped policies.yaml")
	}
	shown, _, _ := strings.Cut(m[1], "waivers:\n")
	dir := t.TempDir()
	counts := func(pol string) string {
		_, out, stderr := run(t, "check", "--policy", pol, "--variant", "asan", exampleDir)
		i := strings.Index(out, "\nKPL0")
		if i < 0 {
			t.Fatalf("%s: no counts:\n%s%s", pol, out, stderr)
		}
		return out[i:]
	}
	// The shown date passes; the waiver's effect is what is tested.
	waived := regexp.MustCompile(`expires: \d{4}-\d\d-\d\d`).ReplaceAllString(m[1], "expires: "+time.Now().AddDate(0, 3, 0).Format("2006-01-02"))
	for name, text := range map[string]string{"without-waiver.yaml": shown, "with-waiver.yaml": waived} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := counts(filepath.Join(dir, "without-waiver.yaml")), counts(filepath.Join(repoRoot, "policies.yaml")); got != want {
		t.Errorf("README policy without its waiver:%s\nshipped policies.yaml:%s", got, want)
	}
	if got := counts(filepath.Join(dir, "with-waiver.yaml")); !strings.Contains(got, "(1 waived)") {
		t.Errorf("README policy with its waiver:%s", got)
	}
}
