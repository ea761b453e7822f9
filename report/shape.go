package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// Bounds on a report Read decodes (a --baseline or a shard given to
// merge), checked on the bytes before anything is decoded: "{}" is 3 bytes
// in the file and a whole finding once decoded, and a string or a list
// becomes an allocation of its own. Together with MaxReadSize they bound
// what reading a report allocates, whatever the report declares.
const (
	// MaxReadContainers bounds the JSON objects and arrays of a report.
	MaxReadContainers = 1 << 19
	// MaxReadFindings bounds the findings (JSON "findings", SARIF
	// "results") of a report. A run writes at most 100 findings per rule
	// and file.
	MaxReadFindings = 1 << 17
	// MaxReadString bounds one JSON string, in bytes as written (1 MiB):
	// the longest kpack-lint writes is a message naming a kernel, whose
	// name a .rocm_kpack_ref bounds to 64 KiB.
	MaxReadString = 1 << 20
	// MaxReadList bounds the elements of one JSON array (262,144): a
	// finding lists at most 65,536 kernel keys of one binary.
	MaxReadList = 1 << 18
	// MaxReadValues bounds the values of a report, every member and
	// element (4,194,304).
	MaxReadValues = 1 << 22
	// MaxReadStrings bounds the bytes of all strings of a report, keys
	// included, as written (64 MiB): what decoding them allocates.
	MaxReadStrings = 64 << 20
)

// nullable are the members kpack-lint may write as JSON null: "policy"
// of what was checked, without a policy, and lists written without
// omitempty, null when empty (read back as empty). Any other null, and
// every null inside a list, is refused: a report holds a value where
// check writes one ("level": null is no level, not the rule's).
var nullable = map[string]bool{"policy": true, "inputs": true, "targets": true, "agents": true, "processors": true,
	"archives": true, "devices": true, "findings": true}

// shapeFrame is an object or array open at a point of the text.
type shapeFrame struct {
	array    bool
	findings bool   // an array held by "findings" or "results"
	key      string // the member this container is the value of ("" in an array)
	n        int    // elements so far (arrays)
	index    int    // this container's index in its parent array
}

// checkShape walks the JSON text data once, in place, and fails past
// MaxReadContainers, MaxReadFindings (objects directly inside an array
// held by "findings" or "results"), MaxReadString, MaxReadStrings,
// MaxReadList or MaxReadValues, and at a null where kpack-lint writes a value. The
// error names where, as a path ("findings[3].kernels"). Data that is not
// JSON is left to the decoder.
func checkShape(data []byte) error {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil // no report: the decoder says what it is
	}
	var stack []shapeFrame
	var pending string // the member key awaiting its value
	expectKey := false
	containers, findings, values, strs := 0, 0, 0, 0
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
			n := min(j, len(data)) - i - 1
			if n > MaxReadString {
				return fmt.Errorf("%s: a string of %d bytes, more than %d (report.MaxReadString)", shapePath(stack, pending, expectKey), n, MaxReadString)
			}
			if strs += n; strs > MaxReadStrings {
				return fmt.Errorf("%s: more than %d bytes of strings in all (report.MaxReadStrings)", shapePath(stack, pending, expectKey), MaxReadStrings)
			}
			if expectKey && j <= len(data) {
				pending = string(data[i+1 : min(j, i+1+64)])
			}
			i = j
		case ':':
			expectKey = false
		case ',':
			if values++; values > MaxReadValues {
				return fmt.Errorf("%s: more than %d JSON values (report.MaxReadValues)", shapePath(stack, pending, false), MaxReadValues)
			}
			if len(stack) == 0 {
				continue
			}
			top := &stack[len(stack)-1]
			if top.array {
				if top.n++; top.n >= MaxReadList {
					return fmt.Errorf("%s: a list of more than %d elements (report.MaxReadList)", shapePath(stack[:len(stack)-1], top.key, false), MaxReadList)
				}
			} else {
				expectKey, pending = true, ""
			}
		case 'n':
			if key := pending; !nullable[key] || len(stack) > 0 && stack[len(stack)-1].array {
				return fmt.Errorf("%s: null, where check writes a value", shapePath(stack, pending, false))
			}
		case '{', '[':
			containers++
			index := 0
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				index = top.n
				if c == '{' && top.findings {
					findings++
				}
			}
			switch {
			case containers > MaxReadContainers:
				return fmt.Errorf("more than %d JSON objects and arrays (report.MaxReadContainers)", MaxReadContainers)
			case findings > MaxReadFindings:
				return fmt.Errorf("more than %d findings (report.MaxReadFindings)", MaxReadFindings)
			}
			key := pending
			if len(stack) > 0 && stack[len(stack)-1].array {
				key = ""
			}
			stack = append(stack, shapeFrame{array: c == '[', findings: c == '[' && (key == "findings" || key == "results"), key: key, index: index})
			pending, expectKey = "", c == '{'
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			pending, expectKey = "", false
		}
	}
	return nil
}

// shapePath names where checkShape is: the members and indexes of the
// open containers, then the member key awaiting its value ("findings[3].kernels").
func shapePath(stack []shapeFrame, pending string, inKey bool) string {
	var b strings.Builder
	for i, f := range stack {
		if i > 0 && stack[i-1].array {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		} else if f.key != "" {
			b.WriteString("." + f.key)
		}
	}
	if len(stack) > 0 && stack[len(stack)-1].array {
		b.WriteString("[" + strconv.Itoa(stack[len(stack)-1].n) + "]")
	} else if pending != "" && !inKey {
		b.WriteString("." + pending)
	}
	s := strings.TrimPrefix(b.String(), ".")
	if s == "" {
		return "the report"
	}
	return escape.String(s)
}
