//go:build unix

package benchtree_test

import (
	"bytes"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/internal/testutil/benchtree"
)

// BenchmarkDeepFrames measures what `check --deep` costs besides
// decoding: part=decoder decodes every zstd frame of the tree's archives
// and nothing else (each archive mapped whole, its frames decoded by
// kpack.FrameDecoder into a reused buffer, GOMAXPROCS goroutines taking
// archives in turn), part=product runs `check --deep` in-process (as
// BenchmarkCheckDeep). Both report cpu-ns/entry over the same TOC
// entries: product / decoder is the product's CPU against the decoder's
// alone.
func BenchmarkDeepFrames(b *testing.B) {
	for _, shape := range []string{"single", "therock"} {
		b.Run(shape+"/part=decoder", func(b *testing.B) { benchDecoderAlone(b, shape) })
		b.Run(shape+"/part=product", func(b *testing.B) { benchCLI(b, shape, "--deep") })
	}
}

// archiveFrames is one archive's frames: file offset, compressed size and
// the original_size a TOC entry gives each.
type archiveFrames struct {
	path  string
	off   []uint64
	size  []uint32
	want  []uint64
	limit int // largest want
}

func benchDecoderAlone(b *testing.B, shape string) {
	dir, m := benchTree(b, shape)
	archives := treeFrames(b, filepath.Join(dir, benchtree.TreeDir))
	b.SetBytes(m.ObjectBytes)
	workers := runtime.GOMAXPROCS(0)
	cpu0 := cpuTime()
	for b.Loop() {
		next := make(chan *archiveFrames)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fd := kpack.NewFrameDecoder(0)
				defer fd.Close()
				var buf []byte
				for a := range next {
					decodeArchive(b, fd, a, &buf)
				}
			}()
		}
		for i := range archives {
			next <- &archives[i]
		}
		close(next)
		wg.Wait()
	}
	reportPerEntry(b, m.Entries, cpu0)
}

// decodeArchive maps a's file and decodes each of its frames.
func decodeArchive(b *testing.B, fd *kpack.FrameDecoder, a *archiveFrames, buf *[]byte) {
	f, err := os.Open(a.path)
	if err != nil {
		b.Error(err)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		b.Error(a.path, err)
		return
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		b.Error(err)
		return
	}
	defer syscall.Munmap(data)
	if cap(*buf) < a.limit+kpack.FrameSlack {
		*buf = make([]byte, 0, a.limit+kpack.FrameSlack)
	}
	for i, off := range a.off {
		if _, err := fd.Decode(data[off:off+uint64(a.size[i])], a.want[i], *buf); err != nil {
			b.Error(a.path, err)
			return
		}
	}
}

// treeFrames lists the frames of every zstd archive under root that a
// TOC entry refers to (by path).
func treeFrames(b *testing.B, root string) []archiveFrames {
	var out []archiveFrames
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || filepath.Ext(p) != ".kpack" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		a, err := kpack.OpenOptions(bytes.NewReader(data), int64(len(data)), kpack.Options{})
		if err != nil || a.Scheme != kpack.SchemeZstd {
			return nil // what --deep reports, not decodes
		}
		want := map[uint32]uint64{}
		for _, list := range a.Kernels {
			for _, ae := range list {
				want[ae.Ordinal] = ae.OriginalSize
			}
		}
		af := archiveFrames{path: p}
		for _, ord := range slices.Sorted(maps.Keys(want)) {
			off, size, ok := a.Frame(ord)
			if !ok {
				continue
			}
			af.off, af.size, af.want = append(af.off, off), append(af.size, size), append(af.want, want[ord])
			af.limit = max(af.limit, int(min(want[ord], math.MaxInt32)))
		}
		out = append(out, af)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return out
}
