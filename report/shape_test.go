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
	chunk := "[" + strings.Repeat("[],", 999) + "[]]"
	nested := `{"tool":{"name":"kpack-lint"},"inventory":[` + strings.Repeat(chunk+",", MaxReadContainers/1000) + chunk + `]}`
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

// A report that holds a null where check writes a value, a value of
// the wrong type, one finding twice, a string flood or a list of a
// million elements is refused on Read, naming the field; the bounds are
// checked on the bytes, before anything is decoded.
func TestReadRefusesForgedFields(t *testing.T) {
	finding := func(extra string) string {
		return `{"ruleId":"KPL005","level":"error","message":"m","location":{"input":0,"path":"x.kpack"}` + extra + `}`
	}
	jsonReport := func(fs ...string) string {
		return `{"tool":{"name":"kpack-lint"},"checked":{"inputs":["dist"],"policy":null},"findings":[` + strings.Join(fs, ",") + `]}`
	}
	sarifReport := func(props string) string {
		return `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"kpack-lint"}},"results":[{"ruleId":"KPL005","level":"error","message":{"text":"m"},` +
			`"locations":[{"physicalLocation":{"artifactLocation":{"uri":"x.kpack","uriBaseId":"INPUT1"}}}],"properties":` + props + `}]}]}`
	}
	million := `"k#0"` + strings.Repeat(`,"k#0"`, 1000000-1)
	for _, c := range []struct{ name, data, want string }{
		{"null level", jsonReport(finding(`,"level":null`)), "findings[0].level: null, where check writes a value"},
		{"null kernels", jsonReport(finding(`,"kernels":null`)), "findings[0].kernels: null"},
		{"null in a list", jsonReport(finding(`,"kernels":["a",null]`)), "findings[0].kernels[1]: null"},
		{"null location", jsonReport(`{"ruleId":"KPL005","level":"error","location":null}`), "findings[0].location: null"},
		{"null sarif level", strings.Replace(sarifReport(`{}`), `"level":"error"`, `"level":null`, 1), "runs[0].results[0].level: null"},
		{"number kernels", jsonReport(finding(`,"kernels":[1,2]`)), "kernels of type string"},
		{"string input", jsonReport(`{"ruleId":"KPL005","level":"error","location":{"input":"0","path":"x"}}`), "location.input of type int"},
		{"sarif number kernels", sarifReport(`{"kernels":[1,2]}`), "result 0: properties.kernels[0]: a number, want a string"},
		{"sarif object group", sarifReport(`{"group":{"a":1}}`), "result 0: properties.group: an object, want a string"},
		{"sarif string missingTotal", sarifReport(`{"missingTotal":"9"}`), "properties.missingTotal: a string, want a count"},
		{"duplicate", jsonReport(finding(""), finding("")), "finding 1 (KPL005 x.kpack) is finding 0 again"},
		{"input out of range", jsonReport(`{"ruleId":"KPL005","level":"error","message":"m","location":{"input":7,"path":"x"}}`), "finding 0 (KPL005 x): location: input index 7 out of range (1 inputs)"},
		{"string flood", jsonReport(finding(`,"message":"` + strings.Repeat("A", MaxReadString+1) + `"`)), "findings[0].message: a string of 1048577 bytes, more than 1048576 (report.MaxReadString)"},
		{"million kernels", jsonReport(finding(`,"kernels":[` + million + `]`)), "findings[0].kernels: a list of more than 262144 elements (report.MaxReadList)"},
		{"million sarif agents", sarifReport(`{"agents":[` + million + `]}`), "runs[0].results[0].properties.agents: a list of more than 262144 elements"},
		{"strings flood", jsonReport(finding(`,"trace":[` + strings.Repeat(`"`+strings.Repeat("T", MaxReadString-8)+`",`, MaxReadStrings/MaxReadString+1) + `"x"]`)), "findings[0].trace[64]: more than 67108864 bytes of strings in all (report.MaxReadStrings)"},
		{"values flood", jsonReport(strings.Repeat(finding(`,"kernels":["a"`+strings.Repeat(`,"a"`, 99999)+`]`)+",", 42) + finding("")), "more than 4194304 JSON values (report.MaxReadValues)"},
	} {
		_, _, err := Read([]byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Read = %v, want %q", c.name, err, c.want)
		}
	}
	if _, _, err := Read([]byte(jsonReport(finding(""), finding(`,"message":"other"`)))); err != nil {
		t.Errorf("two findings: %v", err)
	}
}

// BenchmarkReadStringFlood: refusing a report of one 100 MiB string
// costs one pass over the bytes and no allocation of the string.
func BenchmarkReadStringFlood(b *testing.B) {
	data := []byte(`{"tool":{"name":"kpack-lint"},"findings":[{"message":"` + strings.Repeat("A", 100<<20) + `"}]}`)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := Read(data); err == nil {
			b.Fatal("read")
		}
	}
}
