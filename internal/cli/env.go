package cli

import (
	"io"
	"os"
	"sort"
	"strings"

	"golang.org/x/term"

	"github.com/rocm-tools/kpack-lint/hostbin"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/resolver"
)

// Loader environment variables the simulation understands (rocm-kpack
// runtime, SPEC 2).
const (
	envPath    = "ROCM_KPACK_PATH"
	envPrefix  = "ROCM_KPACK_PATH_PREFIX"
	envDisable = "ROCM_KPACK_DISABLE"
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
	return envFromVars(vars)
}

func envFromVars(vars map[string]string) (resolver.Env, error) {
	var env resolver.Env
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := vars[k]
		switch k {
		case envPath:
			env.PathSet, env.Path = true, splitList(v)
		case envPrefix:
			env.Prefix = splitList(v)
		case envDisable:
			env.Disable = v != "" && v != "0"
		default:
			return resolver.Env{}, usageErr("env %s: not a kpack loader variable (want %s, %s or %s)", k, envPath, envPrefix, envDisable)
		}
	}
	return env, nil
}

// splitList splits a path list as the runtime does (hostbin.SplitPathList):
// at ':' (Linux) or, when the value holds a ';', at ';' (Windows, where ':'
// follows drive letters). Entries become slash paths relative to the build
// root.
func splitList(v string) []string {
	f := hostbin.FormatELF
	if strings.Contains(v, ";") {
		f = hostbin.FormatPE
	}
	var out []string
	for _, p := range hostbin.SplitPathList(v, f) {
		out = append(out, strings.TrimPrefix(strings.ReplaceAll(p, `\`, "/"), "/"))
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
