package vfs

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zipBytes writes members (name -> content, deflated) with archive/zip.
func zipBytes(t *testing.T, names []string, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, n := range names {
		f, err := w.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(content))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// aliasZip lists the first member of data under extra names of the same
// length too: extra central-directory records pointing at its local header
// (the zip-overlap-bomb kind).
func aliasZip(t *testing.T, data []byte, extra []string) []byte {
	t.Helper()
	dir, ok := zipDirectoryStart(bytes.NewReader(data), int64(len(data)))
	if !ok {
		t.Fatal("no central directory")
	}
	le := binary.LittleEndian
	first := data[dir:]
	recLen := 46 + int(le.Uint16(first[28:])) + int(le.Uint16(first[30:])) + int(le.Uint16(first[32:]))
	rec := first[:recLen]
	end := bytes.LastIndex(data, []byte("PK\x05\x06"))
	out := append([]byte(nil), data[:end]...)
	for _, n := range extra {
		r := append([]byte(nil), rec...)
		copy(r[46:], n)
		out = append(out, r...)
	}
	eocd := append([]byte(nil), data[end:]...)
	le.PutUint16(eocd[8:], le.Uint16(eocd[8:])+uint16(len(extra)))
	le.PutUint16(eocd[10:], le.Uint16(eocd[10:])+uint16(len(extra)))
	le.PutUint32(eocd[12:], le.Uint32(eocd[12:])+uint32(len(extra)*recLen))
	return append(out, eocd...)
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// One deflated member under many central-directory names (the
// zip-overlap-bomb recipe) is refused as a zip bomb naming two of them,
// before anything is spilled; two members, each stored once, spill each
// within the spill bound.
func TestZipAliasedMemberRefused(t *testing.T) {
	big := strings.Repeat("kpack", 10000)
	var names []string
	for i := range 20 {
		names = append(names, fmt.Sprintf("m%02d", i))
	}
	p := writeTemp(t, "alias.zip", aliasZip(t, zipBytes(t, []string{"m00"}, big), names[1:]))
	tr, err := Open([]string{p}, Options{MaxMemberBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	want := `zip bomb refused: members "m00" and "m01" are one stored member under two names (both point at the `
	if len(tr.Files()) != 0 || len(tr.Problems) != 1 || tr.Problems[0].Path != "" || !strings.HasPrefix(tr.Problems[0].Msg, want) {
		t.Fatalf("%d files, problems %v; want one whole-input problem starting %q", len(tr.Files()), tr.Problems, want)
	}
	if n := tr.spilled.Load(); n != 0 {
		t.Errorf("%d bytes spilled before the refusal", n)
	}

	two := writeTemp(t, "two.zip", zipBytes(t, []string{"a", "b"}, big))
	tr2, err := Open([]string{two}, Options{MaxMemberBytes: 1000, MaxSpillBytes: int64(len(big)) + 10})
	if err != nil {
		t.Fatal(err)
	}
	defer tr2.Close()
	if _, err := tr2.Files()[0].Open(); err != nil {
		t.Fatal(err)
	}
	if _, err := tr2.Files()[1].Open(); err == nil || !strings.Contains(err.Error(), "MaxSpillBytes") {
		t.Fatalf("second spill: %v, want the MaxSpillBytes refusal", err)
	}
}

// overlapZip stores member "outer" whose bytes are the local header and
// data of a stored member "inner", and lists "inner" too, at its header
// inside outer's data: the two members' stored bytes overlap.
func overlapZip(t *testing.T) []byte {
	t.Helper()
	var in bytes.Buffer
	w := zip.NewWriter(&in)
	f, err := w.CreateHeader(&zip.FileHeader{Name: "inner", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("hello, inner"))
	w.Close()
	innerDir, _ := zipDirectoryStart(bytes.NewReader(in.Bytes()), int64(in.Len()))
	innerLocal, innerRec := in.Bytes()[:innerDir], in.Bytes()[innerDir:]

	var out bytes.Buffer
	w = zip.NewWriter(&out)
	f, err = w.CreateHeader(&zip.FileHeader{Name: "outer", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	f.Write(innerLocal)
	w.Close()
	data := out.Bytes()
	dir, _ := zipDirectoryStart(bytes.NewReader(data), int64(len(data)))
	le := binary.LittleEndian
	outerDataOff := 30 + len("outer")
	rec := append([]byte(nil), innerRec[:46+len("inner")]...)
	le.PutUint32(rec[42:], uint32(outerDataOff)) // inner's local header, inside outer's data
	end := bytes.LastIndex(data, []byte("PK\x05\x06"))
	res := append(append(append([]byte(nil), data[:end]...), rec...), data[end:]...)
	eocd := res[len(res)-22:]
	le.PutUint16(eocd[8:], 2)
	le.PutUint16(eocd[10:], 2)
	le.PutUint32(eocd[12:], uint32(int64(end)-dir+int64(len(rec))))
	return res
}

// Members whose stored bytes overlap are refused naming both; members
// stored one after another (empty ones and folders included) are not.
func TestZipOverlapRefused(t *testing.T) {
	p := writeTemp(t, "overlap.zip", overlapZip(t))
	tr, err := Open([]string{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	want := `zip bomb refused: the stored bytes of members "outer" [35, 98) and "inner" [70, 82) overlap (one compressed body read under several names); not read`
	if len(tr.Files()) != 0 || len(tr.Problems) != 1 || tr.Problems[0].Msg != want {
		t.Fatalf("problems %v, want %q", tr.Problems, want)
	}

	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, n := range []string{"dir/", "dir/empty", "dir/a", "dir/empty2", "b"} {
		f, _ := w.Create(n)
		if n == "dir/a" || n == "b" {
			f.Write([]byte(strings.Repeat(n, 100)))
		}
	}
	w.Close()
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if msg := overlapping(zr.File); msg != "" {
		t.Fatalf("adjacent members refused: %s", msg)
	}
}

// zip-million-members: the central directory's records are counted before
// archive/zip reads them (whatever the end record says), and a zip with
// more than MaxZipMembers is a Problem for the whole input.
func TestZipMemberCount(t *testing.T) {
	var names []string
	for i := range 30 {
		names = append(names, fmt.Sprintf("e/%d", i))
	}
	data := zipBytes(t, names, "")
	r := bytes.NewReader(data)
	if n, over := countZipRecords(r, int64(len(data)), 30); n != 30 || over {
		t.Errorf("count(limit 30) = %d, %v; want 30, false", n, over)
	}
	if n, over := countZipRecords(r, int64(len(data)), 10); !over || n != 11 {
		t.Errorf("count(limit 10) = %d, %v; want 11, true", n, over)
	}
	// An end record claiming 2 records (mod 65536 is all archive/zip checks
	// when it reads on) does not hide the 30.
	end := bytes.LastIndex(data, []byte("PK\x05\x06"))
	binary.LittleEndian.PutUint16(data[end+8:], 2)
	binary.LittleEndian.PutUint16(data[end+10:], 2)
	if n, _ := countZipRecords(bytes.NewReader(data), int64(len(data)), 100); n != 30 {
		t.Errorf("count with a lying end record = %d, want 30", n)
	}
}
