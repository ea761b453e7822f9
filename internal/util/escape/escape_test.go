package escape

import "testing"

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"lib/libx.so#0":               "lib/libx.so#0",
		"gfx950:xnack+ é ü 漢":         "gfx950:xnack+ é ü 漢",
		"\x1b[2J\x1b[31mFAKE\r\nline": `\x1b[2J\x1b[31mFAKE\x0d\x0aline`,
		"tab\there\x00\x7f":           `tab\x09here\x00\x7f`,
		"c1\u0085\u009b[31m":          `c1\x85\x9b[31m`,
		"abc\u202edcba\u2066x\u2069":  `abc\u202edcba\u2066x\u2069`,
		"\u200e\u200f\u061c":          `\u200e\u200f\u061c`,
		"bad\xff\xfeutf8":             `bad\xff\xfeutf8`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}
