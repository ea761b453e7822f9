//go:build unix

package xzra

import (
	"archive/tar"
	"bufio"
	"bytes"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"testing"

	uxz "github.com/ulikunitz/xz"
	"github.com/xi2/xz"
)

// benchTarXZ is a 70 MiB tarball of 40 files of 64 KiB to 3.5 MiB (like
// the offload bundles and code objects of a ROCm library), compressed in
// 2 MiB blocks by xz -6 (XZ Utils, when installed) or else by
// github.com/ulikunitz/xz.
var benchTarXZ = sync.OnceValues(func() ([]byte, error) {
	var sizes []int
	for i := range 40 {
		sizes = append(sizes, 65536+i*90000)
	}
	tb, _ := tarball(sizes)
	if _, err := exec.LookPath("xz"); err == nil {
		cmd := exec.Command("xz", "-6", "-T1", "--block-size=2MiB", "-c")
		cmd.Stdin = bytes.NewReader(tb)
		return cmd.Output()
	}
	var out bytes.Buffer
	w, err := uxz.WriterConfig{BlockSize: 2 << 20}.NewWriter(&out)
	if err == nil {
		w.Write(tb)
		err = w.Close()
	}
	return out.Bytes(), err
})

func benchFile(b *testing.B) []byte {
	f, err := benchTarXZ()
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// cpuTimer reports CPU seconds (user+sys, all goroutines) per op next to
// ns/op, so that parallel decoding shows as wall time below CPU time.
type cpuTimer struct {
	b     *testing.B
	start float64
}

func startCPU(b *testing.B) cpuTimer { b.ResetTimer(); return cpuTimer{b, cpuNow()} }

func (c cpuTimer) stop(decoded int64) {
	c.b.StopTimer()
	c.b.ReportMetric((cpuNow()-c.start)/float64(c.b.N), "cpu-s/op")
	c.b.ReportMetric(float64(decoded)/float64(c.b.N)/(1<<20), "decoded-MiB/op")
}

func cpuNow() float64 {
	var r syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return float64(r.Utime.Sec+r.Stime.Sec) + float64(r.Utime.Usec+r.Stime.Usec)/1e6
}

// BenchmarkListHeaders lists every member and reads its first 4 KiB:
// in place (the blocks holding headers, each up to the header) against
// streaming the whole tarball as vfs does today (ulikunitz/xz) and with
// the decoder xzra uses (xi2/xz).
func BenchmarkListHeaders(b *testing.B) {
	f := benchFile(b)
	b.Run("xzra", func(b *testing.B) {
		var decoded int64
		c := startCPU(b)
		for range b.N {
			x, err := Open(bytes.NewReader(f), int64(len(f)), Options{Workers: -1})
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 4096)
			err = Members(x, x.Size(), func(hdr *tar.Header, off int64, _ *tar.Reader) error {
				_, err := x.ReadAt(buf[:min(hdr.Size, 4096)], off)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			decoded += x.Stats().Decoded
			x.Close()
		}
		c.stop(decoded)
	})
	stream := func(b *testing.B, open func(io.Reader) (io.Reader, error)) {
		var decoded int64
		c := startCPU(b)
		for range b.N {
			r, err := open(bufio.NewReaderSize(bytes.NewReader(f), 1<<20))
			if err != nil {
				b.Fatal(err)
			}
			cr := &countReader{r: r}
			tr := tar.NewReader(cr)
			buf := make([]byte, 4096)
			for {
				hdr, err := tr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				io.ReadFull(tr, buf[:min(hdr.Size, 4096)])
			}
			io.Copy(io.Discard, cr)
			decoded += cr.n
		}
		c.stop(decoded)
	}
	b.Run("stream-ulikunitz", func(b *testing.B) {
		stream(b, func(r io.Reader) (io.Reader, error) { return uxz.NewReader(r) })
	})
	b.Run("stream-xi2", func(b *testing.B) {
		stream(b, func(r io.Reader) (io.Reader, error) { return xz.NewReader(r, 0) })
	})
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// BenchmarkDecodeAll reads every byte front to back: with no background
// worker, and with read-ahead on 1 and 2 workers (the caller's goroutine
// only copies). On 2 idle cores, workers=2 takes about half the wall time
// of workers=0 for the same CPU.
func BenchmarkDecodeAll(b *testing.B) {
	f := benchFile(b)
	for _, w := range []struct {
		name    string
		workers int
	}{{"workers=0", -1}, {"workers=1", 1}, {"workers=2", 2}} {
		b.Run(w.name, func(b *testing.B) {
			var decoded int64
			c := startCPU(b)
			for range b.N {
				x, err := Open(bytes.NewReader(f), int64(len(f)), Options{Workers: w.workers})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.CopyBuffer(io.Discard, io.NewSectionReader(x, 0, x.Size()), make([]byte, 1<<20)); err != nil {
					b.Fatal(err)
				}
				decoded += x.Stats().Decoded
				x.Close()
			}
			c.stop(decoded)
		})
	}
	b.Run("2-callers", func(b *testing.B) {
		var decoded int64
		c := startCPU(b)
		for range b.N {
			x, err := Open(bytes.NewReader(f), int64(len(f)), Options{Workers: -1})
			if err != nil {
				b.Fatal(err)
			}
			var wg sync.WaitGroup
			half := x.Size() / 2
			for g := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					io.CopyBuffer(io.Discard, io.NewSectionReader(x, int64(g)*half, half+int64(g)), make([]byte, 1<<20))
				}()
			}
			wg.Wait()
			decoded += x.Stats().Decoded
			x.Close()
		}
		c.stop(decoded)
	})
}

// BenchmarkDecoder decodes the whole file with each pure-Go decoder, for
// the choice of xi2/xz (compare xz -dc -T1 on the same bytes).
func BenchmarkDecoder(b *testing.B) {
	f := benchFile(b)
	for _, d := range []struct {
		name string
		open func(io.Reader) (io.Reader, error)
	}{
		{"ulikunitz", func(r io.Reader) (io.Reader, error) { return uxz.NewReader(r) }},
		{"xi2", func(r io.Reader) (io.Reader, error) { return xz.NewReader(r, 0) }},
	} {
		b.Run(d.name, func(b *testing.B) {
			var decoded int64
			c := startCPU(b)
			for range b.N {
				r, err := d.open(bufio.NewReaderSize(bytes.NewReader(f), 1<<20))
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.CopyBuffer(io.Discard, r, make([]byte, 1<<20))
				if err != nil {
					b.Fatal(err)
				}
				decoded += n
			}
			c.stop(decoded)
		})
	}
}
