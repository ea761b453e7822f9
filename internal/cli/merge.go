package cli

import (
	"slices"

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
			"that format, whether the shards are JSON or SARIF (both keep waivers, file sizes and the explain commands);\n" +
			"by default in the format of the first REPORT on stdout. Merge takes no baseline state from a shard: it\n" +
			"compares the findings with its own --baseline (the one the shards were checked with) as check does, and\n" +
			"without one every finding is new. Exit 0: nothing at or above --fail-on; 1: such findings; 2: the reports\n" +
			"are not the N shards of one check, hold what check --shard does not write, or cannot be read.",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "fail-on", Value: "error", Usage: "lowest level that makes the exit code 1: error, warning, note or none"},
			&ucli.StringFlag{Name: "baseline", Usage: "earlier JSON or SARIF report of kpack-lint (the shards' --baseline): merge compares the findings with it; only new ones fail"},
			&ucli.BoolFlag{Name: "fail-on-baseline", Usage: "with --baseline: findings unchanged since the baseline fail too"},
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
	failOn, err := failOnLevel(c.String("fail-on"))
	if err != nil {
		return err
	}
	out, err := parseOutputs(c)
	if err != nil {
		return err
	}
	if len(out.files) == 0 && c.String("format") == "" {
		out.stdoutFormat, out.firstFormat = "", true
	}
	cfg := lint.Config{Inputs: c.Args().Slice(), Gate: lint.Gate{FailOn: failOn}, Report: out.report(c.App.Writer), Note: noteWriter(c.App.ErrWriter)}
	if err := parseBaseline(c, &cfg.Gate); err != nil {
		return err
	}
	if err := out.checkApart(append(slices.Clone(cfg.Inputs), c.String("baseline"))); err != nil {
		return err
	}
	return lint.Merge(cfg)
}
