package lint

import (
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim/hip"
)

// The reports (which import no simulator) name the default release as
// the release table does.
func TestNewestHIPName(t *testing.T) {
	if finding.NewestHIP != hip.NewestName || hip.Newest().Name != hip.NewestName {
		t.Errorf("finding.NewestHIP %q, hip.NewestName %q, hip.Newest() %q", finding.NewestHIP, hip.NewestName, hip.Newest().Name)
	}
}
