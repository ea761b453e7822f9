package lint

import (
	"maps"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/machine"
)

// MachineVars names the machine variables --env takes, for messages.
const MachineVars = "HSA_OVERRIDE_GFX_VERSION, HSA_OVERRIDE_GFX_VERSION_<node>, ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES, HSA_XNACK"

// SetEnv sets the simulated environment of cfg: the policy's env: map
// with --env KEY=VALUE (the flag wins), as the loader's (LoaderEnv), the
// kernel databases' (databaseEnv), the machines' (MachineEnv) and the
// list reports state (envList).
func SetEnv(cfg *Config, p *policy.Policy, flags []string) error {
	env, err := LoaderEnv(p, flags)
	if err != nil {
		return err
	}
	cfg.Env, cfg.DBEnv, cfg.EnvList = env, databaseEnv(p, flags), envList(p, flags)
	cfg.MachineEnv, err = MachineEnv(p, flags)
	return err
}

// MachineEnv returns the machine variables (machine.IsEnvKey:
// HSA_OVERRIDE_GFX_VERSION[_<node>], ROCR_VISIBLE_DEVICES,
// HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES, HSA_XNACK) of the policy's
// env: and --env (the flag wins); a variable set to "" stays: set but
// empty is not unset. nil when none is set.
func MachineEnv(p *policy.Policy, flags []string) (map[string]string, error) {
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

// LoaderEnv merges the policy's env: map with --env KEY=VALUE (the flag
// wins). Path lists use ':' and hold paths relative to the build root.
func LoaderEnv(p *policy.Policy, flags []string) (resolver.Env, error) {
	vars, err := envVars(p, flags)
	if err != nil {
		return resolver.Env{}, err
	}
	kpackVars := map[string]string{}
	for k, v := range vars {
		if machine.IsEnvKey(k) { // MachineEnv's
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
			kerneldb.EnvRocBLAS, kerneldb.EnvHipBLASLt, kerneldb.EnvMIOpen, kerneldb.EnvMIOpenCUs, MachineVars)
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
// policy's env: map and --env (the flag wins), which LoaderEnv has
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
