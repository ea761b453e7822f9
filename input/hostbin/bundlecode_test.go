package hostbin_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
)

// bundleCode opens the first bundle of a one-bundle binary.
func bundleCode(t *testing.T, bundle []byte, budget int64) *hostbin.BundleCode {
	t.Helper()
	data := hostbintest.EmbeddedELF([][]byte{bundle}, true)
	b, err := hostbin.Read(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(b.Bundles) != 1 || b.Bundles[0].Err != "" {
		t.Fatalf("read: %v %+v", err, b)
	}
	inflate := hostbin.NewInflateBudget()
	inflate.Store(budget)
	bc, err := hostbin.OpenBundleCode(bytes.NewReader(data), b, b.Bundles[0], inflate, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bc.Close)
	return bc
}

// TestBundleCodeReadsEntries: uncompressed, zstd and zlib CCOB bundles
// give every entry's bytes, in offset order and (for a compressed one)
// out of it, which restarts the stream.
func TestBundleCodeReadsEntries(t *testing.T) {
	entries := []hostbintest.Entry{
		{ID: hostbintest.HostEntry, Data: nil},
		{ID: "hipv4-amdgcn-amd-amdhsa--gfx1030", Data: bytes.Repeat([]byte("a"), 5000)},
		{ID: "hipv4-amdgcn-amd-amdhsa--gfx1100", Data: bytes.Repeat([]byte("b"), 300)},
	}
	raw := hostbintest.BundleOf(entries...)
	for _, tc := range []struct {
		name       string
		bundle     []byte
		compressed bool
	}{
		{"uncompressed", raw, false},
		{"ccob zstd", hostbintest.Compress(false, raw), true},
		{"ccob zlib", hostbintest.Compress(true, raw), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bc := bundleCode(t, tc.bundle, hostbin.MaxEmbeddedInflate)
			if bc.Compressed != tc.compressed || len(bc.Entries) != 3 || bc.Entries[2].Size != 300 {
				t.Fatalf("entries %+v, compressed %v", bc.Entries, bc.Compressed)
			}
			for _, i := range []int{1, 2, 1, 0} { // 1 again: backwards
				buf := make([]byte, 6000)
				n, err := bc.ReadEntry(i, buf)
				if err != nil || !bytes.Equal(buf[:n], entries[i].Data) {
					t.Errorf("entry %d: %d bytes, %v", i, n, err)
				}
			}
			head := make([]byte, 64)
			if n, err := bc.ReadEntry(1, head); n != 64 || err != nil || head[63] != 'a' {
				t.Errorf("head of entry 1: %d bytes, %v", n, err)
			}
		})
	}
}

// TestBundleCodeBounds: an entry past the end of the bundle is an error
// naming it; a compressed bundle stops at the binary's inflate budget.
func TestBundleCodeBounds(t *testing.T) {
	raw := hostbintest.BundleOf(hostbintest.Entry{ID: "hipv4-amdgcn-amd-amdhsa--gfx1100", Data: bytes.Repeat([]byte("c"), 1000)})
	short := raw[:len(raw)-100]
	for _, tc := range []struct {
		name   string
		bundle []byte
		budget int64
		want   string
	}{
		{"uncompressed past the end", short, hostbin.MaxEmbeddedInflate, "runs past the end of the"},
		{"ccob past the end", hostbintest.Compress(false, short), hostbin.MaxEmbeddedInflate, "runs past the end of the compressed offload bundle's payload"},
		{"ccob over the budget", hostbintest.Compress(false, raw), 500, "hostbin.MaxEmbeddedInflate"},
		{"ccob entry at 2^64-1", hostbintest.Compress(false, farEntry(raw)), hostbin.MaxEmbeddedInflate, "hostbin.MaxEmbeddedInflate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bc := bundleCode(t, tc.bundle, tc.budget)
			_, err := bc.ReadEntry(0, make([]byte, 1000))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
			if strings.Contains(tc.want, "MaxEmbeddedInflate") && !errors.Is(err, hostbin.ErrInflateLimit) {
				t.Errorf("err %v is not ErrInflateLimit", err)
			}
		})
	}
}

// farEntry sets the first entry's offset to 2^64-1.
func farEntry(raw []byte) []byte {
	out := bytes.Clone(raw)
	for i := 32; i < 40; i++ {
		out[i] = 0xff
	}
	return out
}

// FuzzBundleCode: any bundle bytes (raw, or CCOB around them) read
// without a panic and within the buffers given.
func FuzzBundleCode(f *testing.F) {
	f.Add(hostbintest.BundleOf(hostbintest.Entry{ID: "hipv4-amdgcn-amd-amdhsa--gfx1100", Data: []byte("\x7fELF....")}), false)
	f.Add(hostbintest.Bundle("a", "b"), true)
	f.Fuzz(func(t *testing.T, bundle []byte, compress bool) {
		if compress {
			bundle = hostbintest.Compress(false, bundle)
		}
		data := hostbintest.EmbeddedELF([][]byte{bundle}, false)
		b, err := hostbin.Read(bytes.NewReader(data), int64(len(data)))
		if err != nil || len(b.Bundles) != 1 {
			return
		}
		inflate := hostbin.NewInflateBudget()
		inflate.Store(1 << 20)
		bc, err := hostbin.OpenBundleCode(bytes.NewReader(data), b, b.Bundles[0], inflate, nil)
		if err != nil {
			return
		}
		defer bc.Close()
		for _, i := range bc.Order() {
			buf := make([]byte, 100)
			if n, _ := bc.ReadEntry(i, buf); n > len(buf) {
				t.Fatalf("read %d into %d", n, len(buf))
			}
		}
	})
}
