package resolver

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/hostbin"
)

// The loader's environment variables (SPEC 2; rocm-systems loader.cpp
// kpack_cache_create).
const (
	EnvPath    = "ROCM_KPACK_PATH"
	EnvPrefix  = "ROCM_KPACK_PATH_PREFIX"
	EnvDisable = "ROCM_KPACK_DISABLE"
)

// ParseEnv reads the loader's variables from vars as kpack_cache_create
// does: an empty value counts as unset; ROCM_KPACK_PATH and
// ROCM_KPACK_PATH_PREFIX are lists split at ':' (at ';' when the value
// holds one, as on Windows, where ':' follows drive letters) with empty
// items dropped; ROCM_KPACK_DISABLE disables kpack when it is non-empty
// and does not start with '0'. Entries become slash paths relative to the
// tree root: '\' is read as '/', and a leading '/' names the root, as in a
// chroot of the build. No entry is expanded: the runtime uses them exactly
// as given, @GFXARCH@ included.
//
// It returns an error naming any other variable.
func ParseEnv(vars map[string]string) (Env, error) {
	var env Env
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := vars[k]
		switch k {
		case EnvPath:
			env.Path = splitList(v)
		case EnvPrefix:
			env.Prefix = splitList(v)
		case EnvDisable:
			env.Disable = v != "" && v[0] != '0'
		default:
			return Env{}, fmt.Errorf("%s is not a kpack loader variable (want %s, %s or %s)", k, EnvPath, EnvPrefix, EnvDisable)
		}
	}
	return env, nil
}

// splitList splits a path list as the runtime's split_path_list does.
func splitList(v string) []string {
	f := hostbin.FormatELF
	if strings.Contains(v, ";") {
		f = hostbin.FormatPE
	}
	var out []string
	for _, p := range hostbin.SplitPathList(v, f) {
		if p = strings.TrimLeft(strings.ReplaceAll(p, `\`, "/"), "/"); p != "" {
			out = append(out, p)
		}
	}
	return out
}
