package lint_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/vfs/xzra"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/pkgbuild"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
)

// TestOverlayUnreadable: a file shipped by a folder and by a tar.xz whose
// copy does not decode (a corrupt block inside it) is not reported as
// "different bytes": KPL004 says the two could not be compared and why,
// naming the block.
func TestOverlayUnreadable(t *testing.T) {
	var text bytes.Buffer
	for i := 0; text.Len() < 1<<20; i++ {
		fmt.Fprintf(&text, "line %d of a file both inputs ship\n", i*7919%100003)
	}
	files := []pkgbuild.File{pkgbuild.Dir("usr"), pkgbuild.Dir("usr/lib"), pkgbuild.Reg("usr/lib/data.bin", text.Bytes())}
	xz := pkgbuild.CompressBlocks(t, pkgbuild.Tar(t, files), 64<<10)
	ix, err := xzra.ReadIndex(bytes.NewReader(xz), int64(len(xz)))
	if err != nil {
		t.Fatal(err)
	}
	b := ix.Blocks[len(ix.Blocks)/2]
	xz[b.Off+b.Total()/2] ^= 0x55
	tarball := pkgbuild.Write(t, "bad.tar.xz", xz)
	dir := testtree.Write(t, map[string][]byte{"usr/lib/data.bin": text.Bytes()})
	fs := runCheck(t, lint.Config{Targets: []string{"gfx942"}}, dir, tarball)
	found := false
	for _, f := range fs {
		if f.RuleID == "KPL004" && f.Location.Path == "usr/lib/data.bin" {
			found = strings.Contains(f.Message, "could not be compared") && strings.Contains(f.Message, fmt.Sprintf("block %d", len(ix.Blocks)/2+1)) &&
				!strings.Contains(f.Message, "different bytes")
			if !found {
				t.Errorf("KPL004: %s", f.Message)
			}
		}
	}
	if !found {
		t.Errorf("no KPL004 for usr/lib/data.bin in %d findings", len(fs))
	}
}
