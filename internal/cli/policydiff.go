package cli

import (
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
)

// policyDiffCommand is `kpack-lint policy-diff BASE HEAD`: what HEAD (a
// pull request's policies.yaml) changes against BASE (its base commit's)
// that can let more through the gate (policy.Diff), as text or as the job
// summary's "Policy changes" section.
func policyDiffCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "policy-diff",
		Usage:     "list what a policy changes against another that can let more through the gate (waivers added or extended, rules turned down, targets, agents or machines removed)",
		ArgsUsage: "BASE HEAD",
		Description: "BASE is the policy the gate trusts (e.g. the pull request's base commit's, git show BASE_SHA:policies.yaml),\n" +
			"HEAD the changed one. Each change is one line (text) or list item (--format markdown, a job summary\n" +
			"section, every string from the policies escaped) at its file:line. Exit 0 with or without changes;\n" +
			"2 when a policy does not load.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "text or markdown"},
			&ucli.StringFlag{Name: "base-name", Usage: "how to name BASE (default: BASE as given), e.g. policies.yaml@abc1234"},
			&ucli.StringFlag{Name: "head-name", Usage: "how to name HEAD (default: HEAD as given)"},
			&ucli.StringFlag{Name: "base-waivers", Usage: "waiver file (check's --waivers) added to BASE's waivers"},
			&ucli.StringFlag{Name: "head-waivers", Usage: "waiver file added to HEAD's waivers"},
			&ucli.StringFlag{Name: "base-waivers-name", Usage: "how to name --base-waivers (default: as given)"},
			&ucli.StringFlag{Name: "head-waivers-name", Usage: "how to name --head-waivers (default: as given)"},
			&ucli.BoolFlag{Name: "allow-missing", Usage: "a BASE or HEAD (or waiver file) that does not exist is no policy (a first or a deleted policy) or no waivers"},
			&ucli.StringFlag{Name: "today", Usage: "date waivers expire against, YYYY-MM-DD (default: today, UTC)"},
			&ucli.IntFlag{Name: "max-waiver-days", Value: lint.DefaultMaxWaiverDays, Usage: "a waiver added or extended that expires more than DAYS days ahead (or never) is called too broad; 0: no expiry check"},
		},
		Action: runPolicyDiff,
	}
}

func runPolicyDiff(c *ucli.Context) error {
	if c.NArg() != 2 {
		return errs.Usagef("policy-diff: want BASE and HEAD, two policy files (got %d arguments)", c.NArg())
	}
	format := c.String("format")
	if format != "text" && format != "markdown" {
		return badChoice("--format", format, []string{"text", "markdown"})
	}
	today := c.String("today")
	if today == "" {
		today = time.Now().UTC().Format(finding.DateLayout)
	} else if _, err := time.Parse(finding.DateLayout, today); err != nil {
		return errs.Usagef("--today %q: want YYYY-MM-DD", today)
	}
	days := c.Int("max-waiver-days")
	if days < 0 {
		return errs.Usagef("--max-waiver-days %d: want a number of days, 0 for no expiry check", days)
	}
	return lint.PolicyDiff(c.App.Writer, lint.PolicyDiffConfig{Base: c.Args().Get(0), Head: c.Args().Get(1),
		BaseName: c.String("base-name"), HeadName: c.String("head-name"), AllowMissing: c.Bool("allow-missing"),
		BaseWaivers: c.String("base-waivers"), HeadWaivers: c.String("head-waivers"),
		BaseWaiversName: c.String("base-waivers-name"), HeadWaiversName: c.String("head-waivers-name"),
		Today: today, MaxWaiverDays: days, Markdown: format == "markdown"})
}
