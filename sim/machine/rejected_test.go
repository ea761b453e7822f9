package machine

import (
	"reflect"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/sim/hip"
)

// notELF is a module whose archive holds the key for every target, the
// buffer served for the targets bad not being an ELF file.
func notELF(bad []string, targets ...string) LoadFunc {
	a := has(targets...)
	isBad := map[string]bool{}
	for _, t := range bad {
		isBad[t] = true
	}
	return func(l ArchList) Load {
		r := a.load(l)
		r.NotELF = r.Code == kpack.Success && isBad[r.Target]
		return r
	}
}

// TestServedNotELF: a load that succeeds with a buffer that is not an
// ELF file. rocclr's Program::addDeviceProgram rejects it (isElfMagic:
// CL_INVALID_BINARY, clr rocclr/platform/program.cpp:115-117@rocm-6.2.0),
// AddDevProgram returns hipErrorInvalidKernelFile, and the module fails on
// every device: PR 9167 rolls every device back (rollback_kpack_state,
// index 66615623207), PR 2622 returns the error of the one code object's
// first AddDevProgram (6b0e43f3).
func TestServedNotELF(t *testing.T) {
	rejected := hip.Symptom{Registration: hip.ErrInvalidKernelFile, Launch: hip.ErrInvalidKernelFile, Lookup: hip.ErrInvalidDeviceFunction}
	tests := []struct {
		name, release string
		isas          []string
		mod           LoadFunc
		want          []string
		rejected      []bool
		code          []kpack.Code
	}{
		{"one device newest", "newest", []string{"gfx942"}, notELF([]string{"gfx942"}, "gfx942"),
			[]string{"no-code"}, []bool{true}, []kpack.Code{kpack.Success}},
		{"two devices newest, device 0's buffer", "newest", []string{"gfx942", "gfx1100"}, notELF([]string{"gfx942"}, "gfx942", "gfx1100"),
			[]string{"no-code", "failed-by-other:0"}, []bool{true, true}, []kpack.Code{kpack.Success, kpack.Success}},
		{"two devices newest, device 1's buffer", "newest", []string{"gfx942", "gfx1100"}, notELF([]string{"gfx1100"}, "gfx942", "gfx1100"),
			[]string{"failed-by-other:1", "no-code"}, []bool{true, true}, []kpack.Code{kpack.Success, kpack.Success}},
		{"one device 10.0", "10.0", []string{"gfx942"}, notELF([]string{"gfx942"}, "gfx942"),
			[]string{"no-code"}, []bool{true}, []kpack.Code{kpack.Success}},
		// PR 2622's one load serves gfx942's buffer to both devices
		{"two devices 10.0", "10.0", []string{"gfx942", "gfx1100"}, notELF([]string{"gfx942"}, "gfx942", "gfx1100"),
			[]string{"no-code", "no-code"}, []bool{true, true}, []kpack.Code{kpack.Success, kpack.Success}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t, tt.release, nil, tt.isas...)
			_, v := judge1(t, m, Module{Kpack: tt.mod}, false)
			if got := kinds(v); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("outcomes %q, want %q", got, tt.want)
			}
			if !v.Failed || v.Clean() {
				t.Errorf("the module loads: %+v", v)
			}
			for d, o := range v.Devices {
				if o.Rejected != tt.rejected[d] || o.Code != tt.code[d] || o.Seen != rejected {
					t.Errorf("device %d: %+v, want rejected %v, code %v, seen %+v", d, o, tt.rejected[d], tt.code[d], rejected)
				}
			}
		})
	}
	// an ELF buffer on the same machines loads
	m := newMachine(t, "newest", nil, "gfx942", "gfx1100")
	if _, v := judge1(t, m, Module{Kpack: notELF(nil, "gfx942", "gfx1100")}, false); !v.Clean() {
		t.Errorf("ELF buffers: %q", kinds(v))
	}
}

// TestFailedByOtherCode: a device failed by another's load carries that
// load's result, which KPL014 quotes, not its own SUCCESS.
func TestFailedByOtherCode(t *testing.T) {
	m := newMachine(t, "newest", nil, "gfx942", "gfx1100")
	a := has("gfx942")
	a.codes["gfx1100"] = kpack.KernelNotFound
	_, v := judge1(t, m, Module{Kpack: a.load}, false)
	if got := kinds(v); !reflect.DeepEqual(got, []string{"failed-by-other:1", "no-code"}) {
		t.Fatalf("outcomes %q", got)
	}
	if v.Devices[0].Code != kpack.KernelNotFound || v.Devices[1].Code != kpack.KernelNotFound || v.Devices[0].Rejected {
		t.Errorf("codes %v %v (rejected %v), want KERNEL_NOT_FOUND on both", v.Devices[0].Code, v.Devices[1].Code, v.Devices[0].Rejected)
	}
}
