package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
	"github.com/rocm-tools/kpack-lint/internal/util/suggest"
)

func rulesCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "rules",
		Usage:     "list the rules with their default levels, or print one rule's full text and fix",
		ArgsUsage: "[RULE_ID|NAME...]",
		Action: func(c *ucli.Context) error {
			w := escape.NewLineWriter(c.App.Writer)
			if c.NArg() == 0 {
				for _, r := range lint.Rules() {
					fmt.Fprintf(w, "%s  %-24s %-8s %s\n", r.ID, r.Name, r.Level, r.Title)
				}
				return nil
			}
			for i, arg := range c.Args().Slice() {
				r, ok := lint.FindRule(arg)
				if !ok {
					var ids []string
					for _, r := range lint.Rules() {
						ids = append(ids, r.ID, r.Name)
					}
					return errs.Usagef("rules: no rule %q%s (see kpack-lint rules)", arg, suggest.DidYouMean(arg, ids))
				}
				if i > 0 {
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "%s %s (default level: %s)\n%s\n\n%s\n\nFix: %s\n\nMore: %s\n", r.ID, r.Name, r.Level, r.Title, r.Text, r.Help, r.HelpURI)
			}
			return nil
		},
	}
}
