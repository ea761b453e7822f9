package report

import (
	"bytes"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/rocm-tools/kpack-lint/finding"
)

// hostile holds every kind of byte that must not reach an output raw: C0
// (ESC, BEL, CR, LF, NUL), DEL, C1 (U+009B CSI, U+0085 NEL), bidi
// overrides (U+202E, U+2066) and a byte that is not UTF-8.
const hostile = "x\x1b]0;pwned\x07\x1b[2J\r\n\x00\x7f\u009b31m\u0085\u202e\u2066\xff"

// rawControl returns the offset of the first raw control in b (-1 for
// none): C0 but tab and newline, DEL, C1, the bidi controls, or a byte
// that is not UTF-8.
func rawControl(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1,
			r < 0x20 && r != '\n' && r != '\t', r == 0x7f, r >= 0x80 && r < 0xa0,
			r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return i
		}
		i += n
	}
	return -1
}

// fill sets every string (and every string of a []string) reachable in v
// (a pointer to a struct) to s, following pointers to structs.
func fill(v reflect.Value, s string) {
	v = v.Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if !f.CanSet() {
			continue
		}
		switch {
		case f.Kind() == reflect.String:
			f.SetString(s)
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			f.Set(reflect.ValueOf([]string{s, s}).Convert(f.Type()))
		case f.Kind() == reflect.Struct:
			fill(f.Addr(), s)
		case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct:
			p := reflect.New(f.Type().Elem())
			fill(p, s)
			f.Set(p)
		case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.String:
			p := reflect.New(f.Type().Elem())
			p.Elem().SetString(s)
			f.Set(p)
		}
	}
}

// hostileRun is a run whose every string field holds hostile bytes, but
// for what the writers check (a known rule ID and level, a relative path).
func hostileRun() Run {
	var f finding.Finding
	fill(reflect.ValueOf(&f), hostile)
	f.RuleID, f.Level, f.Location = "KPL001", finding.LevelError, finding.Location{Path: "bin/" + hostile}
	f.Related = []finding.Location{{Path: "lib/" + hostile}}
	f.Suppression.Expired = true
	// Fields with a vocabulary hold one of its values (vocab.go): Read
	// and the writers refuse any other.
	f.Baseline, f.Loader, f.Fingerprint = finding.BaselineNew, string(finding.Legacy), ""
	var k Checked
	fill(reflect.ValueOf(&k), hostile)
	var it finding.InventoryItem
	fill(reflect.ValueOf(&it), hostile)
	it.Archives = []finding.ArchiveRef{{Path: ".kpack/" + hostile}}
	var c finding.Cell
	fill(reflect.ValueOf(&c), hostile)
	var n Notification
	fill(reflect.ValueOf(&n), hostile)
	n.Level, n.Kind = finding.LevelWarning, "expired-waiver"
	var re Rerun
	fill(reflect.ValueOf(&re), hostile)
	return Run{ToolName: "kpack-lint", ToolVersion: "0.1.0", Rules: testRules(), Inputs: []string{hostile},
		Findings: []finding.Finding{f}, Checked: &k, Inventory: []finding.InventoryItem{it}, Matrix: []finding.Cell{c},
		Notifications: []Notification{n}, Rerun: re, PathPrefix: "build/" + hostile}
}

// Every output format of a finding whose every string field holds hostile
// bytes is free of raw controls, and so is every format written again
// from the JSON and SARIF reports read back (baseline, shards).
func TestNoRawControlInAnyFormat(t *testing.T) {
	write := func(r Run, what string) map[string][]byte {
		out := map[string][]byte{}
		for _, format := range Formats() {
			var b bytes.Buffer
			if err := Write(&b, format, r); err != nil {
				t.Fatalf("%s %s: %v", what, format, err)
			}
			if i := rawControl(b.Bytes()); i >= 0 {
				t.Errorf("%s %s: raw control at byte %d: %q", what, format, i, b.Bytes()[max(0, i-40):i+4])
			}
			out[format] = b.Bytes()
		}
		return out
	}
	out := write(hostileRun(), "written")
	for _, format := range []string{"json", "sarif"} {
		back, _, err := Read(out[format])
		if err != nil {
			t.Fatalf("read %s: %v", format, err)
		}
		back.Rules = testRules()
		write(back, "read back from "+format)
	}
}

// A JSON report carrying raw controls in every field (a hand-made
// baseline) reads back with none: Read sanitizes what it returns.
func TestReadSanitizes(t *testing.T) {
	r := hostileRun()
	var b bytes.Buffer
	if err := writeJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	back, _, err := Read(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.String:
			if rawControl([]byte(v.String())) >= 0 {
				t.Errorf("%s = %q: raw control read back", path, v.String())
			}
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i), path+"[]")
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).Name != "Subject" {
					walk(v.Field(i), path+"."+v.Type().Field(i).Name)
				}
			}
		}
	}
	walk(reflect.ValueOf(back), "Run")
	if len(back.Findings) != 1 || back.Findings[0].Message == "" {
		t.Fatalf("read back %+v", back.Findings)
	}
}
