package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/rules"
)

func rulesCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "rules",
		Usage: "list the rules with their default levels",
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr("rules: takes no arguments")
			}
			w := c.App.Writer
			for _, r := range rules.All() {
				fmt.Fprintf(w, "%s  %-24s %-8s %s\n", r.ID, r.Name, r.Level, r.Title)
			}
			return nil
		},
	}
}
