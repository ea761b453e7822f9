package vfs

import (
	"archive/tar"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/testutil/pkgbuild"
)

// pkgFiles turns test nodes into package members (folders implied by
// paths are listed first, as dpkg-deb and rpmbuild list them).
func pkgFiles(nodes []node) []pkgbuild.File {
	var out []pkgbuild.File
	seen := map[string]bool{}
	for _, n := range nodes {
		for d := filepath.Dir(n.path); d != "." && !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			out = append([]pkgbuild.File{pkgbuild.Dir(d)}, out...)
		}
		if n.link != "" {
			out = append(out, pkgbuild.Symlink(n.path, n.link))
		} else {
			out = append(out, pkgbuild.Reg(n.path, []byte(n.data)))
		}
	}
	return out
}

// installed is a package's content as installed: a ROCm library with its
// versioned symlinks, an archive, an absolute symlink, a document.
var installed = []node{
	reg("usr/lib/x86_64-linux-gnu/librocrand.so.1.1", "\x7fELF-rocrand"),
	symlink("usr/lib/x86_64-linux-gnu/librocrand.so.1", "librocrand.so.1.1"),
	reg("usr/lib/x86_64-linux-gnu/.kpack/rand_gfx942.kpack", "KPAK"),
	symlink("usr/lib64", "/usr/lib/x86_64-linux-gnu"),
	reg("usr/share/doc/librocrand1/copyright", "text"),
}

const installedPaths = "usr/lib/x86_64-linux-gnu/.kpack/rand_gfx942.kpack usr/lib/x86_64-linux-gnu/librocrand.so.1 " +
	"usr/lib/x86_64-linux-gnu/librocrand.so.1.1 usr/lib64 usr/share/doc/librocrand1/copyright"

// checkInstalled checks a tree read from a package holding installed.
func checkInstalled(t *testing.T, tr *Tree, kind string) {
	t.Helper()
	if len(tr.Inputs) != 1 || tr.Inputs[0].Kind != kind || len(tr.Problems) != 0 {
		t.Fatalf("inputs %+v problems %+v", tr.Inputs, tr.Problems)
	}
	if got := paths(tr.Files()); got != installedPaths {
		t.Fatalf("Files = %q\nwant    %q", got, installedPaths)
	}
	e, real, err := tr.Lookup("usr/lib64/librocrand.so.1")
	if err != nil || real != "usr/lib/x86_64-linux-gnu/librocrand.so.1.1" || readEntry(t, e) != "\x7fELF-rocrand" {
		t.Fatalf("Lookup = %v %q %v", e, real, err)
	}
	if got := readEntry(t, tr.Entry("usr/share/doc/librocrand1/copyright")); got != "text" {
		t.Errorf("copyright = %q", got)
	}
	if !tr.IsDir("usr/lib/x86_64-linux-gnu/.kpack") {
		t.Errorf("folder missing")
	}
}

// A .deb is read in place whatever its data.tar compression; members not
// kept by Want are re-read from the .deb on Open.
func TestDebKinds(t *testing.T) {
	for _, comp := range []string{"", "gz", "xz", "zst"} {
		t.Run("data.tar"+comp, func(t *testing.T) {
			p := pkgbuild.Write(t, "librocrand1_1.0_amd64.deb", pkgbuild.Deb(t, comp, pkgFiles(installed)))
			checkInstalled(t, openTree(t, p), "deb")
			tr, err := Open([]string{p}, Options{Want: func(string, []byte) bool { return false }})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			checkInstalled(t, tr, "deb")
		})
	}
}

// An uncompressed data.tar is served as sections of the .deb itself.
func TestDebPlainDataInPlace(t *testing.T) {
	p := pkgbuild.Write(t, "x.deb", pkgbuild.Deb(t, "", pkgFiles(installed)))
	tr := openTree(t, p)
	e := tr.Entry("usr/lib/x86_64-linux-gnu/librocrand.so.1.1")
	b := e.be.(*tarBackend)
	m := b.members[e.loc]
	raw, _ := os.ReadFile(p)
	if m.where != inArchive || string(raw[m.off:m.off+e.Size]) != "\x7fELF-rocrand" {
		t.Fatalf("member %+v", m)
	}
}

// Members that are absolute, climb out or are devices are refused as in
// a tarball, by the path the data.tar stores.
func TestDebRefusedMembers(t *testing.T) {
	files := []pkgbuild.File{pkgbuild.Reg("../../etc/evil", []byte("x")), pkgbuild.Reg("usr/lib/ok.so", []byte("ok"))}
	tarball := pkgbuild.Tar(t, files)
	// An absolute name and a device, written by hand (dpkg-deb writes neither).
	abs := tarBytes(t, []node{reg("/abs/olute", "y")})
	var dev bytes.Buffer
	tw := tar.NewWriter(&dev)
	tw.WriteHeader(&tar.Header{Name: "./dev/null", Typeflag: tar.TypeChar, Mode: 0o666})
	tw.Close()
	for name, data := range map[string][]byte{"climb": tarball, "abs": abs, "dev": dev.Bytes()} {
		members := pkgbuild.DebMembers(t, "gz", nil)
		members[2].Data = pkgbuild.Compress(t, "gz", data)
		tr := openTree(t, pkgbuild.Write(t, name+".deb", pkgbuild.Ar(members)))
		if len(tr.Problems) != 1 || tr.Problems[0].Path == "" {
			t.Errorf("%s: problems %+v", name, tr.Problems)
		}
	}
	tr := openTree(t, pkgbuild.Write(t, "c.deb", pkgbuild.Deb(t, "gz", files)))
	if got := paths(tr.Files()); got != "usr/lib/ok.so" || tr.Problems[0].Path != "./../../etc/evil" {
		t.Errorf("files %q problems %+v", got, tr.Problems)
	}
}

// Files that are not Debian binary packages are a Problem for the whole
// input (the CLI exits 2 naming it), with what is wrong.
func TestDebNotAPackage(t *testing.T) {
	good := pkgbuild.Deb(t, "xz", pkgFiles(installed))
	members := func(edit func([]pkgbuild.ArMember) []pkgbuild.ArMember) []byte {
		return pkgbuild.Ar(edit(pkgbuild.DebMembers(t, "xz", pkgFiles(installed))))
	}
	bigSize := append([]byte(nil), good...)
	copy(bigSize[8+48:8+58], "9999999999")
	badSize := append([]byte(nil), good...)
	copy(badSize[8+48:8+58], "12x       ")
	noTerm := append([]byte(nil), good...)
	copy(noTerm[8+58:8+60], "xx")
	corrupt := members(func(m []pkgbuild.ArMember) []pkgbuild.ArMember {
		m[2].Data = append([]byte(nil), m[2].Data...)
		m[2].Data[len(m[2].Data)/2] ^= 0xff
		return m
	})
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a Debian package: no ar archive magic"},
		{"zip", []byte("PK\x03\x04 not an ar"), "not a Debian package: no ar archive magic"},
		{"magic only", []byte("!<arch>\n"), "no data.tar member"},
		{"cut header", good[:40], "an ar member header at offset 8 is cut off after 32 of 60 bytes"},
		{"cut data", good[:len(good)-100], "truncated Debian package: ar member \"data.tar.xz\" declares"},
		{"huge size", bigSize, "ar member \"debian-binary\" declares 9999999999 bytes"},
		{"bad size", badSize, "size \"12x\" is not a decimal number"},
		{"no terminator", noTerm, "no \"`\\n\" terminator"},
		{"not debian-binary first", members(func(m []pkgbuild.ArMember) []pkgbuild.ArMember { return m[1:] }), "the first ar member is \"control.tar.gz\", not debian-binary"},
		{"format 3", members(func(m []pkgbuild.ArMember) []pkgbuild.ArMember { m[0].Data = []byte("3.0\n"); return m }), "debian-binary says format \"3.0\""},
		{"no data", members(func(m []pkgbuild.ArMember) []pkgbuild.ArMember { return m[:2] }), "no data.tar member"},
		{"bzip2", members(func(m []pkgbuild.ArMember) []pkgbuild.ArMember { m[2].Name = "data.tar.bz2"; return m }), "ar member data.tar.bz2: compression not read"},
		{"corrupt xz", corrupt, "member data.tar.xz: bad tar.xz"},
		{"gz named xz", members(func(m []pkgbuild.ArMember) []pkgbuild.ArMember {
			m[2].Data = pkgbuild.Compress(t, "gz", pkgbuild.Tar(t, nil))
			return m
		}), "member data.tar.xz: bad tar.xz stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := openTree(t, pkgbuild.Write(t, "bad.deb", tc.data))
			if len(tr.Problems) == 0 || tr.Problems[0].Path != "" || !strings.Contains(tr.Problems[0].Msg, tc.want) {
				t.Fatalf("problems %+v\nwant %q", tr.Problems, tc.want)
			}
		})
	}
}

// Several packages overlay in the order given, like device wheels.
func TestDebOverlay(t *testing.T) {
	a := pkgbuild.Write(t, "a.deb", pkgbuild.Deb(t, "xz", pkgFiles(installed)))
	b := pkgbuild.Write(t, "b.deb", pkgbuild.Deb(t, "zst", pkgFiles([]node{
		reg("usr/lib/x86_64-linux-gnu/.kpack/rand_gfx942.kpack", "KPAK-v2"),
		reg("usr/lib/x86_64-linux-gnu/.kpack/rand_gfx1100.kpack", "KPAK"),
	})))
	tr := openTree(t, a, b)
	e := tr.Entry("usr/lib/x86_64-linux-gnu/.kpack/rand_gfx942.kpack")
	if e.Input != 1 || readEntry(t, e) != "KPAK-v2" || len(tr.Replaced) != 1 || tr.Replaced[0].Old.Input != 0 {
		t.Fatalf("entry %+v replaced %+v", e, tr.Replaced)
	}
	if same, err := SameContent(tr.Replaced[0].Old, tr.Replaced[0].New); same || err != nil {
		t.Errorf("SameContent = %v, %v", same, err)
	}
}

// A package built by Debian's own dpkg-deb reads the same (skipped where
// dpkg-deb is absent).
func TestDebFromDpkgDeb(t *testing.T) {
	dpkg, err := exec.LookPath("dpkg-deb")
	if err != nil {
		t.Skip("dpkg-deb not installed")
	}
	root := makeDir(t, append(installed, reg("DEBIAN/control",
		"Package: librocrand1\nVersion: 1.0\nArchitecture: amd64\nMaintainer: t <t@example.org>\nDescription: test\n")))
	for _, comp := range []string{"xz", "gzip", "zstd", "none"} {
		p := filepath.Join(t.TempDir(), "x.deb")
		out, err := exec.Command(dpkg, "--root-owner-group", "-Z"+comp, "--build", root, p).CombinedOutput()
		if err != nil {
			if comp == "zstd" && strings.Contains(string(out), "zstd") {
				continue // dpkg before 1.21.18 has no zstd
			}
			t.Fatalf("dpkg-deb -Z%s: %v\n%s", comp, err, out)
		}
		checkInstalled(t, openTree(t, p), "deb")
	}
}

func FuzzDebData(f *testing.F) {
	f.Add(pkgbuild.Ar(pkgbuild.DebMembers(f, "", pkgFiles(installed))))
	f.Add([]byte("!<arch>\ndebian-binary   0           0     0     100644  4         `\n2.0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, kind, msg := debData(bytes.NewReader(data), int64(len(data)))
		if msg == "" && (kind == "" || m.off < 0 || m.off+m.size > int64(len(data))) {
			t.Fatalf("member %+v kind %q from %d bytes", m, kind, len(data))
		}
	})
}
