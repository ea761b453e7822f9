package fsutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new report")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(got) != "new report" || fi.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v", got, fi.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestWriteFileReplacesSymlink: a symlink at the name asked for is
// replaced by the report (mode 0644, not the target's); what it pointed
// at - a file outside the folder, a folder, nothing, /dev/null - is left
// as it was, and no temporary file stays behind.
func TestWriteFileReplacesSymlink(t *testing.T) {
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"file outside": victim, "relative": "../" + filepath.Base(outside) + "/victim.txt",
		"folder": outside, "dangling": filepath.Join(outside, "missing"), "dev null": os.DevNull,
	} {
		ws := filepath.Join(filepath.Dir(outside), "ws-"+strings.ReplaceAll(name, " ", "-"))
		os.Mkdir(ws, 0o755)
		link := filepath.Join(ws, "kpack-lint.sarif")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(link, []byte("report")); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fi, err := os.Lstat(link)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: the link was not replaced by a 0644 file: %v %v", name, fi, err)
		}
		if got, _ := os.ReadFile(link); string(got) != "report" {
			t.Errorf("%s: report %q", name, got)
		}
		if got, _ := os.ReadFile(victim); string(got) != "precious" {
			t.Errorf("%s: the target was written: %q", name, got)
		}
		if entries, _ := os.ReadDir(ws); len(entries) != 1 {
			t.Errorf("%s: left behind: %v", name, entries)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("the folder the link pointed at changed: %v", entries)
	}
}

// System links for streams (/dev/stdout, /dev/fd/N, /proc/self/fd/N) are
// written through in place, also when the stream is a regular file.
func TestWriteFileSystemLink(t *testing.T) {
	if _, err := os.Lstat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	p := filepath.Join(t.TempDir(), "stdout.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("old old old")
	name := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	if err := WriteFile(name, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "new" {
		t.Errorf("through %s: %q", name, got)
	}
	if fi, err := os.Lstat(name); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s replaced: %v %v", name, fi, err)
	}
	if systemLink("dist/kpack-lint.sarif") || !systemLink("/dev/stdout") || systemLink("/devices/x") {
		t.Error("systemLink: wrong answer for dist/kpack-lint.sarif, /dev/stdout or /devices/x")
	}
}

// A FIFO at the name is written in place (a reader gets the report), not
// replaced by a file; one that no process reads fails at once instead of
// blocking the run.
func TestWriteFileFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { done <- WriteFile(p, []byte("x")) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "a FIFO that no process reads") {
			t.Errorf("no reader: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WriteFile blocked on a FIFO no process reads")
	}
	r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0) // the reader, there before the write
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := WriteFile(p, []byte("through the fifo")); err != nil {
		t.Fatal(err)
	}
	if data, _ := io.ReadAll(r); string(data) != "through the fifo" {
		t.Errorf("reader got %q", data)
	}
	if fi, _ := os.Lstat(p); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", fi.Mode())
	}
	if !WrittenInPlace(p) || WrittenInPlace(filepath.Join(filepath.Dir(p), "new.sarif")) {
		t.Error("WrittenInPlace: wrong answer for a FIFO or a new file")
	}
}

// TestCheckOutput: a report file that is an input, lies in an input
// folder (also through a symlinked folder or an input that is a link),
// or leaves the workspace through a symlinked folder is refused; others
// pass.
func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "dist")
	ws := filepath.Join(dir, "ws")
	for _, d := range []string{in, ws, filepath.Join(dir, "real")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wheel := filepath.Join(dir, "a.whl")
	os.WriteFile(wheel, []byte("PK"), 0o644)
	os.Symlink(in, filepath.Join(dir, "distlink"))
	os.Symlink(filepath.Join(dir, "real"), filepath.Join(ws, "out"))
	os.Symlink(in, filepath.Join(dir, "inlink"))
	inputs := []string{filepath.Join(dir, "inlink"), wheel, ""}
	for _, tc := range []struct{ name, want string }{
		{filepath.Join(in, "r.sarif"), "it lies inside the input " + inputs[0]},
		{filepath.Join(dir, "distlink", "sub", "r.sarif"), "it lies inside the input " + inputs[0]},
		{wheel, "it is the input " + wheel},
		{inputs[0], "it is the input " + inputs[0]},
		{filepath.Join(ws, "out", "r.sarif"), "a folder on the way to it is a symlink out of the workspace " + ws},
	} {
		if err := CheckOutput(tc.name, inputs, ws); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("CheckOutput(%s) = %v, want %q...", tc.name, err, tc.want)
		}
	}
	for _, ok := range []string{filepath.Join(dir, "r.sarif"), filepath.Join(ws, "r.sarif"), filepath.Join(dir, "real", "r.sarif"), filepath.Join(dir, "dist2")} {
		if err := CheckOutput(ok, inputs, ws); err != nil {
			t.Errorf("CheckOutput(%s): %v", ok, err)
		}
	}
	if !SameOutput(filepath.Join(dir, "x", "..", "r.sarif"), filepath.Join(dir, "r.sarif")) ||
		!SameOutput(filepath.Join(dir, "distlink", "r"), filepath.Join(in, "r")) || SameOutput(filepath.Join(in, "a"), filepath.Join(in, "b")) {
		t.Error("SameOutput: wrong answer")
	}
}

// A failed write (here: the folder is gone) leaves no temporary file and
// names the requested file.
func TestWriteFileFailureKeepsOld(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing", "report.txt")
	err := WriteFile(p, []byte("x"))
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Path != p {
		t.Errorf("err = %v", err)
	}
	// /dev/null is written in place, never replaced.
	if err := WriteFile(os.DevNull, []byte("x")); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
}

// A FIFO opens without waiting for a writer and is refused.
func TestOpenRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	if _, _, err := Open(p); !errors.Is(err, ErrNotRegular) {
		t.Errorf("err = %v", err)
	}
}

// TestReadFile: a file up to the limit is read whole; one byte more is a
// *TooLargeError; a FIFO fails at once instead of blocking.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(p, 5); err != nil || string(data) != "12345" {
		t.Errorf("ReadFile(5) = %q, %v", data, err)
	}
	var big *TooLargeError
	if _, err := ReadFile(p, 4); !errors.As(err, &big) || big.Limit != 4 || err.Error() != "larger than 4 bytes" {
		t.Errorf("ReadFile(4) error %v, want larger than 4 bytes", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if _, err := ReadFile(fifo, 5); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(fifo) error %v, want ErrNotRegular", err)
	}
}

// TestCheckWritable: the reasons WriteFile would fail that are known
// before writing, and none for the names it writes.
func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{filepath.Join(dir, "nope", "r.sarif"), "the folder " + filepath.Join(dir, "nope") + " does not exist"},
		{dir, dir + " is a folder, not a file"},
		{filepath.Join(file, "r.sarif"), file + " is not a folder"},
	} {
		if err := CheckWritable(tc.name); err == nil || err.Error() != tc.want {
			t.Errorf("CheckWritable(%s) = %v, want %q", tc.name, err, tc.want)
		}
	}
	for _, ok := range []string{file, filepath.Join(dir, "new.json"), "/dev/null"} {
		if err := CheckWritable(ok); err != nil {
			t.Errorf("CheckWritable(%s): %v", ok, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("CheckWritable created files: %v", entries)
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		if err := CheckWritable(filepath.Join(ro, "r.json")); err == nil || !strings.Contains(err.Error(), "cannot be written to") {
			t.Errorf("read-only folder: %v", err)
		}
	}
}

// TestWriteFileNewIs0644: a report written where no file was is 0644
// (minus the umask), not 0000.
func TestWriteFileNewIs0644(t *testing.T) {
	p := filepath.Join(t.TempDir(), "new.sarif")
	if err := WriteFile(p, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("new report: %v, mode %v; want 0644", err, fi.Mode())
	}
}
