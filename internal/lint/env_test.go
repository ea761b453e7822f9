package lint

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/resolver"
)

func TestEnvFromFlags(t *testing.T) {
	env, err := LoaderEnv(nil, []string{"ROCM_KPACK_PATH=a/x.kpack:/b/y.kpack", "ROCM_KPACK_PATH_PREFIX=p_@GFXARCH@.kpack", "ROCM_KPACK_DISABLE=0"})
	if err != nil {
		t.Fatal(err)
	}
	// The values stay whole: the runtime splits them for its platform
	// (resolver.SplitList).
	want := resolver.Env{Path: "a/x.kpack:/b/y.kpack", Prefix: "p_@GFXARCH@.kpack"}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("env = %+v, want %+v", env, want)
	}
	if _, err := LoaderEnv(nil, []string{"HSA_XNAK=1"}); err == nil {
		t.Error("unknown variable accepted")
	}
	if _, err := LoaderEnv(nil, []string{"novalue"}); err == nil {
		t.Error("KEY without =VALUE accepted")
	}
}

func TestDatabaseEnv(t *testing.T) {
	pol := &policy.Policy{Env: map[string]string{"ROCBLAS_TENSILE_LIBPATH": "/a", "MIOPEN_SYSTEM_DB_PATH": "db", "ROCM_KPACK_DISABLE": "1"}}
	got := databaseEnv(pol, []string{"ROCBLAS_TENSILE_LIBPATH=b\\library", "HIPBLASLT_TENSILE_LIBPATH=c"})
	want := map[string]string{"ROCBLAS_TENSILE_LIBPATH": "b/library", "MIOPEN_SYSTEM_DB_PATH": "db", "HIPBLASLT_TENSILE_LIBPATH": "c"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("databaseEnv = %v, want %v", got, want)
	}
	if _, err := LoaderEnv(pol, []string{"HIPBLASLT_TENSILE_LIBPATH=c"}); err != nil {
		t.Errorf("kernel-database variables rejected by the loader environment: %v", err)
	}
	if _, err := LoaderEnv(nil, []string{"HSA_XNAK=1"}); err == nil || !strings.Contains(err.Error(), "MIOPEN_SYSTEM_DB_PATH") {
		t.Errorf("unknown variable: %v", err)
	}
}
