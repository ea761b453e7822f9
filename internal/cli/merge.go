package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/gate"
	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
	"github.com/rocm-tools/kpack-lint/report"
	"github.com/rocm-tools/kpack-lint/rules"
)

func mergeCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "merge",
		Usage:     "join the reports of check --shard 1/N ... N/N into the report of the whole run",
		ArgsUsage: "REPORT...",
		Description: "REPORTs are the JSON or SARIF reports of every shard of one check (check --shard I/N --output ...).\n" +
			"The result is byte for byte the report one unsharded check writes; by default in the format of the\n" +
			"first REPORT on stdout. Exit 0: nothing at or above --fail-on; 1: such findings; 2: the reports are\n" +
			"not the N shards of one check, or cannot be read.",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "fail-on", Value: "error", Usage: "lowest level that makes the exit code 1: error, warning, note or none"},
		}, outputFlags("without --output, the first REPORT's format on stdout")...),
		Action: runMerge,
	}
}

func runMerge(c *ucli.Context) error {
	if c.NArg() == 0 {
		return usageErr("merge: no REPORT given (the reports of check --shard I/N)")
	}
	if err := noFlagsAmongInputs(c); err != nil {
		return err
	}
	failOn, ok := parseFailOn(c.String("fail-on"))
	if !ok {
		return usageErr("--fail-on %q: want error, warning, note or none", c.String("fail-on"))
	}
	var runs []report.Run
	var firstFormat string
	for i, p := range c.Args().Slice() {
		data, err := fsutil.ReadFile(p, report.MaxReadSize)
		if err != nil {
			return usageErr("merge: %s: %v", p, err)
		}
		r, format, err := report.Read(data)
		if err != nil {
			return usageErr("merge: %s: %v", p, err)
		}
		if i == 0 {
			firstFormat = format
		}
		runs = append(runs, r)
	}
	merged, err := gate.Merge(runs)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	merged.Rules = rules.All()
	out, err := parseOutputs(c)
	if err != nil {
		return err
	}
	if len(out.files) == 0 && c.String("format") == "" {
		out.stdoutFormat = firstFormat
	}
	merged.Color = out.color(c.App.Writer)
	if err := out.write(merged, c.App.Writer); err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	if finding.Failing(merged.Findings, merged.Rules, failOn, merged.FailOnBaseline) > 0 {
		return &exitError{code: ExitFindings}
	}
	return nil
}
