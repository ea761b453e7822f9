package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// Past MaxFindingsPerFile the rest of a rule's findings about a file are
// one, whose message counts them ("1 more ... finding was" when one).
func TestCapPerFileMessage(t *testing.T) {
	for _, tc := range []struct {
		extra int
		want  string
	}{
		{1, "1 more KPL008 finding about lib/x.kpack was merged into this one (the limit is 100 per rule and file; "},
		{3, "3 more KPL008 findings about lib/x.kpack were merged into this one (the limit is 100 per rule and file; "},
	} {
		var fs []finding.Finding
		for i := 0; i < MaxFindingsPerFile+tc.extra; i++ {
			fs = append(fs, finding.Finding{RuleID: "KPL008", Message: fmt.Sprintf("orphan %03d", i), Location: finding.Location{Path: "lib/x.kpack"},
				Kernels: []string{fmt.Sprintf("k%03d#0", i)}})
		}
		out := capPerFile(&Context{}, fs, nil)
		if len(out) != MaxFindingsPerFile+1 {
			t.Fatalf("%d extra: %d findings, want %d", tc.extra, len(out), MaxFindingsPerFile+1)
		}
		m := out[MaxFindingsPerFile]
		if !strings.HasPrefix(m.Message, tc.want) || !strings.HasSuffix(m.Message, "The first of them: orphan 100") || len(m.Kernels) != tc.extra {
			t.Errorf("%d extra: %q, kernels %v", tc.extra, m.Message, m.Kernels)
		}
	}
}
