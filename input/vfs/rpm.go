package vfs

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
)

// An rpm package (rpm docs/manual/format.md, lib/rpmlead.c, lib/header.c)
// is a 96-byte lead, a signature header padded to 8 bytes, the main header,
// then the payload: a cpio archive compressed as the header's
// PAYLOADCOMPRESSOR tag says. A header is a 16-byte intro (magic 8e ad e8
// 01, 4 reserved bytes, il = index entries, dl = data bytes, big-endian),
// il 16-byte index entries {tag, type, offset, count} and dl bytes of data.
const (
	rpmLeadLen     = 96
	rpmHeaderIntro = 16
	// rpmMaxTags and rpmMaxData are rpm's own bounds on il and dl
	// (lib/header.c HEADER_TAGS_MAX 0x0000ffff in hdrchkTags,
	// HEADER_DATA_MAX 0x0fffffff in hdrchkData).
	rpmMaxTags = 0x0000ffff
	rpmMaxData = 0x0fffffff
	// rpmMaxString bounds a header string read for the tags used here.
	rpmMaxString = 4096
)

var (
	rpmLeadMagic   = []byte{0xed, 0xab, 0xee, 0xdb}
	rpmHeaderMagic = []byte{0x8e, 0xad, 0xe8, 0x01}
)

// Header tags read (rpm include/rpm/rpmtag.h) and the string types.
const (
	tagName              = 1000
	tagVersion           = 1001
	tagRelease           = 1002
	tagPayloadFormat     = 1124
	tagPayloadCompressor = 1125

	rpmStringType     = 6
	rpmI18NStringType = 9
)

var rpmTagNames = map[uint32]string{
	tagName: "NAME", tagVersion: "VERSION", tagRelease: "RELEASE",
	tagPayloadFormat: "PAYLOADFORMAT", tagPayloadCompressor: "PAYLOADCOMPRESSOR",
}

// rpmCompression maps PAYLOADCOMPRESSOR to the archive kind read. rpm also
// knows bzip2 and lzma (old packages): those are refused with a Problem.
var rpmCompression = map[string]string{"gzip": "cpio.gz", "xz": "cpio.xz", "zstd": "cpio.zst"}

// rpmPackage is what the leading parts of an rpm say.
type rpmPackage struct {
	tags    map[uint32]string // the string tags read, by tag
	payload int64             // offset of the compressed payload
}

// loadRPM reads an .rpm in place: the cpio payload is indexed like a
// tarball's members (same member rules and limits). A file that is not a
// binary rpm (bad magic, a header past rpm's limits or the file's end, an
// unknown payload compressor) is a Problem for the whole input, so the run
// exits 2 naming it.
func (t *Tree) loadRPM(name string, c *collector) (backend, error) {
	f, st, err := fsutil.Open(name)
	if err != nil {
		return nil, err
	}
	pkg, err := readRPM(f, st.Size())
	kind := ""
	if err == nil {
		kind, err = pkg.payloadKind()
	}
	if err != nil {
		f.Close()
		c.problem("", "%v", err)
		return nil, nil
	}
	b := t.newTarBackend(kind, name, f, pkg.payload, st.Size()-pkg.payload)
	first := len(c.problems)
	err = b.read(c)
	for i := first; i < len(c.problems); i++ {
		if c.problems[i].Path == "" {
			c.problems[i].Msg = fmt.Sprintf("payload of %s: %s", pkg.nvr(), c.problems[i].Msg)
		}
	}
	return b, err
}

// nvr is the package's name-version-release for messages.
func (p *rpmPackage) nvr() string {
	s := p.tags[tagName]
	if v := p.tags[tagVersion]; v != "" {
		s += "-" + v
	}
	if r := p.tags[tagRelease]; r != "" {
		s += "-" + r
	}
	if s == "" {
		return "the package"
	}
	return s
}

// payloadKind checks PAYLOADFORMAT (cpio when absent) and maps
// PAYLOADCOMPRESSOR (gzip when absent, as rpm does) to an archive kind.
func (p *rpmPackage) payloadKind() (string, error) {
	if f, ok := p.tags[tagPayloadFormat]; ok && f != "cpio" {
		return "", fmt.Errorf("rpm payload format %q not read (only cpio; drpm is a delta, not a package's files)", f)
	}
	comp, ok := p.tags[tagPayloadCompressor]
	if !ok {
		comp = "gzip"
	}
	kind, ok := rpmCompression[comp]
	if !ok {
		return "", fmt.Errorf("rpm payload compressor %q not read (gzip, xz and zstd are)", comp)
	}
	return kind, nil
}

// readRPM reads the lead and both headers of an rpm of size bytes. Every
// count and offset is checked against rpm's limits and the bytes present
// before anything is allocated.
func readRPM(r io.ReaderAt, size int64) (*rpmPackage, error) {
	var lead [rpmLeadLen]byte
	n, _ := r.ReadAt(lead[:], 0)
	if n < 4 || !bytes.Equal(lead[:4], rpmLeadMagic) {
		return nil, fmt.Errorf("not an rpm package: no lead magic ed ab ee db at the start (read % x)", lead[:min(n, 4)])
	}
	if n < rpmLeadLen {
		return nil, fmt.Errorf("truncated rpm package: the lead needs %d bytes, the file has %d", rpmLeadLen, n)
	}
	if major := lead[4]; major != 3 && major != 4 {
		return nil, fmt.Errorf("rpm lead: format version %d.%d not read (rpm reads 3 and 4)", major, lead[5])
	}
	if typ := binary.BigEndian.Uint16(lead[6:8]); typ != 0 {
		return nil, fmt.Errorf("source rpm (lead type %d): it holds sources, not installed files; pass the binary rpm", typ)
	}
	if sig := binary.BigEndian.Uint16(lead[78:80]); sig != 5 {
		return nil, fmt.Errorf("rpm lead: signature type %d not read (rpm reads only 5, a header-style signature)", sig)
	}
	sig, err := readRPMHeader(r, rpmLeadLen, size, "signature header", nil)
	if err != nil {
		return nil, err
	}
	off := sig.end + (8-sig.end%8)%8 // the signature is padded to 8 bytes
	h, err := readRPMHeader(r, off, size, "header", rpmTagNames)
	if err != nil {
		return nil, err
	}
	return &rpmPackage{tags: h.tags, payload: h.end}, nil
}

// rpmHeader is one parsed header: the string tags asked for and the
// offset just past it.
type rpmHeader struct {
	tags map[uint32]string
	end  int64
}

// readRPMHeader reads the header at off and the string tags named in want.
// what names the header in errors.
func readRPMHeader(r io.ReaderAt, off, size int64, what string, want map[uint32]string) (rpmHeader, error) {
	var intro [rpmHeaderIntro]byte
	if n, _ := r.ReadAt(intro[:], off); n < rpmHeaderIntro {
		return rpmHeader{}, fmt.Errorf("truncated rpm package: the %s at offset %d is cut off after %d bytes", what, off, max(n, 0))
	}
	if !bytes.Equal(intro[:4], rpmHeaderMagic) {
		return rpmHeader{}, fmt.Errorf("bad rpm package: no %s magic 8e ad e8 01 at offset %d (read % x)", what, off, intro[:4])
	}
	il := int64(binary.BigEndian.Uint32(intro[8:12]))
	dl := int64(binary.BigEndian.Uint32(intro[12:16]))
	switch {
	case il < 1 || il > rpmMaxTags:
		return rpmHeader{}, fmt.Errorf("bad rpm package: the %s at offset %d declares %d index entries (rpm reads 1 to %d)", what, off, il, rpmMaxTags)
	case dl > rpmMaxData:
		return rpmHeader{}, fmt.Errorf("bad rpm package: the %s at offset %d declares %d data bytes (rpm's limit is %d)", what, off, dl, rpmMaxData)
	}
	index := off + rpmHeaderIntro
	store := index + il*16
	end := store + dl
	if end > size {
		return rpmHeader{}, fmt.Errorf("truncated rpm package: the %s at offset %d declares %d bytes (%d entries, %d data bytes), %d remain in the file",
			what, off, end-off, il, dl, size-off)
	}
	h := rpmHeader{tags: map[uint32]string{}, end: end}
	if len(want) == 0 {
		return h, nil
	}
	entries := make([]byte, il*16) // at most 1 MiB, and present in the file
	if _, err := r.ReadAt(entries, index); err != nil {
		return rpmHeader{}, fmt.Errorf("%s at offset %d: %w", what, off, err)
	}
	for i := int64(0); i < il; i++ {
		e := entries[i*16 : i*16+16]
		tag := binary.BigEndian.Uint32(e[0:4])
		name, ok := want[tag]
		if !ok {
			continue
		}
		s, err := rpmString(r, e, store, dl)
		if err != nil {
			return rpmHeader{}, fmt.Errorf("bad rpm package: %s tag %s (%d): %v", what, name, tag, err)
		}
		h.tags[tag] = s
	}
	return h, nil
}

// rpmString reads the string of index entry e from the data store of dl
// bytes at store: the offset must lie in the store (lib/header.c
// hdrchkRange) and the string end with NUL within it and rpmMaxString.
func rpmString(r io.ReaderAt, e []byte, store, dl int64) (string, error) {
	typ := binary.BigEndian.Uint32(e[4:8])
	off := int64(int32(binary.BigEndian.Uint32(e[8:12])))
	if typ != rpmStringType && typ != rpmI18NStringType {
		return "", fmt.Errorf("type %d, not a string", typ)
	}
	if off < 0 || off >= dl {
		return "", fmt.Errorf("offset %d outside the %d-byte data store", off, dl)
	}
	buf := make([]byte, min(dl-off, rpmMaxString))
	n, err := r.ReadAt(buf, store+off)
	if n < len(buf) {
		return "", fmt.Errorf("reading the data store: %v", err)
	}
	s, _, ok := bytes.Cut(buf, []byte{0})
	if !ok {
		return "", fmt.Errorf("no NUL-terminated string within %d bytes", len(buf))
	}
	return string(s), nil
}
