// Package pkgbuild builds Debian (.deb) and rpm packages and wheels in tests: a .deb
// as an ar archive of debian-binary, control.tar.gz and data.tar (plain,
// gz, xz or zst), as dpkg-deb lays it out (deb(5)); an rpm with
// github.com/google/rpmpack, or by hand (lead, headers and a cpio payload
// of any bytes) for hostile cases.
package pkgbuild

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cavaliergopher/cpio"
	"github.com/google/rpmpack"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// File is one member of a package: a regular file (Data), a symlink
// (Link set) or a folder (Dir). Path is the installed path, slash-separated,
// without a leading "/" ("usr/lib/libfoo.so.1").
type File struct {
	Path string
	Data []byte
	Link string
	Dir  bool
}

// Reg, Symlink and Dir make Files.
func Reg(p string, data []byte) File { return File{Path: p, Data: data} }
func Symlink(p, to string) File      { return File{Path: p, Link: to} }
func Dir(p string) File              { return File{Path: p, Dir: true} }

// FromTree reads every file and symlink below dir (folders implied) as
// Files, sorted by path.
func FromTree(t testing.TB, dir string) []File {
	t.Helper()
	var out []File
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			to, err := os.Readlink(p)
			out = append(out, Symlink(rel, to))
			return err
		case fi.IsDir():
			out = append(out, Dir(rel))
		default:
			data, err := os.ReadFile(p)
			out = append(out, Reg(rel, data))
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Write writes data to name in a new temporary folder and returns its path.
func Write(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Compress compresses data with comp: "" (none), "gz"/"gzip", "xz" or
// "zst"/"zstd".
func Compress(t testing.TB, comp string, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	var err error
	switch comp {
	case "":
		return data
	case "gz", "gzip":
		w = gzip.NewWriter(&buf)
	case "xz":
		w, err = xz.NewWriter(&buf)
	case "zst", "zstd":
		w, err = zstd.NewWriter(&buf)
	default:
		t.Fatalf("pkgbuild: unknown compression %q", comp)
	}
	if err == nil {
		_, err = w.Write(data)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Tar renders files as a tar with dpkg-deb's member names ("./", "./usr/",
// "./usr/lib/libfoo.so").
func Tar(t testing.TB, files []File) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	write := func(h *tar.Header, data []byte) {
		err := tw.WriteHeader(h)
		if err == nil && h.Typeflag == tar.TypeReg {
			_, err = tw.Write(data)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	write(&tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755}, nil)
	for _, f := range files {
		h := &tar.Header{Name: "./" + f.Path, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(f.Data))}
		switch {
		case f.Dir:
			h.Name, h.Typeflag, h.Mode, h.Size = h.Name+"/", tar.TypeDir, 0o755, 0
		case f.Link != "":
			h.Typeflag, h.Linkname, h.Mode, h.Size = tar.TypeSymlink, f.Link, 0o777, 0
		}
		write(h, f.Data)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Wheel renders regular files as a wheel (a zip, deflated), members in
// path order with a fixed time, so the same files give the same bytes.
// Folders and symlinks are left out (wheels store neither).
func Wheel(t testing.TB, files []File) []byte {
	t.Helper()
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		if f.Dir || f.Link != "" {
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Path, Method: zip.Deflate, Modified: time.Date(2026, 5, 19, 0, 0, 0, 0, time.UTC)})
		if err == nil {
			_, err = w.Write(f.Data)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ArMember is one member of an ar archive.
type ArMember struct {
	Name string
	Data []byte
}

// Ar renders members as an ar archive ("!<arch>\n", 60-byte headers, data
// padded to even offsets), as dpkg-deb writes it.
func Ar(members []ArMember) []byte {
	var buf bytes.Buffer
	buf.WriteString("!<arch>\n")
	for _, m := range members {
		fmt.Fprintf(&buf, "%-16s%-12d%-6d%-6d%-8o%-10d`\n", m.Name, 0, 0, 0, 0o100644, len(m.Data))
		buf.Write(m.Data)
		if len(m.Data)%2 == 1 {
			buf.WriteByte('\n')
		}
	}
	return buf.Bytes()
}

// DebMembers returns the ar members of a .deb holding files, its data.tar
// compressed with comp ("", "gz", "xz", "zst").
func DebMembers(t testing.TB, comp string, files []File) []ArMember {
	t.Helper()
	control := Tar(t, []File{Reg("control", []byte("Package: test\nVersion: 1.0\nArchitecture: amd64\n"))})
	data := "data.tar"
	if comp != "" {
		data += "." + comp
	}
	return []ArMember{
		{Name: "debian-binary", Data: []byte("2.0\n")},
		{Name: "control.tar.gz", Data: Compress(t, "gz", control)},
		{Name: data, Data: Compress(t, comp, Tar(t, files))},
	}
}

// Deb returns the bytes of a Debian binary package holding files, its
// data.tar compressed with comp ("", "gz", "xz", "zst").
func Deb(t testing.TB, comp string, files []File) []byte {
	t.Helper()
	return Ar(DebMembers(t, comp, files))
}

// RPM returns the bytes of a binary rpm written by rpmpack, its payload
// compressed with comp ("gzip", "xz", "zstd"; "" is gzip). rpmpack names
// payload members by their absolute path ("/usr/lib/libfoo.so").
func RPM(t testing.TB, comp string, files []File) []byte {
	t.Helper()
	r, err := rpmpack.NewRPM(rpmpack.RPMMetaData{Name: "test", Version: "1.0", Release: "1", Arch: "x86_64", Compressor: comp})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		rf := rpmpack.RPMFile{Name: "/" + f.Path, Body: f.Data, Mode: 0o100644}
		switch {
		case f.Dir:
			rf.Mode = 0o40755
		case f.Link != "":
			rf.Mode, rf.Body = 0o120777, []byte(f.Link)
		}
		r.AddFile(rf)
	}
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// CPIOEntry is one member of a hand-built cpio archive: the header as
// written (Name as stored, e.g. "./usr/lib/x"; Mode with its type bits;
// Inode and Links for hard links) and its data.
type CPIOEntry struct {
	Header cpio.Header
	Data   []byte
}

// CPIO renders entries as a newc cpio archive (rpm's payload format).
func CPIO(t testing.TB, entries []CPIOEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := cpio.NewWriter(&buf)
	for _, e := range entries {
		h := e.Header
		h.Size = int64(len(e.Data))
		if err := w.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Tag is a header entry of a hand-built rpm: a string tag, or any type,
// offset and count (Raw) for hostile cases.
type Tag struct {
	Tag    uint32
	Value  string
	Raw    bool // write Type, Offset and Count as given, no data
	Type   uint32
	Offset uint32
	Count  uint32
}

// Header renders an rpm header (magic, il, dl, index entries, data store)
// holding the string tags.
func Header(tags []Tag) []byte {
	var index, store bytes.Buffer
	for _, tg := range tags {
		e := [4]uint32{tg.Tag, 6, uint32(store.Len()), 1}
		if tg.Raw {
			e = [4]uint32{tg.Tag, tg.Type, tg.Offset, tg.Count}
		} else {
			store.WriteString(tg.Value)
			store.WriteByte(0)
		}
		binary.Write(&index, binary.BigEndian, e)
	}
	return HeaderRaw(uint32(len(tags)), uint32(store.Len()), append(index.Bytes(), store.Bytes()...))
}

// HeaderRaw renders a header intro declaring il entries and dl data bytes,
// followed by body.
func HeaderRaw(il, dl uint32, body []byte) []byte {
	out := []byte{0x8e, 0xad, 0xe8, 0x01, 0, 0, 0, 0}
	out = binary.BigEndian.AppendUint32(out, il)
	out = binary.BigEndian.AppendUint32(out, dl)
	return append(out, body...)
}

// Lead returns a binary rpm lead (version 3.0, header-style signature).
func Lead(name string) []byte {
	l := make([]byte, 96)
	copy(l, []byte{0xed, 0xab, 0xee, 0xdb, 3, 0})
	copy(l[10:75], name)
	binary.BigEndian.PutUint16(l[76:78], 1) // os: Linux
	binary.BigEndian.PutUint16(l[78:80], 5) // signature type: header-style
	return l
}

// RawRPM joins a lead, a one-entry signature header (padded to 8 bytes),
// the main header and payload, as rpm lays them out.
func RawRPM(header, payload []byte) []byte {
	out := Lead("test-1.0-1")
	out = append(out, Header([]Tag{{Tag: 1000, Value: "sha"}})...)
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	out = append(out, header...)
	return append(out, payload...)
}

// CompressBlocks compresses data as one xz stream cut into independent
// blocks of block uncompressed bytes (as xz -T0 --block-size and
// dpkg-deb write them), with an LZMA2 dictionary of at most 1 MiB.
func CompressBlocks(t testing.TB, data []byte, block int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := xz.WriterConfig{BlockSize: block, DictCap: int(min(block, 1<<20))}.NewWriter(&buf)
	if err == nil {
		_, err = w.Write(data)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
