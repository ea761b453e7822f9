package machine

import (
	"reflect"
	"strings"
	"testing"
)

func TestParsePCI(t *testing.T) {
	good := map[string]PCI{
		"0000:03:00.0": {Bus: 3},
		"c3:00.1":      {Bus: 0xc3, Function: 1},
		"0001:0a:1f.7": {Domain: 1, Bus: 10, Device: 0x1f, Function: 7},
	}
	for in, want := range good {
		got, err := ParsePCI(in)
		if err != nil || got != want {
			t.Errorf("ParsePCI(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if back, _ := ParsePCI(got.String()); back != got {
			t.Errorf("%q does not read back: %s", in, got)
		}
	}
	for _, in := range []string{"", "03", "0000:03:00", "0000:100:00.0", "0000:03:20.0", "0000:03:00.8", "x:03:00.0", "00000:03:00.0", "0:0:0:0.0"} {
		if _, err := ParsePCI(in); err == nil || !strings.Contains(err.Error(), "bus:device.function in hex") {
			t.Errorf("ParsePCI(%q) = %v", in, err)
		}
	}
}

// TestPALUUID follows parseRequestedDeviceList (clr rocclr/device/pal/
// paldevice.cpp:1313-1328@rocm-6.2.0): itoa of each signed byte of the
// little-endian domain, bus, device and function numbers, each written
// one position after the last.
func TestPALUUID(t *testing.T) {
	tests := map[PCI]string{
		{Bus: 3}:                         "0000300000000000",
		{Bus: 0x0a}:                      "0000100000000000", // 10: its first digit only
		{Bus: 1}:                         "0000100000000000", // the same string as bus 10
		{Bus: 0xc3}:                      "0000-00000000000", // -61
		{Bus: 0x65, Device: 2}:           "0000100020000000", // 101
		{Domain: 1, Bus: 4, Function: 1}: "1000400000001000",
	}
	for p, want := range tests {
		if got := p.PALUUID(); got != want {
			t.Errorf("%s: PAL UUID %q, want %q", p, got, want)
		}
	}
}

// TestWindowsGPUEntries: on Windows HIP_VISIBLE_DEVICES GPU- entries name
// the PAL UUID of the PCI location, not ROCr's UUID; an entry matching
// nothing ends the list; where two buses give one string, the first
// device wins; before 6.2 a GPU- entry is no index and ends the list.
func TestWindowsGPUEntries(t *testing.T) {
	pci := func(s string) *PCI {
		p, err := ParsePCI(s)
		if err != nil {
			t.Fatal(err)
		}
		return &p
	}
	isa := func(s string) Device {
		id, err := DeviceISA(s)
		if err != nil {
			t.Fatal(err)
		}
		return Device{ISA: id}
	}
	devices := func() []Device {
		return []Device{
			{ISA: isa("gfx1036").ISA, UUID: "GPU-0123456789ABCDEF", PCI: pci("0000:0c:00.0")},
			{ISA: isa("gfx1100").ISA, UUID: "GPU-0123456789ABCDF0", PCI: pci("0000:03:00.0")},
			{ISA: isa("gfx1101").ISA, PCI: pci("0000:01:00.0")},
		}
	}
	tests := []struct {
		name, release, value string
		want                 []string
		note                 string
	}{
		{"PAL UUID of bus 3", "newest", "GPU-0000300000000000", []string{"1:gfx1100"}, ""},
		{"ROCr's UUID matches nothing on Windows", "newest", "GPU-0123456789ABCDF0,0", nil, "matches no device's PAL UUID"},
		{"a miss ends the list", "newest", "2,GPU-0000900000000000,0", []string{"2:gfx1101"}, "matches no device's PAL UUID"},
		{"bus 1 and bus 12 give one string: the first device wins", "newest", "GPU-0000100000000000", []string{"0:gfx1036"}, ""},
		{"before 6.2 a GPU- entry is no index", "6.1", "GPU-0000300000000000,1", nil, "is not a device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t, tt.release, map[string]string{EnvHIPVisible: tt.value}, "gfx1036", "gfx1100", "gfx1101")
			m.Devices = devices()
			v := m.View(true)
			if got := reported(v); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("visible %q, want %q (notes %+v)", reported(v), tt.want, v.Notes)
			}
			if tt.note != "" && !hasNote(v, tt.note) {
				t.Errorf("no note %q: %+v", tt.note, v.Notes)
			}
			if len(tt.want) == 0 && v.Hidden == nil {
				t.Errorf("no device and nothing says why")
			}
		})
	}
	// Linux keeps ROCr's UUID (rocdevice.cpp:518@rocm-6.2.0)
	m := newMachine(t, "newest", map[string]string{EnvHIPVisible: "GPU-0123456789ABCDF0"}, "gfx1036", "gfx1100", "gfx1101")
	m.Devices = devices()
	if v := m.View(false); len(v.Devices) != 1 || v.Devices[0].Device != 1 {
		t.Errorf("Linux: %+v", v.Devices)
	}
}
