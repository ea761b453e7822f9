package rules

import (
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
)

// A requirement list cut at kerneldb.MaxMissingRequirements names the
// names kept and counts the rest in the message and the subject.
func TestRequirementFindingCounts(t *testing.T) {
	r := kerneldb.Requirement{Wheel: "amd-torch-device-gfx1100", Metadata: "m.dist-info/METADATA",
		Missing: []string{"r0", "r1", "r10", "r100", "r1000", "r10000", "r10001", "r10002"}, MissingTotal: 48164}
	f := requirementFinding(r)
	want := "The device wheel amd-torch-device-gfx1100 (m.dist-info/METADATA) requires r0, r1, r10, r100, r1000, r10000, r10001, r10002 ... and 48156 more, which are not among the inputs: the files they install"
	if !strings.HasPrefix(f.Message, want) {
		t.Errorf("message %q", f.Message)
	}
	if got := subject("wheel-requires", r.Wheel, "r0,r1,r10,r100,r1000,r10000,r10001,r10002,+48156"); f.Subject != got {
		t.Errorf("subject %q, want %q", f.Subject, got)
	}
	one := requirementFinding(kerneldb.Requirement{Wheel: "w", Metadata: "m", Missing: []string{"torch"}, MissingTotal: 1})
	if want := "The device wheel w (m) requires torch, which is not among the inputs: the files it installs"; !strings.HasPrefix(one.Message, want) {
		t.Errorf("message %q", one.Message)
	}
}
