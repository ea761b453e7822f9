package xzra

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	uxz "github.com/ulikunitz/xz"
)

// tarball writes a tar of the named files (sizes in bytes, contents from
// sample), one with a 200-byte name (a PAX header) and a symlink.
func tarball(sizes []int) ([]byte, map[string][]byte) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	files := map[string][]byte{}
	for i, n := range sizes {
		name := "lib/f" + string(rune('a'+i%26)) + strings.Repeat("x", i)
		if i == 1 {
			name = "long/" + strings.Repeat("n", 200)
		}
		data := sample(n, uint64(100+i))
		files[name] = data
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(n), Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			panic(err) // writing to memory
		}
		tw.Write(data)
	}
	tw.WriteHeader(&tar.Header{Name: "lib/link", Linkname: "fa", Typeflag: tar.TypeSymlink})
	tw.Close()
	return buf.Bytes(), files
}

// TestMembers: over a Reader, Members finds every header with the offset
// of its data (the bytes there are the member's), PAX long names
// included, and decodes only a little of blocks that hold no header.
func TestMembers(t *testing.T) {
	tb, files := tarball([]int{1000, 70000, 300000, 5, 400000, 0, 123456})
	f := compress(t, tb, 32768, uxz.CRC64)
	x := open(t, f, Options{Workers: -1})
	seen := map[string]bool{}
	var link string
	err := Members(x, x.Size(), func(hdr *tar.Header, off int64, _ *tar.Reader) error {
		if hdr.Typeflag == tar.TypeSymlink {
			link = hdr.Linkname
			return nil
		}
		want := files[hdr.Name]
		got := make([]byte, hdr.Size)
		if _, err := x.ReadAt(got, off); err != nil && !(err == io.EOF && len(got) == 0) || !bytes.Equal(got, want) {
			t.Errorf("%s at %d: %v, equal %v", hdr.Name, off, err, bytes.Equal(got, want))
		}
		seen[hdr.Name] = true
		return nil
	})
	if err != nil || len(seen) != len(files) || link != "fa" {
		t.Fatalf("%v: %d of %d members, link %q", err, len(seen), len(files), link)
	}

	y := open(t, f, Options{Workers: -1})
	n := 0
	if err := Members(y, y.Size(), func(*tar.Header, int64, *tar.Reader) error { n++; return nil }); err != nil || n != 8 {
		t.Fatalf("listing: %d members, %v", n, err)
	}
	if st := y.Stats(); st.Decoded*2 > y.Size() {
		t.Errorf("listing decoded %d of %d bytes", st.Decoded, y.Size())
	}
	stop := errors.New("stop")
	if err := Members(y, y.Size(), func(*tar.Header, int64, *tar.Reader) error { return stop }); err != stop {
		t.Errorf("fn's error: %v", err)
	}
}
