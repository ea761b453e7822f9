package kerneldb

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rocm-tools/kpack-lint/internal/util/mpack"
)

// A Tensile master library (TensileLibrary_lazy_<proc>.dat, MessagePack,
// or .yaml) nests libraries as maps with a "type" key; lazy builds leave
// {"type": "Placeholder", "value": "<file prefix>"} where a sub-library
// lives in its own file (Tensile Serialization/PlaceholderLibrary.hpp maps
// "value" to filePrefix). The walkers below collect those prefixes from
// anywhere in the document, so they do not depend on the library's layout.

// maxDepth bounds the nesting the walkers follow (Tensile libraries nest a
// few tens of levels).
const maxDepth = 512

var errTooDeep = fmt.Errorf("nested deeper than %d levels", maxDepth)

// mapFrame is an open container of the MessagePack walk.
type mapFrame struct {
	isMap       bool
	left        uint64 // values still to read (keys and values for maps)
	key         string // the last key read, when keyOK
	keyOK       bool
	typ, prefix string
}

type msgpackWalker struct {
	buf   []byte
	off   int
	stack []*mapFrame
	seen  map[string]bool // distinct prefixes found
}

// errTooManyPlaceholders is the limit an index naming more than
// MaxPlaceholders distinct sub-libraries hits.
var errTooManyPlaceholders = &LimitError{Limit: "kerneldb.MaxPlaceholders", Max: MaxPlaceholders, What: "distinct Placeholder sub-libraries"}

// msgpackPlaceholders walks a MessagePack document without recursion,
// checking every length against the bytes that remain (internal/util/mpack),
// and returns the distinct prefixes (at most MaxPlaceholders).
func msgpackPlaceholders(buf []byte) ([]string, error) {
	w := &msgpackWalker{buf: buf, seen: map[string]bool{}}
	if err := w.value(); err != nil {
		return nil, err
	}
	for len(w.stack) > 0 {
		top := w.stack[len(w.stack)-1]
		if top.left == 0 {
			if err := w.pop(); err != nil {
				return nil, err
			}
			continue
		}
		if err := w.value(); err != nil {
			return nil, err
		}
	}
	return slices.Sorted(maps.Keys(w.seen)), nil
}

// value reads the value at w.off, filling one slot of the open container.
func (w *msgpackWalker) value() error {
	h, err := mpack.ReadHead(w.buf, w.off)
	if err != nil {
		return fmt.Errorf("MessagePack at byte %d: %w", w.off, err)
	}
	var top *mapFrame
	if n := len(w.stack); n > 0 {
		top = w.stack[n-1]
	}
	isKey := top != nil && top.isMap && top.left%2 == 0
	if top != nil {
		top.left--
	}
	w.off = h.Body
	rest := uint64(len(w.buf) - w.off)
	switch h.Kind {
	case mpack.Str, mpack.Bin, mpack.Ext:
		if h.N > rest {
			return fmt.Errorf("MessagePack at byte %d: %w", h.Off, mpack.ErrTruncated)
		}
		s, isStr := mpack.String(w.buf, h)
		w.off += int(h.N)
		w.scalar(top, isKey, s, isStr)
	case mpack.Array, mpack.Map:
		return w.push(h, top, isKey, rest)
	default:
		w.scalar(top, isKey, "", false)
	}
	return nil
}

func (w *msgpackWalker) push(h mpack.Head, top *mapFrame, isKey bool, rest uint64) error {
	n := h.N
	if h.Kind == mpack.Map {
		if n > rest/2 {
			return fmt.Errorf("MessagePack at byte %d: %w", h.Off, mpack.ErrTruncated)
		}
		n *= 2
	} else if n > rest {
		return fmt.Errorf("MessagePack at byte %d: %w", h.Off, mpack.ErrTruncated)
	}
	if len(w.stack) >= maxDepth {
		return errTooDeep
	}
	if isKey {
		top.keyOK = false
	}
	w.stack = append(w.stack, &mapFrame{isMap: h.Kind == mpack.Map, left: n})
	return nil
}

// scalar records a key, or a "type"/"value" string of a map.
func (w *msgpackWalker) scalar(f *mapFrame, isKey bool, s string, isStr bool) {
	if f == nil || !f.isMap {
		return
	}
	if isKey {
		f.key, f.keyOK = s, isStr
		return
	}
	if !f.keyOK || !isStr {
		return
	}
	switch f.key {
	case "type":
		f.typ = s
	case "value":
		f.prefix = s
	}
}

func (w *msgpackWalker) pop() error {
	f := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	if !f.isMap || f.typ != "Placeholder" || f.prefix == "" || w.seen[f.prefix] {
		return nil
	}
	if len(w.seen) == MaxPlaceholders {
		return errTooManyPlaceholders
	}
	w.seen[f.prefix] = true
	return nil
}

// yamlPlaceholders walks a YAML document's node tree without recursion
// (aliases are not followed). Documents that may hold more than
// MaxYAMLNodes nodes (maxYAMLNodes) are not parsed.
func yamlPlaceholders(buf []byte) ([]string, error) {
	if n := maxYAMLNodes(buf); n > MaxYAMLNodes {
		return nil, &LimitError{Limit: "kerneldb.MaxYAMLNodes", Max: MaxYAMLNodes, What: "nodes (counted from its YAML indicators)"}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(buf, &root); err != nil {
		return nil, errors.New(strings.ReplaceAll(err.Error(), "\n", " "))
	}
	type item struct {
		n     *yaml.Node
		depth int
	}
	seen := map[string]bool{}
	stack := []item{{&root, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > maxDepth {
			return nil, errTooDeep
		}
		if p := yamlPlaceholder(it.n); p != "" && !seen[p] {
			if len(seen) == MaxPlaceholders {
				return nil, errTooManyPlaceholders
			}
			seen[p] = true
		}
		for _, c := range it.n.Content {
			stack = append(stack, item{c, it.depth + 1})
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// maxYAMLNodes is an upper bound of the nodes a YAML document holds,
// counted from the bytes that can open one: the document and its root,
// then two (key and value) per mapping value indicator ":" or complex key
// "?", one per block entry "-", and two per flow separator ",", "[" or
// "{" (a flow mapping entry without ":" is a key and a null value).
// Bytes inside scalars and comments are counted too, so the bound only
// errs high.
func maxYAMLNodes(buf []byte) int {
	n := 2
	for _, b := range buf {
		switch b {
		case ':', ',', '[', '{', '?':
			n += 2
		case '-':
			n++
		}
	}
	return n
}

// yamlPlaceholder returns the "value" of a {type: Placeholder} mapping.
func yamlPlaceholder(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	var typ, val string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
			continue
		}
		switch k.Value {
		case "type":
			typ = v.Value
		case "value":
			val = v.Value
		}
	}
	if typ == "Placeholder" {
		return val
	}
	return ""
}
