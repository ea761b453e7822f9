package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
)

// TestExplainEmbedded: explain takes the keys check prints for embedded
// wrappers (path[embedded]#N) and shows, per --agent, the entry HIP picks
// and why (native, generic, SPIR-V, none), the picked code object's
// target and HIP's verdict, in text and JSON; exit 1 when the device gets
// no code or code it rejects.
func TestExplainEmbedded(t *testing.T) {
	const p = "hipv4-amdgcn-amd-amdhsa--"
	co := func(target string) []byte { return codeobjtest.CodeObject(target, strings.Repeat("x", 3000)) }
	bundle := hostbintest.BundleOf(
		hostbintest.Entry{ID: hostbintest.HostEntry},
		hostbintest.Entry{ID: p + "gfx1030", Data: co("gfx1100")}, // mislabelled
		hostbintest.Entry{ID: p + "gfx11-generic", Data: co("gfx11-generic")},
		hostbintest.Entry{ID: p + "gfx90a:xnack-", Data: co("gfx90a:xnack-")},
	)
	spirv := hostbintest.BundleOf(hostbintest.Entry{ID: hostbintest.HostEntry}, hostbintest.Entry{ID: "hipv4-spirv64-amd-amdhsa--amdgcnspirv", Data: []byte("spirv")})
	dir := testtree.Write(t, map[string][]byte{
		"lib/libx.so": hostbintest.EmbeddedELF([][]byte{hostbintest.Compress(false, bundle), spirv, []byte("garbage")}, true),
	})
	for _, tc := range []struct {
		name, agent, key string
		code             int
		why, hip         string
		picked           int
		text             []string
	}{
		{"native", "gfx90a:sramecc+:xnack-", "lib/libx.so[embedded]#0", ExitOK, "native", "hipSuccess", 3,
			[]string{"hip: offload bundle at offset", "compressed (CCOB), 4 entries", "hip:   entry 3 hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-: fits (native), code object gfx90a:xnack-",
				"hip: HIP picks entry 3 hipv4-amdgcn-amd-amdhsa--gfx90a:xnack- (native: its target is compatible with the agent)",
				"hip: code object target gfx90a:xnack-, agent gfx90a:sramecc+:xnack-: hipSuccess"}},
		{"generic", "gfx1101", "lib/libx.so[embedded]#0", ExitOK, "generic", "hipSuccess", 2,
			[]string{"(generic: no native entry, and its generic target covers the agent)"}},
		{"mislabelled code object", "gfx1030", "lib/libx.so[embedded]#0", ExitFindings, "native", "hipErrorInvalidImage", 1,
			[]string{"entry 1 hipv4-amdgcn-amd-amdhsa--gfx1030: fits (native), code object gfx1100", "hip: code object target gfx1100, agent gfx1030: hipErrorInvalidImage"}},
		{"none", "gfx942:sramecc+:xnack-", "lib/libx.so[embedded]#0", ExitFindings, "none", "hipErrorInvalidImage", -1,
			[]string{"hip: no entry fits gfx942:sramecc+:xnack- (no native, generic or SPIR-V entry)", "HIP newest: the module load fails with hipErrorInvalidImage"}},
		{"spir-v", "gfx942:sramecc+:xnack-", "lib/libx.so[embedded]#1", ExitOK, "SPIR-V", "hipSuccess", 1,
			[]string{"HIP compiles it for the device at load time"}},
		{"bundle does not read", "gfx1100", "lib/libx.so[embedded]#2", ExitFindings, "none", "hipErrorInvalidImage", -1,
			[]string{"hip: its offload bundle does not read", "hipErrorInvalidImage"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := run(t, "explain", "--no-policy", "--agent", tc.agent, tc.key, dir)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s%s", code, tc.code, out, stderr)
			}
			for _, w := range tc.text {
				if !strings.Contains(out, w) {
					t.Errorf("text lacks %q:\n%s", w, out)
				}
			}
			_, js, _ := run(t, "explain", "--format", "json", "--no-policy", "--agent", tc.agent, tc.key, dir)
			var ex struct {
				Kernel, Agent, Binary, Why, HIP string
				Picked                          int
				Entries                         []struct{ ID string }
			}
			if err := json.Unmarshal([]byte(js), &ex); err != nil {
				t.Fatalf("%v: %s", err, js)
			}
			if ex.Kernel != tc.key || ex.Agent != tc.agent || ex.Binary != "lib/libx.so" || ex.Why != tc.why || ex.HIP != tc.hip || ex.Picked != tc.picked {
				t.Errorf("json %+v", ex)
			}
		})
	}
	// Several --agent are one device each; a wrapper the binary lacks is
	// a usage error naming the ones it has.
	if _, out, _ := run(t, "explain", "--no-policy", "--agent", "gfx1101", "--agent", "gfx1030", "lib/libx.so[embedded]#0-1", dir); strings.Count(out, "hip: load ") != 4 {
		t.Errorf("want 4 explanations (2 wrappers x 2 agents):\n%s", out)
	}
	if code, _, stderr := run(t, "explain", "--no-policy", "--agent", "gfx1030", "lib/libx.so[embedded]#7", dir); code != ExitUsage || !strings.Contains(stderr, "it has lib/libx.so[embedded]#0-2") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
