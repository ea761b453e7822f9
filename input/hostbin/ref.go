package hostbin

import (
	"errors"
	"fmt"

	"github.com/rocm-tools/kpack-lint/internal/util/mpack"
)

// Keys of the reference map (rocm-kpack writer and runtime).
const (
	KeyKernelName  = "kernel_name"
	KeySearchPaths = "kpack_search_paths"
)

// ParseRef decodes a reference payload, the MessagePack map
// {kernel_name: str, kpack_search_paths: [str, ...]}, with the runtime's
// rules (parse_hipk_metadata in rocm-kpack): the first complete MessagePack
// object counts and trailing bytes are ignored; it must be a map; keys that
// are not strings and unknown keys are ignored, and the first occurrence of
// a key wins; kernel_name must be a string; kpack_search_paths must be an
// array whose non-string entries are skipped, leaving at least one string.
// The object must end within RuntimeRefLimit bytes.
//
// The Ref is nil when any problem is Invalid (the runtime would return
// INVALID_METADATA, error 12). Problem offsets are relative to b.
func ParseRef(b []byte) (*Ref, []Problem) {
	p := refParser{r: refReader{b: b}}
	if err := p.parse(); err != nil {
		p.invalidMsgpack(err)
		return nil, p.probs
	}
	p.checkEnd()
	return p.result()
}

// refParser accumulates the fields and problems of one reference.
type refParser struct {
	r        refReader
	ref      Ref
	seenName bool
	seenList bool
	notMap   bool // the root is not a map
	probs    []Problem
}

func (p *refParser) add(kind ProblemKind, off int, format string, args ...any) {
	p.probs = append(p.probs, Problem{Kind: kind, Offset: int64(off), Msg: fmt.Sprintf(format, args...)})
}

// parse walks the root map. It returns an error only for malformed
// MessagePack; shape problems are recorded.
func (p *refParser) parse() error {
	root, err := p.r.next()
	if err != nil {
		return err
	}
	if root.Kind != mpack.Map {
		p.notMap = true
		p.add(RefWrongType, 0, "reference is a MessagePack %s, want a map", refKind(root))
		return p.r.skipChildren(root)
	}
	for range root.N {
		if err := p.entry(); err != nil {
			return err
		}
	}
	return nil
}

// entry reads one key/value pair of the root map.
func (p *refParser) entry() error {
	key, err := p.r.next()
	if err != nil {
		return err
	}
	if err := p.r.skipChildren(key); err != nil {
		return err
	}
	name, isStr := mpack.String(p.r.b, key)
	switch {
	case isStr && name == KeyKernelName && !p.seenName:
		p.seenName = true
		return p.kernelName()
	case isStr && name == KeySearchPaths && !p.seenList:
		p.seenList = true
		return p.searchPaths()
	}
	return p.skipValue()
}

func (p *refParser) skipValue() error {
	v, err := p.r.next()
	if err != nil {
		return err
	}
	return p.r.skipChildren(v)
}

func (p *refParser) kernelName() error {
	off := p.r.pos
	v, err := p.r.next()
	if err != nil {
		return err
	}
	s, ok := mpack.String(p.r.b, v)
	if !ok {
		p.add(RefWrongType, off, "%s is a MessagePack %s, want a string", KeyKernelName, refKind(v))
		return p.r.skipChildren(v)
	}
	p.ref.KernelName = s
	return nil
}

func (p *refParser) searchPaths() error {
	off := p.r.pos
	v, err := p.r.next()
	if err != nil {
		return err
	}
	if v.Kind != mpack.Array {
		p.add(RefWrongType, off, "%s is a MessagePack %s, want an array of strings", KeySearchPaths, refKind(v))
		return p.r.skipChildren(v)
	}
	for i := range v.N {
		if err := p.searchPath(i); err != nil {
			return err
		}
	}
	if len(p.ref.SearchPaths) == 0 {
		p.add(RefEmptyPaths, off, "%s has no string entry (%d entries)", KeySearchPaths, v.N)
	}
	return nil
}

func (p *refParser) searchPath(i uint64) error {
	off := p.r.pos
	e, err := p.r.next()
	if err != nil {
		return err
	}
	s, ok := mpack.String(p.r.b, e)
	if !ok {
		p.add(RefPathIgnored, off, "%s[%d] is a MessagePack %s; the runtime skips it", KeySearchPaths, i, refKind(e))
		return p.r.skipChildren(e)
	}
	p.ref.SearchPaths = append(p.ref.SearchPaths, s)
	return nil
}

func (p *refParser) invalidMsgpack(err error) {
	if errors.Is(err, errTruncated) && len(p.r.b) >= RuntimeRefLimit {
		p.add(RefTooLarge, 0, "reference does not end within the runtime's %d-byte limit", RuntimeRefLimit)
		return
	}
	if len(p.r.b) == 0 {
		err = errors.New("empty reference")
	}
	p.add(RefInvalidMsgpack, p.r.pos, "invalid MessagePack: %v", err)
}

// checkEnd reports an object that ends past RuntimeRefLimit.
func (p *refParser) checkEnd() {
	if p.r.pos > RuntimeRefLimit {
		p.add(RefTooLarge, 0, "reference is %d bytes, more than the runtime's %d-byte limit", p.r.pos, RuntimeRefLimit)
	}
}

// result adds missing-field problems and returns the Ref when valid.
func (p *refParser) result() (*Ref, []Problem) {
	if !p.notMap {
		if !p.seenName {
			p.add(RefMissingField, 0, "no %s key", KeyKernelName)
		}
		if !p.seenList {
			p.add(RefMissingField, 0, "no %s key", KeySearchPaths)
		}
	}
	for _, pr := range p.probs {
		if pr.Kind.Invalid() {
			return nil, p.probs
		}
	}
	ref := p.ref
	return &ref, p.probs
}

// refReader reads the reference one value at a time with mpack. It stops
// on malformed input where problem offsets have always pointed: just past
// the last complete header field.
type refReader struct {
	b   []byte
	pos int
}

// errTruncated is the reference's wording of mpack.ErrTruncated.
var errTruncated = errors.New("truncated MessagePack data")

// next reads one value header. Scalar, string, bin and ext payloads are
// consumed; container elements are not.
func (r *refReader) next() (mpack.Head, error) {
	h, err := mpack.ReadHead(r.b, r.pos)
	var reserved *mpack.ReservedError
	switch {
	case errors.As(err, &reserved):
		r.pos++
		return h, fmt.Errorf("reserved MessagePack code %#02x at byte %d", reserved.Byte, reserved.Off)
	case err != nil:
		r.pos = h.Body // the field that runs short
		return h, errTruncated
	}
	r.pos = h.Body
	switch h.Kind {
	case mpack.Str, mpack.Bin, mpack.Ext:
		if h.N > uint64(len(r.b)-r.pos) {
			if h.Kind == mpack.Ext {
				r.pos-- // an ext's payload is its type byte and data
			}
			return h, errTruncated
		}
		r.pos += int(h.N)
	}
	return h, nil
}

// skipChildren consumes the elements of a container whose header h was
// just read, iteratively. Every element takes at least one byte, so once
// more values are pending than bytes remain it fails at once.
func (r *refReader) skipChildren(h mpack.Head) error {
	pending := children(h)
	for pending > 0 {
		if pending > uint64(len(r.b)-r.pos) {
			return errTruncated
		}
		c, err := r.next()
		if err != nil {
			return err
		}
		pending += children(c) - 1
	}
	return nil
}

// children returns how many values follow a container header.
func children(h mpack.Head) uint64 {
	switch h.Kind {
	case mpack.Array:
		return h.N
	case mpack.Map:
		return 2 * h.N
	}
	return 0
}

// refKind names the shape of h for problem messages: "string", "array",
// "map", or "scalar" for everything else (nil, bool, numbers, bin, ext).
func refKind(h mpack.Head) string {
	switch h.Kind {
	case mpack.Str, mpack.Array, mpack.Map:
		return h.Kind.String()
	}
	return "scalar"
}
