package hostbin_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
)

// mp builds MessagePack by hand for shapes RefBytes cannot make.
func mp(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch v := p.(type) {
		case byte:
			b = append(b, v)
		case int:
			b = append(b, byte(v))
		case string: // fixstr
			b = append(append(b, 0xa0|byte(len(v))), v...)
		case []byte:
			b = append(b, v...)
		}
	}
	return b
}

const (
	kn = hostbin.KeyKernelName
	sp = hostbin.KeySearchPaths
)

func TestParseRef(t *testing.T) {
	big := strings.Repeat("p", 300) // str16
	tests := []struct {
		name  string
		in    []byte
		ref   *hostbin.Ref
		kinds []hostbin.ProblemKind
	}{
		{"writer encoding", hostbintest.RefBytes("lib/a.so", "x.kpack", big),
			&hostbin.Ref{KernelName: "lib/a.so", SearchPaths: []string{"x.kpack", big}}, nil},
		{"keys in any order, unknown keys and trailing bytes ignored",
			mp(0x84, "zz", 0x92, 0xc0, 0x81, 1, 2, sp, 0x91, "p", 0x01, 0xc3, kn, "k", 0xff, 0xff),
			&hostbin.Ref{KernelName: "k", SearchPaths: []string{"p"}}, nil},
		{"first occurrence wins", mp(0x83, kn, "a", sp, 0x91, "p", kn, 5),
			&hostbin.Ref{KernelName: "a", SearchPaths: []string{"p"}}, nil},
		{"non-string path skipped", mp(0x82, kn, "k", sp, 0x93, 0x07, "p", 0x90),
			&hostbin.Ref{KernelName: "k", SearchPaths: []string{"p"}},
			[]hostbin.ProblemKind{hostbin.RefPathIgnored, hostbin.RefPathIgnored}},
		{"empty kernel name accepted", mp(0x82, kn, "", sp, 0x91, "p"),
			&hostbin.Ref{SearchPaths: []string{"p"}}, nil},
		{"empty input", nil, nil, []hostbin.ProblemKind{hostbin.RefInvalidMsgpack}},
		{"truncated", hostbintest.RefBytes("k", "p")[:20], nil, []hostbin.ProblemKind{hostbin.RefInvalidMsgpack}},
		{"reserved code", mp(0x82, kn, 0xc1), nil, []hostbin.ProblemKind{hostbin.RefInvalidMsgpack}},
		{"bad value of unknown key", mp(0x83, kn, "k", sp, 0x91, "p", "x", 0xdb, 0xff, 0xff, 0xff, 0xff),
			nil, []hostbin.ProblemKind{hostbin.RefInvalidMsgpack}},
		{"root not a map", mp(0x91, "k"), nil, []hostbin.ProblemKind{hostbin.RefWrongType}},
		{"zero-filled", make([]byte, 16), nil, []hostbin.ProblemKind{hostbin.RefWrongType}},
		{"kernel_name not a string", mp(0x82, kn, 0xc4, 1, byte('k'), sp, 0x91, "p"), nil,
			[]hostbin.ProblemKind{hostbin.RefWrongType}},
		{"paths not an array", mp(0x82, kn, "k", sp, "p"), nil, []hostbin.ProblemKind{hostbin.RefWrongType}},
		{"paths a map", mp(0x82, kn, "k", sp, 0x81, "a", "b"), nil, []hostbin.ProblemKind{hostbin.RefWrongType}},
		{"missing kernel_name", mp(0x81, sp, 0x91, "p"), nil, []hostbin.ProblemKind{hostbin.RefMissingField}},
		{"missing paths", mp(0x81, kn, "k"), nil, []hostbin.ProblemKind{hostbin.RefMissingField}},
		{"key as bin is not a key", mp(0x82, 0xc4, len(kn), []byte(kn), "k", sp, 0x91, "p"), nil,
			[]hostbin.ProblemKind{hostbin.RefMissingField}},
		{"empty map", mp(0x80), nil, []hostbin.ProblemKind{hostbin.RefMissingField, hostbin.RefMissingField}},
		{"empty paths", mp(0x82, kn, "k", sp, 0x90), nil, []hostbin.ProblemKind{hostbin.RefEmptyPaths}},
		{"only non-string paths", mp(0x82, kn, "k", sp, 0x91, 0xc0), nil,
			[]hostbin.ProblemKind{hostbin.RefPathIgnored, hostbin.RefEmptyPaths}},
		{"over 64 KiB", hostbintest.RefBytes("k", strings.Repeat("p", hostbin.RuntimeRefLimit)), nil,
			[]hostbin.ProblemKind{hostbin.RefTooLarge}},
		{"huge array count", mp(0x82, kn, "k", sp, 0xdd, 0xff, 0xff, 0xff, 0xff, "p"), nil,
			[]hostbin.ProblemKind{hostbin.RefInvalidMsgpack}},
		{"huge map count", mp(0xdf, 0xff, 0xff, 0xff, 0xff, kn, "k"), nil,
			[]hostbin.ProblemKind{hostbin.RefInvalidMsgpack}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref, probs := hostbin.ParseRef(tc.in)
			if got := kinds(probs); !slices.Equal(got, tc.kinds) {
				t.Errorf("problems = %v, want %v", probs, tc.kinds)
			}
			if !refEqual(ref, tc.ref) {
				t.Errorf("Ref = %+v, want %+v", ref, tc.ref)
			}
		})
	}
}

func refEqual(a, b *hostbin.Ref) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.KernelName == b.KernelName && slices.Equal(a.SearchPaths, b.SearchPaths)
}

// A reference cut at the runtime's 64 KiB read limit is too large, not
// merely invalid.
func TestParseRefCutAtRuntimeLimit(t *testing.T) {
	in := hostbintest.RefBytes("k", strings.Repeat("p", hostbin.RuntimeRefLimit))[:hostbin.RuntimeRefLimit]
	_, probs := hostbin.ParseRef(in)
	if got := kinds(probs); !slices.Equal(got, []hostbin.ProblemKind{hostbin.RefTooLarge}) || !probs[0].Kind.Invalid() {
		t.Errorf("problems = %v", probs)
	}
}

func TestParseRefProblemOffsets(t *testing.T) {
	in := mp(0x82, kn, "k", sp, 0x92, "p", 0x07)
	_, probs := hostbin.ParseRef(in)
	if len(probs) != 1 || in[probs[0].Offset] != 0x07 || probs[0].Section != "" {
		t.Errorf("problems = %+v", probs)
	}
}

func TestProblemKindNames(t *testing.T) {
	all := []hostbin.ProblemKind{hostbin.RefInvalidMsgpack, hostbin.RefMissingField, hostbin.RefWrongType,
		hostbin.RefEmptyPaths, hostbin.RefPathIgnored, hostbin.RefTooLarge, hostbin.HIPKWithoutRef,
		hostbin.RefWithoutHIPK, hostbin.FatBinBadSize, hostbin.FatBinTooLarge}
	seen := map[string]bool{}
	for _, k := range all {
		s := k.String()
		if seen[s] || strings.HasPrefix(s, "ProblemKind(") {
			t.Errorf("kind %d name %q", int(k), s)
		}
		seen[s] = true
	}
	if hostbin.ProblemKind(99).String() != "ProblemKind(99)" {
		t.Error("unknown kind name")
	}
	p := hostbin.Problem{Kind: hostbin.RefEmptyPaths, Msg: "m"}
	if p.String() != "ref-empty-paths: m" {
		t.Errorf("Problem.String = %q", p.String())
	}
}

func TestRefBytesShortestStrings(t *testing.T) {
	got := hostbintest.RefBytes("k", strings.Repeat("a", 31), strings.Repeat("b", 32))
	if !bytes.Contains(got, []byte{0xbf, 'a'}) || !bytes.Contains(got, []byte{0xd9, 32, 'b'}) {
		t.Errorf("RefBytes = %x", got)
	}
}
