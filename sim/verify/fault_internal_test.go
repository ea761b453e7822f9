//go:build unix

package verify

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
)

// TestDoSafeFault: a worker decoding frames from a mapped window whose
// file shrank meanwhile fails those objects with IO_ERROR and a problem,
// instead of the process (the scan's own fault is TestVerifyArchiveShrinks).
func TestDoSafeFault(t *testing.T) {
	ks := codeobjtest.NoiseKernels(3, 8, 32<<10, "gfx942") // 32 KiB frames that do not compress
	dir := t.TempDir()
	p := filepath.Join(dir, "g_gfx942.kpack")
	if err := os.WriteFile(p, kpacktest.Build(kpacktest.Spec{Group: "g", Scheme: kpack.SchemeZstd, Kernels: ks}), 0o644); err != nil {
		t.Fatal(err)
	}
	tree, err := vfs.Open([]string{dir}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	a := model.Load(tree).Archives[0]
	r, err := a.Entry.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var j job
	if _, err := a.Info.ScanFrames(&source{r: r, bufs: newBufPool(1)}, 1<<30, 1<<30, func(w kpack.Window, fs []kpack.ScanFrame) error {
		j = job{s: newObjects(a), refs: newEntries(a.Info), frames: fs, win: w}
		return nil
	}); err != nil || len(j.frames) != len(ks) || j.win.Release == nil {
		t.Fatalf("scan: %v, %d frames", err, len(j.frames))
	}
	defer j.win.Done()
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	opt := Options{Workers: 1}.withDefaults()
	w := newWorker(opt, newBudget(opt.MaxMemory), newProgress(nil, 0, 0))
	defer w.close()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	w.doSafe(j)
	for i := range ks {
		if o, ok := j.s.object(uint32(i)); !ok || o.Code != kpack.IOError {
			t.Errorf("object %d = %+v (set %v), want IO_ERROR", i, o, ok)
		}
	}
	if len(j.s.problems) != 1 {
		t.Errorf("problems %v, want one", j.s.problems)
	}
}
