package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// htmlNode is one element of a page read back for tests.
type htmlNode struct {
	name  string
	attrs map[string]string
	text  string // text directly inside, concatenated
}

// parseHTML reads the elements of a page with encoding/xml's HTML mode
// (not strict, HTML void elements auto-closed), failing on a page that
// does not parse.
func parseHTML(t *testing.T, page string) []htmlNode {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	var out []htmlNode
	var stack []int
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("page does not parse: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := htmlNode{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			out = append(out, n)
			stack = append(stack, len(out)-1)
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			if len(stack) > 0 {
				out[stack[len(stack)-1]].text += string(tok)
			}
		}
	}
}

func htmlRun() Run {
	r := testRun("seed")
	r.Checked = &Checked{Inputs: []string{"dist"}, Loader: "fallthrough", Targets: []string{"gfx950:xnack+", "gfx1100"},
		TargetSource: "the asan variant", Agents: []string{"gfx950:sramecc+:xnack+", "gfx950:sramecc-:xnack+", "gfx1100"}, Baseline: "nightly.sarif"}
	r.Matrix = []finding.Cell{
		{Group: "fft_test", Target: "gfx950:xnack+", Agents: 2, Loads: 6, Failed: 0, OtherFailed: 3},
		{Group: "fft_test", Target: "gfx1100", Agents: 1, Loads: 3},
	}
	for i := range r.Findings {
		r.Findings[i].Baseline = finding.BaselineNew
	}
	r.Findings[0].Message = `<script>alert("x")</script> & "quotes"` + "\x1b[31m"
	unchanged := r.Findings[0]
	unchanged.Message, unchanged.Subject, unchanged.Baseline = "old one", "old", finding.BaselineUnchanged
	r.Findings = append(r.Findings, unchanged)
	finding.Sort(r.Findings)
	return r
}

// The page is one self-contained document: no external source of any
// kind, a CSP forbidding them, the matrix by group x agent coloured by
// the worst finding, every finding with its fix and command, the filter,
// and escaped strings.
func TestHTMLStructure(t *testing.T) {
	r := htmlRun()
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	nodes := parseHTML(t, page)
	var cells, findings, boxes []htmlNode
	csp := false
	for _, n := range nodes {
		for _, attr := range []string{"src", "href"} {
			if v, ok := n.attrs[attr]; ok && n.name != "a" {
				t.Errorf("<%s %s=%q>: the page must load nothing", n.name, attr, v)
			}
		}
		switch {
		case n.name == "link" || (n.name == "script" && n.attrs["src"] != ""):
			t.Errorf("external resource <%s>", n.name)
		case n.name == "meta" && n.attrs["http-equiv"] == "Content-Security-Policy":
			csp = strings.HasPrefix(n.attrs["content"], "default-src 'none';")
		case n.name == "td" && n.attrs["data-group"] != "":
			cells = append(cells, n)
		case n.name == "article":
			findings = append(findings, n)
		case n.name == "input":
			boxes = append(boxes, n)
		}
	}
	if !csp {
		t.Error("no Content-Security-Policy default-src 'none'")
	}
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "\x1b") || !strings.Contains(page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#34;quotes&#34;\\x1b[31m") {
		t.Errorf("message not escaped:\n%s", page)
	}
	// One cell per group x agent: one of gfx950's two agents carries the
	// two KPL002 errors (new and unchanged); gfx1100 is ok.
	got := map[string]string{}
	for _, c := range cells {
		got[c.attrs["data-agent"]] = c.attrs["data-level"] + " " + c.attrs["data-loads"] + "/" + c.attrs["data-failed"] + " " + strings.TrimSpace(c.text)
	}
	want := map[string]string{
		"gfx950:sramecc+:xnack+": "error 6/0 2 E",
		"gfx950:sramecc-:xnack+": "ok 6/0 ok",
		"gfx1100":                "ok 3/0 ok",
	}
	if len(cells) != 3 || !equalMaps(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
	if len(findings) != len(r.Findings)-1 { // the KPL003 at level none is not written
		t.Fatalf("%d findings on the page, want %d", len(findings), len(r.Findings)-1)
	}
	states := map[string]int{}
	for _, f := range findings {
		states[f.attrs["data-state"]]++
		if _, hidden := f.attrs["hidden"]; hidden {
			t.Errorf("finding %s hidden by default", f.attrs["id"])
		}
	}
	if states["new"] != 3 || states["unchanged"] != 1 || len(boxes) != 2 {
		t.Errorf("states %v, %d filter boxes", states, len(boxes))
	}
	for _, s := range []string{"<b>Fix:</b> Put every kernel of a group in the archive", "kpack-lint explain --no-policy --agent gfx950:sramecc&#43;:xnack&#43;", "kpack-lint rules KPL003"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	// --new-only: unchanged findings start hidden, their box unchecked.
	r.NewOnly = true
	b.Reset()
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, n := range parseHTML(t, b.String()) {
		_, hidden := n.attrs["hidden"]
		_, checked := n.attrs["checked"]
		switch {
		case n.name == "article" && hidden != (n.attrs["data-state"] == "unchanged"):
			t.Errorf("--new-only: %s (%s) hidden %v", n.attrs["id"], n.attrs["data-state"], hidden)
		case n.name == "input" && checked != (n.attrs["data-state"] == "new"):
			t.Errorf("--new-only: box %s checked %v", n.attrs["data-state"], checked)
		}
	}
	// The format is chosen by name and extension.
	if f, ok := FormatFromPath("nightly.html"); !ok || f != "html" {
		t.Errorf("FormatFromPath(nightly.html) = %q, %v", f, ok)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
