package policy

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rocm-tools/kpack-lint/internal/util/suggest"
)

// Error is a policy problem at one key: Line is 1-based (0 when unknown),
// Key the dotted path ("variants.asan.targets[2]", "" for the document).
// Error() is one line, "line 7: variants.asan.targets[2]: ...", and Load
// puts the file name before it ("policies.yaml:7: ..."). It never names a
// Go type.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		b.WriteString(e.File + ": ")
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// DidYouMean returns " (did you mean X?)" for the choice closest to s
// (suggest.DidYouMean: at most a third of its length in edits, at least
// 2), or "".
func DidYouMean(s string, choices []string) string { return suggest.DidYouMean(s, choices) }

// walker checks a YAML document against the policy's structs and records
// the line of every key it visits. It records every problem (errs) and
// goes on with the next key, leaving out only what is under a key or
// value it cannot read.
type walker struct {
	lines map[string]int
	errs  errList
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fail records a problem of the document.
func (w *walker) fail(line int, key, msg string) {
	w.errs.add(&Error{Line: line, Key: key, Msg: msg})
}

// walk checks node n against type t at key path.
func (w *walker) walk(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) > 0 {
			w.walk(n.Content[0], t, path)
		}
		return
	}
	if _, seen := w.lines[path]; !seen || path == "" {
		w.lines[path] = n.Line
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeOf(Device{}) && n.Kind == yaml.ScalarNode {
		return // a device written as its ISA (Device.UnmarshalYAML)
	}
	switch t.Kind() {
	case reflect.Struct:
		w.walkStruct(n, t, path)
	case reflect.Map:
		w.walkMap(n, t, path)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			w.fail(n.Line, path, "want a list, e.g. [a, b], got "+describe(n))
			return
		}
		for i, item := range n.Content {
			w.walk(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	default:
		w.walkScalar(n, t, path)
	}
}

func (w *walker) walkStruct(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind != yaml.MappingNode {
		w.fail(n.Line, path, "want a map of keys, got "+describe(n)+levelHint(n, t))
		return
	}
	fields := map[string]reflect.Type{}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fields[name] = f.Type
		if f.Tag.Get("policy") != "renamed" { // accepted to say what it became, never suggested
			names = append(names, name)
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		ft, ok := fields[k.Value]
		if !ok {
			where := "here"
			if path != "" {
				where = "in " + path
			}
			w.fail(k.Line, join(path, k.Value),
				fmt.Sprintf("unknown key %q %s%s; known keys: %s", k.Value, where, DidYouMean(k.Value, names), strings.Join(names, ", ")))
			continue
		}
		w.lines[join(path, k.Value)] = k.Line
		w.walk(v, ft, join(path, k.Value))
	}
}

func (w *walker) walkMap(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind != yaml.MappingNode {
		w.fail(n.Line, path, "want a map of names, got "+describe(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := join(path, k.Value)
		w.lines[key] = k.Line
		w.walk(v, t.Elem(), key)
	}
}

func (w *walker) walkScalar(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind != yaml.ScalarNode {
		w.fail(n.Line, path, "want a single value, got "+describe(n))
		return
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Uint32:
		if _, err := strconv.ParseInt(n.Value, 0, 64); err != nil {
			w.fail(n.Line, path, fmt.Sprintf("want a whole number, got %q", n.Value))
		}
	case reflect.Float64, reflect.Float32:
		if _, err := strconv.ParseFloat(n.Value, 64); err != nil {
			w.fail(n.Line, path, fmt.Sprintf("want a number, got %q", n.Value))
		}
	case reflect.Bool:
		if n.Tag != "!!bool" {
			w.fail(n.Line, path, fmt.Sprintf("want true or false, got %q", n.Value))
		}
	}
}

// describe names a node's shape for people.
// levelHint suggests {level: X} where a scalar X stands for a struct with
// a level key (rules: {KPL002: off}).
func levelHint(n *yaml.Node, t reflect.Type) string {
	if n.Kind != yaml.ScalarNode || n.Value == "" {
		return ""
	}
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name == "level" {
			return fmt.Sprintf(" (write {level: %s})", yamlWord(n.Value))
		}
	}
	return ""
}

// yamlWord is s as a YAML flow scalar: plain when it is a plain word,
// else double-quoted.
func yamlWord(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return strconv.Quote(s)
		}
	}
	return s
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

// MaxAliasExpansion bounds the YAML nodes that aliases (*name) stand for
// in one policy or waiver file, counted as if each alias were a copy of
// the node it names (nested aliases included). A few KB of nested aliases
// ("billion laughs") name millions of nodes, and the schema walk records a
// line per expanded key path, so the count is made on the parsed tree
// before the walk; past the bound the file is refused (exit 2). Real
// policies alias a target list or an agents map a few times.
const MaxAliasExpansion = 10_000

// checkAliases fails when the aliases of doc expand to more than
// MaxAliasExpansion nodes, or when an anchored node contains an alias of
// itself.
func checkAliases(doc *yaml.Node) error {
	const limit = MaxAliasExpansion
	sizes := map[*yaml.Node]int{} // expanded size of a node, at most limit+1; -1 while counting it
	var size func(n *yaml.Node) (int, error)
	size = func(n *yaml.Node) (int, error) {
		if s, ok := sizes[n]; ok {
			if s < 0 {
				return 0, &Error{Line: n.Line, Msg: "an anchored node contains an alias of itself"}
			}
			return s, nil
		}
		sizes[n] = -1
		total := 1
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			s, err := size(n.Alias)
			if err != nil {
				return 0, err
			}
			total = s
		}
		for _, c := range n.Content {
			s, err := size(c)
			if err != nil {
				return 0, err
			}
			total = min(total+s, limit+1)
		}
		sizes[n] = total
		return total, nil
	}
	expanded := 0
	var visit func(n *yaml.Node) error
	visit = func(n *yaml.Node) error {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			s, err := size(n.Alias)
			if err != nil {
				return err
			}
			if expanded += s; expanded > limit {
				return &Error{Line: n.Line, Msg: fmt.Sprintf("YAML aliases expand to more than %d nodes (policy.MaxAliasExpansion); write the values out or alias fewer, smaller nodes", limit)}
			}
			return nil
		}
		for _, c := range n.Content {
			if err := visit(c); err != nil {
				return err
			}
		}
		return nil
	}
	return visit(doc)
}
