package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
)

func mergeCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "merge",
		Usage:     "join the reports of check --shard 1/N ... N/N into the report of the whole run",
		ArgsUsage: "REPORT...",
		Description: "REPORTs are the JSON or SARIF reports of every shard of one check (check --shard I/N --output ...).\n" +
			"The result, in any format (--format, --output), is byte for byte the report one unsharded check writes in\n" +
			"that format, whether the shards are JSON or SARIF (both keep waivers, baseline states, file sizes and the\n" +
			"explain commands); by default in the format of the first REPORT on stdout. Exit 0: nothing at or above\n" +
			"--fail-on; 1: such findings; 2: the reports are not the N shards of one check, or cannot be read.",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "fail-on", Value: "error", Usage: "lowest level that makes the exit code 1: error, warning, note or none"},
		}, outputFlags("without --output, the first REPORT's format on stdout")...),
		Action: runMerge,
	}
}

// runMerge turns merge's flags into the pipeline's configuration and runs
// it (lint.Merge).
func runMerge(c *ucli.Context) error {
	if c.NArg() == 0 {
		return errs.Usagef("merge: no REPORT given (the reports of check --shard I/N)")
	}
	failOn, ok := parseFailOn(c.String("fail-on"))
	if !ok {
		return errs.Usagef("--fail-on %q: want error, warning, note or none", c.String("fail-on"))
	}
	out, err := parseOutputs(c)
	if err != nil {
		return err
	}
	if len(out.files) == 0 && c.String("format") == "" {
		out.stdoutFormat, out.firstFormat = "", true
	}
	cfg := lint.Config{Inputs: c.Args().Slice(), Gate: lint.Gate{FailOn: failOn}, Report: out.report(c.App.Writer)}
	return lint.Merge(cfg)
}
