package escape

import (
	"bytes"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	for in, want := range map[string]string{
		"plain\nkpack-lint: ok\n":                                           "plain\nkpack-lint: ok\n",
		"::error file=a,line=1::x\n":                                        ":\\x3aerror file=a,line=1::x\n",
		"  \t::group::g\n":                                                  "  \t:\\x3agroup::g\n",
		"a\n::add-mask::s\r::stop-commands::t":                              "a\n:\\x3aadd-mask::s\r:\\x3astop-commands::t",
		"\u00a0\u2003\u3000::notice::x":                                     "\u00a0\u2003\u3000:\\x3anotice::x",
		"x.kpack: error ::error::not at a line start":                       "x.kpack: error ::error::not at a line start",
		": :warning::one colon, then a space":                               ": :warning::one colon, then a space",
		":x\n:::three":                                                      ":x\n:\\x3a:three",
		"name##[error]legacy command\n##[stop-commands]tok":                 "name##\\x5berror]legacy command\n##\\x5bstop-commands]tok",
		"## heading [not a command]":                                        "## heading [not a command]",
		"x ##vso[task.setvariable variable=PATH]/tmp\n##VSO[task.complete]": "x ##vso\\x5btask.setvariable variable=PATH]/tmp\n##VSO\\x5btask.complete]",
		"##vs[not] #vso[not] ##vsox[not]":                                   "##vs[not] #vso[not] ##vsox[not]",
		"\u200b::zero width space is no white space":                        "\u200b::zero width space is no white space",
	} {
		if got := Lines(in); got != want {
			t.Errorf("Lines(%q) = %q, want %q", in, got, want)
		}
	}
}

// A line cut across writes (even inside its leading white space or a
// multi-byte space) is made inert as if written whole.
func TestLineWriterAcrossWrites(t *testing.T) {
	in := "ok\n\u2003\u2003::error file=x::y\n##[warning]z\n  :: ::\nrun ##vso[task.setvariable]v\n"
	want := Lines(in)
	for size := 1; size <= len(in); size++ {
		var b bytes.Buffer
		w := NewLineWriter(&b)
		for s := in; s != ""; {
			n := min(size, len(s))
			if k, err := w.Write([]byte(s[:n])); k != n || err != nil {
				t.Fatalf("Write = %d, %v", k, err)
			}
			s = s[n:]
		}
		if b.String() != want {
			t.Fatalf("writes of %d bytes: %q, want %q", size, b.String(), want)
		}
	}
	if strings.Contains(want, "\n\u2003\u2003::") || !strings.Contains(want, `:\x3aerror`) {
		t.Errorf("Lines left a command: %q", want)
	}
}

func BenchmarkLines(b *testing.B) {
	s := strings.Repeat("lib/x.kpack[0+16]: error KPL005 malformed-archive: lib/x.kpack does not open\n  fingerprint: 0123\n", 100000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Lines(s)
	}
}
