package cli

import (
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/rocm-tools/kpack-lint/kerneldb"
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
	kpackVars := map[string]string{}
	for k, v := range vars {
		if !kerneldb.IsEnvVar(k) { // those are databaseEnv's
			kpackVars[k] = v
		} else if err := kerneldb.CheckEnv(k, v); err != nil {
			return resolver.Env{}, usageErr("env: %v", err)
		}
	}
	env, err := resolver.ParseEnv(kpackVars)
	if err != nil {
		return resolver.Env{}, usageErr("env: %v, or a kernel-database variable (%s, %s, %s or %s)", err,
			kerneldb.EnvRocBLAS, kerneldb.EnvHipBLASLt, kerneldb.EnvMIOpen, kerneldb.EnvMIOpenCUs)
	}
	return env, nil
}

// databaseEnv returns the kernel-database libraries' variables of the
// policy's env: map and --env (the flag wins), which loaderEnv has
// validated: paths relative to the build root (a variable set to "" stays
// in the map: set but empty is not unset), and MIOPEN_DEVICE_CU.
func databaseEnv(p *policy.Policy, flags []string) map[string]string {
	out := map[string]string{}
	set := func(k, v string) {
		if kerneldb.IsEnvVar(k) {
			out[k] = strings.ReplaceAll(v, `\`, "/")
		}
	}
	if p != nil {
		for k, v := range p.Env {
			set(k, v)
		}
	}
	for _, f := range flags {
		if k, v, ok := strings.Cut(f, "="); ok {
			set(k, v)
		}
	}
	return out
}

// terminal returns w when it is a terminal (progress is drawn only there),
// else nil.
func terminal(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return w
	}
	return nil
}
