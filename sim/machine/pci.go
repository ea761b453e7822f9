package machine

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// PCI is a device's PCI location: domain, bus, device and function, as
// lspci -D and Windows' device manager show them ("0000:03:00.0").
type PCI struct {
	Domain, Bus, Device, Function uint32
}

// String writes p as ParsePCI reads it: "0000:03:00.0".
func (p PCI) String() string {
	return fmt.Sprintf("%04x:%02x:%02x.%x", p.Domain, p.Bus, p.Device, p.Function)
}

// ParsePCI reads a PCI location: [domain:]bus:device.function in hex
// ("0000:03:00.0", "c3:00.0"), domain up to ffff, bus up to ff, device
// up to 1f, function up to 7. The error says what is wrong.
func ParsePCI(s string) (PCI, error) {
	bad := func(why string) (PCI, error) {
		return PCI{}, fmt.Errorf("pci %q: %s (want [domain:]bus:device.function in hex, e.g. 0000:03:00.0)", s, why)
	}
	parts := strings.Split(s, ":")
	if len(parts) == 2 {
		parts = append([]string{"0"}, parts...)
	}
	if len(parts) != 3 {
		return bad("not domain:bus:device.function")
	}
	dev, fn, ok := strings.Cut(parts[2], ".")
	if !ok {
		return bad("no .function")
	}
	var out PCI
	for _, f := range []struct {
		text string
		max  uint64
		to   *uint32
		what string
	}{{parts[0], 0xffff, &out.Domain, "domain"}, {parts[1], 0xff, &out.Bus, "bus"}, {dev, 0x1f, &out.Device, "device"}, {fn, 7, &out.Function, "function"}} {
		n, err := strconv.ParseUint(f.text, 16, 32)
		if err != nil || f.text == "" || len(f.text) > 4 || n > f.max {
			return bad(fmt.Sprintf("%s %q is not a hex number up to %x", f.what, f.text, f.max))
		}
		*f.to = uint32(n)
	}
	return out, nil
}

// PALUUID is the UUID Windows' HIP compares a HIP_VISIBLE_DEVICES GPU-
// entry with (its text after the first four characters): clr
// rocclr/device/pal/paldevice.cpp:1312-1333@rocm-6.2.0
// (parseRequestedDeviceList) writes, for each byte of the little-endian
// domain, bus, device and function numbers (16 bytes), itoa of the byte
// as a (signed) char into the next position, so each position keeps the
// first character of that byte's decimal value and the last byte's whole
// value ends the string: bus 3 is "0000300000000000", bus 0xc3 (-61)
// "0000-00000000000". It is not ROCr's UUID, and several buses can give
// one string (1 and 10 to 19 start with "1").
func (p PCI) PALUUID() string {
	var raw [16]byte
	binary.LittleEndian.PutUint32(raw[0:], p.Domain)
	binary.LittleEndian.PutUint32(raw[4:], p.Bus)
	binary.LittleEndian.PutUint32(raw[8:], p.Device)
	binary.LittleEndian.PutUint32(raw[12:], p.Function)
	var b strings.Builder
	for i, c := range raw {
		d := strconv.Itoa(int(int8(c)))
		if i < len(raw)-1 {
			d = d[:1]
		}
		b.WriteString(d)
	}
	return b.String()
}
