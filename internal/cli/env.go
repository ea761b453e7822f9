package cli

import (
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/resolver"
)

// loaderEnv merges the policy's env: map with --env KEY=VALUE (the flag
// wins). Path lists use ':' and hold paths relative to the build root.
func loaderEnv(p *policy.Policy, flags []string) (resolver.Env, error) {
	vars := map[string]string{}
	if p != nil {
		for k, v := range p.Env {
			vars[k] = v
		}
	}
	for _, f := range flags {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return resolver.Env{}, usageErr("--env %q: want KEY=VALUE", f)
		}
		vars[k] = v
	}
	env, err := resolver.ParseEnv(vars)
	if err != nil {
		return resolver.Env{}, usageErr("env: %v", err)
	}
	return env, nil
}

// terminal returns w when it is a terminal (progress is drawn only there),
// else nil.
func terminal(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return w
	}
	return nil
}
