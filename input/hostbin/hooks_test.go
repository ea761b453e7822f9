package hostbin_test

import (
	"bytes"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
)

// hinted is a reader that counts the prefetch hints it is given.
type hinted struct {
	*bytes.Reader
	hints int
}

func (h *hinted) Prefetch(off, n int64) { h.hints++ }

// TestHooksBundle: Hooks.Bundle is called once per embedded bundle, in
// wrapper order, right after its table (before the next one is in
// b.Bundles), and a hooked read gives no prefetch hints of its own.
func TestHooksBundle(t *testing.T) {
	var raws [][]byte
	for _, id := range []string{"gfx942", "gfx1100", "gfx90a"} {
		raws = append(raws, hostbintest.BundleOf(hostbintest.Entry{ID: "hipv4-amdgcn-amd-amdhsa--" + id, Data: []byte(id)}))
	}
	f := hostbintest.EmbeddedELF(raws, false)
	var seen []hostbin.Bundle
	r := &hinted{Reader: bytes.NewReader(f)}
	b, err := hostbin.ReadHooked(r, int64(len(f)), nil, hostbin.Hooks{Bundle: func(b *hostbin.Binary, bd hostbin.Bundle) {
		if len(b.Bundles) != len(seen) {
			t.Errorf("bundle %d: %d bundles in b already", bd.Wrapper, len(b.Bundles))
		}
		seen = append(seen, bd)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 || r.hints != 0 {
		t.Fatalf("%d calls, %d hints: want 3 calls, no hint", len(seen), r.hints)
	}
	for i, bd := range seen {
		if bd.Wrapper != i || bd.Offset != b.Bundles[i].Offset || bd.Entries[0] != b.Bundles[i].Entries[0] {
			t.Errorf("call %d: %+v, want %+v", i, bd, b.Bundles[i])
		}
	}
	r = &hinted{Reader: bytes.NewReader(f)}
	if _, err := hostbin.Read(r, int64(len(f))); err != nil || r.hints != 3 {
		t.Errorf("unhooked read: %d hints (%v), want one per bundle", r.hints, err)
	}
}
