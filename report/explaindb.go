package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// DBExplanation is explain-db's output: one entry per library site its
// LIBRARY names. Its JSON form is explain-db's JSON output.
type DBExplanation struct {
	Sites []DBSite `json:"sites"`
}

// DBSite is one copy of a library: where it looks for its kernel
// database (the base folder and how it was found) and its lookup per
// agent; Skipped says why the site was not judged.
type DBSite struct {
	Library   string   `json:"library"`
	Path      string   `json:"path"`
	Names     []string `json:"names"`
	Base      string   `json:"base"`
	BaseFrom  string   `json:"base_from"`
	BaseSteps []DBStep `json:"base_steps"`
	// Release is, for rocBLAS and hipBLASLt, the release whose lookup it
	// follows (rocBLAS: "rocBLAS 5.3-5.5 (rocBLAS 2.45-2.47, ...)";
	// hipBLASLt: "ROCm 5.5-6.4", "ROCm 7.0 and later"), ReleaseFrom why;
	// ReleaseRow is hipBLASLt's row within it ("6.2-6.4", ...).
	Release     string     `json:"release,omitempty"`
	ReleaseFrom string     `json:"release_from,omitempty"`
	ReleaseRow  string     `json:"release_row,omitempty"`
	Skipped     string     `json:"skipped,omitempty"`
	Lookups     []DBLookup `json:"lookups"`
}

// DBLookup is a library's lookup for one agent: the files it tries and
// what it misses.
type DBLookup struct {
	Agent     string   `json:"agent"`
	Processor string   `json:"processor"`
	DbID      string   `json:"db_id,omitempty"`
	Dir       string   `json:"dir"`
	Index     string   `json:"index,omitempty"`
	Lazy      bool     `json:"lazy"`
	Steps     []DBStep `json:"steps"`
	Misses    []DBMiss `json:"misses"`
}

// DBStep is one file a lookup tries; Text is how the text output words
// it (a step line of the KPL013 trace).
type DBStep struct {
	Path  string `json:"path"`
	Found bool   `json:"found"`
	Note  string `json:"note,omitempty"`
	CUs   int    `json:"cus,omitempty"` // the CU count a MIOpen probe is for
	Text  string `json:"-"`
}

// DBMiss is one thing a lookup misses and what that does to the program.
type DBMiss struct {
	Kind  string   `json:"kind"`
	Paths []string `json:"paths"`
	// Count is how many files the miss is about; paths lists a bounded
	// number of them.
	Count int `json:"count"`
	// Exists is set when the paths exist but the library cannot use them.
	Exists bool     `json:"exists,omitempty"`
	Tried  []string `json:"tried,omitempty"`
	Effect string   `json:"effect"`
	Text   string   `json:"text"`
}

// WriteDBExplanation writes explain-db's output in format "json" or
// "text" (the lookup step by step with what the library would print;
// every value from the inputs escaped).
func WriteDBExplanation(w io.Writer, format string, ex DBExplanation) error {
	if format == "json" {
		return writeIndentedJSON(w, ex, false)
	}
	var buf bytes.Buffer
	for _, s := range ex.Sites {
		writeDBSiteText(&buf, s)
	}
	_, err := io.WriteString(w, inertText(buf.String()))
	return err
}

// writeDBSiteText writes one site; every value from the inputs (paths,
// file names, library messages quoting them) is escaped.
func writeDBSiteText(w io.Writer, s DBSite) {
	e := escape.String
	lib := s.Library
	fmt.Fprintf(w, "%s: library %s", lib, e(s.Path))
	if others := otherNames(s); len(others) > 0 {
		fmt.Fprintf(w, " (also %s)", e(strings.Join(others, ", ")))
	}
	fmt.Fprintln(w)
	if s.Release != "" && s.ReleaseRow != "" {
		fmt.Fprintf(w, "%s: the lookup of %s, the %s row (from %s)\n", lib, e(s.Release), e(s.ReleaseRow), e(s.ReleaseFrom))
	} else if s.Release != "" {
		fmt.Fprintf(w, "%s: the lookup of %s (from %s)\n", lib, e(s.Release), e(s.ReleaseFrom))
	}
	fmt.Fprintf(w, "%s: database folder from %s\n", lib, e(s.BaseFrom))
	for _, st := range s.BaseSteps {
		fmt.Fprintf(w, "%s:   %s\n", lib, e(st.Text))
	}
	if s.Skipped != "" {
		fmt.Fprintf(w, "%s: not judged: %s\n", lib, e(s.Skipped))
		return
	}
	for _, l := range s.Lookups {
		fmt.Fprintf(w, "%s: agent %s (processor %s", lib, e(l.Agent), e(l.Processor))
		if l.DbID != "" {
			fmt.Fprintf(w, ", DbId %s", e(l.DbID))
		}
		fmt.Fprintln(w, ")")
		for _, st := range l.Steps {
			fmt.Fprintf(w, "%s:   %s\n", lib, e(st.Text))
		}
		for _, m := range l.Misses {
			fmt.Fprintf(w, "%s:   %s: %s\n", lib, e(m.Effect), e(m.Text))
		}
		if len(l.Misses) == 0 {
			fmt.Fprintf(w, "%s:   OK\n", lib)
		}
	}
}

func otherNames(s DBSite) []string {
	var out []string
	for _, n := range s.Names {
		if n != s.Path {
			out = append(out, n)
		}
	}
	return out
}
