package report

import (
	"strings"
	"testing"
)

// baseline-amplify: a report of empty findings is refused on its shape
// before it is decoded (each "{}" would become a whole finding), in both
// formats; a finding without a rule ID is refused too.
func TestReadBounded(t *testing.T) {
	many := strings.Repeat("{},", MaxReadFindings) + "{}"
	for _, data := range []string{
		`{"tool":{"name":"kpack-lint"},"findings":[` + many + `]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"kpack-lint"}},"results":[` + many + `]}]}`,
	} {
		if _, _, err := Read([]byte(data)); err == nil || !strings.Contains(err.Error(), "report.MaxReadFindings") {
			t.Errorf("Read(%d findings) = %v, want the MaxReadFindings refusal", MaxReadFindings+1, err)
		}
	}
	nested := `{"tool":{"name":"kpack-lint"},"inventory":[` + strings.Repeat("[],", MaxReadContainers) + `[]]}`
	if _, _, err := Read([]byte(nested)); err == nil || !strings.Contains(err.Error(), "report.MaxReadContainers") {
		t.Errorf("Read(nested) = %v, want the MaxReadContainers refusal", err)
	}
	// Strings that hold brackets and the key names are not counted.
	quoted := `{"tool":{"name":"kpack-lint"},"checked":{"inputs":["findings", "[{\"[{"]},"findings":[]}`
	if _, _, err := Read([]byte(quoted)); err != nil {
		t.Errorf("Read(quoted brackets) = %v", err)
	}
	if _, _, err := Read([]byte(`{"tool":{"name":"kpack-lint"},"findings":[{}]}`)); err == nil || !strings.Contains(err.Error(), "finding 0: no rule ID") {
		t.Errorf("Read({}) = %v, want finding 0: no rule ID", err)
	}
}
