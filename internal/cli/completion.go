package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/report"
)

// Shell completion. Every script asks the program itself
// (`kpack-lint __complete WORD...`, the last word being the one to
// complete, "" for a new one), so completion follows the installed
// version's commands, flags and values. __complete prints one candidate a
// line; the line ":files" asks the shell to add file names.
const bashCompletion = `# kpack-lint bash completion: source <(kpack-lint completion bash)
_kpack_lint() {
  local line="${COMP_LINE:0:COMP_POINT}" cur out w f strip
  local -a words
  read -r -a words <<< "$line"
  [[ "$line" =~ [[:space:]]$ ]] && words+=("")
  cur="${words[${#words[@]}-1]}"
  out=$("${words[0]}" __complete "${words[@]:1}" 2>/dev/null) || return 0
  COMPREPLY=()
  while IFS= read -r w; do
    if [[ "$w" == ":files" ]]; then
      compopt -o filenames 2>/dev/null
      while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen -f -- "$cur")
    elif [[ -n "$w" && "$w" == "$cur"* ]]; then
      COMPREPLY+=("$w")
    fi
  done <<< "$out"
  # bash splits words at : and = (target IDs, --env KEY=VALUE): complete
  # only what follows the last of them.
  if [[ "$cur" == *[:=]* ]]; then
    strip="${cur%"${cur##*[:=]}"}"
    COMPREPLY=("${COMPREPLY[@]#"$strip"}")
  fi
  return 0
}
complete -F _kpack_lint kpack-lint
`

const zshCompletion = `#compdef kpack-lint
# kpack-lint zsh completion: source <(kpack-lint completion zsh)
_kpack_lint() {
  local -a out cands
  local w files=0
  out=("${(@f)$("${words[1]}" __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
  for w in "${out[@]}"; do
    if [[ "$w" == ":files" ]]; then
      files=1
    elif [[ -n "$w" ]]; then
      cands+=("$w")
    fi
  done
  (( ${#cands} )) && compadd -- "${cands[@]}"
  (( files )) && _files
  return 0
}
compdef _kpack_lint kpack-lint
`

const fishCompletion = `# kpack-lint fish completion: kpack-lint completion fish > ~/.config/fish/completions/kpack-lint.fish
function __kpack_lint_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    for w in ($tokens[1] __complete $tokens[2..-1] "$cur" 2>/dev/null)
        if test "$w" = ":files"
            __fish_complete_path "$cur"
        else
            echo $w
        end
    end
end
complete -c kpack-lint -f -a '(__kpack_lint_complete)'
`

// shells are the shells `completion` writes scripts for.
var shells = map[string]string{"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}

func completionCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "SHELL",
		Description: "bash: source <(kpack-lint completion bash)   zsh: source <(kpack-lint completion zsh)\n" +
			"fish: kpack-lint completion fish > ~/.config/fish/completions/kpack-lint.fish\n" +
			"Completes commands, flags (after - or --), the values of --format, --loader, --fail-on, --color, --agent,\n" +
			"--target, --env and --variant (from the policy), rule IDs for rules, shells for completion, and file names.",
		Action: func(c *ucli.Context) error {
			script, ok := shells[c.Args().First()]
			if c.NArg() != 1 {
				return errs.Usagef("completion: want bash, zsh or fish")
			}
			if !ok {
				return badChoice("completion", c.Args().First(), shellNames)
			}
			fmt.Fprint(c.App.Writer, script)
			return nil
		},
	}
}

// completeCommand is the hidden command the completion scripts call.
func completeCommand() *ucli.Command {
	return &ucli.Command{
		Name:            "__complete",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *ucli.Context) error {
			words := c.Args().Slice()
			if len(words) == 0 {
				words = []string{""}
			}
			for _, w := range complete(c.App, words) {
				fmt.Fprintln(c.App.Writer, w)
			}
			return nil
		},
	}
}

// filesMark asks the shell to add file names to the candidates.
const filesMark = ":files"

// complete returns the candidates for the last of words (the arguments
// after the program name): commands, a command's flags, a flag's values
// or a command's arguments. The shell keeps those that start with the
// word.
func complete(app *ucli.App, words []string) []string {
	cur, before := words[len(words)-1], words[:len(words)-1]
	i := slices.IndexFunc(before, func(w string) bool { return !strings.HasPrefix(w, "-") })
	if i < 0 {
		if strings.HasPrefix(cur, "-") {
			return []string{"--help", "--version"}
		}
		return commandNames(app)
	}
	cmd := app.Command(before[i])
	if cmd == nil {
		return nil
	}
	args := before[i+1:]
	if name, _, ok := strings.Cut(cur, "="); ok && strings.HasPrefix(name, "-") && valueFlag(cmd, name) != nil {
		var out []string
		for _, v := range flagValues(cmd, valueFlag(cmd, name).Names()[0], args) {
			out = append(out, name+"="+v)
		}
		return out
	}
	if n := len(args); n > 0 && !strings.Contains(args[n-1], "=") {
		if f := valueFlag(cmd, args[n-1]); f != nil {
			return flagValues(cmd, f.Names()[0], args)
		}
	}
	if strings.HasPrefix(cur, "-") {
		return flagNames(cmd)
	}
	return positional(app, cmd, positionals(cmd, args))
}

func commandNames(app *ucli.App) []string {
	var out []string
	for _, c := range app.Commands {
		if !c.Hidden {
			out = append(out, c.Name)
		}
	}
	return append(out, "help")
}

// valueFlag returns cmd's flag written as arg ("--format", "-o") when it
// takes a value, else nil.
func valueFlag(cmd *ucli.Command, arg string) ucli.Flag {
	name := strings.TrimLeft(arg, "-")
	for _, f := range cmd.Flags {
		if _, isBool := f.(*ucli.BoolFlag); !isBool && slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// flagNames lists cmd's flags as they are typed: --name, -x for one
// letter.
func flagNames(cmd *ucli.Command) []string {
	var out []string
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if len(n) == 1 {
				out = append(out, "-"+n)
			} else {
				out = append(out, "--"+n)
			}
		}
	}
	return append(out, "--help")
}

// positionals counts cmd's arguments among args, skipping flags and the
// values of flags that take one.
func positionals(cmd *ucli.Command, args []string) int {
	n := 0
	for i := 0; i < len(args); i++ {
		switch {
		case !strings.HasPrefix(args[i], "-"):
			n++
		case !strings.Contains(args[i], "=") && valueFlag(cmd, args[i]) != nil:
			i++ // its value
		}
	}
	return n
}

// positional returns the candidates for cmd's argument number n (from 0).
func positional(app *ucli.App, cmd *ucli.Command, n int) []string {
	switch cmd.Name {
	case "rules":
		var out []string
		for _, r := range lint.Rules() {
			out = append(out, r.ID, r.Name)
		}
		return out
	case "completion":
		if n == 0 {
			return slices.Sorted(maps.Keys(shells))
		}
		return nil
	case "help":
		return commandNames(app)
	case "version":
		return nil
	case "explain-db":
		if n == 0 {
			return []string{"rocblas", "hipblaslt", "miopen", "aotriton", filesMark}
		}
	}
	return []string{filesMark}
}

// flagValues returns the values of cmd's flag name; args are the words
// already typed (--policy for --variant).
func flagValues(cmd *ucli.Command, name string, args []string) []string {
	switch name {
	case "format":
		if cmd.Name == "explain" || cmd.Name == "explain-db" {
			return []string{"text", "json"}
		}
		return report.Formats()
	case "loader":
		return finding.Loaders()
	case "fail-on":
		return []string{"error", "warning", "note", "none"}
	case "color":
		return []string{"auto", "always", "never"}
	case "agent":
		return lint.DeviceISAs()
	case "target":
		return lint.TargetNames()
	case "env":
		var out []string
		for _, k := range lint.EnvNames() {
			out = append(out, k+"=")
		}
		return out
	case "variant":
		return variantNames(args)
	case "policy", "baseline", "waivers", "output", "o", "search", "binary":
		return []string{filesMark}
	}
	return nil
}

// variantNames lists the variants of the policy the command would read:
// --policy among args, else ./policies.yaml. Errors give none.
func variantNames(args []string) []string {
	p := lint.DefaultPolicy
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--policy="); ok {
			p = v
		} else if a == "--policy" && i+1 < len(args) {
			p = args[i+1]
		}
	}
	return lint.VariantNames(p)
}
