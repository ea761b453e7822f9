//go:build unix

package xzra

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
)

// TestDebianDebs measures the access patterns of check on the data.tar.xz
// of real Debian packages, side by side with xz -dc -T1 in one run. It runs
// when XZRA_DEBS names a folder of .deb files (e.g. Debian 13's ROCm
// packages librccl1, librocblas0 and librocsolver0); XZRA_DEB_MATCH picks
// some by substring. Run with -v to see the table:
//
//	XZRA_DEBS=/path/to/debs go test -run TestDebianDebs -v -timeout 1h ./input/vfs/xzra
//
// Patterns (CPU is user+sys of this process, xz's of its own):
//   - xz -T1: xz -dc -T1 of the member to /dev/null, the whole stream.
//   - list+64K: every tar header, and the first 64 KiB of every member.
//   - check: every tar header; the first 64 bytes of every member; for
//     host ELF/PE binaries hostbin.Read (ELF header, section headers,
//     .hipFatBinSegment wrappers, the entry table of every offload
//     bundle, .rocm_kpack_ref); for files starting with an offload bundle
//     its entry table. This is what check reads (TOC only).
//   - check-vfs: as vfs and check would once wired: every header and the
//     first 64 bytes of each member first (the index pass), then the
//     check reads member by member in path order (check's model) or tar
//     order, each member's range released after it.
//   - deep: every member read whole, front to back, as --deep's
//     embedded-bundle verification reads the bundles.
func TestDebianDebs(t *testing.T) {
	dir := os.Getenv("XZRA_DEBS")
	if dir == "" {
		t.Skip("XZRA_DEBS not set")
	}
	debs, _ := filepath.Glob(filepath.Join(dir, "*.deb"))
	t.Logf("%-24s %-12s %9s %9s %12s %7s %s", "package", "pattern", "wall s", "CPU s", "decoded MiB", "blocks", "vs xz -T1 CPU / wall")
	for _, deb := range debs {
		if m := os.Getenv("XZRA_DEB_MATCH"); m != "" && !strings.Contains(deb, m) {
			continue
		}
		measureDeb(t, deb)
	}
}

// measureDeb logs one package's rows.
func measureDeb(t *testing.T, deb string) {
	f, err := os.Open(deb)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	off, size, err := arMember(f, "data.tar.xz")
	if err != nil {
		t.Logf("%s: %v", filepath.Base(deb), err)
		return
	}
	sec := io.NewSectionReader(f, off, size)
	name := strings.SplitN(filepath.Base(deb), "_", 2)[0]
	base := timeIt(func() (int64, int) {
		cmd := exec.Command("xz", "-dc", "-T1")
		cmd.Stdin = io.NewSectionReader(f, off, size)
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		return -1, 0
	}, true)
	row := func(pattern string, m measure) {
		t.Logf("%-24s %-12s %9.2f %9.2f %12.1f %7s %.2fx / %.2fx", name, pattern, m.wall, m.cpu, float64(m.decoded)/(1<<20),
			strconv.Itoa(m.blocks), m.cpu/base.cpu, m.wall/base.wall)
	}
	t.Logf("%-24s %-12s %9.2f %9.2f %12s %7s", name, "xz -T1", base.wall, base.cpu, "all", "")
	for _, p := range []struct {
		name    string
		workers int
		run     func(x *Reader) error
	}{
		{"list+64K", -1, listHeads},
		{"check", -1, checkPattern},
		{"check", 0, checkPattern},
		{"check-vfs", -1, checkTwoPass(false)},
		{"check-vfs-tarorder", -1, checkTwoPass(true)},
		{"deep", -1, deepPattern},
		{"deep", 0, deepPattern},
	} {
		label := p.name + " w=1"
		if p.workers == 0 {
			label = p.name + " w=2"
		}
		if m := os.Getenv("XZRA_PATTERN"); m != "" && !strings.Contains(label, m) {
			continue
		}
		var runErr error
		var redecoded, unused, ahead int64
		m := timeIt(func() (int64, int) {
			budget, _ := strconv.ParseInt(os.Getenv("XZRA_BUDGET_MIB"), 10, 64)
			x, err := Open(sec, size, Options{Workers: p.workers, MemoryBudget: budget << 20})
			if err != nil {
				runErr = err
				return 0, 0
			}
			defer x.Close()
			runErr = p.run(x)
			st := x.Stats()
			redecoded, unused, ahead = st.Redecoded, st.Unused, st.Ahead
			return st.Decoded, st.Started
		}, false)
		if runErr != nil {
			t.Logf("%s %s: %v", name, p.name, runErr)
			continue
		}
		if strings.HasPrefix(p.name, "check") {
			label += fmt.Sprintf(" (%d bundles, %d entries)", seen.bundles, seen.entries)
		}
		if ahead > 0 {
			label += fmt.Sprintf(" (%.1f MiB decoded ahead)", float64(ahead)/(1<<20))
		}
		if unused > 0 {
			label += fmt.Sprintf(" (%.1f MiB of them unread)", float64(unused)/(1<<20))
		}
		if redecoded > 0 {
			label += fmt.Sprintf(" (%.1f MiB decoded again)", float64(redecoded)/(1<<20))
		}
		row(label, m)
	}
}

type measure struct {
	wall, cpu float64
	decoded   int64
	blocks    int
}

// timeIt runs fn and returns its wall and CPU time (children's CPU when
// child is set: the xz command).
func timeIt(fn func() (int64, int), child bool) measure {
	who := syscall.RUSAGE_SELF
	if child {
		who = syscall.RUSAGE_CHILDREN
	}
	var a, b syscall.Rusage
	syscall.Getrusage(who, &a)
	start := time.Now()
	decoded, blocks := fn()
	wall := time.Since(start).Seconds()
	syscall.Getrusage(who, &b)
	cpu := func(r syscall.Rusage) float64 {
		return float64(r.Utime.Sec+r.Stime.Sec) + float64(r.Utime.Usec+r.Stime.Usec)/1e6
	}
	return measure{wall: wall, cpu: cpu(b) - cpu(a), decoded: decoded, blocks: blocks}
}

// listHeads reads every header and the first 64 KiB of every member.
func listHeads(x *Reader) error {
	buf := make([]byte, 64<<10)
	return Members(x, x.Size(), func(hdr *tar.Header, off int64, _ *tar.Reader) error {
		n := min(hdr.Size, int64(len(buf)))
		_, err := x.ReadAt(buf[:n], off)
		return err
	})
}

// seen counts the offload bundles and entries checkPattern read.
var seen struct{ bundles, entries int }

// checkPattern reads what check reads of each member (see TestDebianDebs).
func checkPattern(x *Reader) error {
	seen.bundles, seen.entries = 0, 0
	return Members(x, x.Size(), func(hdr *tar.Header, off int64, _ *tar.Reader) error {
		return checkMember(x, hdr, off)
	})
}

// checkMember reads what check reads of one member.
func checkMember(x *Reader, hdr *tar.Header, off int64) error {
	{
		if hdr.Typeflag != tar.TypeReg || hdr.Size == 0 {
			return nil
		}
		var head [64]byte
		n, err := x.ReadAt(head[:min(64, hdr.Size)], off)
		if err != nil && err != io.EOF {
			return err
		}
		sec := io.NewSectionReader(x, off, hdr.Size)
		_, host := hostbin.Sniff(head[:n])
		switch {
		case host && !(n >= 20 && head[18] == 224 && head[19] == 0): // not an AMDGPU code object
			var b *hostbin.Binary
			b, err = hostbin.Read(sec, hdr.Size)
			if b != nil {
				for _, bd := range b.Bundles {
					seen.bundles++
					seen.entries += len(bd.Entries)
				}
			}
			if err == hostbin.ErrNotBinary {
				err = nil
			}
			if fe, ok := err.(*hostbin.FormatError); ok {
				err = fmt.Errorf("%s: %v", hdr.Name, fe)
			}
		case bytes.HasPrefix(head[:n], []byte("__CLANG_OFFLOAD_BUNDLE__")) || bytes.HasPrefix(head[:n], []byte("CCOB")):
			var ids []string
			ids, _, err = hostbin.ReadBundleEntries(sec, nil)
			seen.bundles++
			seen.entries += len(ids)
		}
		return err
	}
}

// checkTwoPass reads as vfs and check would once wired: first every tar
// header with the first 64 bytes of each member (the index pass), then,
// in path order as check's model walks the tree (or in tar order),
// what checkPattern reads of each member.
func checkTwoPass(tarOrder bool) func(x *Reader) error {
	return func(x *Reader) error { return twoPass(x, tarOrder) }
}

func twoPass(x *Reader, tarOrder bool) error {
	type member struct {
		hdr *tar.Header
		off int64
	}
	var ms []member
	err := Members(x, x.Size(), func(hdr *tar.Header, off int64, _ *tar.Reader) error {
		var head [64]byte
		if _, err := x.ReadAt(head[:min(64, hdr.Size)], off); err != nil && err != io.EOF {
			return err
		}
		ms = append(ms, member{hdr, off})
		return nil
	})
	if err != nil {
		return err
	}
	if !tarOrder {
		sort.Slice(ms, func(i, j int) bool { return ms[i].hdr.Name < ms[j].hdr.Name })
	}
	seen.bundles, seen.entries = 0, 0
	for _, m := range ms {
		if err := checkMember(x, m.hdr, m.off); err != nil {
			return err
		}
		x.Release(Range{m.off, m.hdr.Size}) // as the member reader's Close would
	}
	return nil
}

// deepPattern reads every member whole, front to back.
func deepPattern(x *Reader) error {
	buf := make([]byte, 1<<20)
	return Members(x, x.Size(), func(hdr *tar.Header, off int64, _ *tar.Reader) error {
		_, err := io.CopyBuffer(io.Discard, io.NewSectionReader(x, off, hdr.Size), buf)
		return err
	})
}

// arMember finds the named member of an ar archive (a .deb).
func arMember(f *os.File, name string) (off, size int64, err error) {
	off = 8
	var h [60]byte
	for {
		if _, err := f.ReadAt(h[:], off); err != nil {
			return 0, 0, fmt.Errorf("no %s member: %v", name, err)
		}
		size, err = strconv.ParseInt(strings.TrimSpace(string(h[48:58])), 10, 64)
		if err != nil {
			return 0, 0, err
		}
		if strings.TrimRight(strings.TrimSpace(string(h[:16])), "/") == name {
			return off + 60, size, nil
		}
		off += 60 + size + size%2
	}
}
