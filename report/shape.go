package report

import "fmt"

// Bounds on a report Read decodes (a --baseline or a shard given to
// merge), checked on the bytes before anything is decoded: "{}" is 3 bytes
// in the file and a whole finding once decoded.
const (
	// MaxReadContainers bounds the JSON objects and arrays of a report.
	MaxReadContainers = 1 << 19
	// MaxReadFindings bounds the findings (JSON "findings", SARIF
	// "results") of a report. A run writes at most 100 findings per rule
	// and file.
	MaxReadFindings = 1 << 17
)

// checkShape counts the containers of the JSON text data and the objects
// directly inside arrays held by a "findings" or "results" member, and
// fails past MaxReadContainers or MaxReadFindings. It reads data once, in
// place; data that is not JSON is left to the decoder.
func checkShape(data []byte) error {
	type frame struct {
		array    bool
		findings bool // an array held by "findings" or "results"
	}
	var stack []frame
	var last, pending string // last short string seen; the member key awaiting its value
	containers, findings := 0, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			last = ""
			if j-i-1 <= 16 && j <= len(data) {
				last = string(data[i+1 : j])
			}
			i = j
		case ':':
			pending = last
		case ',':
			pending = ""
		case '{', '[':
			containers++
			if c == '{' && len(stack) > 0 && stack[len(stack)-1].findings {
				findings++
			}
			switch {
			case containers > MaxReadContainers:
				return fmt.Errorf("more than %d JSON objects and arrays (report.MaxReadContainers)", MaxReadContainers)
			case findings > MaxReadFindings:
				return fmt.Errorf("more than %d findings (report.MaxReadFindings)", MaxReadFindings)
			}
			stack = append(stack, frame{array: c == '[', findings: c == '[' && (pending == "findings" || pending == "results")})
			pending = ""
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			pending = ""
		}
	}
	return nil
}
