package vfs

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"
)

// compressors by kind; tar.zst is added by zstd_test.go.
var compressors = map[string]func(io.Writer) (io.WriteCloser, error){
	"tar": func(w io.Writer) (io.WriteCloser, error) { return nopWriteCloser{w}, nil },
	"tar.gz": func(w io.Writer) (io.WriteCloser, error) {
		return gzip.NewWriterLevel(w, gzip.BestSpeed)
	},
	"tar.xz": func(w io.Writer) (io.WriteCloser, error) { return xz.NewWriter(w) },
}

var extOf = map[string]string{"tar": ".tar", "tar.gz": ".tgz", "tar.xz": ".tar.xz", "tar.zst": ".tar.zst"}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// tarBytes renders nodes as an uncompressed tar. Paths ending in "/" are
// directories; node.hard makes a hard link to node.link.
func tarBytes(t testing.TB, nodes []node) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range nodes {
		h := &tar.Header{Name: n.path, Mode: 0o644, Size: int64(len(n.data)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		switch {
		case strings.HasSuffix(n.path, "/"):
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		case n.hard:
			h.Typeflag, h.Linkname, h.Size = tar.TypeLink, n.link, 0
		case n.link != "":
			h.Typeflag, h.Linkname = tar.TypeSymlink, n.link
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(n.data)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// makeTar writes nodes as a tar of the given kind in a temp dir.
func makeTar(t testing.TB, kind string, nodes []node) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in"+extOf[kind])
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := compressors[kind](f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(tarBytes(t, nodes)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// tarTree is soTree plus directory members, a "./" name and a hard link
// (which must follow its target).
var tarTree = append(append([]node{{path: "lib/"}, {path: ".kpack/"}, reg("./share/doc/README", "readme")}, soTree...),
	node{path: "bin/tool2", link: "bin/tool", hard: true})

func TestTarKinds(t *testing.T) {
	for kind := range compressors {
		t.Run(kind, func(t *testing.T) {
			tr := openTree(t, makeTar(t, kind, tarTree))
			if tr.Inputs[0].Kind != kind || len(tr.Problems) != 0 {
				t.Fatalf("inputs %+v problems %+v", tr.Inputs, tr.Problems)
			}
			checkTarTree(t, tr)
		})
	}
}

func checkTarTree(t *testing.T, tr *Tree) {
	t.Helper()
	if got, want := paths(tr.Files()), ".kpack/foo_gfx942.kpack abs bin/tool bin/tool2 lib/libfoo.so lib/libfoo.so.5 lib64 share/doc/README"; got != want {
		t.Fatalf("Files = %q\nwant    %q", got, want)
	}
	e, real, err := tr.Lookup("lib64/libfoo.so")
	if err != nil || real != "lib/libfoo.so.5" || readEntry(t, e) != "ELF-foo" {
		t.Fatalf("Lookup = %v %q %v", e, real, err)
	}
	if got := readEntry(t, tr.Entry("bin/tool2")); got != "tool" {
		t.Errorf("hard link content %q", got)
	}
	checkFS(t, tr, "lib/libfoo.so.5", "lib/libfoo.so", ".kpack/foo_gfx942.kpack", "bin/tool", "bin/tool2", "lib64", "abs", "share/doc/README")
}

func TestTarRefused(t *testing.T) {
	nodes := []node{
		reg("../evil", "x"), reg("/abs", "y"), reg("a/../../up", "z"),
		reg("ok", "fine"),
		{path: "hl", link: "../ok", hard: true},
		{path: "hl2", link: "missing", hard: true},
		{path: "hl3", link: "ok", hard: true},
	}
	for _, kind := range []string{"tar", "tar.gz"} {
		tr := openTree(t, makeTar(t, kind, nodes))
		if got := paths(tr.Files()); got != "hl3 ok" {
			t.Errorf("%s: Files = %q", kind, got)
		}
		var got []string
		for _, p := range tr.Problems {
			got = append(got, p.Path)
		}
		if strings.Join(got, " ") != "../evil /abs a/../../up hl hl2" {
			t.Errorf("%s: Problems = %+v", kind, tr.Problems)
		}
	}
}

func TestTarSkipsDevices(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "dev/null", Typeflag: tar.TypeChar, Mode: 0o666})
	tw.WriteHeader(&tar.Header{Name: "fifo", Typeflag: tar.TypeFifo, Mode: 0o666})
	tw.Close()
	p := filepath.Join(t.TempDir(), "dev.tar")
	os.WriteFile(p, buf.Bytes(), 0o644)
	tr := openTree(t, p)
	// Skipped, but named (as a directory input names them), never dropped silently.
	if len(tr.Files()) != 0 || len(tr.Problems) != 2 || !strings.Contains(tr.Problems[1].Msg, "special file") {
		t.Fatalf("files %v problems %v", paths(tr.Files()), tr.Problems)
	}
}

func TestTarWantAndSpill(t *testing.T) {
	big := strings.Repeat("B", 5000)
	p := makeTar(t, "tar.gz", []node{reg("a.so", "\x7fELF"+big), reg("b.txt", "text"), reg("c.so", "\x7fELFsmall"), reg("d.txt", big)})
	opt := Options{SmallMember: 100, Want: func(p string, head []byte) bool { return bytes.HasPrefix(head, []byte("\x7fELF")) }}
	tr, err := Open([]string{p}, opt)
	if err != nil {
		t.Fatal(err)
	}
	b := tr.backends[0].(*tarBackend)
	spillName := b.spill.Name()
	where := map[string]int{}
	for _, e := range tr.Files() {
		where[e.Path] = b.members[e.loc].where
	}
	if where["a.so"] != inSpill || where["b.txt"] != notKept || where["c.so"] != inMemory || where["d.txt"] != notKept {
		t.Errorf("where = %v", where)
	}
	want := map[string]string{"a.so": "\x7fELF" + big, "b.txt": "text", "c.so": "\x7fELFsmall", "d.txt": big}
	for _, e := range tr.Files() {
		if got := readEntry(t, e); got != want[e.Path] {
			t.Errorf("%s: %d bytes, want %d", e.Path, len(got), len(want[e.Path]))
		}
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spillName); !os.IsNotExist(err) {
		t.Errorf("spill file not removed: %v", err)
	}
}

func TestTarTruncated(t *testing.T) {
	raw := tarBytes(t, []node{reg("first", "1"), reg("second", strings.Repeat("2", 3000))})
	for _, kind := range []string{"tar", "tar.gz"} {
		var buf bytes.Buffer
		w, _ := compressors[kind](&buf)
		w.Write(raw[:2048])
		w.Close()
		p := filepath.Join(t.TempDir(), "cut"+extOf[kind])
		os.WriteFile(p, buf.Bytes(), 0o644)
		tr := openTree(t, p)
		if got := paths(tr.Files()); got != "first" || len(tr.Problems) != 1 {
			t.Errorf("%s: files %q problems %+v", kind, got, tr.Problems)
		}
	}
}

func TestBadCompressedStream(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.tar.gz")
	os.WriteFile(p, []byte("not gzip at all"), 0o644)
	tr := openTree(t, p)
	if len(tr.Problems) != 1 || tr.Problems[0].Path != "" {
		t.Fatalf("problems %+v", tr.Problems)
	}
}

func TestOverlayAcrossKinds(t *testing.T) {
	a := makeTar(t, "tar.gz", []node{reg("lib/libfoo.so.5", "v1"), symlink("lib/libfoo.so", "libfoo.so.5")})
	b := makeZip(t, "b.whl", []node{reg("lib/libfoo.so", "copy")})
	tr := openTree(t, a, b)
	e, real, err := tr.Lookup("lib/libfoo.so")
	if err != nil || real != "lib/libfoo.so" || e.Input != 1 || e.IsLink() {
		t.Fatalf("Lookup = %+v %q %v", e, real, err)
	}
	if len(tr.Replaced) != 1 || !tr.Replaced[0].Old.IsLink() {
		t.Fatalf("Replaced = %+v", tr.Replaced)
	}
	if same, err := SameContent(tr.Replaced[0].Old, tr.Replaced[0].New); same || err != nil {
		t.Errorf("SameContent = %v %v", same, err)
	}
}

func FuzzTarIndex(f *testing.F) {
	f.Add(tarBytes(f, tarTree))
	f.Add(tarBytes(f, []node{reg("../x", "1"), {path: "h", link: "x", hard: true}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, kind := range []string{"tar", "tar.gz"} {
			var buf bytes.Buffer
			w, _ := compressors[kind](&buf)
			w.Write(data)
			w.Close()
			p := filepath.Join(t.TempDir(), "f"+extOf[kind])
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			tr, err := Open([]string{p}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tr.Files() {
				if ra, err := e.Open(); err == nil {
					io.Copy(io.Discard, io.NewSectionReader(ra, 0, ra.Size()))
					ra.Close()
				}
				tr.Lookup(e.Path)
			}
			if err := tr.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
				t.Fatal(err)
			}
		}
	})
}
