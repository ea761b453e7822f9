package inflate

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
)

func TestChargeAndLimit(t *testing.T) {
	b := New(100)
	if err := b.Charge(60, "a"); err != nil || b.Used() != 60 {
		t.Fatalf("Charge(60) = %v, used %d", err, b.Used())
	}
	if err := b.Charge(40, "b"); err != nil || b.Spent() {
		t.Fatalf("Charge to exactly the limit = %v, spent %v", err, b.Spent())
	}
	err := b.Charge(1, "input x.rpm")
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != 100 || le.What != "input x.rpm" {
		t.Fatalf("Charge past the limit = %#v", err)
	}
	if err := b.Charge(5, "other"); err == nil || !strings.Contains(err.Error(), "other") {
		t.Fatalf("a charge after the limit = %v, want an error naming it", err)
	}
	if first := b.Err(); first == nil || !strings.Contains(first.Error(), "input x.rpm") {
		t.Fatalf("Err = %v, want the first stream", first)
	}
	if b.Charge(0, "zero") != nil {
		t.Error("a charge of 0 failed")
	}
	if New(0).Limit() != DefaultMaxBytes {
		t.Errorf("New(0).Limit() = %d", New(0).Limit())
	}
}

func TestNilBudget(t *testing.T) {
	var b *Budget
	if b.Charge(1<<62, "x") != nil || b.Err() != nil || b.Spent() || b.Limit() != 0 {
		t.Fatal("a nil budget limits")
	}
	r := b.Reader(strings.NewReader("abc"), "x")
	if got, err := io.ReadAll(r); err != nil || string(got) != "abc" {
		t.Fatalf("nil budget reader = %q, %v", got, err)
	}
	var m *Meter
	if m.Add(5) != nil || m.Flush() != nil || m.Check() != nil {
		t.Fatal("a nil meter fails")
	}
}

func TestLimitErrorText(t *testing.T) {
	got := (&LimitError{Limit: 4 << 30, What: "input bomb.rpm"}).Error()
	want := "decompressing input bomb.rpm passed the run's budget of 4 GiB of decompressed data (inflate.Budget); it was not read further"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	for n, s := range map[int64]string{100: "100 bytes", 1536 << 20: "1536 MiB", 1 << 40: "1 TiB", 3 << 10: "3 KiB", 1<<20 + 1: "1048577 bytes"} {
		if Size(n) != s {
			t.Errorf("Size(%d) = %q, want %q", n, Size(n), s)
		}
	}
}

// A meter charges in chunks: nothing below Chunk until Flush.
func TestMeterChunks(t *testing.T) {
	b := New(10 * Chunk)
	m := b.Meter("s")
	for range 100 {
		if err := m.Add(1000); err != nil {
			t.Fatal(err)
		}
	}
	if b.Used() != 0 {
		t.Fatalf("used %d before a chunk was gathered", b.Used())
	}
	m.Add(Chunk)
	if b.Used() != 100000+Chunk {
		t.Fatalf("used %d after a chunk, want %d", b.Used(), 100000+Chunk)
	}
	m.Add(7)
	if err := m.Flush(); err != nil || b.Used() != 100007+Chunk {
		t.Fatalf("Flush = %v, used %d", err, b.Used())
	}
}

// Once the budget is passed, another stream's meter fails at the start of
// its next chunk, and Check fails at once.
func TestMeterStopsAfterAnotherStream(t *testing.T) {
	b := New(Chunk)
	if err := b.Charge(Chunk+1, "first"); err == nil {
		t.Fatal("no error past the limit")
	}
	m := b.Meter("second")
	var le *LimitError
	if err := m.Add(10); !errors.As(err, &le) || le.What != "second" {
		t.Fatalf("Add after the budget is spent = %v", err)
	}
	if err := b.Meter("third").Check(); err == nil {
		t.Fatal("Check after the budget is spent passed")
	}
	if !strings.Contains(b.Err().Error(), "first") {
		t.Fatalf("Err = %v, want the first stream", b.Err())
	}
}

// A Reader passes the bytes through, fails past the budget with the
// bytes of that read, and keeps failing.
func TestReader(t *testing.T) {
	data := bytes.Repeat([]byte("z"), 4*Chunk)
	b := New(2 * Chunk)
	r := b.Reader(bytes.NewReader(data), "input big.tar.xz")
	n, err := io.Copy(io.Discard, r)
	var le *LimitError
	if !errors.As(err, &le) || le.What != "input big.tar.xz" {
		t.Fatalf("copy = %d, %v; want a LimitError", n, err)
	}
	if n <= 2*Chunk || n > 3*Chunk {
		t.Errorf("read %d bytes before the error, want past %d by at most a chunk", n, 2*Chunk)
	}
	if k, err := r.Read(make([]byte, 10)); k != 0 || err == nil {
		t.Errorf("read after the error = %d, %v", k, err)
	}

	b = New(2 * Chunk)
	r = b.Reader(bytes.NewReader(data[:Chunk+5]), "ok")
	if n, err := io.Copy(io.Discard, r); err != nil || n != Chunk+5 {
		t.Fatalf("copy within budget = %d, %v", n, err)
	}
	if b.Used() != Chunk+5 || r.Close() != nil {
		t.Fatalf("used %d after EOF, want every byte charged", b.Used())
	}
}

// Goroutines sharing a budget: the total is exact, and whether it is
// passed does not depend on how they interleave.
func TestConcurrentCharges(t *testing.T) {
	for _, limit := range []int64{64 * 3000 * 100, 64*3000*100 - 1} {
		b := New(limit)
		var wg sync.WaitGroup
		for range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				m := b.Meter("g")
				for range 3000 {
					m.Add(100)
				}
				m.Flush()
			}()
		}
		wg.Wait()
		if b.Used() != 64*3000*100 {
			t.Fatalf("used %d, want %d", b.Used(), 64*3000*100)
		}
		if spent := b.Err() != nil; spent != (limit < b.Used()) {
			t.Errorf("limit %d: spent %v", limit, spent)
		}
	}
}

// BenchmarkMeterAdd is the cost of counting one 32 KiB read.
func BenchmarkMeterAdd(b *testing.B) {
	bud := New(1 << 62)
	m := bud.Meter("x")
	for b.Loop() {
		m.Add(32 << 10)
	}
}

// BenchmarkMeterFrame is what a FrameDecoder adds per zstd frame it
// decodes in place: Check before, Add of its output after (17 KiB, the
// size of a TheRock-like code object).
func BenchmarkMeterFrame(b *testing.B) {
	m := New(1 << 62).Meter("x")
	for b.Loop() {
		if m.Check() != nil || m.Add(17<<10) != nil {
			b.Fatal("limit")
		}
	}
}
