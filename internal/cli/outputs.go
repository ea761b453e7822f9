package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
	"github.com/rocm-tools/kpack-lint/report"
)

// outputFlags are the report flags check and merge share; stdoutDefault
// says which format stdout gets without --format.
func outputFlags(stdoutDefault string) []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "format", Usage: "report format: " + strings.Join(report.Formats(), ", ") + " (default: " + stdoutDefault +
			"); with --output, the format of files whose extension names none, and of stdout when no file took it"},
		&ucli.StringSliceFlag{Name: "output", KeepSpace: true, Usage: "write a report to a file: PATH (format from the extension " + strings.Join(report.FormatSuffixes(), "/") + ", which wins over --format; " +
			"else --format's) or FORMAT=PATH (always FORMAT; a name holding \"=\": ./NAME); repeatable; - is stdout"},
		// Not an alias: urfave/cli refuses --output and -o together.
		&ucli.StringSliceFlag{Name: "o", KeepSpace: true, Usage: "same as --output"},
		&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "with --output: print no report on stdout (without --output it is a usage error)"},
		&ucli.StringFlag{Name: "path-prefix", Usage: "put this before every input path in SARIF and GitHub annotations (where the build lies in the repository, e.g. build/dist)"},
		&ucli.StringFlag{Name: "color", Value: "auto", Usage: "colour the text report: auto (a terminal without NO_COLOR), always or never"},
		&ucli.BoolFlag{Name: "new-only", Usage: "with a baseline: the text and HTML reports list only the findings new since it (unchanged ones are counted); JSON and SARIF keep every finding"},
		&ucli.IntFlag{Name: "max-per-rule", Value: report.DefaultMaxPerRule, Usage: "the text report shows at most N findings per rule and says how many it hides (0: all); other formats keep every finding"},
	}
}

// outputs is where the reports of one run go.
type outputs struct {
	stdoutFormat string // "" for nothing on stdout
	// firstFormat puts merge's report on stdout in the first report's
	// format (stdoutFormat "").
	firstFormat bool
	files       []outputFile
	pathPrefix  string
	colorMode   string
	newOnly     bool
	maxPerRule  int
}

type outputFile struct {
	format, path string
}

// parseOutputs reads --format, --output, --quiet, --path-prefix, --color.
// Without --output the report goes to stdout in --format (text). Each
// --output is FORMAT=PATH, or PATH whose extension names its format
// (report.FormatFromPath; it wins over --format, so -o r.sarif is always
// SARIF: a note on stderr says so when --format differs) or else takes
// --format's, never a guess. stdout then gets the text report (or
// --format's when no file took it) unless --quiet or an output is "-".
// --quiet without --output is a usage error: it would silence everything.
func parseOutputs(c *ucli.Context) (outputs, error) {
	o := outputs{pathPrefix: strings.Trim(c.String("path-prefix"), "/"), colorMode: c.String("color"),
		newOnly: c.Bool("new-only"), maxPerRule: c.Int("max-per-rule")}
	if !slices.Contains(colorModes, o.colorMode) {
		return o, badChoice("--color", o.colorMode, colorModes)
	}
	if o.maxPerRule < 0 {
		return o, errs.Usagef("--max-per-rule %d: want a count of findings, 0 for all", o.maxPerRule)
	}
	format := c.String("format")
	if err := checkFormat(format); err != nil {
		return o, err
	}
	formatUsed := false
	toStdout := false
	for _, spec := range append(c.StringSlice("output"), c.StringSlice("o")...) {
		f, ok, err := parseOutput(spec)
		if err != nil {
			return o, err
		}
		inferred, known := report.FormatFromPath(spec)
		switch {
		case ok:
		case known:
			f = outputFile{inferred, spec}
			if format != "" && format != inferred {
				fmt.Fprintf(c.App.ErrWriter, "kpack-lint: note: --output %s is written as %s, as its extension says (--format %s applies to files "+
					"whose extension names no format); write %s=%s to force %s\n", spec, inferred, format, format, spec, format)
			}
		case format != "":
			f, formatUsed = outputFile{format, spec}, true
		default:
			return o, errs.Usagef("--output %s: cannot tell the format from the file name; write FORMAT=PATH (e.g. sarif=%s) or pass --format", spec, spec)
		}
		if f.path == "" {
			return o, errs.Usagef("--output %q: no file name", spec)
		}
		if f.path != "-" {
			if err := fsutil.CheckWritable(f.path); err != nil {
				return o, errs.Usagef("--output %s: %v; nothing was checked (give a file in a folder that exists and may be written to)", spec, err)
			}
		}
		for _, prev := range o.files {
			if f.path != "-" && prev.path != "-" && fsutil.SameOutput(prev.path, f.path) {
				return o, errs.Usagef("--output %s: the file %s is already given to --output (as %s): one report would replace the other; "+
					"give each report its own file", spec, f.path, prev.path)
			}
		}
		toStdout = toStdout || f.path == "-"
		o.files = append(o.files, f)
	}
	switch {
	case len(o.files) == 0 && c.Bool("quiet"):
		return o, errs.Usagef("--quiet without --output: nothing would be written; give --output FILE (--quiet drops the report on stdout), or drop --quiet")
	case len(o.files) == 0:
		o.stdoutFormat = "text"
		if format != "" {
			o.stdoutFormat = format
		}
	case toStdout || c.Bool("quiet"):
	case format != "" && !formatUsed:
		o.stdoutFormat = format
	default:
		o.stdoutFormat = "text"
	}
	return o, nil
}

// parseOutput reads FORMAT=PATH: a spec with a "=" whose part before it
// is a word (no path separator, not starting with ".") names a format
// there, and a word that names none is a usage error with the format it
// likely means; ok is false for a spec that is a path (no "=", or one
// after a "/": ./md=m.md and out/a=b.json are files of those names).
func parseOutput(spec string) (f outputFile, ok bool, err error) {
	word, p, found := strings.Cut(spec, "=")
	if !found || strings.ContainsAny(word, `/\`) || strings.HasPrefix(word, ".") {
		return outputFile{}, false, nil
	}
	if !slices.Contains(report.Formats(), word) {
		return outputFile{}, false, errs.Usagef("--output %s: %q is not a format: want %s%s "+
			"(a file whose name holds \"=\" is written as a path: ./%s)", spec, word, orList(report.Formats()), suggestChoice(word, report.Formats()), spec)
	}
	return outputFile{word, p}, true, nil
}

// checkApart refuses, before the analysis, a report file that is one of
// the files the run reads (read: inputs, policy, baseline, waivers,
// shards; "" skipped) or lies inside an input folder, and under
// $GITHUB_WORKSPACE one reached through a symlinked folder out of it
// (fsutil.CheckOutput).
func (o outputs) checkApart(read []string) error {
	for _, f := range o.files {
		if f.path == "-" {
			continue
		}
		if err := fsutil.CheckOutput(f.path, read, os.Getenv("GITHUB_WORKSPACE")); err != nil {
			return errs.Usagef("--output %s: %v; nothing was checked", f.path, err)
		}
	}
	return nil
}

// report is where the reports go, for the pipeline: the files in order,
// then stdout (a format of "" is merge's: the first report's).
func (o outputs) report(stdout io.Writer) lint.Report {
	r := lint.Report{Stdout: stdout, Color: o.color(stdout), PathPrefix: o.pathPrefix, ToolVersion: Version, InformationURI: InformationURI,
		NewOnly: o.newOnly, MaxPerRule: o.maxPerRule, Guard: guard}
	for _, f := range o.files {
		r.Outputs = append(r.Outputs, lint.Output{Format: f.format, Path: f.path})
	}
	if o.stdoutFormat != "" || o.firstFormat {
		r.Outputs = append(r.Outputs, lint.Output{Format: o.stdoutFormat, Path: "-"})
	}
	return r
}

// color reports whether text on w gets ANSI colours: --color always, or
// auto on a terminal when NO_COLOR is unset or empty (no-color.org).
func (o outputs) color(w io.Writer) bool {
	switch o.colorMode {
	case "always":
		return true
	case "never":
		return false
	}
	return terminal(w) != nil && os.Getenv("NO_COLOR") == ""
}

// terminal returns w when it is a terminal (progress is drawn only there),
// else nil.
func terminal(w io.Writer) io.Writer {
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap() // a terminal is no CI log: progress goes to it as it is
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return w
	}
	return nil
}
