//go:build unix

package vfs

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/vfs/xzra"
	"github.com/rocm-tools/kpack-lint/internal/testutil/pkgbuild"
)

// xzBenchFiles are a package of a ROCm library as distributions ship it:
// a 48 MiB host library holding 24 uncompressed offload bundles of
// code-like bytes (a host entry and three device entries of 512 KiB
// each), which xz compresses about 3:1, plus a few small files.
var xzBenchFiles = sync.OnceValue(func() []pkgbuild.File {
	var bundles [][]byte
	for i := range 24 {
		var es []hostbintest.Entry
		es = append(es, hostbintest.Entry{ID: hostbintest.HostEntry})
		for j, arch := range []string{"gfx90a", "gfx942", "gfx1100"} {
			es = append(es, hostbintest.Entry{ID: "hipv4-amdgcn-amd-amdhsa--" + arch, Data: codeLike(512<<10, uint64(10*i+j))})
		}
		bundles = append(bundles, hostbintest.BundleOf(es...))
	}
	return []pkgbuild.File{
		pkgbuild.Dir("usr"), pkgbuild.Dir("usr/lib"), pkgbuild.Dir("usr/share/doc/libx"),
		pkgbuild.Reg("usr/share/doc/libx/copyright", bytes.Repeat([]byte("license text\n"), 200)),
		pkgbuild.Reg("usr/lib/libx.so.1", hostbintest.EmbeddedELF(bundles, true)),
		pkgbuild.Symlink("usr/lib/libx.so", "libx.so.1"),
		pkgbuild.Reg("usr/share/doc/libx/changelog.gz", codeLike(64<<10, 99)),
	}
})

// xzBenchInputs writes the package as a .tar.xz cut into 4 MiB blocks
// (xz -6 -T1 --block-size=4MiB when XZ Utils is installed, else
// github.com/ulikunitz/xz), the same as one block, and extracted.
type xzBenchInputs struct{ blocks, oneBlock, tree string }

var xzBench struct {
	once sync.Once
	in   xzBenchInputs
	err  error
}

func benchInputs(b *testing.B) xzBenchInputs {
	xzBench.once.Do(func() {
		dir, err := os.MkdirTemp("", "kpack-lint-xzbench-*")
		if err != nil {
			xzBench.err = err
			return
		}
		files := xzBenchFiles()
		tb := pkgbuild.Tar(b, files)
		in := xzBenchInputs{blocks: filepath.Join(dir, "blocks.tar.xz"), oneBlock: filepath.Join(dir, "one.tar.xz"), tree: filepath.Join(dir, "tree")}
		for _, w := range []struct {
			path  string
			block int64
		}{{in.blocks, 4 << 20}, {in.oneBlock, 0}} {
			data, err := xzCompress(b, tb, w.block)
			if err == nil {
				err = os.WriteFile(w.path, data, 0o644)
			}
			if err != nil {
				xzBench.err = err
				return
			}
		}
		for _, f := range files {
			p := filepath.Join(in.tree, f.Path)
			switch {
			case f.Dir:
				err = os.MkdirAll(p, 0o755)
			case f.Link != "":
				err = os.Symlink(f.Link, p)
			default:
				err = os.WriteFile(p, f.Data, 0o644)
			}
			if err != nil {
				xzBench.err = err
				return
			}
		}
		xzBench.in = in
	})
	if xzBench.err != nil {
		b.Fatal(xzBench.err)
	}
	return xzBench.in
}

// xzCompress compresses data as xz, in blocks of block bytes (0: one).
func xzCompress(b *testing.B, data []byte, block int64) ([]byte, error) {
	if _, err := exec.LookPath("xz"); err == nil {
		args := []string{"-6", "-T1", "-c"}
		if block > 0 {
			args = append(args, fmt.Sprintf("--block-size=%d", block))
		}
		cmd := exec.Command("xz", args...)
		cmd.Stdin = bytes.NewReader(data)
		return cmd.Output()
	}
	if block == 0 {
		return pkgbuild.Compress(b, "xz", data), nil
	}
	return pkgbuild.CompressBlocks(b, data, block), nil
}

// BenchmarkXZ reads the package as check does (every member's first 64
// bytes, the host library's ELF headers and every bundle's entry table)
// and as --deep does (every member whole): read in place through the
// block index, streamed (the same tarball as one xz block), and
// extracted; and xz -dc -T1 of the tarball (XZ Utils, liblzma) for
// scale; in place with each decoder: the Go one, liblzma, xz processes.
// cpu-s/op is the CPU of this process and its children (of xz for
// xz-dc), so that decoding on both cores shows as ns/op below cpu-s/op.
func BenchmarkXZ(b *testing.B) {
	in := benchInputs(b)
	lib, xz := Options{Liblzma: xzra.HaveLiblzma()}, Options{XZ: xzra.FindXZ()}
	for _, c := range []struct {
		name, path string
		deep       bool
		opt        Options
	}{
		{"in-place/check", in.blocks, false, Options{}}, {"in-place-liblzma/check", in.blocks, false, lib},
		{"in-place-xz/check", in.blocks, false, xz},
		{"streamed/check", in.oneBlock, false, Options{}}, {"streamed-liblzma/check", in.oneBlock, false, lib},
		{"extracted/check", in.tree, false, Options{}},
		{"in-place/deep", in.blocks, true, Options{}}, {"in-place-liblzma/deep", in.blocks, true, lib},
		{"in-place-xz/deep", in.blocks, true, xz},
		{"streamed/deep", in.oneBlock, true, Options{}}, {"streamed-liblzma/deep", in.oneBlock, true, lib},
		{"extracted/deep", in.tree, true, Options{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			if strings.Contains(c.name, "liblzma") && !c.opt.Liblzma || strings.Contains(c.name, "-xz") && c.opt.XZ == "" {
				b.Skip("no liblzma, or no xz on PATH")
			}
			start := cpuSeconds(syscall.RUSAGE_SELF) + cpuSeconds(syscall.RUSAGE_CHILDREN)
			for range b.N {
				benchRead(b, c.path, c.deep, c.opt)
			}
			b.ReportMetric((cpuSeconds(syscall.RUSAGE_SELF)+cpuSeconds(syscall.RUSAGE_CHILDREN)-start)/float64(b.N), "cpu-s/op")
		})
	}
	b.Run("xz-dc-T1", func(b *testing.B) {
		if _, err := exec.LookPath("xz"); err != nil {
			b.Skip("xz not installed")
		}
		start := cpuSeconds(syscall.RUSAGE_CHILDREN)
		for range b.N {
			cmd := exec.Command("xz", "-dc", "-T1", in.blocks)
			cmd.Stdout = io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((cpuSeconds(syscall.RUSAGE_CHILDREN)-start)/float64(b.N), "cpu-s/op")
	})
}

// benchRead opens the input and reads it as check (or --deep) does.
func benchRead(b *testing.B, path string, deep bool, opt Options) {
	opt.Want = func(p string, head []byte) bool { _, host := hostbin.Sniff(head); return host }
	if deep {
		opt.Want = nil // keep all
	}
	tr, err := Open([]string{path}, opt)
	if err != nil || len(tr.Problems) != 0 {
		b.Fatal(err, tr.Problems)
	}
	defer tr.Close()
	bundles := 0
	for _, e := range tr.Files() {
		if e.IsLink() {
			continue
		}
		head, err := e.Head(64)
		if err != nil {
			b.Fatal(err)
		}
		if _, host := hostbin.Sniff(head); !host && !deep {
			continue
		}
		r, err := e.Open()
		if err != nil {
			b.Fatal(err)
		}
		if deep {
			if _, err := io.Copy(io.Discard, io.NewSectionReader(r, 0, r.Size())); err != nil {
				b.Fatal(err)
			}
		} else {
			bin, err := hostbin.Read(r, r.Size())
			if err != nil {
				b.Fatal(err)
			}
			bundles += len(bin.Bundles)
		}
		r.Close()
	}
	if !deep && bundles != 24 {
		b.Fatalf("%d bundles read, want 24", bundles)
	}
}

func cpuSeconds(who int) float64 {
	var r syscall.Rusage
	syscall.Getrusage(who, &r)
	return float64(r.Utime.Sec+r.Stime.Sec) + float64(r.Utime.Usec+r.Stime.Usec)/1e6
}
