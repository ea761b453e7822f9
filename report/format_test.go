package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestFormatTable: every format of the table is written by Write, named
// by Formats in table order, and chosen by its file-name endings (the
// longest first, any case); other names choose none.
func TestFormatTable(t *testing.T) {
	if got, want := Formats(), []string{"text", "json", "sarif", "github", "markdown", "html"}; !slices.Equal(got, want) {
		t.Errorf("Formats() = %q, want %q", got, want)
	}
	if got, want := FormatSuffixes(), []string{".txt", ".json", ".sarif", ".md", ".html"}; !slices.Equal(got, want) {
		t.Errorf("FormatSuffixes() = %q, want %q", got, want)
	}
	for path, want := range map[string]string{
		"r.sarif": "sarif", "r.sarif.json": "sarif", "R.SARIF.JSON": "sarif", "r.json": "json", "r.md": "markdown",
		"r.markdown": "markdown", "r.txt": "text", "r.text": "text", "r.html": "html", "r.HTM": "html",
		"out/r.gh": "", "r.yaml": "", "sarif": "",
	} {
		got, ok := FormatFromPath(path)
		if got != want || ok != (want != "") {
			t.Errorf("FormatFromPath(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
	r := Run{ToolVersion: "test"}
	for _, f := range formats {
		var b bytes.Buffer
		if err := Write(&b, f.Name, r); err != nil || b.Len() == 0 {
			t.Errorf("Write(%s): %d bytes, %v", f.Name, b.Len(), err)
		}
	}
	var b bytes.Buffer
	if err := Write(&b, "xml", r); err == nil || b.Len() != 0 || !strings.Contains(err.Error(), "want one of text, json, sarif, github, markdown, html") {
		t.Errorf("Write(xml): %d bytes, %v", b.Len(), err)
	}
}
