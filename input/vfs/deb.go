package vfs

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
)

// A Debian binary package is an ar archive (deb(5), dpkg-deb/extract.c):
// "!<arch>\n", then members with 60-byte headers, each member's data padded
// to an even offset. The first member is debian-binary ("2.0\n"), then
// control.tar[.xz|.gz|.zst] (the maintainer scripts and the package's
// name and version), then data.tar[.xz|.gz|.zst], the files dpkg installs
// under /. Members named "_..." are ignored by dpkg, as here.
const (
	arMagic     = "!<arch>\n"
	arHeaderLen = 60
	// maxDebMembers bounds the ar members read before data.tar.* (dpkg
	// writes three).
	maxDebMembers = 64
)

// arMember is one member of an ar archive: its name and where its data
// lies in the file.
type arMember struct {
	name      string
	off, size int64
}

// debCompression maps the suffix of a data.tar member to the archive kind
// the tar reader takes. dpkg also writes .bz2 and .lzma (old packages):
// those are refused with a Problem.
var debCompression = map[string]string{
	"": "tar", ".gz": "tar.gz", ".xz": "tar.xz", ".zst": "tar.zst",
}

// loadDeb reads a .deb in place: its data.tar member is indexed like a
// tarball (same member rules and limits), a section of the .deb file
// itself when uncompressed. A file that is not a Debian binary package
// (no ar magic, a truncated member, no data.tar) is a Problem for the
// whole input, so the run exits 2 naming it.
func (t *Tree) loadDeb(name string, c *collector) (backend, error) {
	f, st, err := fsutil.Open(name)
	if err != nil {
		return nil, err
	}
	data, kind, msg := debData(f, st.Size())
	if msg != "" {
		f.Close()
		c.problem("", "%s", msg)
		return nil, nil
	}
	b := t.newTarBackend(kind, name, f, data.off, data.size)
	first := len(c.problems)
	err = b.read(c)
	for i := first; i < len(c.problems); i++ {
		if c.problems[i].Path == "" {
			c.problems[i].Msg = "member " + data.name + ": " + c.problems[i].Msg
		}
	}
	return b, err
}

// debData finds the data.tar member of a .deb of size bytes and the
// archive kind it holds; msg says why the file is not a readable Debian
// binary package.
func debData(r io.ReaderAt, size int64) (m arMember, kind, msg string) {
	magic := make([]byte, len(arMagic))
	if n, _ := r.ReadAt(magic, 0); n < len(magic) || string(magic) != arMagic {
		return m, "", fmt.Sprintf("not a Debian package: no ar archive magic %q at the start (read %q)", arMagic, magic[:n])
	}
	off := int64(len(arMagic))
	for i := 0; ; i++ {
		if off >= size {
			return m, "", "not a Debian binary package: no data.tar member (truncated?)"
		}
		if i == maxDebMembers {
			return m, "", fmt.Sprintf("not a Debian binary package: no data.tar member among the first %d ar members", maxDebMembers)
		}
		var err error
		m, err = arNext(r, off, size)
		if err != nil {
			return m, "", err.Error()
		}
		off = m.off + m.size + m.size%2
		switch {
		case i == 0 && m.name != "debian-binary":
			return m, "", fmt.Sprintf("not a Debian binary package: the first ar member is %q, not debian-binary", m.name)
		case i == 0:
			if msg := debVersion(r, m); msg != "" {
				return m, "", msg
			}
		case strings.HasPrefix(m.name, "data.tar"):
			kind, ok := debCompression[strings.TrimPrefix(m.name, "data.tar")]
			if !ok {
				return m, "", fmt.Sprintf("ar member %s: compression not read (data.tar, data.tar.gz, .xz and .zst are)", m.name)
			}
			return m, kind, ""
		}
	}
}

// arNext reads the ar member header at off of a file of size bytes. The
// size field must be decimal and the data must lie within the file.
func arNext(r io.ReaderAt, off, size int64) (arMember, error) {
	var h [arHeaderLen]byte
	if n, _ := r.ReadAt(h[:], off); n < arHeaderLen {
		return arMember{}, fmt.Errorf("truncated Debian package: an ar member header at offset %d is cut off after %d of %d bytes", off, n, arHeaderLen)
	}
	if string(h[58:60]) != "`\n" {
		return arMember{}, fmt.Errorf("bad ar member header at offset %d: no \"`\\n\" terminator", off)
	}
	name := strings.TrimSuffix(strings.TrimRight(string(h[0:16]), " "), "/")
	field := strings.TrimRight(string(h[48:58]), " ")
	n, err := strconv.ParseInt(field, 10, 64)
	if err != nil || n < 0 {
		return arMember{}, fmt.Errorf("bad ar member header at offset %d (%q): size %q is not a decimal number", off, name, field)
	}
	data := off + arHeaderLen
	if n > size-data {
		return arMember{}, fmt.Errorf("truncated Debian package: ar member %q declares %d bytes, %d remain in the file", name, n, size-data)
	}
	return arMember{name: name, off: data, size: n}, nil
}

// debVersion checks the debian-binary member: dpkg reads format 2.x.
func debVersion(r io.ReaderAt, m arMember) string {
	buf := make([]byte, min(m.size, 16))
	n, _ := r.ReadAt(buf, m.off)
	v, _, _ := bytes.Cut(buf[:n], []byte("\n"))
	if !bytes.HasPrefix(v, []byte("2.")) {
		return fmt.Sprintf("not a Debian binary package: debian-binary says format %q (dpkg reads 2.x)", v)
	}
	return ""
}
