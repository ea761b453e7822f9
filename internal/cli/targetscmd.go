package cli

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/targetid"
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

// targetsListing is what targets prints (the JSON shape): where the
// families come from, the families and the processors.
type targetsListing struct {
	TheRock    theRockSource    `json:"therock"`
	Families   []familyEntry    `json:"families"`
	Processors []processorEntry `json:"processors"`
}

// theRockSource names TheRock's file and the release it was read at.
type theRockSource struct {
	File   string `json:"file"`
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
}

// familyEntry is one TheRock family: {"name": "gfx94X-dcgpu",
// "processors": ["gfx942"]}.
type familyEntry struct {
	Name       string   `json:"name"`
	Processors []string `json:"processors"`
}

// processorEntry is one processor of LLVM's table: the features a target
// ID may set on it, its generic target (for a generic one: its members),
// the ISAs its devices report, TheRock's product name and families.
type processorEntry struct {
	Name       string   `json:"name"`
	Features   []string `json:"features"`
	Generic    string   `json:"generic,omitempty"`
	IsGeneric  bool     `json:"isGeneric,omitempty"`
	Members    []string `json:"members,omitempty"`
	Retired    bool     `json:"retired,omitempty"`
	DeviceISAs []string `json:"deviceISAs,omitempty"`
	Product    string   `json:"therockProduct,omitempty"`
	Families   []string `json:"therockFamilies,omitempty"`
}

// runTargets lists the families and processors, or the ones named.
func runTargets(c *ucli.Context) error {
	format := c.String("format")
	if format != "text" && format != "json" {
		return errs.Usagef("--format %q: want text or json", format)
	}
	l := listTargets()
	if c.NArg() > 0 {
		var err error
		if l, err = l.only(c.Args().Slice()); err != nil {
			return err
		}
	}
	if format == "json" {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(l)
	}
	return l.writeText(c.App.Writer)
}

// listTargets is every family and processor.
func listTargets() targetsListing {
	l := targetsListing{TheRock: theRockSource{File: "cmake/therock_amdgpu_targets.cmake", Ref: targetid.TheRockRef, Commit: targetid.TheRockCommit},
		Families: []familyEntry{}, Processors: []processorEntry{}}
	famsOf := map[string][]string{}
	for _, f := range targetid.Families() {
		l.Families = append(l.Families, familyEntry{Name: f.Name, Processors: f.Processors})
		for _, p := range f.Processors {
			famsOf[p] = append(famsOf[p], f.Name)
		}
	}
	for _, p := range processorsInOrder() {
		e := processorEntry{Name: p.Name, Features: []string{}, Retired: p.Retired, Families: famsOf[p.Name]}
		for _, f := range []string{targetid.Sramecc, targetid.Xnack} {
			if p.Supports(f) {
				e.Features = append(e.Features, f)
			}
		}
		if p.Generic {
			e.IsGeneric, e.Members = true, targetid.GenericMembers(p.Name)
		} else {
			e.Generic = p.Family
			if !p.Retired {
				for _, isa := range targetid.AgentISAs(targetid.ID{Processor: p.Name}) {
					e.DeviceISAs = append(e.DeviceISAs, isa.String())
				}
			}
		}
		e.Product, _ = targetid.TheRockProduct(p.Name)
		l.Processors = append(l.Processors, e)
	}
	return l
}

// processorsInOrder are LLVM's processors by number (gfx600 ... gfx1310),
// the generic ones after them by name.
func processorsInOrder() []targetid.Processor {
	ps := targetid.Processors()
	num := func(p targetid.Processor) int64 {
		n, err := strconv.ParseInt(strings.TrimPrefix(p.Name, "gfx"), 16, 64)
		if err != nil || p.Generic {
			return 1 << 62
		}
		return n
	}
	slices.SortStableFunc(ps, func(a, b targetid.Processor) int { return cmp.Compare(num(a), num(b)) })
	return ps
}

// only keeps the families and processors named; a name that is neither
// is a usage error with the closest name.
func (l targetsListing) only(names []string) (targetsListing, error) {
	out := targetsListing{TheRock: l.TheRock, Families: []familyEntry{}, Processors: []processorEntry{}}
	for _, n := range names {
		fi := slices.IndexFunc(l.Families, func(f familyEntry) bool { return f.Name == n })
		pi := slices.IndexFunc(l.Processors, func(p processorEntry) bool { return p.Name == n })
		switch {
		case fi >= 0:
			out.Families = append(out.Families, l.Families[fi])
		case pi >= 0:
			out.Processors = append(out.Processors, l.Processors[pi])
		default:
			return out, errs.Usagef("targets: %q is neither a TheRock target family nor a processor%s (see kpack-lint targets)", n, didYouMeanTarget(n))
		}
	}
	return out, nil
}

// writeText prints the families, then the processors, one a line in
// aligned columns.
func (l targetsListing) writeText(w io.Writer) error {
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
		fmt.Fprintln(tw, "Processors (LLVM's AMDGPU processors): features a target ID may set, TheRock's product name, the generic target:")
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
func processorCover(p processorEntry) string {
	if p.IsGeneric {
		return "covers " + strings.Join(p.Members, " ")
	}
	return p.Generic
}

// processorNote is TheRock's product name, or why no device has it.
func processorNote(p processorEntry) string {
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
