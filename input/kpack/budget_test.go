package kpack_test

import (
	"errors"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// A FrameDecoder with a meter counts every byte it decodes, in place and
// streamed, and past the run's budget fails with its *inflate.LimitError;
// once it is spent, the next frame fails before decoding.
func TestFrameDecoderBudget(t *testing.T) {
	inPlace := zframe(2<<20, 0, rleBlocks(2<<20, 'A', true)...)  // single segment, content size: DecodeAll
	streamed := zframe(-1, 0x38, rleBlocks(2<<20, 'B', true)...) // no content size: streamed
	for name, frame := range map[string][]byte{"in place": inPlace, "streamed": streamed} {
		t.Run(name, func(t *testing.T) {
			b := inflate.New(3 << 20)
			d := kpack.NewFrameDecoder(0)
			defer d.Close()
			d.SetMeter(b.Meter("the zstd frames of .kpack/x.kpack"))
			if out, err := d.Decode(frame, 2<<20, nil); err != nil || len(out) != 2<<20 {
				t.Fatalf("first frame: %d bytes, %v", len(out), err)
			}
			_, err := d.Decode(frame, 2<<20, nil)
			var le *inflate.LimitError
			if !errors.As(err, &le) || le.What != "the zstd frames of .kpack/x.kpack" || le.Limit != 3<<20 {
				t.Fatalf("second frame past the budget = %v", err)
			}
			used := b.Used()
			if _, _, err := d.DecodedLength(frame, make([]byte, 0, 3<<20)); !errors.As(err, &le) {
				t.Fatalf("DecodedLength after the budget is spent = %v", err)
			}
			if err := d.Stream(streamed, 2<<20, discard{}); !errors.As(err, &le) {
				t.Fatalf("Stream after the budget is spent = %v", err)
			}
			if b.Used() > used+2 {
				t.Errorf("decoded %d bytes after the budget was spent", b.Used()-used)
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
