package model

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/input/vfs"
)

// hardlink-archives: hard links of one archive are parsed once and share
// the parsed TOC; the inventory lists every path and counts the bytes of
// each as a copy would, so it equals that of a tree of plain copies.
func TestHardLinkedArchivesParsedOnce(t *testing.T) {
	data := kpacktest.Build(kpacktest.Spec{Group: "g", Kernels: []kpacktest.Kernel{
		{Key: "k#0", Arch: "gfx942", Data: []byte("0123456789")},
		{Key: "k#1", Arch: "gfx942", Data: []byte("01234")},
	}})
	links, copies := t.TempDir(), t.TempDir()
	for i, name := range []string{"g_gfx942.kpack", "h_gfx942.kpack", "i_gfx942.kpack"} {
		if err := os.WriteFile(filepath.Join(copies, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := os.WriteFile(filepath.Join(links, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Link(filepath.Join(links, "g_gfx942.kpack"), filepath.Join(links, name)); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
	load := func(dir string) *Build {
		tree, err := vfs.Open([]string{dir}, vfs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tree.Close() })
		return Load(tree)
	}
	lb, cb := load(links), load(copies)
	if len(lb.Archives) != 3 || lb.Archives[0].Info == nil || lb.Archives[0].Info != lb.Archives[2].Info {
		t.Fatalf("linked archives: %d, infos not shared", len(lb.Archives))
	}
	if lb.Archives[1].Path != "h_gfx942.kpack" || lb.Archives[1].NameGroup != "h" {
		t.Errorf("second link read as %q (group %q)", lb.Archives[1].Path, lb.Archives[1].NameGroup)
	}
	if cb.Archives[0].Info == cb.Archives[1].Info {
		t.Error("plain copies share a parsed archive")
	}
	got, want := lb.Inventory(nil), cb.Inventory(nil)
	if !reflect.DeepEqual(got, want) || len(got) != 1 || got[0].Bytes != 45 || got[0].Kernels != 2 {
		t.Errorf("inventory of links %+v, of copies %+v (want 2 kernels, 45 bytes, 3 archives)", got, want)
	}
}
