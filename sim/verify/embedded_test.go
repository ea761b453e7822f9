package verify_test

import (
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/sim/verify"
)

// TestVerifyEmbeddedBudget: every HIP entry of an embedded bundle is
// decoded whole within --deep-memory, or by its ELF header alone when it
// is larger; the host entry is not read; the bytes held at once stay
// within the budget.
func TestVerifyEmbeddedBudget(t *testing.T) {
	co := func(target string) []byte { return codeobjtest.CodeObject(target, strings.Repeat("z", 60000)) }
	raw := hostbintest.BundleOf(
		hostbintest.Entry{ID: hostbintest.HostEntry, Data: []byte("host")},
		hostbintest.Entry{ID: "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", Data: co("gfx942:sramecc+:xnack-")},
		hostbintest.Entry{ID: "hipv4-amdgcn-amd-amdhsa--gfx1100", Data: co("gfx1030")},
	)
	b := load(t, map[string][]byte{"lib/libx.so": hostbintest.EmbeddedELF([][]byte{raw, hostbintest.Compress(false, raw), raw}, false)})
	bin := b.Binaries[0]
	for _, tc := range []struct {
		budget     int64
		headerOnly bool
	}{{0, false}, {4096, true}} {
		res := verify.VerifyEmbedded(b, verify.Options{MaxMemory: tc.budget, Workers: 2}, nil, nil)
		if res.Bundles != 3 || res.Entries != 6 {
			t.Errorf("budget %d: %d bundles, %d entries, want 3 bundles, 6 HIP entries", tc.budget, res.Bundles, res.Entries)
		}
		if tc.budget > 0 && res.Peak > tc.budget {
			t.Errorf("budget %d: peak %d", tc.budget, res.Peak)
		}
		for _, bd := range bin.Info.Bundles {
			objs := res.Objects(bin, bd)
			if len(objs) != 2 || objs[0].Entry != 1 || objs[1].Entry != 2 {
				t.Fatalf("bundle %d: %+v", bd.Wrapper, objs)
			}
			if objs[0].Target != "gfx942:sramecc+:xnack-" || objs[1].Target != "gfx1030" || objs[0].Err != "" {
				t.Errorf("budget %d, bundle %d: targets %q %q (%s)", tc.budget, bd.Wrapper, objs[0].Target, objs[1].Target, objs[0].Err)
			}
			if objs[0].HeaderOnly != tc.headerOnly || objs[0].Size != uint64(len(co("gfx942"))) {
				t.Errorf("budget %d: header only %v, size %d", tc.budget, objs[0].HeaderOnly, objs[0].Size)
			}
		}
	}
}
