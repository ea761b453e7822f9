// Package cli is kpack-lint's command line. It is the only package that
// imports urfave/cli, so a move to v3 stays a one-package change. It
// parses flags into a lint.Config and words the pipeline's errors and
// notes with its flags; whatever decides (policy discovery and trust,
// the environment, targets, rules, formats) is asked of internal/lint,
// the only package of the module's stages it imports (floors_test.go).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
	"github.com/rocm-tools/kpack-lint/internal/version"
)

// Exit codes, stable across releases.
const (
	ExitOK       = 0 // nothing at or above --fail-on (explain: the load succeeds)
	ExitFindings = 1 // findings at or above --fail-on (explain: the load fails)
	ExitUsage    = 2 // usage error or unreadable input
)

// Version is the tool version reports carry ("1.2.3", or
// version.Dev): internal/version, stamped at link time or read from the
// Go build info; --version adds the commit and date.
var Version = version.Version()

// InformationURI is the project's home page.
const InformationURI = "https://github.com/rocm-tools/kpack-lint"

// Run runs the command line args (args[0] is the program name) and returns
// the exit code. It writes results to stdout (or --output) and one-line
// errors to stderr; it never calls os.Exit. Nothing it writes to stderr
// is a CI workflow command (escape.NewLineWriter); on stdout, only
// --format github writes commands (each report writer makes its lines
// inert, see escape.Lines).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	stderr = escape.NewLineWriter(stderr)
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, flagsFirst(app, args))
	code := exitCode(err)
	if err != nil && code != ExitFindings {
		errorLine(stderr, err)
	}
	return code
}

// exitCode maps the error a command ends with to the exit code; it is the
// one place that decides it. Usage and input errors are ExitUsage, and so
// are internal errors and urfave/cli's own (a required flag not set):
// there is no other code.
func exitCode(err error) int {
	var e *errs.Error
	var o *errs.OptionError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, lint.ErrFindings):
		return ExitFindings
	case errors.As(err, &o), errors.As(err, &e) && (e.Kind == errs.Usage || e.Kind == errs.Input):
		return ExitUsage
	}
	return ExitUsage
}

// errorLine writes err as one line on w, or one line per error for every
// error of a policy or waiver file (policy.Errors, whose lines end in
// newlines of their own). Errors quote input names, policy keys and search
// paths, so each line is escaped (internal/util/escape): it never holds a
// newline or a terminal control sequence.
func errorLine(w io.Writer, err error) {
	lines := []string{err.Error()}
	var pe lint.PolicyErrors
	if errors.As(err, &pe) {
		lines = strings.Split(err.Error(), "\n")
	}
	for _, l := range lines {
		fmt.Fprintf(w, "kpack-lint: %s\n", escape.String(l))
	}
}

func newApp(stdout, stderr io.Writer) *ucli.App {
	app := &ucli.App{
		Name:    "kpack-lint",
		Usage:   "lint ROCm kpack packaging by simulating the kpack loader",
		Version: version.Get().String(),
		Writer:  stdout,
		// Values are taken whole: a path or an environment value may hold
		// commas (repeat the flag for several values).
		DisableSliceFlagSeparator: true,
		ErrWriter:                 stderr,
		ExitErrHandler:            func(*ucli.Context, error) {},
		OnUsageError:              onUsageError,
		Commands:                  commands(),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return unknownCommand(c.App, c.Args().First())
			}
			return ucli.ShowAppHelp(c)
		},
	}
	addExamples(app)
	return app
}

// onUsageError turns a flag-parsing error into exit 2 with one line on
// stderr, instead of urfave/cli's help page on stdout, with the closest
// flag of the command for an unknown one.
func onUsageError(c *ucli.Context, err error, _ bool) error {
	var cmd *ucli.Command
	if c != nil {
		cmd = c.Command
	}
	return errs.Usagef("%v%s (see --help)", err, flagHint(cmd, err))
}

func commands() []*ucli.Command {
	cmds := []*ucli.Command{checkCommand(), explainCommand(), explainDBCommand(), rulesCommand(), targetsCommand(), mergeCommand(), policyDiffCommand(), completionCommand(), versionCommand(), completeCommand()}
	for _, c := range cmds {
		c.OnUsageError = onUsageError
		if c.Action != nil {
			c.Action = worded(c.Name, c.Action)
		}
	}
	return cmds
}

func versionCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "version",
		Usage: "print the version (as kpack-lint --version does)",
		Action: func(c *ucli.Context) error {
			fmt.Fprintf(c.App.Writer, "kpack-lint version %s\n", version.Get())
			return nil
		},
	}
}
