package kerneldb

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
	"gopkg.in/yaml.v3"

	"github.com/rocm-tools/kpack-lint/internal/util/mpack"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb/kerneldbtest"
)

func TestMsgpackPlaceholders(t *testing.T) {
	subs := []string{kerneldbtest.SubLibrary(0, "gfx942"), kerneldbtest.FallbackSubLibrary}
	got, err := msgpackPlaceholders(kerneldbtest.Index("gfx942", subs, false))
	if err != nil || !reflect.DeepEqual(got, subs) {
		t.Fatalf("got %v, %v; want %v", got, err, subs)
	}
	got, err = yamlPlaceholders(kerneldbtest.Index("gfx942", subs, true))
	if err != nil || len(got) != 2 {
		t.Fatalf("yaml: got %v, %v", got, err)
	}
}

func TestMsgpackPlaceholderShapes(t *testing.T) {
	enc := func(v any) []byte {
		var b bytes.Buffer
		if err := msgpack.NewEncoder(&b).Encode(v); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for name, c := range map[string]struct {
		doc  any
		want []string
	}{
		"value not a string":    {map[string]any{"type": "Placeholder", "value": 7}, nil},
		"type not Placeholder":  {map[string]any{"type": "Single", "value": "x"}, nil},
		"nested in an array":    {[]any{1, map[string]any{"library": map[string]any{"type": "Placeholder", "value": "a"}}}, []string{"a"}},
		"value is a container":  {map[string]any{"type": "Placeholder", "value": []any{"a"}}, nil},
		"integer keys skipped":  {map[any]any{1: "Placeholder", "type": "Placeholder", "value": "b"}, []string{"b"}},
		"scalar document":       {"Placeholder", nil},
		"two in one map chains": {map[string]any{"x": map[string]any{"type": "Placeholder", "value": "c"}, "y": map[string]any{"type": "Placeholder", "value": "d"}}, []string{"c", "d"}},
	} {
		got, err := msgpackPlaceholders(enc(c.doc))
		if len(got) == 0 {
			got = nil
		}
		if c.want != nil && len(got) == 2 && got[0] > got[1] {
			got[0], got[1] = got[1], got[0]
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, %v; want %v", name, got, err, c.want)
		}
	}
}

func TestMsgpackPlaceholdersHostile(t *testing.T) {
	deepNest := bytes.Repeat([]byte{0x91}, maxDepth+10) // fixarray of one, nested
	for name, c := range map[string]struct {
		buf  []byte
		want error
	}{
		"huge map count":   {[]byte{0xdf, 0xff, 0xff, 0xff, 0xff}, mpack.ErrTruncated},
		"huge array count": {[]byte{0xdd, 0x7f, 0xff, 0xff, 0xff, 0x00}, mpack.ErrTruncated},
		"string past end":  {[]byte{0x81, 0xa4, 't', 'y'}, mpack.ErrTruncated},
		"too deep":         {deepNest, errTooDeep},
		"empty":            {nil, mpack.ErrTruncated},
	} {
		if _, err := msgpackPlaceholders(c.buf); !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", name, err, c.want)
		}
	}
	index := kerneldbtest.Index("gfx942", []string{"a", "b", "c"}, false)
	for n := range index {
		if _, err := msgpackPlaceholders(index[:n]); err == nil {
			t.Errorf("prefix of %d bytes parsed without error", n)
		}
	}
}

// TestCleanPrefixes: a Placeholder value is used as Tensile uses it
// (libraryDirectory + "/" + prefix + suffix as a C string), so "/" names a
// subfolder and NUL ends the name; only repeats are dropped.
func TestCleanPrefixes(t *testing.T) {
	got := cleanPrefixes([]string{"b", "a", "b", "sub/c", "d\x00tail"})
	if want := []string{"a", "b", "d", "sub/c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestPlaceholderLimit: an index naming more than MaxPlaceholders distinct
// sub-libraries stops the walk with a LimitError naming the limit
// (repeats of one prefix do not count).
func TestPlaceholderLimit(t *testing.T) {
	many := make([]string, MaxPlaceholders+1)
	for i := range many {
		many[i] = fmt.Sprintf("P%07d", i)
	}
	_, err := msgpackPlaceholders(kerneldbtest.Index("gfx942", many, false))
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "kerneldb.MaxPlaceholders" || le.Max != MaxPlaceholders {
		t.Fatalf("err %v, want the MaxPlaceholders limit", err)
	}
	same := make([]string, MaxPlaceholders+1)
	for i := range same {
		same[i] = "P"
	}
	if got, err := msgpackPlaceholders(kerneldbtest.Index("gfx942", same, false)); err != nil || !reflect.DeepEqual(got, []string{"P"}) {
		t.Errorf("repeats: got %v, %v", got, err)
	}
}

// TestYAMLNodeBound: a YAML flow sequence of single characters (the
// tester's 16 MB "[a,a,...]", 2.3 GB once parsed) is refused before
// parsing; a Tensile-shaped index is far below the bound.
func TestYAMLNodeBound(t *testing.T) {
	flow := append([]byte("["), bytes.Repeat([]byte("a,"), MaxYAMLNodes/2)...)
	flow = append(flow, ']')
	_, err := yamlPlaceholders(flow)
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "kerneldb.MaxYAMLNodes" {
		t.Fatalf("err %v, want the MaxYAMLNodes limit", err)
	}
	index := kerneldbtest.Index("gfx942", []string{"a", "b"}, true)
	if n := maxYAMLNodes(index); n > 200 {
		t.Errorf("a two-placeholder index counts %d nodes", n)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(index, &root); err != nil {
		t.Fatal(err)
	}
	if real := countNodes(&root); real > maxYAMLNodes(index) {
		t.Errorf("bound %d below the real %d nodes", maxYAMLNodes(index), real)
	}
}

func countNodes(n *yaml.Node) int {
	c := 1
	for _, k := range n.Content {
		c += countNodes(k)
	}
	return c
}

func FuzzPlaceholders(f *testing.F) {
	f.Add(kerneldbtest.Index("gfx942", []string{"x", kerneldbtest.FallbackSubLibrary}, false))
	f.Add(kerneldbtest.Index("gfx90a", []string{"y"}, true))
	f.Add([]byte{0xdf, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		names, err := msgpackPlaceholders(data)
		if err == nil && len(names) > len(data) {
			t.Fatalf("%d names from %d bytes", len(names), len(data))
		}
		if len(data) < 1<<16 {
			_, _ = yamlPlaceholders(data)
		}
	})
}
