package hostbin_test

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
)

var bundleIDs = []string{hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx1100"}

func TestReadBundleEntries(t *testing.T) {
	tests := []struct {
		name       string
		in         []byte
		compressed bool
	}{
		{"uncompressed", hostbintest.Bundle(bundleIDs...), false},
		{"CCOB zstd", hostbintest.CompressedBundle(false, bundleIDs...), true},
		{"CCOB zlib", hostbintest.CompressedBundle(true, bundleIDs...), true},
	}
	for _, tt := range tests {
		got, compressed, err := hostbin.ReadBundleEntries(bytes.NewReader(tt.in), nil)
		if err != nil || compressed != tt.compressed || !reflect.DeepEqual(got, bundleIDs) {
			t.Errorf("%s: %q, compressed %v, %v", tt.name, got, compressed, err)
		}
	}
}

func TestReadBundleEntriesBad(t *testing.T) {
	good := hostbintest.Bundle(bundleIDs...)
	huge := append([]byte("__CLANG_OFFLOAD_BUNDLE__"), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f)
	longID := append(append([]byte{}, good[:32]...), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0)
	tests := map[string]struct {
		in   []byte
		want string
	}{
		"not a bundle":      {[]byte("hello world, no bundle here"), "no clang offload bundle"},
		"truncated":         {good[:40], "truncated"},
		"huge entry count":  {huge, "more than 4096"},
		"huge ID":           {longID, "more than 256"},
		"CCOB bad version":  {append([]byte("CCOB\x09\x00\x01\x00"), make([]byte, 32)...), "unknown version 9"},
		"CCOB bad payload":  {append([]byte("CCOB\x02\x00\x01\x00"), make([]byte, 40)...), "neither zstd nor zlib"},
		"CCOB truncated":    {[]byte("CCOB\x02"), "truncated header"},
		"CCOB corrupt zstd": {append(hostbintest.CompressedBundle(false, bundleIDs...)[:30], 1, 2, 3), "offload bundle"},
	}
	for name, tt := range tests {
		_, _, err := hostbin.ReadBundleEntries(bytes.NewReader(tt.in), nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tt.want)
		}
	}
}

// TestReadEmbedded: HIPF wrappers point into .hip_fatbin directly or, in a
// position-independent library, through R_X86_64_RELATIVE relocations.
func TestReadEmbedded(t *testing.T) {
	b1 := hostbintest.Bundle(hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx942")
	b2 := hostbintest.CompressedBundle(false, hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx1100")
	for _, pic := range []bool{false, true} {
		data := hostbintest.EmbeddedELF([][]byte{b1, b2}, pic)
		bin, err := hostbin.Read(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if !bin.Embedded() || bin.Kpacked() || len(bin.Bundles) != 2 || bin.BundleSection == nil {
			t.Fatalf("pic %v: embedded %v kpacked %v bundles %+v", pic, bin.Embedded(), bin.Kpacked(), bin.Bundles)
		}
		if got := bin.Bundles[0].Entries; !reflect.DeepEqual(got, []string{hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx942"}) || bin.Bundles[0].Compressed {
			t.Errorf("pic %v: bundle 0 = %+v", pic, bin.Bundles[0])
		}
		if got := bin.Bundles[1].Entries; !reflect.DeepEqual(got, []string{hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx1100"}) || !bin.Bundles[1].Compressed {
			t.Errorf("pic %v: bundle 1 = %+v", pic, bin.Bundles[1])
		}
		if len(bin.Problems) != 0 {
			t.Errorf("pic %v: problems %v", pic, bin.Problems)
		}
	}
}

// TestHIPKVersion: HIP loads only HIPK version 1 through kpack (hip_code_object.cpp).
func TestHIPKVersion(t *testing.T) {
	ref := hostbintest.RefBytes("lib/x.so", "../.kpack/x_@GFXARCH@.kpack")
	data := hostbintest.ELF(ref, []hostbintest.Wrap{{Magic: hostbin.MagicHIPK, COIndex: 0}, {Magic: hostbin.MagicHIPK, COIndex: 1, Version: 2}})
	bin, err := hostbin.Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if got := bin.COIndexes(); !reflect.DeepEqual(got, []uint32{0}) {
		t.Errorf("COIndexes = %v, want [0]", got)
	}
	if len(bin.Bundles) != 1 || bin.Bundles[0].Wrapper != 1 {
		t.Errorf("bundles %+v", bin.Bundles)
	}
	found := false
	for _, p := range bin.Problems {
		found = found || p.Kind == hostbin.HIPKBadVersion && strings.Contains(p.Msg, "version 2")
	}
	if !found {
		t.Errorf("no HIPKBadVersion problem: %v", bin.Problems)
	}
}

// TestHIPFWithoutBundleSection: wrappers but no .hip_fatbin: no device code.
func TestHIPFWithoutBundleSection(t *testing.T) {
	data := hostbintest.ELF(nil, hostbintest.HIPF(3))
	bin, err := hostbin.Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(bin.Bundles) != 3 || bin.BundleSection != nil {
		t.Fatalf("bundles %+v", bin.Bundles)
	}
	for _, bd := range bin.Bundles {
		if bd.Err != "" || bd.Offset != -1 || len(bd.Entries) != 0 {
			t.Errorf("bundle %+v, want no entries and no error", bd)
		}
	}
}

// TestBundlesSharedAndBounded: wrappers pointing at one bundle read it
// once; the entries read per binary stop at MaxEntriesPerBinary.
func TestBundlesSharedAndBounded(t *testing.T) {
	one := hostbintest.Bundle(hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx942")
	same := make([][]byte, 0, 300)
	for range 300 {
		same = append(same, one)
	}
	data := hostbintest.EmbeddedELF(same, false)
	bin, err := hostbin.Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(bin.Bundles) != 300 || len(bin.Bundles[299].Entries) != 2 || bin.Bundles[299].Wrapper != 299 {
		t.Fatalf("bundles: %d, last %+v", len(bin.Bundles), bin.Bundles[len(bin.Bundles)-1])
	}
	// 20 distinct bundles of 4,000 entries: 80,000 > 65,536.
	ids := make([]string, 4000)
	for i := range ids {
		ids[i] = fmt.Sprintf("hipv4-amdgcn-amd-amdhsa--gfx%d", 1000+i)
	}
	var many [][]byte
	for i := range 20 {
		many = append(many, hostbintest.Bundle(append(ids[:3999:3999], fmt.Sprintf("x%d", i))...))
	}
	data = hostbintest.EmbeddedELF(many, true)
	bin, err = hostbin.Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	read, capped := 0, 0
	for _, bd := range bin.Bundles {
		read += len(bd.Entries)
		if strings.Contains(bd.Err, "more than 65,536 entries") {
			capped++
		}
	}
	if read > hostbin.MaxEntriesPerBinary+hostbin.MaxBundleEntries || capped == 0 {
		t.Errorf("read %d entries, %d bundles capped", read, capped)
	}
}

// prefetchReader records the hints Read passes a reader that takes them.
type prefetchReader struct {
	*bytes.Reader
	hints [][2]int64
}

func (p *prefetchReader) Prefetch(off, n int64) { p.hints = append(p.hints, [2]int64{off, n}) }

// TestReadPrefetch: a reader that takes hints (a member of a package read
// in place) is told, before the bundles are read, where each embedded
// wrapper's bundle starts, in file order, once per bundle.
func TestReadPrefetch(t *testing.T) {
	for _, pic := range []bool{false, true} {
		data := hostbintest.EmbeddedELF([][]byte{hostbintest.Bundle(bundleIDs...), hostbintest.Bundle(bundleIDs[:2]...)}, pic)
		r := &prefetchReader{Reader: bytes.NewReader(data)}
		bin, err := hostbin.Read(r, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var want [][2]int64
		for _, bd := range bin.Bundles {
			want = append(want, [2]int64{bd.Offset, 4096})
		}
		if len(want) != 2 || want[0][0] >= want[1][0] || !reflect.DeepEqual(r.hints, want) {
			t.Errorf("pic %v: hints %v, want %v", pic, r.hints, want)
		}
	}
}
