package kerneldb_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb/kerneldbtest"
)

// TestWheelExtras: Provides-Extra and the Requires-Dist values under an
// extra marker (either quote, other markers next to it, names as PEP 685
// normalises them) are read per METADATA; a METADATA without extras is
// not listed; every distribution is named in Distributions.
func TestWheelExtras(t *testing.T) {
	tree := kerneldbtest.New()
	tree.Add("rocm-7.14.0.dist-info/METADATA", []byte("Metadata-Version: 2.4\nName: rocm\nVersion: 7.14.0\n"+
		"Requires-Dist: rocm-sdk-core==7.14.0\n"+
		"Provides-Extra: Device_All\n"+
		"Provides-Extra: device-gfx1100\n"+
		"Requires-Dist: rocm-sdk-device-gfx1100==7.14.0; extra == \"device-gfx1100\"\n"+
		"Requires-Dist: rocm-sdk-device-gfx1100==7.14.0; extra == \"device-all\"\n"+
		"Requires-Dist: rocm-sdk-device-gfx1151==7.14.0; sys_platform == \"win32\" and extra == 'device-all'\n"+
		"Requires-Dist: rocm-sdk-device-gfx1151 ; extra == \"device-all\"\n"+ // again: once
		"Requires-Dist: rocm-sdk-libraries==7.14.0; extra == \"libraries\"\n"+
		"\nRequires-Dist: body-text; extra == \"device-all\"\n"))
	tree.Add("rocm_sdk_core-7.14.0.dist-info/METADATA", []byte("Name: rocm-sdk-core\nVersion: 7.14.0\n"))
	r := kerneldb.Scan(writeTree(t, tree), kerneldb.Options{})
	want := []kerneldb.WheelExtras{{Wheel: "rocm", Metadata: "rocm-7.14.0.dist-info/METADATA", Extras: []kerneldb.Extra{
		{Name: "device-all", Declared: true, Requires: []string{"rocm-sdk-device-gfx1100", "rocm-sdk-device-gfx1151"}},
		{Name: "device-gfx1100", Declared: true, Requires: []string{"rocm-sdk-device-gfx1100"}},
		{Name: "libraries", Requires: []string{"rocm-sdk-libraries"}},
	}}}
	if !reflect.DeepEqual(r.Extras, want) {
		t.Errorf("extras %+v\nwant %+v", r.Extras, want)
	}
	if !reflect.DeepEqual(r.Distributions, []string{"rocm", "rocm-sdk-core"}) {
		t.Errorf("distributions %v", r.Distributions)
	}
	if e, ok := r.Extras[0].Extra("Device.All"); !ok || e.Name != "device-all" {
		t.Errorf("Extra(Device.All) = %+v %v", e, ok)
	}
	if _, ok := r.Extras[0].Extra("device-gfx942"); ok {
		t.Error("no device-gfx942 extra")
	}
}

// TestWheelExtrasBound: a METADATA of 20,000 extra lines keeps the first
// 4,096 (Provides-Extra and extra requirements together).
func TestWheelExtrasBound(t *testing.T) {
	var b strings.Builder
	b.WriteString("Name: rocm\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "Requires-Dist: rocm-sdk-device-gfx%d; extra == \"device-all\"\n", i)
	}
	tree := kerneldbtest.New()
	tree.Add("rocm-1.dist-info/METADATA", []byte(b.String()))
	r := kerneldb.Scan(writeTree(t, tree), kerneldb.Options{})
	if len(r.Extras) != 1 || len(r.Extras[0].Extras) != 1 || len(r.Extras[0].Extras[0].Requires) != 4096 {
		t.Fatalf("extras: %+v", len(r.Extras))
	}
}
