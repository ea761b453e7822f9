package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"
)

// Shell completion scripts. bash and zsh ask the program itself
// (urfave/cli's --generate-bash-completion), so they follow the flags of
// the installed version; fish gets a static script.
const bashCompletion = `# kpack-lint bash completion: source <(kpack-lint completion bash)
_kpack_lint() {
  local cur words
  cur="${COMP_WORDS[COMP_CWORD]}"
  if [[ "$cur" == -* ]]; then
    words=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    words=$("${COMP_WORDS[@]:0:$COMP_CWORD}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  [ ${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur"))
  return 0
}
complete -o default -F _kpack_lint kpack-lint
`

const zshCompletion = `#compdef kpack-lint
# kpack-lint zsh completion: source <(kpack-lint completion zsh)
_kpack_lint() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == -* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _kpack_lint kpack-lint
`

func completionCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "SHELL",
		Description: "bash: source <(kpack-lint completion bash)   zsh: source <(kpack-lint completion zsh)\n" +
			"fish: kpack-lint completion fish > ~/.config/fish/completions/kpack-lint.fish",
		Action: func(c *ucli.Context) error {
			w := c.App.Writer
			switch c.Args().First() {
			case "bash":
				fmt.Fprint(w, bashCompletion)
			case "zsh":
				fmt.Fprint(w, zshCompletion)
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				fmt.Fprintln(w, s)
			default:
				return usageErr("completion: want bash, zsh or fish")
			}
			return nil
		},
	}
}
