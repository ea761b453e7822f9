package machine

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/sim/hip"
)

// newMachine builds a machine of the given release and env from device
// ISAs as a machine definition writes them (DeviceISA).
func newMachine(t *testing.T, release string, env map[string]string, isas ...string) Machine {
	t.Helper()
	rel, err := hip.Lookup(release)
	if err != nil {
		t.Fatal(err)
	}
	devs, err := ParseDevices(strings.Join(isas, ","))
	if err != nil {
		t.Fatal(err)
	}
	m := Machine{Name: strings.Join(isas, ","), Devices: devs, HIP: rel, Env: env}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

// reported lists what each visible device reports, as "GPU:ISA".
func reported(v View) []string {
	var out []string
	for _, d := range v.Devices {
		out = append(out, strings.Join([]string{itoa(d.Device), d.ISA.String()}, ":"))
	}
	return out
}

func itoa(i int) string { return string(rune('0' + i)) }

// TestView covers SPEC 4c's environment, each case citing its source.
func TestView(t *testing.T) {
	env := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name      string
		release   string
		env       map[string]string
		isas      []string
		windows   bool
		want      []string
		noRuntime bool
		note      string // a note mentions this
	}{
		// pytorch/pytorch#164346; topology.c:1237-1251, isa.cpp (11.0.0 -> gfx1100)
		{"override gfx1151 -> gfx1100", "newest", env("HSA_OVERRIDE_GFX_VERSION", "11.0.0"), []string{"gfx1151"}, false, []string{"0:gfx1100"}, false, "reports gfx1100"},
		// the stepping is decimal: sscanf %u (topology.c:1243), isa.cpp:380 gfx90a = 9.0.10
		{"stepping 9.0.10 is gfx90a", "newest", env("HSA_OVERRIDE_GFX_VERSION", "9.0.10"), []string{"gfx942"}, false, []string{"0:gfx90a:sramecc+:xnack-"}, false, ""},
		{"stepping 9.0.12 is gfx90c (bare)", "newest", env("HSA_OVERRIDE_GFX_VERSION", "9.0.12"), []string{"gfx900"}, false, []string{"0:gfx90c"}, false, ""},
		// 9.0.a: sscanf reads two numbers: malformed, ROCr fails (7.13 has the bug)
		{"hex stepping is malformed", "7.13", env("HSA_OVERRIDE_GFX_VERSION", "9.0.a"), []string{"gfx942"}, false, nil, true, "malformed"},
		// amd_gpu_agent.cpp:134-180: sramecc from the real device, only where the target supports it
		{"gfx1031 -> 10.3.0 bare", "newest", env("HSA_OVERRIDE_GFX_VERSION", "10.3.0"), []string{"gfx1031"}, false, []string{"0:gfx1030"}, false, ""},
		{"gfx90a -> 9.4.2 keeps ECC", "newest", env("HSA_OVERRIDE_GFX_VERSION", "9.4.2"), []string{"gfx90a:sramecc+:xnack-"}, false, []string{"0:gfx942:sramecc+:xnack-"}, false, ""},
		{"gfx90a ECC off -> 9.4.2", "newest", env("HSA_OVERRIDE_GFX_VERSION", "9.4.2"), []string{"gfx90a:sramecc-:xnack-"}, false, []string{"0:gfx942:sramecc-:xnack-"}, false, ""},
		// xnack from the process mode (amd_gpu_agent.cpp:169)
		{"xnack from HSA_XNACK", "newest", env("HSA_OVERRIDE_GFX_VERSION", "9.4.2", "HSA_XNACK", "1"), []string{"gfx90a"}, false, []string{"0:gfx942:sramecc+:xnack+"}, false, ""},
		{"no ECC on an RDNA device", "7.13", env("HSA_OVERRIDE_GFX_VERSION", "9.4.2"), []string{"gfx1100"}, false, []string{"0:gfx942:sramecc-:xnack-"}, false, ""},
		// amd_topology.cpp:166-172 "Ignore unrecognized GPUs"
		{"unknown ISA drops the device", "newest", env("HSA_OVERRIDE_GFX_VERSION_2", "12.9.9"), []string{"gfx1100", "gfx1101"}, false, []string{"0:gfx1100"}, false, "dropped"},
		{"stepping past 15 names no ISA", "newest", env("HSA_OVERRIDE_GFX_VERSION", "10.3.16"), []string{"gfx1030"}, false, nil, false, "dropped"},
		// ROCR-Runtime#354: an empty value fails ROCr init until PR 5686
		{"empty override, bug", "7.13", env("HSA_OVERRIDE_GFX_VERSION", ""), []string{"gfx1100"}, false, nil, true, "empty"},
		{"empty override, 5.2", "5.2", env("HSA_OVERRIDE_GFX_VERSION", ""), []string{"gfx1100"}, false, nil, true, "empty"},
		{"malformed 11.0, bug", "6.2", env("HSA_OVERRIDE_GFX_VERSION", "11.0"), []string{"gfx1100"}, false, nil, true, "malformed"},
		{"trailing space is malformed", "6.2", env("HSA_OVERRIDE_GFX_VERSION", "11.0.0 "), []string{"gfx1100"}, false, nil, true, "malformed"},
		{"leading space parses", "6.2", env("HSA_OVERRIDE_GFX_VERSION", " 11.0.0"), []string{"gfx1101"}, false, []string{"0:gfx1100"}, false, ""},
		{"empty override, fixed (PR 5686)", "newest", env("HSA_OVERRIDE_GFX_VERSION", ""), []string{"gfx1100"}, false, []string{"0:gfx1100"}, false, "unset"},
		// PR 5686: cross-major refused on fixed releases
		{"cross-major refused", "newest", env("HSA_OVERRIDE_GFX_VERSION", "11.0.0"), []string{"gfx1201"}, false, []string{"0:gfx1201"}, false, "refuses"},
		{"cross-major before the fix", "7.13", env("HSA_OVERRIDE_GFX_VERSION", "11.0.0"), []string{"gfx1201"}, false, []string{"0:gfx1100"}, false, ""},
		// ROCR-Runtime 84567b64: node 0 is the CPU, the first GPU is _1; per node wins
		{"per-node override", "newest", env("HSA_OVERRIDE_GFX_VERSION_2", "10.3.0"), []string{"gfx1100", "gfx1031"}, false, []string{"0:gfx1100", "1:gfx1030"}, false, ""},
		{"per-node wins over global", "newest", env("HSA_OVERRIDE_GFX_VERSION_1", "11.0.0", "HSA_OVERRIDE_GFX_VERSION", "10.3.0"), []string{"gfx1101", "gfx1031"}, false, []string{"0:gfx1100", "1:gfx1030"}, false, ""},
		{"per-node not read before 6.3", "6.2", env("HSA_OVERRIDE_GFX_VERSION_1", "11.0.0"), []string{"gfx1101"}, false, []string{"0:gfx1101"}, false, "6.3"},
		// ROCR_VISIBLE_DEVICES: amd_filter_device.cpp BuildUsrDeviceList
		{"rocr reorders", "newest", env("ROCR_VISIBLE_DEVICES", "1,0"), []string{"gfx1036", "gfx1100"}, false, []string{"1:gfx1100", "0:gfx1036"}, false, ""},
		{"rocr strtol hex", "newest", env("ROCR_VISIBLE_DEVICES", "0x1"), []string{"gfx1036", "gfx1100"}, false, []string{"1:gfx1100"}, false, ""},
		{"rocr strtol octal", "newest", env("ROCR_VISIBLE_DEVICES", "01"), []string{"gfx1036", "gfx1100"}, false, []string{"1:gfx1100"}, false, ""},
		{"rocr octal 08 is illegal", "newest", env("ROCR_VISIBLE_DEVICES", "08"), []string{"gfx1036", "gfx1100"}, false, nil, false, "ends"},
		{"rocr duplicate ends", "newest", env("ROCR_VISIBLE_DEVICES", "1,1,0"), []string{"gfx1036", "gfx1100"}, false, []string{"1:gfx1100"}, false, "repeats"},
		{"rocr invalid ends", "newest", env("ROCR_VISIBLE_DEVICES", "1,x,0"), []string{"gfx1036", "gfx1100", "gfx1101"}, false, []string{"1:gfx1100"}, false, "ends"},
		{"rocr out of range ends", "newest", env("ROCR_VISIBLE_DEVICES", "2,0"), []string{"gfx1036", "gfx1100"}, false, nil, false, "out of range"},
		{"rocr set but empty", "newest", env("ROCR_VISIBLE_DEVICES", ""), []string{"gfx1036", "gfx1100"}, false, nil, false, "no GPU"},
		{"rocr trailing comma", "newest", env("ROCR_VISIBLE_DEVICES", "1,"), []string{"gfx1036", "gfx1100"}, false, []string{"1:gfx1100"}, false, ""},
		{"rocr empty entry", "newest", env("ROCR_VISIBLE_DEVICES", "0,,1"), []string{"gfx1036", "gfx1100"}, false, nil, true, "empty"},
		{"rocr trims and upper-cases", "newest", env("ROCR_VISIBLE_DEVICES", " 0X1 "), []string{"gfx1036", "gfx1100"}, false, []string{"1:gfx1100"}, false, ""},
		// HIP_VISIBLE_DEVICES: rocdevice.cpp:500-551@rocm-6.2.0
		{"hip hides the iGPU (TheRock#5543)", "newest", env("HIP_VISIBLE_DEVICES", "1"), []string{"gfx1036", "gfx1100"}, false, []string{"1:gfx1100"}, false, ""},
		{"hip reorders", "newest", env("HIP_VISIBLE_DEVICES", "1,0"), []string{"gfx1036", "gfx1100"}, false, []string{"1:gfx1100", "0:gfx1036"}, false, ""},
		{"hip not canonical ends", "newest", env("HIP_VISIBLE_DEVICES", "01"), []string{"gfx1036", "gfx1100"}, false, nil, false, "discarded"},
		{"hip duplicate skipped", "newest", env("HIP_VISIBLE_DEVICES", "1,1,0"), []string{"gfx1036", "gfx1100"}, false, []string{"1:gfx1100", "0:gfx1036"}, false, ""},
		{"hip empty entry ends", "newest", env("HIP_VISIBLE_DEVICES", "0,,1"), []string{"gfx1036", "gfx1100"}, false, []string{"0:gfx1036"}, false, "discarded"},
		{"hip -1 is none", "newest", env("HIP_VISIBLE_DEVICES", "-1"), []string{"gfx1036", "gfx1100"}, false, nil, false, ""},
		{"cuda when hip is empty", "newest", env("HIP_VISIBLE_DEVICES", "", "CUDA_VISIBLE_DEVICES", "1"), []string{"gfx1036", "gfx1100"}, false, []string{"1:gfx1100"}, false, ""},
		{"hip wins over cuda", "newest", env("HIP_VISIBLE_DEVICES", "0", "CUDA_VISIBLE_DEVICES", "1"), []string{"gfx1036", "gfx1100"}, false, []string{"0:gfx1036"}, false, "wins"},
		{"rocr then hip", "newest", env("ROCR_VISIBLE_DEVICES", "2,1", "HIP_VISIBLE_DEVICES", "1"), []string{"gfx1036", "gfx1100", "gfx1101"}, false, []string{"1:gfx1100"}, false, ""},
		// Windows (PAL): no override, no ROCR_VISIBLE_DEVICES, filter only
		// (paldevice.cpp:1431-1447@amd-staging; vllm-rocm-windows-rdna2 #2/#7)
		{"windows ignores the override", "newest", env("HSA_OVERRIDE_GFX_VERSION", "10.3.1"), []string{"gfx1030"}, true, []string{"0:gfx1030"}, false, "not read on Windows"},
		{"windows ignores rocr", "newest", env("ROCR_VISIBLE_DEVICES", "1"), []string{"gfx1036", "gfx1100"}, true, []string{"0:gfx1036", "1:gfx1100"}, false, "not read on Windows"},
		{"windows filters without reordering", "newest", env("HIP_VISIBLE_DEVICES", "1,0"), []string{"gfx1036", "gfx1100"}, true, []string{"0:gfx1036", "1:gfx1100"}, false, "enumeration order"},
		{"windows strtok skips empty entries", "newest", env("HIP_VISIBLE_DEVICES", "0,,1"), []string{"gfx1036", "gfx1100"}, true, []string{"0:gfx1036", "1:gfx1100"}, false, ""},
		{"windows takes 01", "newest", env("HIP_VISIBLE_DEVICES", "01"), []string{"gfx1036", "gfx1100"}, true, []string{"1:gfx1100"}, false, ""},
		{"windows empty override is harmless", "7.13", env("HSA_OVERRIDE_GFX_VERSION", ""), []string{"gfx1100"}, true, []string{"0:gfx1100"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t, tt.release, tt.env, tt.isas...)
			v := m.View(tt.windows)
			if got := reported(v); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("devices %q, want %q (notes %+v)", got, tt.want, v.Notes)
			}
			if v.NoRuntime != tt.noRuntime {
				t.Errorf("NoRuntime %v, want %v", v.NoRuntime, tt.noRuntime)
			}
			if tt.note != "" && !hasNote(v, tt.note) {
				t.Errorf("no note mentions %q: %+v", tt.note, v.Notes)
			}
			for i, d := range v.Devices {
				if d.Index != i {
					t.Errorf("device %d has index %d", i, d.Index)
				}
			}
		})
	}
}

func hasNote(v View, s string) bool {
	for _, n := range v.Notes {
		if strings.Contains(n.Text, s) {
			return true
		}
	}
	return false
}

// TestViewUUIDs: GPU- entries (amd_filter_device.cpp ProcessUuidToken: a
// unique prefix; rocdevice.cpp:518@rocm-6.2.0: a substring, from 6.2).
func TestViewUUIDs(t *testing.T) {
	devs, _ := ParseDevices("gfx1100,gfx1101")
	devs[0].UUID, devs[1].UUID = "GPU-4B3E2C1A5D6F7E80", "GPU-4B3E9999AAAABBBB"
	mk := func(rel string, env map[string]string) View {
		r, _ := hip.Lookup(rel)
		m := Machine{Name: "m", Devices: devs, HIP: r, Env: env}
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		return m.View(false)
	}
	tests := []struct {
		rel  string
		env  map[string]string
		want []string
	}{
		{"newest", map[string]string{"ROCR_VISIBLE_DEVICES": "gpu-4b3e9"}, []string{"1:gfx1101"}},
		{"newest", map[string]string{"ROCR_VISIBLE_DEVICES": "GPU-4B3E"}, nil}, // ambiguous prefix ends the list
		{"newest", map[string]string{"HIP_VISIBLE_DEVICES": "GPU-4B3E9999"}, []string{"1:gfx1101"}},
		{"6.1", map[string]string{"HIP_VISIBLE_DEVICES": "GPU-4B3E9999"}, nil}, // not read before 6.2
		{"6.2", map[string]string{"HIP_VISIBLE_DEVICES": "GPU-4B3E9999,0"}, []string{"1:gfx1101", "0:gfx1100"}},
	}
	for _, tt := range tests {
		if got := reported(mk(tt.rel, tt.env)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %v: %q, want %q", tt.rel, tt.env, got, tt.want)
		}
	}
	bad := Machine{Name: "m", Devices: []Device{{ISA: devs[0].ISA, UUID: "gpu-1"}}}
	if err := bad.Validate(); err == nil {
		t.Error("a malformed uuid passed Validate")
	}
}

// TestCPUNodes: a two-socket machine's first GPU is KFD node 2.
func TestCPUNodes(t *testing.T) {
	m := newMachine(t, "newest", map[string]string{"HSA_OVERRIDE_GFX_VERSION_2": "11.0.0", "HSA_OVERRIDE_GFX_VERSION_1": "10.3.0"}, "gfx1101", "gfx1031")
	m.CPUNodes = 2
	if got := reported(m.View(false)); !reflect.DeepEqual(got, []string{"0:gfx1100", "1:gfx1031"}) {
		t.Errorf("two CPU nodes: %q", got)
	}
}

func TestParseGfxVersion(t *testing.T) {
	good := map[string]string{"11.0.0": "11.0.0", "9.0.10": "9.0.10", " 9.4.2": "9.4.2", "+11.0.0": "11.0.0", "11. 0.0": "11.0.0", "63.255.255": "63.255.255"}
	for in, want := range good {
		v, ok := parseGfxVersion(in)
		if !ok || v.String() != want {
			t.Errorf("parseGfxVersion(%q) = %v, %v; want %s", in, v, ok, want)
		}
	}
	for _, in := range []string{"", "11", "11.0", "11.0.0 ", "11.0.0x", "9.0.a", "64.0.0", "1.256.0", "-1.0.0", "gfx1100", "11.0.0.0", "99999999999999999999.0.0"} {
		if v, ok := parseGfxVersion(in); ok {
			t.Errorf("parseGfxVersion(%q) = %v, want malformed", in, v)
		}
	}
	for name, want := range map[string]string{"gfx1100": "11.0.0", "gfx90a": "9.0.10", "gfx1151": "11.5.1", "gfx942": "9.4.2", "gfx90c": "9.0.12"} {
		v, ok := versionOf(name)
		if !ok || v.String() != want {
			t.Errorf("versionOf(%s) = %v, %v; want %s", name, v, ok, want)
		}
		p, ok := v.processor()
		if !ok || p.Name != name {
			t.Errorf("%s round trip: %s, %v", want, p.Name, ok)
		}
	}
}

func TestStrtol0(t *testing.T) {
	tests := map[string]int{"0": 0, "1": 1, "0x1": 1, "0X1F": 31, "010": 8, "-0": 0, "+2": 2, "-1": -1, "99999999999": -1}
	for in, want := range tests {
		if got, ok := strtol0(in); !ok || got != want {
			t.Errorf("strtol0(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "x", "0x", "08", "1a", "1 "} {
		if got, ok := strtol0(in); ok {
			t.Errorf("strtol0(%q) = %d, want an illegal token", in, got)
		}
	}
}

func TestDeviceISA(t *testing.T) {
	good := map[string]string{
		"gfx942":                 "gfx942:sramecc+:xnack-",
		"gfx942:xnack+":          "gfx942:sramecc+:xnack+",
		"gfx942:xnack+:sramecc-": "gfx942:sramecc-:xnack+",
		"gfx1100":                "gfx1100",
		"gfx90c":                 "gfx90c",
		"gfx900":                 "gfx900:xnack-",
		"gfx1250":                "gfx1250:sramecc+",
		" gfx1036":               "gfx1036",
	}
	for in, want := range good {
		id, err := DeviceISA(in)
		if err != nil || id.String() != want {
			t.Errorf("DeviceISA(%q) = %s, %v; want %s", in, id, err, want)
		}
	}
	bad := map[string]string{"gfx11-generic": "generic", "gfx90c:xnack+": "not an ISA", "gfx1105": "did you mean", "": "empty"}
	for in, want := range bad {
		if _, err := DeviceISA(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DeviceISA(%q) error %v, want one mentioning %q", in, err, want)
		}
	}
	if _, err := ParseDevices(strings.Repeat("gfx1100,", MaxDevices) + "gfx1100"); err == nil {
		t.Error("more than MaxDevices devices parsed")
	}
}

func TestValidateEnv(t *testing.T) {
	for _, k := range []string{"HSA_OVERRIDE_GFX_VERSION", "HSA_OVERRIDE_GFX_VERSION_1", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "HSA_XNACK"} {
		if !IsEnvKey(k) {
			t.Errorf("IsEnvKey(%s) = false", k)
		}
	}
	for _, k := range []string{"HSA_OVERRIDE_GFX_VERSION_", "HSA_OVERRIDE_GFX_VERSION_x", "ROCM_KPACK_PATH", "hip_visible_devices"} {
		if IsEnvKey(k) {
			t.Errorf("IsEnvKey(%s) = true", k)
		}
	}
	devs, _ := ParseDevices("gfx1100")
	m := Machine{Name: "m", Devices: devs, Env: map[string]string{"ROCM_KPACK_PATH": "/x"}}
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "ROCM_KPACK_PATH") {
		t.Errorf("Validate: %v", err)
	}
	m.Env = map[string]string{"HIP_VISIBLE_DEVICES": strings.Repeat("0,", MaxEnvValue)}
	if err := m.Validate(); err == nil {
		t.Error("an oversized value passed Validate")
	}
}

// TestHidden: a process that sees no device says which variable hid the
// devices, with its value and a fix; one that sees a device has none.
func TestHidden(t *testing.T) {
	for _, tt := range []struct {
		name, release string
		env           map[string]string
		isas          []string
		windows       bool
		key, val, fix string
	}{
		// topology.c:1243-1246: sscanf needs three numbers.
		{"two numbers", "newest", map[string]string{EnvOverride: "11.0"}, []string{"gfx1151"}, false,
			EnvOverride, "11.0", "write it as three decimal numbers (HSA_OVERRIDE_GFX_VERSION=11.0.0 makes the device report gfx1100, 11.5.1 is its own gfx1151), or unset it"},
		// the per-node variable (ROCR-Runtime 84567b64; node 1 is device 0).
		{"per node", "newest", map[string]string{"HSA_OVERRIDE_GFX_VERSION_1": "gfx1100"}, []string{"gfx1151"}, false,
			"HSA_OVERRIDE_GFX_VERSION_1", "gfx1100", "write it as three decimal numbers (HSA_OVERRIDE_GFX_VERSION_1=11.0.0 makes the device report gfx1100, 11.5.1 is its own gfx1151), or unset it"},
		// rocdevice.cpp:519-527: an invalid entry ends the list; CUDA_VISIBLE_DEVICES when HIP's is unset.
		{"cuda", "newest", map[string]string{EnvCUDAVisible: "2"}, []string{"gfx1036", "gfx1100"}, false,
			EnvCUDAVisible, "2", "list the devices to show by index (0 to 1 of the 2 devices) or GPU-<uuid>, e.g. CUDA_VISIBLE_DEVICES=0, or unset it"},
		// paldevice.cpp parseRequestedDeviceList: the same on Windows.
		{"windows", "newest", map[string]string{EnvHIPVisible: "x"}, []string{"gfx1030"}, true,
			EnvHIPVisible, "x", "list the devices to show by index (0, the only device) or GPU-<uuid>, e.g. HIP_VISIBLE_DEVICES=0, or unset it"},
		// amd_filter_device.cpp: an empty entry throws; ROCr does not initialise (assumed).
		{"rocr empty entry", "newest", map[string]string{EnvRocrVisible: ",1"}, []string{"gfx1036", "gfx1100"}, false,
			EnvRocrVisible, ",1", "drop the empty entry (ROCR_VISIBLE_DEVICES=1) or unset the variable"},
	} {
		m := newMachine(t, tt.release, tt.env, tt.isas...)
		v := m.View(tt.windows)
		h := v.Hidden
		if len(v.Devices) != 0 || h == nil || h.Var != tt.key || h.Value != tt.val || h.Fix != tt.fix || h.Why == "" {
			t.Errorf("%s: devices %v, hidden %+v; want %s=%s, fix %q", tt.name, reported(v), h, tt.key, tt.val, tt.fix)
		}
	}
	m := newMachine(t, "newest", map[string]string{EnvHIPVisible: "1"}, "gfx1036", "gfx1100")
	if v := m.View(false); v.Hidden != nil || len(v.Devices) != 1 {
		t.Errorf("HIP_VISIBLE_DEVICES=1: %+v", v)
	}
}
