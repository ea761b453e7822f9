package rules

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
)

func TestKPL004DifferentBytesSameTarget(t *testing.T) {
	const a, b = "a/.kpack/torch_gfx942.kpack", "b/.kpack/torch_gfx942.kpack"
	c := deepContext(t, map[string]kpacktest.Spec{
		a: spec("torch", kernel(torchKey, "gfx942", "gfx942", "v1"), kernel(torchKey1, "gfx942", "gfx942", "same")),
		b: spec("torch", kernel(torchKey, "gfx942", "gfx942", "v2"), kernel(torchKey1, "gfx942", "gfx942", "same")),
	}, nil)
	fs := checkDuplicates(c)
	if len(fs) != 1 {
		t.Fatalf("findings = %+v", fs)
	}
	f := fs[0]
	if f.Level != "" || !reflect.DeepEqual(f.Kernels, []string{torchKey}) || f.Location.Path != a ||
		len(f.Related) != 1 || f.Related[0].Path != b || !strings.Contains(f.Message, "depends on the search order") {
		t.Errorf("finding = %+v", f)
	}
	var got []finding.Finding
	for _, f := range Run(c) {
		if f.RuleID == "KPL004" && strings.Contains(f.Message, "different bytes") {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Level != finding.LevelError {
		t.Errorf("Run: %+v", got)
	}
}

func TestKPL004IdenticalBytesUnderTags(t *testing.T) {
	co := deeptestObject("gfx90a", strings.Repeat("k", 936)) // 1000 bytes
	c := deepContext(t, map[string]kpacktest.Spec{
		".kpack/torch_gfx90a.kpack": spec("torch",
			kpacktest.Kernel{Key: torchKey, Arch: "gfx90a", Data: co},
			kernel(torchKey1, "gfx90a", "gfx90a", "differs")),
		".kpack/torch_gfx90a:xnack+.kpack": spec("torch",
			kpacktest.Kernel{Key: torchKey, Arch: "gfx90a:xnack+", Data: co},
			kernel(torchKey1, "gfx90a:xnack+", "gfx90a:xnack+", "other")),
	}, nil)
	var notes []finding.Finding
	for _, f := range Run(c) {
		if f.RuleID == "KPL004" {
			notes = append(notes, f)
		}
	}
	if len(notes) != 1 {
		t.Fatalf("findings = %+v", notes)
	}
	f := notes[0]
	if f.Level != finding.LevelNote || !reflect.DeepEqual(f.Kernels, []string{torchKey}) ||
		!strings.Contains(f.Message, "1000 decompressed bytes are stored more than once") ||
		len(f.Trace) != 1 || !strings.Contains(f.Trace[0], "2 identical copies (1000 bytes each") ||
		!strings.Contains(f.Trace[0], "gfx90a, gfx90a:xnack+") {
		t.Errorf("finding = %+v", f)
	}
}

// Two tags sharing one ordinal in one archive share storage: no waste.
func TestKPL004SharedOrdinalIsNotWaste(t *testing.T) {
	s := spec("torch", kernel(torchKey, "gfx90a", "gfx90a", "x"), kernel(torchKey1, "gfx90a", "gfx90a", "y"))
	s.Arches = []string{"gfx90a", "gfx90a:xnack+"}
	s.Mutate = func(m map[string]any) {
		toc := m["toc"].(map[string]any)[torchKey].(map[string]any)
		toc["gfx90a:xnack+"] = toc["gfx90a"]
	}
	c := deepContext(t, map[string]kpacktest.Spec{".kpack/torch_gfx90a.kpack": s}, nil)
	if fs := checkDuplicates(c); len(fs) != 0 {
		t.Errorf("findings = %+v", fs)
	}
	if n := c.Deep.Len(); n != 3 {
		t.Errorf("objects = %d", n)
	}
}

func deeptestObject(target, pad string) []byte { return codeobjtest.CodeObject(target, pad) }
