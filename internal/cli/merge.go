package cli

import (
	"slices"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/finding"
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
			"that format, whether the shards are JSON or SARIF (both keep file sizes and the explain commands); by\n" +
			"default in the format of the first REPORT on stdout. Merge recomputes what it can from its own policy and\n" +
			"flags (give it those of the check): the baseline states against its --baseline (without one every finding\n" +
			"is new), the waivers (the policy's and --waivers), each finding's level under the policy, and the target\n" +
			"matrix (variant, --target, --agent, --loader); a shard's are never taken. Exit 0: nothing at or above\n" +
			"--fail-on; 1: such findings; 2: the reports are not the N shards of one check, hold what check --shard does\n" +
			"not write (findings of another shard's groups, a level or matrix merge's policy does not give), or cannot be read.",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "policy", Usage: "the check's policy file (default: ./" + lint.DefaultPolicy + " in the working directory, if any)"},
			&ucli.BoolFlag{Name: "no-policy", Usage: "use no policy file, as the check did"},
			&ucli.StringFlag{Name: "variant", Usage: "build variant of the policy the shards checked (default: release, or the only one)"},
			&ucli.StringSliceFlag{Name: "target", Usage: "the check's --target; repeatable"},
			&ucli.StringSliceFlag{Name: "agent", Usage: "the check's --agent; repeatable"},
			&ucli.StringFlag{Name: "loader", Usage: "the check's --loader: fallthrough or legacy"},
			&ucli.StringFlag{Name: "fail-on", Value: "error", Usage: "lowest level that makes the exit code 1: error, warning, note or none"},
			&ucli.StringFlag{Name: "baseline", Usage: "earlier JSON or SARIF report of kpack-lint (the shards' --baseline): merge compares the findings with it; only new ones fail"},
			&ucli.BoolFlag{Name: "fail-on-baseline", Usage: "with --baseline: findings unchanged since the baseline fail too"},
			&ucli.StringFlag{Name: "waivers", Usage: "YAML file of waivers (the check's --waivers), added to the policy's"},
			&ucli.StringFlag{Name: "today", Usage: "date waivers expire against, YYYY-MM-DD (default: today, UTC)"},
			&ucli.IntFlag{Name: "warn-expiring", Usage: "warn about waivers that expire within DAYS days (0: none)"},
			&ucli.IntFlag{Name: "max-waiver-days", Value: lint.DefaultMaxWaiverDays, Usage: "warn about waivers that expire more than DAYS days ahead or never (0: no expiry check)"},
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
	if err := mergePolicy(c, &cfg); err != nil {
		return err
	}
	if err := parseBaseline(c, &cfg.Gate); err != nil {
		return err
	}
	if err := parseWaivers(c, &cfg); err != nil {
		return err
	}
	if err := out.checkApart(append(slices.Clone(cfg.Inputs), c.String("baseline"))); err != nil {
		return err
	}
	return lint.Merge(cfg)
}

// mergePolicy reads merge's policy (--policy, --no-policy, else
// ./policies.yaml: merge's inputs are reports, whose folders are not
// looked in) and the matrix flags it checks the shards against.
func mergePolicy(c *ucli.Context, cfg *lint.Config) error {
	if c.Bool("no-policy") && c.String("policy") != "" {
		return errs.Usagef("--policy and --no-policy exclude each other")
	}
	src := lint.FindPolicy(c.String("policy"), c.Bool("no-policy"), nil)
	src.Warn(c.App.ErrWriter)
	pol, err := lint.LoadPolicy(src)
	if err != nil {
		return errs.AsInput(err)
	}
	if _, err := finding.ParseLoader(c.String("loader")); err != nil {
		return badChoice("--loader", c.String("loader"), loaderNames)
	}
	for _, t := range c.StringSlice("target") {
		if err := lint.CheckTarget(t); err != nil {
			return errs.Usagef("--target: %v%s", err, lint.SuggestTarget(t))
		}
	}
	for _, t := range c.StringSlice("agent") {
		if err := lint.CheckAgent(t); err != nil {
			return errs.Usagef("--agent: %v%s%s", err, lint.SuggestTarget(t), familyAgentHint(t))
		}
	}
	if err := lint.CheckVariant(pol, c.String("variant")); err != nil {
		return errs.AsUsage(src.Wrap(err))
	}
	cfg.Policy, cfg.Variant, cfg.Loader = pol, c.String("variant"), finding.Loader(c.String("loader"))
	cfg.PolicySource = src.Describe()
	cfg.Targets, cfg.Agents = c.StringSlice("target"), c.StringSlice("agent")
	return nil
}

// parseWaivers reads the waivers check and merge apply: the policy's,
// --waivers, the expiry warnings' flags and the date they expire against.
func parseWaivers(c *ucli.Context, cfg *lint.Config) error {
	g := &cfg.Gate
	g.AddPolicyWaivers(cfg.Policy)
	if p := c.String("waivers"); p != "" {
		if err := g.AddWaiverFile(p); err != nil {
			return err
		}
	}
	if g.WarnExpiring = c.Int("warn-expiring"); g.WarnExpiring < 0 {
		return errs.Usagef("--warn-expiring %d: want a number of days, 0 for none", g.WarnExpiring)
	}
	if g.MaxWaiverDays = c.Int("max-waiver-days"); g.MaxWaiverDays < 0 {
		return errs.Usagef("--max-waiver-days %d: want a number of days, 0 for no expiry check", g.MaxWaiverDays)
	}
	g.Today = c.String("today")
	if g.Today == "" {
		g.Today = time.Now().UTC().Format(finding.DateLayout)
	} else if _, err := time.Parse(finding.DateLayout, g.Today); err != nil {
		return errs.Usagef("--today %q: want YYYY-MM-DD", g.Today)
	}
	return nil
}
