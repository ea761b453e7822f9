package report

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// hostileNames are strings a pull request can put in file names, TOC keys
// and shard fields, each aimed at one Markdown construct.
var hostileNames = []string{
	`![](https://evil.example/pixel.png?from=baselineState)`,
	`<img src="https://evil.example/raw.png">`,
	`[x](javascript:alert(1))`,
	`see https://evil.example/x and http://e.example`,
	`www.evil.example/a_b and WWW.EVIL.EXAMPLE`,
	`mail foo@evil.example, xmpp:foo@bar.baz, mailto:a@b.cd, g_@GFXARCH@.kpack`,
	`<foo@evil.example> <https://evil.example>`,
	`&lt;img&gt; &copy; &#x41;`,
	"lib/x`$(touch${IFS}PWNED)`.so#0",
	`**bold** _em_ ~~strike~~ $x^2$ | cell | \|`,
	"``` fence ``` and ` tick",
	`trailing backslash \`,
	"x\x1b[2J\r\ny",
}

// gfm renders Markdown as GitHub does: CommonMark with the GFM
// extensions (tables, strikethrough, autolinks, task lists).
func gfm(t *testing.T, md string) string {
	t.Helper()
	var b bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// markup matches what an input must not make: a link, an image, raw HTML
// (any tag but the few the escaped text renders to) or an entity left.
var markup = regexp.MustCompile(`<a |<img|<script|<del|<em|<strong|<table|<https?:|javascript:[^<]*"`)

// Prose escaped by mdEscape renders to exactly its text: no link, image,
// HTML, emphasis or autolink, whatever the string.
func TestMdEscapeRendersAsText(t *testing.T) {
	for _, s := range hostileNames {
		out := gfm(t, "- "+mdEscape(s)+"\n")
		if m := markup.FindString(out); m != "" {
			t.Errorf("mdEscape(%q) renders markup %q: %s", s, m, out)
		}
		text := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(out), "<ul>\n<li>"), "</li>\n</ul>")
		text = strings.ReplaceAll(strings.ReplaceAll(text, "<code>", ""), "</code>", "") // the `@` spans
		if got, want := html.UnescapeString(text), escapedText(s); got != want {
			t.Errorf("mdEscape(%q) renders as %q, want %q", s, got, want)
		}
	}
}

// escapedText is s as escape.String shows it (controls as \xNN).
func escapedText(s string) string {
	return strings.NewReplacer("\x1b", `\x1b`, "\r", `\x0d`, "\n", `\x0a`).Replace(s)
}

// Names and values in code spans, in prose and in table cells, render
// as code holding exactly the string.
func TestMdCodeHoldsAnyString(t *testing.T) {
	for _, s := range hostileNames {
		for _, tc := range []struct{ md, open, close string }{
			{"- " + mdCode(s) + "\n", "<li><code>", "</code></li>"},
			{"| a |\n|---|\n| " + mdCellCode(s) + " |\n", "<td><code>", "</code></td>"},
		} {
			out := gfm(t, tc.md)
			i, j := strings.Index(out, tc.open), strings.Index(out, tc.close)
			if i < 0 || j < i || markup.MatchString(out[i:j]) {
				t.Errorf("code span of %q: %s", s, out)
				continue
			}
			if got, want := html.UnescapeString(out[i+len(tc.open):j]), escapedText(s); got != want {
				t.Errorf("code span of %q holds %q", s, got)
			}
		}
	}
	if got := mdCode("x`y"); got != "``x`y``" {
		t.Errorf("mdCode(x`y) = %s", got)
	}
	if got := mdCode("`a"); got != "`` `a ``" {
		t.Errorf("mdCode(`a) = %s", got)
	}
	if got, cut := mdCode(strings.Repeat("é", 200)), strings.Repeat("é", 128); got != "`"+cut+"`…" {
		t.Errorf("a long value is cut at %d bytes: %s", maxMarkdownField, got)
	}
}

// The summary's ready-to-run command is a fenced block that holds any
// command exactly (markdown's old mdCode turned backticks into quotes).
func TestMdFence(t *testing.T) {
	cmd := "kpack-lint explain --no-policy --agent gfx942:sramecc+:xnack+ 'lib/x`$(touch${IFS}PWNED)`.so#0' '```' dist"
	var b strings.Builder
	mdFence(&b, "  ", cmd)
	if want := "  ````sh\n  " + cmd + "\n  ````\n"; b.String() != want {
		t.Fatalf("mdFence = %q, want %q", b.String(), want)
	}
	out := gfm(t, "- item\n"+b.String())
	i, j := strings.Index(out, `<code class="language-sh">`), strings.Index(out, "</code>")
	if i < 0 || j < i || html.UnescapeString(out[i+len(`<code class="language-sh">`):j]) != cmd+"\n" {
		t.Errorf("the fenced command renders as %s", out)
	}
}

// The expected escapes, byte for byte, for the hostile names the recipes
// use (what a reviewer reads in the raw summary).
func TestMdEscapeExact(t *testing.T) {
	for in, want := range map[string]string{
		`![](https://evil.example/p.png)`: `\!\[\]\(https\://evil.example/p.png\)`,
		`<img src="x">`:                   `\<img src="x"\>`,
		`[x](javascript:alert(1))`:        `\[x\]\(javascript:alert\(1\)\)`,
		`www.evil.example`:                `www\.evil.example`,
		`foo@evil.example`:                "foo`@`evil.example",
		`@GFXARCH@ opens`:                 `@GFXARCH@ opens`,
		`g_@GFXARCH@.kpack`:               "g\\_`@`GFXARCH`@`.kpack",
		`a & b $1`:                        `a \& b \$1`,
	} {
		if got := mdEscape(in); got != want {
			t.Errorf("mdEscape(%q) = %q, want %q", in, got, want)
		}
	}
}
