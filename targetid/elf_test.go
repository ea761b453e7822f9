package targetid

import (
	"errors"
	"testing"
)

func TestDecodeELF(t *testing.T) {
	tests := []struct {
		name string
		abi  uint8
		flag uint32
		want string
	}{
		{"v5 gfx942 sramecc on xnack off", ABIVersionV5, 0x04c | 0xc00 | 0x200, "gfx942:sramecc+:xnack-"},
		{"v5 gfx942 any any", ABIVersionV5, 0x04c | 0x400 | 0x100, "gfx942"},
		{"v4 gfx90a xnack on", ABIVersionV4, 0x03f | 0x400 | 0x300, "gfx90a:xnack+"},
		{"v5 gfx950 xnack on sramecc off", ABIVersionV5, 0x04f | 0x800 | 0x300, "gfx950:sramecc-:xnack+"},
		{"v5 gfx1100 unsupported", ABIVersionV5, 0x041, "gfx1100"},
		{"v5 gfx1151", ABIVersionV5, 0x04a, "gfx1151"},
		{"v5 gfx1201", ABIVersionV5, 0x04e, "gfx1201"},
		{"v4 gfx900 xnack any", ABIVersionV4, 0x02c | 0x100, "gfx900"},
		{"v4 gfx900 xnack off", ABIVersionV4, 0x02c | 0x200, "gfx900:xnack-"},
		{"v6 gfx9-4-generic v1", ABIVersionV6, 0x05f | 0x400 | 0x100 | 1<<24, "gfx9-4-generic"},
		{"v6 gfx9-4-generic xnack on", ABIVersionV6, 0x05f | 0x400 | 0x300 | 1<<24, "gfx9-4-generic:xnack+"},
		{"v6 gfx11-generic v2", ABIVersionV6, 0x054 | 2<<24, "gfx11-generic"},
		{"v6 gfx12-generic", ABIVersionV6, 0x059 | 1<<24, "gfx12-generic"},
		{"v6 gfx1100 non-generic", ABIVersionV6, 0x041, "gfx1100"},
		{"v3 gfx906 both off", ABIVersionV3, 0x02f, "gfx906:sramecc-:xnack-"},
		{"v3 gfx906 both on", ABIVersionV3, 0x02f | 0x100 | 0x200, "gfx906:sramecc+:xnack+"},
		{"v3 gfx900 xnack on", ABIVersionV3, 0x02c | 0x100, "gfx900:xnack+"},
		{"v3 gfx1030", ABIVersionV3, 0x036, "gfx1030"},
	}
	for _, tt := range tests {
		id, err := DecodeELF(tt.abi, tt.flag)
		if err != nil {
			t.Errorf("%s: DecodeELF(%d, %#x): %v", tt.name, tt.abi, tt.flag, err)
			continue
		}
		if got := id.String(); got != tt.want {
			t.Errorf("%s: DecodeELF(%d, %#x) = %s, want %s", tt.name, tt.abi, tt.flag, got, tt.want)
		}
	}
}

func TestDecodeELFErrors(t *testing.T) {
	tests := []struct {
		name string
		abi  uint8
		flag uint32
		msg  string
	}{
		{"v2", ABIVersionV2, 0x02c, "unsupported EI_ABIVERSION 0 (want 1..4, code object v3..v6)"},
		{"v7", 5, 0x02c, "unsupported EI_ABIVERSION 5 (want 1..4, code object v3..v6)"},
		{"mach none", ABIVersionV5, 0x000, "unknown EF_AMDGPU_MACH 0x000"},
		{"reserved mach", ABIVersionV5, 0x04d, "unknown EF_AMDGPU_MACH 0x04d"},
		{"r600", ABIVersionV5, 0x001, "unknown EF_AMDGPU_MACH 0x001"},
		{"xnack on gfx1100", ABIVersionV5, 0x041 | 0x300, "processor gfx1100 does not support xnack"},
		{"sramecc off gfx900", ABIVersionV5, 0x02c | 0x800, "processor gfx900 does not support sramecc"},
		{"v3 sramecc bit on gfx900", ABIVersionV3, 0x02c | 0x200, "processor gfx900 does not support sramecc"},
		{"generic v5", ABIVersionV5, 0x05f | 1<<24, "generic processor gfx9-4-generic needs code object v6 (EI_ABIVERSION 4)"},
		{"generic version 0", ABIVersionV6, 0x054, "generic processor gfx11-generic without EF_AMDGPU_GENERIC_VERSION"},
	}
	for _, tt := range tests {
		_, err := DecodeELF(tt.abi, tt.flag)
		var e *ELFError
		if !errors.As(err, &e) {
			t.Errorf("%s: error %v, want *ELFError", tt.name, err)
			continue
		}
		if e.Msg != tt.msg || e.ABIVersion != tt.abi || e.Flags != tt.flag {
			t.Errorf("%s: got %+v, want msg %q", tt.name, e, tt.msg)
		}
	}
}

func TestGenericVersionAndCOV(t *testing.T) {
	if got := GenericVersion(0x0300_005f); got != 3 {
		t.Errorf("GenericVersion = %d, want 3", got)
	}
	if got := GenericVersion(0x04c); got != 0 {
		t.Errorf("GenericVersion = %d, want 0", got)
	}
	for abi, want := range map[uint8]int{0: 2, 1: 3, 2: 4, 3: 5, 4: 6} {
		if got, ok := CodeObjectVersion(abi); !ok || got != want {
			t.Errorf("CodeObjectVersion(%d) = %d, %v; want %d", abi, got, ok, want)
		}
	}
	if _, ok := CodeObjectVersion(5); ok {
		t.Error("CodeObjectVersion(5) ok")
	}
}

// TestDecodeELFEveryMach checks every table row decodes back to itself.
func TestDecodeELFEveryMach(t *testing.T) {
	for _, p := range processorTable {
		id, err := DecodeELF(ABIVersionV6, p.Mach|1<<24)
		if err != nil || id.String() != p.Name {
			t.Errorf("DecodeELF(v6, %#x) = %v, %v; want %s", p.Mach, id, err, p.Name)
		}
	}
}

func FuzzDecodeELF(f *testing.F) {
	f.Add(uint8(3), uint32(0x04c|0xc00|0x200))
	f.Add(uint8(4), uint32(0x05f|1<<24))
	f.Add(uint8(1), uint32(0x02f|0x300))
	f.Fuzz(func(t *testing.T, abi uint8, flags uint32) {
		id, err := DecodeELF(abi, flags)
		if err != nil {
			return
		}
		if _, err := Parse(id.String()); err != nil || !id.IsCanonical() {
			t.Fatalf("DecodeELF(%d, %#x) = %q does not parse canonically: %v", abi, flags, id, err)
		}
	})
}
