package vfs

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cavaliergopher/cpio"

	"github.com/rocm-tools/kpack-lint/internal/testutil/pkgbuild"
)

// writeTarGz streams n empty members named name(i) into a tar.gz.
func writeTarGz(t testing.TB, n int, name func(int) string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "members.tar.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	zw, _ := gzip.NewWriterLevel(bw, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	for i := range n {
		if err := tw.WriteHeader(&tar.Header{Name: name(i), Mode: 0o644, Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	return p
}

// wholeProblem returns the one Problem for the whole input.
func wholeProblem(t *testing.T, tr *Tree) string {
	t.Helper()
	var msgs []string
	for _, p := range tr.Problems {
		if p.Path == "" {
			msgs = append(msgs, p.Msg)
		}
	}
	if len(msgs) != 1 {
		t.Fatalf("problems for the whole input: %q", msgs)
	}
	return msgs[0]
}

// PAX names of up to 1 MiB (archive/tar's bound) are refused past
// MaxMemberName at the first one: 100 members of 900 KB names (90 MB of
// names, which were all kept before) grow the heap by a few MiB.
func TestTarLongNamesMemory(t *testing.T) {
	long := strings.Repeat(strings.Repeat("d", 200)+"/", 4477)
	p := writeTarGz(t, 100, func(i int) string { return fmt.Sprintf("%sf%d", long, i) })
	runtime.GC()
	stop := peakMem()
	tr, err := Open([]string{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	heap, sys := stop()
	t.Logf("peak HeapInuse %.1f MiB, Sys grew %.1f MiB", float64(heap)/(1<<20), float64(sys)/(1<<20))
	if sys > 32<<20 {
		t.Errorf("Sys grew %d MiB, more than 32 MiB", sys>>20)
	}
	msg := wholeProblem(t, tr)
	want := fmt.Sprintf("bad tar.gz archive: member 1 has a %d-byte name (%q...), longer than 4096 bytes (vfs.MaxMemberName, Linux PATH_MAX); not read further",
		len(long)+2, long[:64])
	if msg != want {
		t.Errorf("problem %q\nwant    %q", msg, want)
	}
	if n := len(tr.Files()); n != 0 {
		t.Errorf("%d files", n)
	}
}

// A name of exactly MaxMemberName bytes is read; one byte more is not,
// and members before it stay. A hard-link target is bounded the same way.
func TestTarNameLimitEdge(t *testing.T) {
	at := strings.Repeat("a/", MaxMemberName/2-1) + "bc" // 4096 bytes
	tr := openTree(t, makeTar(t, "tar.gz", []node{reg(at, "x"), reg(at+"d", "y"), reg("after", "z")}))
	if got := paths(tr.Files()); got != at {
		t.Errorf("files %.80q", got)
	}
	if msg := wholeProblem(t, tr); !strings.HasPrefix(msg, "bad tar.gz archive: member 2 has a 4097-byte name (\"a/a/") {
		t.Errorf("problem %q", msg)
	}
	tr = openTree(t, makeTar(t, "tar", []node{reg("x", "x"), {path: "y", link: at + "d", hard: true}}))
	if msg := wholeProblem(t, tr); msg != `bad tar archive: member 2 "y" has a 4097-byte link target ("a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/"...), longer than 4096 bytes (vfs.MaxMemberName, Linux PATH_MAX); not read further` {
		t.Errorf("problem %q", msg)
	}
}

// A tarball of MaxArchiveMembers+1 empty members (a 1 MB tar.gz) is read
// to the limit, then is a Problem for the whole input.
func TestTarMemberLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 262,145 members")
	}
	p := writeTarGz(t, MaxArchiveMembers+1, func(i int) string { return fmt.Sprintf("m/%d", i) })
	tr := openTree(t, p)
	want := fmt.Sprintf("bad tar.gz archive: more than 262144 members (vfs.MaxArchiveMembers); not read past member 262144 (the last one %q)",
		fmt.Sprintf("m/%d", MaxArchiveMembers-1))
	if msg := wholeProblem(t, tr); msg != want {
		t.Errorf("problem %q\nwant    %q", msg, want)
	}
	if n := len(tr.Files()); n != MaxArchiveMembers {
		t.Errorf("%d files, want %d", n, MaxArchiveMembers)
	}
}

// Names of 4 KiB each pass MaxArchiveNameBytes at member 16,384: the
// input ends there, naming the member.
func TestTarNameBytesLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 64 MiB of names")
	}
	dir := strings.Repeat("n", 4000)
	name := func(i int) string { return fmt.Sprintf("%s/%095d", dir, i) } // 4,096 bytes
	p := writeTarGz(t, 20000, name)
	tr := openTree(t, p)
	n := MaxArchiveNameBytes / MaxMemberName
	want := fmt.Sprintf("bad tar.gz archive: the names and PAX records of members 1 to %d pass %d bytes in all (vfs.MaxArchiveNameBytes); not read from member %d (%q...) on",
		n+1, MaxArchiveNameBytes, n+1, name(n)[:64])
	if msg := wholeProblem(t, tr); msg != want {
		t.Errorf("problem %.200q", msg)
	}
	if got := len(tr.Files()); got != n {
		t.Errorf("%d files, want %d", got, n)
	}
}

// A .deb data.tar and an rpm cpio payload count members the same way;
// the Problem names the .deb member.
func TestPackageMemberLimits(t *testing.T) {
	long := strings.Repeat("x", MaxMemberName+1)
	members := pkgbuild.DebMembers(t, "gz", nil)
	members[2].Data = pkgbuild.Compress(t, "gz", tarBytes(t, []node{reg("ok", "1"), reg(long, "2")}))
	tr := openTree(t, pkgbuild.Write(t, "long.deb", pkgbuild.Ar(members)))
	if msg := wholeProblem(t, tr); msg != fmt.Sprintf("member data.tar.gz: bad tar.gz archive: member 2 has a 4097-byte name (%q...), longer than 4096 bytes (vfs.MaxMemberName, Linux PATH_MAX); not read further", long[:64]) {
		t.Errorf("deb problem %q", msg)
	}
	if testing.Short() {
		return
	}
	entries := make([]pkgbuild.CPIOEntry, MaxArchiveMembers+1)
	for i := range entries {
		entries[i] = pkgbuild.CPIOEntry{Header: cpio.Header{Name: fmt.Sprintf("./m/%d", i), Mode: cpio.TypeReg | 0o644}}
	}
	tr = openTree(t, pkgbuild.Write(t, "many.rpm", handRPM(t, "gzip", rpmTags("gzip"), entries)))
	want := fmt.Sprintf("payload of rocrand-5.3.3-4: bad cpio.gz archive: more than 262144 members (vfs.MaxArchiveMembers); not read past member 262144 (the last one %q)",
		fmt.Sprintf("./m/%d", MaxArchiveMembers-1))
	if msg := wholeProblem(t, tr); msg != want {
		t.Errorf("rpm problem %q\nwant        %q", msg, want)
	}
	if n := len(tr.Files()); n != MaxArchiveMembers {
		t.Errorf("rpm: %d files", n)
	}
}

// PAX records count against MaxArchiveNameBytes too: 80 members with a
// 1 MB comment each end the input at member 68 (67 MB of records fit).
func TestTarPAXRecordBytes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pax.tar.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	comment := strings.Repeat("c", 1000000)
	for i := range 80 {
		h := &tar.Header{Name: fmt.Sprintf("m/%d", i), Mode: 0o644, Typeflag: tar.TypeReg, Format: tar.FormatPAX,
			PAXRecords: map[string]string{"comment": comment}}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	zw.Close()
	f.Close()
	tr := openTree(t, p)
	if msg := wholeProblem(t, tr); !strings.HasPrefix(msg, "bad tar.gz archive: the names and PAX records of members 1 to 68 pass 67108864 bytes in all (vfs.MaxArchiveNameBytes); not read from member 68 (\"m/67\") on") {
		t.Errorf("problem %q", msg)
	}
	if n := len(tr.Files()); n != 67 {
		t.Errorf("%d files", n)
	}
}
