package cli

import (
	"reflect"
	"testing"

	"github.com/rocm-tools/kpack-lint/resolver"
)

func TestEnvFromFlags(t *testing.T) {
	env, err := loaderEnv(nil, []string{"ROCM_KPACK_PATH=a/x.kpack:/b/y.kpack", "ROCM_KPACK_PATH_PREFIX=p_@GFXARCH@.kpack", "ROCM_KPACK_DISABLE=0"})
	if err != nil {
		t.Fatal(err)
	}
	// The values stay whole: the runtime splits them for its platform
	// (resolver.SplitList).
	want := resolver.Env{Path: "a/x.kpack:/b/y.kpack", Prefix: "p_@GFXARCH@.kpack"}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("env = %+v, want %+v", env, want)
	}
	if _, err := loaderEnv(nil, []string{"HSA_XNAK=1"}); err == nil {
		t.Error("unknown variable accepted")
	}
	if _, err := loaderEnv(nil, []string{"novalue"}); err == nil {
		t.Error("KEY without =VALUE accepted")
	}
}
