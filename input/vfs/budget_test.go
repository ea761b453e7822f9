package vfs

import (
	"archive/zip"
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/testutil/pkgbuild"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// budgetNodes are a package's files: a 3 MiB member nobody keeps, then an
// archive (the rpm-xz-payload-bomb recipe's shape, small).
var budgetNodes = []node{reg("usr/share/doc/big", strings.Repeat("\x00", 3<<20)), reg("usr/x/.kpack/x_gfx942.kpack", "KPAK")}

// budgetInputs writes budgetNodes as every compressed input kind.
func budgetInputs(t *testing.T) map[string]string {
	in := map[string]string{}
	for _, kind := range []string{"tar.gz", "tar.xz", "tar.zst"} {
		in[kind] = makeTar(t, kind, budgetNodes)
	}
	for _, comp := range []string{"gz", "xz", "zst"} {
		in["deb data.tar."+comp] = pkgbuild.Write(t, "b_"+comp+".deb", pkgbuild.Deb(t, comp, pkgFiles(budgetNodes)))
	}
	for _, comp := range []string{"gzip", "xz", "zstd"} {
		in["rpm "+comp] = pkgbuild.Write(t, "b-"+comp+".rpm", pkgbuild.RPM(t, comp, pkgFiles(budgetNodes)))
	}
	return in
}

// Every compressed stream kind draws on the Tree's budget: within it the
// input reads whole and the budget counts its stream (a tarball's exactly:
// one pass, nothing re-read); past it the input is a Problem for the whole
// input and the budget's error names the input and the limit.
func TestBudgetStreams(t *testing.T) {
	plainTar := int64(len(tarBytes(t, budgetNodes)))
	for name, p := range budgetInputs(t) {
		t.Run(name, func(t *testing.T) {
			b := inflate.New(8 << 20)
			tr, err := Open([]string{p}, Options{Budget: b})
			if err != nil {
				t.Fatal(err)
			}
			tr.Close()
			used := b.Used()
			if len(tr.Problems) != 0 || b.Err() != nil || used < 3<<20 || used > 3<<20+64<<10 {
				t.Fatalf("within budget: problems %v, err %v, used %d", tr.Problems, b.Err(), used)
			}
			if strings.HasPrefix(name, "tar.") && used != plainTar {
				t.Errorf("used %d, want the tar's %d bytes", used, plainTar)
			}

			b = inflate.New(1 << 20)
			tr, err = Open([]string{p}, Options{Budget: b})
			if err != nil {
				t.Fatal(err)
			}
			tr.Close()
			var le *inflate.LimitError
			if !errors.As(b.Err(), &le) || le.Limit != 1<<20 || !strings.HasPrefix(le.What, p+" (its ") {
				t.Fatalf("past budget: Err = %v", b.Err())
			}
			if len(tr.Problems) != 1 || tr.Problems[0].Path != "" || !strings.Contains(tr.Problems[0].Msg, "passed the run's budget of 1 MiB") {
				t.Fatalf("past budget: problems %v, want one for the whole input", tr.Problems)
			}
			if tr.Entry("usr/x/.kpack/x_gfx942.kpack") != nil {
				t.Error("the member after the budget was indexed")
			}
		})
	}
}

// A member not kept is decompressed again on Open, and that pass draws on
// the budget too.
func TestBudgetReread(t *testing.T) {
	p := makeTar(t, "tar.xz", budgetNodes)
	b := inflate.New(8 << 20)
	tr, err := Open([]string{p}, Options{Budget: b, Want: func(string, []byte) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	first := b.Used()
	if _, err := tr.Entry("usr/share/doc/big").Open(); err != nil || b.Used() < first+3<<20 {
		t.Fatalf("re-read: %v, used %d after %d", err, b.Used(), first)
	}
	_, err = tr.Entry("usr/share/doc/big").Open()
	var le *inflate.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("second re-read past the budget = %v, want a LimitError", err)
	}
}

// Deflated zip members draw on the budget when opened (held in memory or
// spilled) and when their head is read; past it Open fails with the
// budget's error naming the member.
func TestBudgetZipMembers(t *testing.T) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, n := range []string{"big/a", "big/b"} {
		f, _ := w.Create(n)
		f.Write(bytes.Repeat([]byte{0}, 3<<20))
	}
	w.Close()
	p := filepath.Join(t.TempDir(), "w.whl")
	p = writeTemp(t, filepath.Base(p), buf.Bytes())
	for _, maxMem := range []int64{0, 1 << 20} { // in memory, spilled
		b := inflate.New(4 << 20)
		tr, err := Open([]string{p}, Options{Budget: b, MaxMemberBytes: maxMem})
		if err != nil {
			t.Fatal(err)
		}
		if got := readEntry(t, tr.Entry("big/a")); len(got) != 3<<20 || b.Used() < 3<<20 {
			t.Fatalf("first member: %d bytes, used %d", len(got), b.Used())
		}
		_, err = tr.Entry("big/b").Open()
		var le *inflate.LimitError
		if !errors.As(err, &le) || le.What != p+` member "big/b"` || le.Limit != 4<<20 {
			t.Fatalf("max %d: second member past the budget = %v", maxMem, err)
		}
		tr.Close()
	}
}
