package intern

import (
	"testing"
	"unsafe"
)

func TestString(t *testing.T) {
	var tab Table
	a := tab.String([]byte("lib/x.so#0"))
	b := tab.String([]byte("lib/x.so#0"))
	c := tab.String([]byte("lib/x.so#1"))
	if a != "lib/x.so#0" || c != "lib/x.so#1" || tab.Len() != 2 {
		t.Fatalf("got %q %q, %d strings", a, c, tab.Len())
	}
	if unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("equal strings do not share their bytes")
	}
	if n := testing.AllocsPerRun(100, func() { tab.String([]byte("lib/x.so#1")) }); n != 0 {
		t.Errorf("a hit allocates %v times", n)
	}
}
