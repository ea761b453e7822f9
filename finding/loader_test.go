package finding

import "testing"

func TestParseLoader(t *testing.T) {
	cases := []struct {
		in   string
		want Loader
		ok   bool
	}{
		{"", Fallthrough, true},
		{"fallthrough", Fallthrough, true},
		{"legacy", Legacy, true},
		{"Legacy", "", false},
		{"fall-through", "", false},
		{" legacy", "", false},
		{"first-match", "", false},
	}
	for _, c := range cases {
		got, err := ParseLoader(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseLoader(%q) = %q, %v; want %q, ok %v", c.in, got, err, c.want, c.ok)
		}
		if err != nil && err.Error() != `loader "`+c.in+`": want fallthrough or legacy` {
			t.Errorf("ParseLoader(%q) error %q", c.in, err)
		}
	}
	if string(Legacy) != "legacy" || string(Fallthrough) != "fallthrough" {
		t.Errorf("loader names changed: %q %q", Legacy, Fallthrough)
	}
}
