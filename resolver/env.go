package resolver

import (
	"fmt"
	"sort"
	"strings"
)

// The loader's environment variables (SPEC 2; rocm-systems loader.cpp
// kpack_cache_create). ROCM_KPACK_DEBUG only prints the trace.
const (
	EnvPath    = "ROCM_KPACK_PATH"
	EnvPrefix  = "ROCM_KPACK_PATH_PREFIX"
	EnvDisable = "ROCM_KPACK_DISABLE"
	EnvDebug   = "ROCM_KPACK_DEBUG"
)

// Env is the loader's environment as kpack_cache_create reads it (SPEC 2,
// rocm-systems loader.cpp): Path (ROCM_KPACK_PATH), when it holds an
// entry, replaces every search path; Prefix (ROCM_KPACK_PATH_PREFIX)
// entries are searched before the embedded ones; Disable
// (ROCM_KPACK_DISABLE) makes every load return NOT_IMPLEMENTED. Path and
// Prefix are the variables' raw values: the runtime splits them at ':' on
// Linux and at ';' on Windows (Request.Windows), drops empty items and uses
// each entry exactly as given (no @GFXARCH@ expansion, no normalising).
// See ParseEnv and Request.EnvPaths.
type Env struct {
	Path    string
	Prefix  string
	Disable bool
}

// ParseEnv reads the loader's variables from vars as kpack_cache_create
// does: an empty value counts as unset, and ROCM_KPACK_DISABLE disables
// kpack when it is non-empty and does not start with '0'. ROCM_KPACK_DEBUG
// is accepted and changes nothing the loader returns. It returns an error
// naming any other variable.
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
			env.Path = v
		case EnvPrefix:
			env.Prefix = v
		case EnvDisable:
			env.Disable = v != "" && v[0] != '0'
		case EnvDebug:
		default:
			return Env{}, fmt.Errorf("%s is not a kpack loader variable (want %s, %s, %s or %s)", k, EnvPath, EnvPrefix, EnvDisable, EnvDebug)
		}
	}
	return env, nil
}

// SplitList splits a path-list variable as the runtime's split_path_list
// does: at ';' on Windows, at ':' elsewhere, dropping empty items. Each
// entry becomes a slash path relative to the tree root, which stands for
// the process's working directory and the root of the installed system:
// a leading '/' names the root (as in a chroot), and on Windows '\' reads as
// '/' and a drive letter ("C:") names the root. Nothing else is changed:
// "a.kpack/" or "x/../a.kpack" are opened as written and fail as they
// would in the runtime.
func SplitList(v string, windows bool) []string {
	sep := ":"
	if windows {
		sep = ";"
	}
	var out []string
	for _, e := range strings.Split(v, sep) {
		if e == "" {
			continue
		}
		if windows {
			e = strings.ReplaceAll(e, `\`, "/")
			if len(e) >= 2 && e[1] == ':' && isLetter(e[0]) {
				e = e[2:]
			}
		}
		if e = strings.TrimLeft(e, "/"); e != "" {
			out = append(out, e)
		}
	}
	return out
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// EnvPaths returns the ROCM_KPACK_PATH entries for the request's platform.
func (r Request) EnvPaths() []string { return SplitList(r.Env.Path, r.Windows) }

// EnvPrefixes returns the ROCM_KPACK_PATH_PREFIX entries for the request's
// platform.
func (r Request) EnvPrefixes() []string { return SplitList(r.Env.Prefix, r.Windows) }

// Overridden reports whether ROCM_KPACK_PATH replaces the binary's own
// search paths.
func (r Request) Overridden() bool { return len(r.EnvPaths()) > 0 }
