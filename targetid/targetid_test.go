package targetid

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// mustParse parses a literal known to be valid, failing the test otherwise.
func mustParse(t *testing.T, s string) ID {
	t.Helper()
	id, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return id
}

// strs renders IDs with String for comparison.
func strs(ids []ID) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, id.String())
	}
	return out
}

func TestParseValid(t *testing.T) {
	tests := []struct {
		in   string
		want ID
	}{
		{"gfx1100", ID{Processor: "gfx1100"}},
		{"gfx90a:xnack-", ID{Processor: "gfx90a", Features: []Feature{{Xnack, false}}}},
		{"gfx942:sramecc+:xnack-", ID{Processor: "gfx942", Features: []Feature{{Sramecc, true}, {Xnack, false}}}},
		{"gfx942:xnack+:sramecc-", ID{Processor: "gfx942", Features: []Feature{{Xnack, true}, {Sramecc, false}}}},
		{"amdgcn-amd-amdhsa--gfx950:sramecc+:xnack+", ID{Processor: "gfx950", Features: []Feature{{Sramecc, true}, {Xnack, true}}}},
		{"amdgcn-amd-amdhsa--gfx1151", ID{Processor: "gfx1151"}},
		{"gfx900:xnack+", ID{Processor: "gfx900", Features: []Feature{{Xnack, true}}}},
		{"gfx9-4-generic:sramecc+", ID{Processor: "gfx9-4-generic", Features: []Feature{{Sramecc, true}}}},
		{"gfx11-generic", ID{Processor: "gfx11-generic"}},
		{"gfx1250:sramecc+", ID{Processor: "gfx1250", Features: []Feature{{Sramecc, true}}}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, msg string
	}{
		{"", "empty target ID"},
		{"amdgcn-amd-amdhsa--", "empty target ID"},
		{"gfx9999", `unknown processor "gfx9999"`},
		{"GFX942", `unknown processor "GFX942"`},
		{":xnack+", `unknown processor ""`},
		{"gfx908:unknown+", `unknown feature "unknown"`},
		{"gfx908:sramecc+:unknown+", `unknown feature "unknown"`},
		{"gfx900:xnack", `feature "xnack" must end in + or -`},
		{"gfx942:", "empty feature"},
		{"gfx942::xnack+", "empty feature"},
		{"gfx942:+", `unknown feature ""`},
		{"gfx1100:xnack+", "processor gfx1100 does not support xnack"},
		{"gfx900:sramecc+", "processor gfx900 does not support sramecc"},
		{"gfx1250:xnack+", "processor gfx1250 does not support xnack"},
		{"gfx908:xnack+:xnack+", "feature xnack is repeated"},
		{"gfx908:xnack+:xnack-", "feature xnack is repeated"},
		{"gfx900+xnack", `unknown processor "gfx900+xnack"`},
		{"amdgcn-amd-amdhsa-gfx942", `unknown processor "amdgcn-amd-amdhsa-gfx942"`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) error = %v, want *Error", tt.in, err)
			continue
		}
		if e.Input != tt.in || e.Msg != tt.msg {
			t.Errorf("Parse(%q) = {%q, %q}, want {%q, %q}", tt.in, e.Input, e.Msg, tt.in, tt.msg)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	_, err := Parse("gfx1100:xnack+")
	want := `invalid target ID "gfx1100:xnack+": processor gfx1100 does not support xnack`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

func TestStringCanonical(t *testing.T) {
	tests := []struct {
		in, str, canon string
		isCanon        bool
	}{
		{"gfx1100", "gfx1100", "gfx1100", true},
		{"amdgcn-amd-amdhsa--gfx90a:xnack-", "gfx90a:xnack-", "gfx90a:xnack-", true},
		{"gfx942:sramecc+:xnack-", "gfx942:sramecc+:xnack-", "gfx942:sramecc+:xnack-", true},
		{"gfx942:xnack-:sramecc+", "gfx942:xnack-:sramecc+", "gfx942:sramecc+:xnack-", false},
	}
	for _, tt := range tests {
		id := mustParse(t, tt.in)
		if got := id.String(); got != tt.str {
			t.Errorf("%q.String() = %q, want %q", tt.in, got, tt.str)
		}
		if got := id.Canonical(); got != tt.canon {
			t.Errorf("%q.Canonical() = %q, want %q", tt.in, got, tt.canon)
		}
		if got := id.IsCanonical(); got != tt.isCanon {
			t.Errorf("%q.IsCanonical() = %v, want %v", tt.in, got, tt.isCanon)
		}
		again := mustParse(t, id.String())
		if !reflect.DeepEqual(again, id) {
			t.Errorf("round trip of %q: %#v != %#v", tt.in, again, id)
		}
	}
}

func TestCanonicalUnknownFeatures(t *testing.T) {
	id := ID{Processor: "x", Features: []Feature{{"zz", true}, {Xnack, false}, {"aa", false}, {Sramecc, true}}}
	if got, want := id.Canonical(), "x:sramecc+:xnack-:aa-:zz+"; got != want {
		t.Errorf("Canonical() = %q, want %q", got, want)
	}
	if got, want := id.String(), "x:zz+:xnack-:aa-:sramecc+"; got != want {
		t.Errorf("String() = %q, want %q (must not be reordered)", got, want)
	}
}

func TestSetting(t *testing.T) {
	id := mustParse(t, "gfx950:xnack+")
	if on, set := id.Setting(Xnack); !on || !set {
		t.Errorf("Setting(xnack) = %v, %v; want true, true", on, set)
	}
	if on, set := id.Setting(Sramecc); on || set {
		t.Errorf("Setting(sramecc) = %v, %v; want false, false", on, set)
	}
	id = mustParse(t, "gfx942:sramecc-")
	if on, set := id.Setting(Sramecc); on || !set {
		t.Errorf("Setting(sramecc) = %v, %v; want false, true", on, set)
	}
}

func TestEqual(t *testing.T) {
	a := mustParse(t, "gfx942:xnack-:sramecc+")
	b := mustParse(t, "gfx942:sramecc+:xnack-")
	if !a.Equal(b) {
		t.Errorf("%v.Equal(%v) = false", a, b)
	}
	if a.Equal(mustParse(t, "gfx942:sramecc+")) {
		t.Errorf("%v equals gfx942:sramecc+", a)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"gfx942:sramecc+:xnack-", "amdgcn-amd-amdhsa--gfx90a:xnack+", "gfx1100",
		"gfx9-4-generic:xnack-", "gfx900:xnack", "gfx908:xnack+:xnack+", "::", "",
		"gfx942:xnack-:sramecc+", strings.Repeat(":xnack+", 40),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := Parse(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Input != s {
				t.Fatalf("Parse(%q) error %v is not *Error for the input", s, err)
			}
			return
		}
		again, err := Parse(id.String())
		if err != nil || !reflect.DeepEqual(again, id) {
			t.Fatalf("round trip %q -> %q -> %#v, %v", s, id.String(), again, err)
		}
		if c, err := Parse(id.Canonical()); err != nil || !c.IsCanonical() || !c.Equal(id) {
			t.Fatalf("canonical %q of %q: %v", id.Canonical(), s, err)
		}
		cts := CompatibleTargets(id)
		if len(cts) == 0 || !reflect.DeepEqual(cts[0], id) {
			t.Fatalf("CompatibleTargets(%q)[0] != agent", s)
		}
		for _, isa := range AgentISAs(id) {
			if !CompatibleOrGeneric(id, isa) {
				t.Fatalf("AgentISAs(%q) gave incompatible %q", s, isa)
			}
		}
	})
}
