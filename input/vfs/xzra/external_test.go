package xzra

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	uxz "github.com/ulikunitz/xz"
)

// needXZ returns XZ Utils' xz and hands it every block during the test,
// or skips the test where there is none (KPACK_LINT_REQUIRE_XZ=1 fails
// it instead, as .ci/run sets).
func needXZ(t *testing.T) string {
	t.Helper()
	xz := FindXZ()
	if xz == "" {
		if os.Getenv("KPACK_LINT_REQUIRE_XZ") != "" {
			t.Fatal("no xz of XZ Utils 5.2 or newer on PATH")
		}
		t.Skip("no xz of XZ Utils 5.2 or newer on PATH")
	}
	old := minExternal
	minExternal = 0
	t.Cleanup(func() { minExternal = old })
	return xz
}

// noProcs fails the test when an xz process outlives the Readers.
func noProcs(t *testing.T) {
	t.Helper()
	if n := liveProcs.Load(); n != 0 {
		t.Errorf("%d xz processes left", n)
	}
}

// TestExternalCloseKills: blocks decoded partway hold a paused xz each;
// Close kills and waits for them all.
func TestExternalCloseKills(t *testing.T) {
	xz := needXZ(t)
	data := sample(8*262144, 12)
	f := compress(t, data, 262144, uxz.CRC64)
	x := open(t, f, Options{Workers: 2, XZ: xz})
	got := make([]byte, 100)
	for i := range 8 {
		if _, err := x.ReadAt(got, int64(i)*262144+10); err != nil || !bytes.Equal(got, data[i*262144+10:][:100]) {
			t.Fatal(err)
		}
	}
	if n := liveProcs.Load(); n != 8 {
		t.Errorf("%d xz processes for 8 blocks read partway, want 8", n)
	}
	x.Prefetch(Range{0, x.Size()})
	x.Close()
	noProcs(t)
}

// TestExternalCharge: an xz process is charged for the dictionary it has
// filled, not the whole of it: a 100-byte read of a 1 MiB block holds
// the process's buffers, the 64 KiB decoded (a step) and the page they
// are in.
func TestExternalCharge(t *testing.T) {
	xz := needXZ(t)
	data := sample(4<<20, 13)
	f := compress(t, data, 1<<20, uxz.CRC64)
	x := open(t, f, Options{Workers: -1, XZ: xz})
	if _, err := x.ReadAt(make([]byte, 100), 0); err != nil {
		t.Fatal(err)
	}
	s := x.states[0]
	if want := procBuffers + step + page; s.mem != int64(want) {
		t.Errorf("block 1 holds %d bytes after a 100-byte read, want %d", s.mem, want)
	}
}

// TestCheckXZ: XZ Utils' xz passes; a program that is not xz, and none,
// are refused.
func TestCheckXZ(t *testing.T) {
	xz := needXZ(t)
	if !filepath.IsAbs(xz) {
		t.Errorf("FindXZ = %q, not absolute", xz)
	}
	if err := CheckXZ(xz); err != nil {
		t.Errorf("CheckXZ(%s): %v", xz, err)
	}
	fake := filepath.Join(t.TempDir(), "xz")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho XZ_VERSION=40000002\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckXZ(fake); err == nil || !strings.Contains(err.Error(), "5.2 or newer") {
		t.Errorf("xz 4: %v", err)
	}
	if err := CheckXZ(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing program passed")
	}
}

// TestExternalStreamReader: xz reads a file of two streams with padding
// front to back; corrupt data is xz's own error; Close before the end
// kills the process.
func TestExternalStreamReader(t *testing.T) {
	xz := needXZ(t)
	data := sample(300<<10, 24)
	one := compress(t, data, 1<<30, uxz.CRC64)
	two := append(append(append([]byte{}, one...), 0, 0, 0, 0), one...)
	r, err := NewExternalStreamReader(xz, bytes.NewReader(two), MaxDict)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, append(append([]byte{}, data...), data...)) {
		t.Errorf("two streams: %d bytes, %v", len(got), err)
	}
	r.Close()
	bad := append([]byte{}, one...)
	bad[len(bad)/2] ^= 0xff
	r, _ = NewExternalStreamReader(xz, bytes.NewReader(bad), MaxDict)
	if _, err := io.ReadAll(r); err == nil || !strings.Contains(err.Error(), "xz: (stdin): ") {
		t.Errorf("corrupt stream: %v", err)
	}
	r.Close()
	r, _ = NewExternalStreamReader(xz, bytes.NewReader(one), MaxDict)
	if _, err := r.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	r.Close()
	noProcs(t)
}
