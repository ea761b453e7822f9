package vfs

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/cavaliergopher/cpio"

	"github.com/rocm-tools/kpack-lint/internal/testutil/pkgbuild"
)

// An rpm written by rpmpack (payload names "/usr/...") is read in place
// whatever its payload compressor; members not kept by Want are re-read.
func TestRPMKinds(t *testing.T) {
	for _, comp := range []string{"gzip", "xz", "zstd"} {
		t.Run(comp, func(t *testing.T) {
			p := pkgbuild.Write(t, "rocrand-1.0-1.x86_64.rpm", pkgbuild.RPM(t, comp, pkgFiles(installed)))
			checkInstalled(t, openTree(t, p), "rpm")
			tr, err := Open([]string{p}, Options{Want: func(string, []byte) bool { return false }})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			checkInstalled(t, tr, "rpm")
		})
	}
}

// cpioReg, cpioLink and cpioDir are payload members named as rpmbuild
// names them ("./usr/lib/x").
func cpioReg(name, data string) pkgbuild.CPIOEntry {
	return pkgbuild.CPIOEntry{Header: cpio.Header{Name: name, Mode: cpio.TypeReg | 0o644}, Data: []byte(data)}
}

func cpioLink(name, to string) pkgbuild.CPIOEntry {
	return pkgbuild.CPIOEntry{Header: cpio.Header{Name: name, Mode: cpio.TypeSymlink | 0o777}, Data: []byte(to)}
}

func cpioHard(name, data string, inode int64, links int) pkgbuild.CPIOEntry {
	e := cpioReg(name, data)
	e.Header.Inode, e.Header.Links = inode, links
	return e
}

// rpmTags are the main header's tags of a hand-built rpm.
func rpmTags(comp string) []pkgbuild.Tag {
	return []pkgbuild.Tag{{Tag: tagName, Value: "rocrand"}, {Tag: tagVersion, Value: "5.3.3"}, {Tag: tagRelease, Value: "4"},
		{Tag: tagPayloadFormat, Value: "cpio"}, {Tag: tagPayloadCompressor, Value: comp}}
}

// handRPM is an rpm laid out by hand: lead, signature, header holding
// tags, the cpio payload of entries compressed with comp.
func handRPM(t *testing.T, comp string, tags []pkgbuild.Tag, entries []pkgbuild.CPIOEntry) []byte {
	return pkgbuild.RawRPM(pkgbuild.Header(tags), pkgbuild.Compress(t, comp, pkgbuild.CPIO(t, entries)))
}

// newc hard links: the data sits on the set's last member (rpm, GNU cpio),
// or on its first; a set of empty files has none. Every member reads the
// shared bytes.
func TestRPMHardLinks(t *testing.T) {
	entries := []pkgbuild.CPIOEntry{
		{Header: cpio.Header{Name: ".", Mode: cpio.TypeDir | 0o755}},
		cpioHard("./usr/lib/a.so.1", "", 7, 3),
		cpioHard("./usr/lib/a.so.2", "", 7, 3),
		cpioHard("./usr/lib/a.so.3", "\x7fELF-a", 7, 3),
		cpioHard("./usr/lib/b.so", "\x7fELF-b", 9, 2),
		cpioHard("./usr/lib/b2.so", "", 9, 2),
		cpioHard("./usr/share/empty1", "", 11, 2),
		cpioHard("./usr/share/empty2", "", 11, 2),
		cpioLink("./usr/lib/a.so", "a.so.1"),
	}
	p := pkgbuild.Write(t, "h.rpm", handRPM(t, "xz", rpmTags("xz"), entries))
	for _, want := range []func(string, []byte) bool{nil, func(string, []byte) bool { return false }} {
		tr, err := Open([]string{p}, Options{Want: want})
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Problems) != 0 {
			t.Fatalf("problems %+v", tr.Problems)
		}
		for path, data := range map[string]string{
			"usr/lib/a.so": "\x7fELF-a", "usr/lib/a.so.1": "\x7fELF-a", "usr/lib/a.so.2": "\x7fELF-a", "usr/lib/a.so.3": "\x7fELF-a",
			"usr/lib/b.so": "\x7fELF-b", "usr/lib/b2.so": "\x7fELF-b", "usr/share/empty1": "", "usr/share/empty2": "",
		} {
			e, _, err := tr.Lookup(path)
			if err != nil || e.Size != int64(len(data)) || readEntry(t, e) != data {
				t.Errorf("%s: %+v %v", path, e, err)
			}
		}
		tr.Close()
	}
}

// Payload members that climb out of the root or are devices are refused
// as in a tarball; "/usr/x" and "./usr/x" both install at usr/x, as rpm
// installs them.
func TestRPMRefusedMembers(t *testing.T) {
	entries := []pkgbuild.CPIOEntry{
		cpioReg("../../etc/evil", "x"),
		cpioReg("./usr/../../up", "x"),
		cpioReg("/usr/lib/abs.so", "abs"),
		cpioReg("./usr/lib/rel.so", "rel"),
		{Header: cpio.Header{Name: "./dev/null", Mode: cpio.TypeChar | 0o666}},
		{Header: cpio.Header{Name: "./run/fifo", Mode: cpio.TypeFifo | 0o666}},
		cpioLink("./usr/lib/nul", "a\x00b"),
	}
	tr := openTree(t, pkgbuild.Write(t, "r.rpm", handRPM(t, "gzip", rpmTags("gzip"), entries)))
	if got := paths(tr.Files()); got != "usr/lib/abs.so usr/lib/rel.so" {
		t.Errorf("Files = %q", got)
	}
	var got []string
	for _, p := range tr.Problems {
		got = append(got, p.Path+": "+p.Msg)
	}
	want := []string{
		`../../etc/evil: member path climbs out of the archive root with ".."; refused`,
		`./usr/../../up: member path climbs out of the archive root with ".."; refused`,
		`dev/null: skipped special file (cpio mode 020666)`,
		`run/fifo: skipped special file (cpio mode 010666)`,
		`usr/lib/nul: symlink with a NUL-bearing target refused`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Files that are not binary rpms, or whose headers pass rpm's limits or
// the file's end, are a Problem for the whole input with what is wrong;
// nothing is allocated from a declared size.
func TestRPMNotAPackage(t *testing.T) {
	payload := pkgbuild.Compress(t, "gzip", pkgbuild.CPIO(t, []pkgbuild.CPIOEntry{cpioReg("./usr/lib/x.so", "x")}))
	good := pkgbuild.RawRPM(pkgbuild.Header(rpmTags("gzip")), payload)
	edit := func(at int, b ...byte) []byte {
		d := append([]byte(nil), good...)
		copy(d[at:], b)
		return d
	}
	withHeader := func(h []byte) []byte { return pkgbuild.RawRPM(h, payload) }
	tags := func(comp string, extra ...pkgbuild.Tag) []byte {
		return withHeader(pkgbuild.Header(append(rpmTags(comp), extra...)))
	}
	sigEnd := 96 + 16 + 16 + 4 // lead, intro, one entry, "sha\0"
	stripped := append([]byte(nil), pkgbuild.CPIO(t, []pkgbuild.CPIOEntry{cpioReg("./x", "x")})...)
	copy(stripped, "07070X")
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not an rpm package: no lead magic ed ab ee db at the start (read )"},
		{"deb", pkgbuild.Deb(t, "", nil), "not an rpm package: no lead magic ed ab ee db at the start (read 21 3c 61 72)"},
		{"cut lead", good[:50], "the lead needs 96 bytes, the file has 50"},
		{"version 2", edit(4, 2), "rpm lead: format version 2.0 not read"},
		{"source rpm", edit(6, 0, 1), "source rpm (lead type 1)"},
		{"signature type 1", edit(78, 0, 1), "rpm lead: signature type 1 not read"},
		{"no signature", good[:96], "the signature header at offset 96 is cut off after 0 bytes"},
		{"bad signature magic", edit(96, 0x8e, 0xad, 0xe8, 0x02), "no signature header magic 8e ad e8 01 at offset 96"},
		{"no header", good[:sigEnd], "the header at offset 136 is cut off after 0 bytes"},
		{"zero tags", withHeader(pkgbuild.HeaderRaw(0, 0, nil)), "declares 0 index entries (rpm reads 1 to 65535)"},
		{"too many tags", withHeader(pkgbuild.HeaderRaw(0x10000, 0, nil)), "declares 65536 index entries (rpm reads 1 to 65535)"},
		{"huge counts", withHeader(pkgbuild.HeaderRaw(0xffff, 0x0fffffff, nil)), "declares 269484031 bytes (65535 entries, 268435455 data bytes)"},
		{"too much data", withHeader(pkgbuild.HeaderRaw(1, 0x10000000, nil)), "declares 268435456 data bytes (rpm's limit is 268435455)"},
		{"signature huge", edit(96+8, 0, 0, 0xff, 0xff, 0x0f, 0xff, 0xff, 0xff), "the signature header at offset 96 declares"},
		{"offset past store", tags("gzip", pkgbuild.Tag{Tag: tagPayloadCompressor, Raw: true, Type: 6, Offset: 1 << 20, Count: 1}),
			"header tag PAYLOADCOMPRESSOR (1125): offset 1048576 outside the"},
		{"negative offset", tags("gzip", pkgbuild.Tag{Tag: tagName, Raw: true, Type: 6, Offset: 0xfffffff0, Count: 1}),
			"header tag NAME (1000): offset -16 outside the"},
		{"not a string", tags("gzip", pkgbuild.Tag{Tag: tagVersion, Raw: true, Type: 4, Offset: 0, Count: 1}), "header tag VERSION (1001): type 4, not a string"},
		{"no NUL", withHeader(pkgbuild.HeaderRaw(1, 3, append(binary.BigEndian.AppendUint32(nil, tagName), 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 1, 'a', 'b', 'c'))),
			"header tag NAME (1000): no NUL-terminated string within 3 bytes"},
		{"cut header", good[:len(good)-len(payload)-5], "truncated rpm package: the header at offset 136 declares"},
		{"bzip2", tags("bzip2"), `rpm payload compressor "bzip2" not read (gzip, xz and zstd are)`},
		{"drpm", withHeader(pkgbuild.Header([]pkgbuild.Tag{{Tag: tagPayloadFormat, Value: "drpm"}})), `rpm payload format "drpm" not read`},
		{"garbage payload", pkgbuild.RawRPM(pkgbuild.Header(rpmTags("gzip")), []byte("not gzip")), "payload of rocrand-5.3.3-4: bad cpio.gz stream"},
		{"xz said, gzip given", tags("xz"), "payload of rocrand-5.3.3-4: bad cpio.xz stream: xz: invalid header magic bytes"},
		{"cut payload", good[:len(good)-10], "payload of rocrand-5.3.3-4: bad cpio.gz"},
		{"not cpio", pkgbuild.RawRPM(pkgbuild.Header(rpmTags("gzip")), pkgbuild.Compress(t, "gzip", bytes.Repeat([]byte("tar?"), 100))),
			"payload of rocrand-5.3.3-4: bad cpio.gz archive after 0 members: cpio: invalid cpio header"},
		{"stripped cpio", pkgbuild.RawRPM(pkgbuild.Header(rpmTags("zstd")), pkgbuild.Compress(t, "zstd", stripped)),
			"the payload is a stripped cpio archive (magic 07070X"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := openTree(t, pkgbuild.Write(t, "bad.rpm", tc.data))
			if len(tr.Problems) == 0 || tr.Problems[0].Path != "" || !strings.Contains(tr.Problems[0].Msg, tc.want) {
				t.Fatalf("problems %+v\nwant %q", tr.Problems, tc.want)
			}
		})
	}
}

// A header with no compressor tag is gzip, as rpm reads it; the name
// shown in messages is the header's, else "the package".
func TestRPMDefaults(t *testing.T) {
	entries := []pkgbuild.CPIOEntry{cpioReg("./usr/lib/x.so", "x")}
	tr := openTree(t, pkgbuild.Write(t, "d.rpm", handRPM(t, "gzip", []pkgbuild.Tag{{Tag: 1004, Value: "summary"}}, entries)))
	if got := paths(tr.Files()); got != "usr/lib/x.so" || len(tr.Problems) != 0 {
		t.Fatalf("files %q problems %+v", got, tr.Problems)
	}
	tr = openTree(t, pkgbuild.Write(t, "e.rpm", pkgbuild.RawRPM(pkgbuild.Header([]pkgbuild.Tag{{Tag: 1004, Value: "s"}}), []byte("junk"))))
	if len(tr.Problems) != 1 || !strings.HasPrefix(tr.Problems[0].Msg, "payload of the package: bad cpio.gz stream") {
		t.Fatalf("problems %+v", tr.Problems)
	}
}

// An rpm overlays a .deb (and the other way round) in the order given.
func TestRPMOverDeb(t *testing.T) {
	deb := pkgbuild.Write(t, "a.deb", pkgbuild.Deb(t, "xz", pkgFiles(installed)))
	rpm := pkgbuild.Write(t, "b.rpm", pkgbuild.RPM(t, "zstd", pkgFiles([]node{reg("usr/lib/x86_64-linux-gnu/librocrand.so.1.1", "\x7fELF-v2")})))
	tr := openTree(t, deb, rpm)
	e, _, err := tr.Lookup("usr/lib/x86_64-linux-gnu/librocrand.so.1")
	if err != nil || e.Input != 1 || readEntry(t, e) != "\x7fELF-v2" || len(tr.Replaced) != 1 {
		t.Fatalf("entry %+v %v replaced %+v", e, err, tr.Replaced)
	}
	if tr.Inputs[0].Kind != "deb" || tr.Inputs[1].Kind != "rpm" {
		t.Errorf("inputs %+v", tr.Inputs)
	}
}

func FuzzReadRPM(f *testing.F) {
	f.Add(pkgbuild.RawRPM(pkgbuild.Header(rpmTags("xz")), nil))
	f.Add(pkgbuild.RPM(f, "gzip", nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		pkg, err := readRPM(bytes.NewReader(data), int64(len(data)))
		if err == nil && (pkg.payload < 96 || pkg.payload > int64(len(data))) {
			t.Fatalf("payload at %d of %d bytes", pkg.payload, len(data))
		}
	})
}

func FuzzCPIOIndex(f *testing.F) {
	f.Add(pkgbuild.CPIO(f, []pkgbuild.CPIOEntry{cpioHard("./a", "", 3, 2), cpioHard("./b", "data", 3, 2), cpioLink("./c", "a")}))
	f.Add(pkgbuild.CPIO(f, []pkgbuild.CPIOEntry{cpioReg("../x", "1"), cpioReg("/y", "2")}))
	f.Fuzz(func(t *testing.T, data []byte) {
		rpm := pkgbuild.RawRPM(pkgbuild.Header(rpmTags("gzip")), pkgbuild.Compress(t, "gzip", data))
		for _, want := range []func(string, []byte) bool{nil, func(string, []byte) bool { return false }} {
			tr, err := Open([]string{pkgbuild.Write(t, "f.rpm", rpm)}, Options{Want: want})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tr.Files() {
				if ra, err := e.Open(); err == nil {
					if ra.Size() != e.Size {
						t.Fatalf("%s: %d bytes open, %d indexed", e.Path, ra.Size(), e.Size)
					}
					ra.Close()
				}
			}
			tr.Close()
		}
	})
}

// Members not kept are compared by the digests of one pass over each
// package's stream, as for a compressed tarball.
func TestPackageDuplicatesByDigest(t *testing.T) {
	files := pkgFiles([]node{reg("usr/lib/same.so", "\x7fELF same"), reg("usr/lib/diff.so", "\x7fELF one")})
	other := pkgFiles([]node{reg("usr/lib/same.so", "\x7fELF same"), reg("usr/lib/diff.so", "\x7fELF two")})
	deb := pkgbuild.Write(t, "a.deb", pkgbuild.Deb(t, "xz", files))
	rpm := pkgbuild.Write(t, "b.rpm", pkgbuild.RPM(t, "zstd", other))
	tr, err := Open([]string{deb, rpm}, Options{Want: func(string, []byte) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	got := map[string]bool{}
	for _, r := range tr.Replaced {
		if !sameByDigest(r.Old, r.New) {
			t.Fatalf("%s: not compared by digest", r.Path)
		}
		same, err := SameContent(r.Old, r.New)
		if err != nil {
			t.Fatal(err)
		}
		got[r.Path] = same
	}
	if len(got) != 2 || !got["usr/lib/same.so"] || got["usr/lib/diff.so"] {
		t.Errorf("SameContent = %v", got)
	}
}
