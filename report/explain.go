package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// Explanation is one simulated kpack_load_code_object of explain: the
// kernel key, the arch_list and loader, what the search paths opened and
// each candidate tried, and the verdict of kpack and of HIP. Its JSON
// form is explain's JSON output; the fields tagged "-" are for the text.
type Explanation struct {
	Kernel        string   `json:"kernel"`
	ArchList      []string `json:"arch_list"`
	Loader        string   `json:"loader"`
	Result        string   `json:"result"`
	Code          int      `json:"code"`
	Archive       string   `json:"archive,omitempty"`
	MatchedTarget string   `json:"matched_target,omitempty"`
	Binary        string   `json:"binary,omitempty"`
	SearchPaths   []string `json:"search_paths"`
	Refused       []string `json:"refused,omitempty"`
	// CodeObject is the target ID decoded from the served code object's
	// ELF header; HIP is what HIP makes of the load on the agent: after a
	// success, of that code object (hipSuccess or hipErrorInvalidImage);
	// after a failure, of the loader's error, which HIPEffect says in
	// words.
	CodeObject string `json:"code_object_target,omitempty"`
	HIP        string `json:"hip,omitempty"`
	HIPEffect  string `json:"hip_effect,omitempty"`
	// Faulted lists archives whose TOC the fixed runtime refuses and the
	// legacy runtime aborts on.
	Faulted []string `json:"faulted,omitempty"`
	// Disabled is set when the runtime's variable DisabledBy
	// (ROCM_KPACK_DISABLE) turned kpack loading off.
	Disabled bool `json:"disabled,omitempty"`
	// Overridden is set when the variable OverriddenBy (ROCM_KPACK_PATH)
	// replaced the search paths.
	Overridden bool `json:"overridden,omitempty"`
	// Note explains a failure further, e.g. a co_index the binary lacks.
	Note   string      `json:"note,omitempty"`
	Opened []string    `json:"opened"`
	Trace  []TraceStep `json:"trace"`
	// Omitted counts the candidates tried between the trace's first
	// steps (the resolver lists at most MaxTraceSteps) and its last, not
	// listed.
	Omitted int `json:"omitted,omitempty"`

	// Embedded, when set, is the explanation of an embedded wrapper
	// (no kpack load): it is written instead of the fields above.
	Embedded *EmbeddedLoad `json:"-"`

	// Loaded is set when the load succeeds, Aborted when the process
	// aborts; States says for each search path what opening it gave.
	Loaded       bool              `json:"-"`
	Aborted      bool              `json:"-"`
	States       map[string]string `json:"-"`
	DisabledBy   string            `json:"-"`
	OverriddenBy string            `json:"-"`
}

// TraceStep is one candidate a load tried: the arch of the arch_list, the
// target it matched in an archive, and what fetching gave.
type TraceStep struct {
	Arch    string `json:"arch"`
	Target  string `json:"target"`
	Archive string `json:"archive"`
	Result  string `json:"result"`
	Code    int    `json:"code"`
}

// WriteExplanations writes explain's output in format "json" (one
// explanation as an object, several as an array) or "text" (each as the
// runtime's debug log would tell it, separated by a blank line; every
// line escaped: paths and names come from the inputs).
func WriteExplanations(w io.Writer, format string, exs []Explanation) error {
	return writeExplained(w, format, exs, writeExplanationText)
}

// writeExplained writes explanations of one kind in format "json" (one
// as an object, several as an array) or "text" (each by text, separated
// by a blank line, every line escaped), whole or not at all.
func writeExplained[T any](w io.Writer, format string, exs []T, text func(io.Writer, T)) error {
	if format == "json" {
		var v any = exs
		if len(exs) == 1 {
			v = exs[0]
		}
		return writeIndentedJSON(w, v, true)
	}
	var buf bytes.Buffer
	for i, ex := range exs {
		if i > 0 {
			buf.WriteByte('\n')
		}
		text(escapedLines{&buf}, ex)
	}
	_, err := io.WriteString(w, inertText(buf.String()))
	return err
}

func writeExplanationText(w io.Writer, ex Explanation) {
	if ex.Embedded != nil {
		writeEmbeddedText(w, ex.Embedded)
		return
	}
	fmt.Fprintf(w, "kpack: load %s, arch_list [%s], %s loader\n", ex.Kernel, strings.Join(ex.ArchList, ", "), ex.Loader)
	if ex.Disabled {
		fmt.Fprintf(w, "kpack: kpack disabled via %s\n", ex.DisabledBy)
	} else if ex.Overridden {
		fmt.Fprintf(w, "kpack: %s replaces the search paths\n", ex.OverriddenBy)
	} else if ex.Binary != "" {
		fmt.Fprintf(w, "kpack: search paths of %s\n", ex.Binary)
	}
	for _, p := range ex.SearchPaths {
		fmt.Fprintf(w, "kpack:   %s: %s\n", p, ex.States[p])
	}
	for _, p := range ex.Refused {
		fmt.Fprintf(w, "kpack:   %s: not simulated: absolute or outside the input\n", p)
	}
	for i, s := range ex.Trace {
		n := i + 1
		if ex.Omitted > 0 && i == len(ex.Trace)-1 {
			fmt.Fprintf(w, "kpack: ... %d more candidates tried, not listed (resolver.MaxTraceSteps)\n", ex.Omitted)
			n += ex.Omitted
		}
		fmt.Fprintf(w, "kpack: candidate %d: arch %s, target %s in %s: %s\n", n, s.Arch, s.Target, s.Archive, s.Result)
	}
	if ex.Loaded {
		fmt.Fprintf(w, "kpack: %s: loaded from %s (target %s)\n", ex.Result, ex.Archive, ex.MatchedTarget)
		if ex.CodeObject != "" {
			fmt.Fprintf(w, "hip: code object target %s, agent %s: %s\n", ex.CodeObject, ex.ArchList[0], ex.HIP)
		}
		return
	}
	if ex.Aborted {
		fmt.Fprintf(w, "kpack: the process aborts (%s)\n", abortWhy(ex))
	} else {
		fmt.Fprintf(w, "kpack: %s (error %d)\n", ex.Result, ex.Code)
	}
	if ex.HIPEffect != "" {
		fmt.Fprintf(w, "hip: %s\n", ex.HIPEffect)
	}
	if ex.Note != "" {
		fmt.Fprintf(w, "note: %s\n", ex.Note)
	}
}

// abortWhy says where an aborted load died: opening an archive whose TOC
// the legacy runtime cannot convert, or allocating a kernel no host can.
func abortWhy(ex Explanation) string {
	if len(ex.Trace) == 0 {
		return "std::bad_cast opening " + ex.Archive + ", whose TOC the legacy runtime cannot convert; the fall-through loader skips it"
	}
	last := ex.Trace[len(ex.Trace)-1]
	return "std::bad_alloc fetching from " + last.Archive + " as " + last.Target + ": a size no host can allocate"
}

// escapedLines escapes each line written to it (one Write per line, as
// writeExplanationText does with fmt.Fprintf): search paths, kernel names
// and archive names come from the inputs.
type escapedLines struct{ w io.Writer }

func (e escapedLines) Write(p []byte) (int, error) {
	line, nl := strings.CutSuffix(string(p), "\n")
	out := escape.String(line)
	if nl {
		out += "\n"
	}
	if _, err := io.WriteString(e.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}
