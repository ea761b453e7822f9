package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
)

func targetsCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "targets",
		Usage:     "list TheRock's target families with their processors, and the processors the tool knows",
		ArgsUsage: "[FAMILY|PROCESSOR...]",
		Description: "A TheRock target family (gfx94X-dcgpu, gfx110X-all; TheRock's cmake/therock_amdgpu_targets.cmake at the\n" +
			"release named in the output) may be given wherever a target is (check --target, a policy's targets: and agents:\n" +
			"keys) and stands for its processors. Processors are LLVM's AMDGPU processors: the features a target ID may set,\n" +
			"the generic target that covers it, the ISAs its devices report. With names, only those are listed. Exit 0; 2: a\n" +
			"name that is neither (with the closest one).",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
		},
		Action: runTargets,
	}
}

// runTargets lists the families and processors, or the ones named.
func runTargets(c *ucli.Context) error {
	format := c.String("format")
	if format != "text" && format != "json" {
		return errs.Usagef("--format %q: want text or json", format)
	}
	l := lint.ListTargets()
	if c.NArg() > 0 {
		var err error
		if l, err = l.Only(c.Args().Slice()); err != nil {
			return err
		}
	}
	if format == "json" {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(l)
	}
	return writeTargets(c.App.Writer, l)
}

// writeText prints the families, then the processors, one a line in
// aligned columns.
func writeTargets(w io.Writer, l lint.TargetListing) error {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	if len(l.Families) > 0 {
		fmt.Fprintf(tw, "TheRock target families (ROCm/TheRock %s at %s, %s); a family stands for its processors:\n", l.TheRock.File, l.TheRock.Ref, l.TheRock.Commit[:12])
		for _, f := range l.Families {
			fmt.Fprintf(tw, "  %s\t%s\n", f.Name, strings.Join(f.Processors, " "))
		}
	}
	if len(l.Processors) > 0 {
		if len(l.Families) > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintln(tw, "Processors (LLVM's AMDGPU processors): features a target ID may set, TheRock's product name, LLVM's generic target (HIP's own map, which the loads use, depends on --hip and has none for gfx940, gfx941 and gfx1251):")
		for _, p := range l.Processors {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", p.Name, orDash(strings.Join(p.Features, " ")), orDash(processorNote(p)), orDash(processorCover(p)))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+strings.Repeat("\n", strings.Count(line, "\n"))); err != nil {
			return err
		}
	}
	return nil
}

// processorCover is the generic target covering p, or for a generic
// processor its members.
func processorCover(p lint.ProcessorEntry) string {
	if p.IsGeneric {
		return "covers " + strings.Join(p.Members, " ")
	}
	return p.Generic
}

// processorNote is TheRock's product name, or why no device has it.
func processorNote(p lint.ProcessorEntry) string {
	switch {
	case p.Retired:
		return "retired (LLVM 20): no device reports it"
	case p.Product != "":
		return p.Product
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
