package cli

import (
	"reflect"
	"testing"
)

func TestEnvFromFlags(t *testing.T) {
	env, err := loaderEnv(nil, []string{"ROCM_KPACK_PATH=a/x.kpack:/b/y.kpack", "ROCM_KPACK_PATH_PREFIX=p_@GFXARCH@.kpack", "ROCM_KPACK_DISABLE=0"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(env.Path, []string{"a/x.kpack", "b/y.kpack"}) || !reflect.DeepEqual(env.Prefix, []string{"p_@GFXARCH@.kpack"}) || env.Disable {
		t.Errorf("env = %+v", env)
	}
	win, _ := loaderEnv(nil, []string{`ROCM_KPACK_PATH=bin\.kpack\x.kpack;bin\.kpack\y.kpack`})
	if !reflect.DeepEqual(win.Path, []string{"bin/.kpack/x.kpack", "bin/.kpack/y.kpack"}) {
		t.Errorf("windows list = %q", win.Path)
	}
	if _, err := loaderEnv(nil, []string{"HSA_XNACK=1"}); err == nil {
		t.Error("unknown variable accepted")
	}
	if _, err := loaderEnv(nil, []string{"novalue"}); err == nil {
		t.Error("KEY without =VALUE accepted")
	}
}
