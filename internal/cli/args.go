package cli

import (
	"regexp"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/suggest"
)

// flagsFirst lets flags follow the arguments (`check dist --variant
// asan`), as most command lines do: urfave/cli stops parsing flags at a
// command's first argument, so the command's flags (with the value of a
// flag that takes one, even a value that starts with "-") are moved
// before its arguments, in their order. "--" ends the flags: what follows
// stays an argument, and a "--" is kept before the arguments whenever one
// of them starts with "-". Global flags before the command, the help
// command and the shell-completion commands are left as they are.
func flagsFirst(app *ucli.App, args []string) []string {
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		i++ // --help, --version: the app takes no values
	}
	if i >= len(args) {
		return args
	}
	cmd := app.Command(args[i])
	if cmd == nil || cmd.Name == "help" || cmd.Name == "completion" || cmd.Hidden {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		tv, ok := f.(interface{ TakesValue() bool })
		for _, n := range f.Names() {
			takesValue[n] = ok && tv.TakesValue()
		}
	}
	var flags, positional []string
	dashes := false
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		switch {
		case a == "--":
			positional, dashes = append(positional, rest[j+1:]...), true
			j = len(rest)
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && j+1 < len(rest) {
				flags = append(flags, rest[j+1])
				j++
			}
		default:
			positional = append(positional, a)
		}
	}
	out := append(append([]string(nil), args[:i+1]...), flags...)
	for _, p := range positional {
		if dashes || (len(p) > 1 && p[0] == '-') {
			out = append(out, "--")
			break
		}
	}
	return append(out, positional...)
}

// undefinedFlag matches the flag package's error for an unknown flag.
var undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -+(\S+)$`)

// flagHint is " (did you mean --variant?)" for an unknown flag close to
// one of the command's, "" otherwise.
func flagHint(cmd *ucli.Command, err error) string {
	m := undefinedFlag.FindStringSubmatch(err.Error())
	if m == nil || cmd == nil {
		return ""
	}
	var names []string
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, n)
			}
		}
	}
	if hint := suggest.DidYouMean(m[1], names); hint != "" {
		return strings.Replace(hint, "mean ", "mean --", 1)
	}
	return ""
}

// unknownCommand is the error for a first argument that names no
// command, with the closest command.
func unknownCommand(app *ucli.App, name string) error {
	var names []string
	for _, c := range app.Commands {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	return errs.Usagef("unknown command %q%s (see kpack-lint --help)", name, suggest.DidYouMean(name, names))
}
