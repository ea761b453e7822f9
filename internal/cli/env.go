package cli

import (
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// machineVars names the machine variables --env takes, for messages.
const machineVars = "HSA_OVERRIDE_GFX_VERSION, HSA_OVERRIDE_GFX_VERSION_<node>, ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES, HSA_XNACK"

// setEnv sets the simulated environment of cfg: the policy's env: map
// with --env KEY=VALUE (the flag wins), as the loader's (loaderEnv), the
// kernel databases' (databaseEnv), the machines' (machineEnv) and the
// list reports state (envList).
func setEnv(cfg *lint.Config, p *policy.Policy, flags []string) error {
	env, err := loaderEnv(p, flags)
	if err != nil {
		return err
	}
	cfg.Env, cfg.DBEnv, cfg.EnvList = env, databaseEnv(p, flags), envList(p, flags)
	cfg.MachineEnv, err = machineEnv(p, flags)
	return err
}

// machineEnv returns the machine variables (machine.IsEnvKey:
// HSA_OVERRIDE_GFX_VERSION[_<node>], ROCR_VISIBLE_DEVICES,
// HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES, HSA_XNACK) of the policy's
// env: and --env (the flag wins); a variable set to "" stays: set but
// empty is not unset. nil when none is set.
func machineEnv(p *policy.Policy, flags []string) (map[string]string, error) {
	vars, err := envVars(p, flags)
	if err != nil {
		return nil, err
	}
	var out map[string]string
	for k, v := range vars {
		if !machine.IsEnvKey(k) {
			continue
		}
		if len(v) > machine.MaxEnvValue {
			return nil, errs.Usagef("env: %s: value longer than %d bytes", k, machine.MaxEnvValue)
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out, nil
}

// loaderEnv merges the policy's env: map with --env KEY=VALUE (the flag
// wins). Path lists use ':' and hold paths relative to the build root.
func loaderEnv(p *policy.Policy, flags []string) (resolver.Env, error) {
	vars, err := envVars(p, flags)
	if err != nil {
		return resolver.Env{}, err
	}
	kpackVars := map[string]string{}
	for k, v := range vars {
		if machine.IsEnvKey(k) { // machineEnv's
			continue
		}
		if !kerneldb.IsEnvVar(k) { // those are databaseEnv's
			kpackVars[k] = v
		} else if err := kerneldb.CheckEnv(k, v); err != nil {
			return resolver.Env{}, errs.Usagef("env: %v", err)
		}
	}
	env, err := resolver.ParseEnv(kpackVars)
	if err != nil {
		return resolver.Env{}, errs.Usagef("env: %v, a kernel-database variable (%s, %s, %s or %s), or a machine variable (%s)", err,
			kerneldb.EnvRocBLAS, kerneldb.EnvHipBLASLt, kerneldb.EnvMIOpen, kerneldb.EnvMIOpenCUs, machineVars)
	}
	return env, nil
}

// envVars merges the policy's env: map with --env KEY=VALUE (the flag
// wins).
func envVars(p *policy.Policy, flags []string) (map[string]string, error) {
	vars := map[string]string{}
	if p != nil {
		for k, v := range p.Env {
			vars[k] = v
		}
	}
	for _, f := range flags {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return nil, errs.Usagef("--env %q: want KEY=VALUE", f)
		}
		vars[k] = v
	}
	return vars, nil
}

// envList is the environment a run simulates (envVars) as KEY=VALUE
// sorted by key, for reports; nil when none is set.
func envList(p *policy.Policy, flags []string) []string {
	vars, err := envVars(p, flags)
	if err != nil || len(vars) == 0 {
		return nil
	}
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+vars[k])
	}
	return out
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
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap() // a terminal is no CI log: progress goes to it as it is
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return w
	}
	return nil
}
