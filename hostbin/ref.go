package hostbin

import (
	"errors"
	"fmt"
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
	p := refParser{r: mpReader{b: b}}
	if err := p.parse(); err != nil {
		p.invalidMsgpack(err)
		return nil, p.probs
	}
	p.checkEnd()
	return p.result()
}

// refParser accumulates the fields and problems of one reference.
type refParser struct {
	r        mpReader
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
	if root.kind != mpMap {
		p.notMap = true
		p.add(RefWrongType, 0, "reference is a MessagePack %s, want a map", root.kind)
		return p.r.skipChildren(root)
	}
	for range root.n {
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
	switch {
	case key.kind == mpStr && string(key.str) == KeyKernelName && !p.seenName:
		p.seenName = true
		return p.kernelName()
	case key.kind == mpStr && string(key.str) == KeySearchPaths && !p.seenList:
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
	if v.kind != mpStr {
		p.add(RefWrongType, off, "%s is a MessagePack %s, want a string", KeyKernelName, v.kind)
		return p.r.skipChildren(v)
	}
	p.ref.KernelName = string(v.str)
	return nil
}

func (p *refParser) searchPaths() error {
	off := p.r.pos
	v, err := p.r.next()
	if err != nil {
		return err
	}
	if v.kind != mpArray {
		p.add(RefWrongType, off, "%s is a MessagePack %s, want an array of strings", KeySearchPaths, v.kind)
		return p.r.skipChildren(v)
	}
	for i := range v.n {
		if err := p.searchPath(i); err != nil {
			return err
		}
	}
	if len(p.ref.SearchPaths) == 0 {
		p.add(RefEmptyPaths, off, "%s has no string entry (%d entries)", KeySearchPaths, v.n)
	}
	return nil
}

func (p *refParser) searchPath(i uint64) error {
	off := p.r.pos
	e, err := p.r.next()
	if err != nil {
		return err
	}
	if e.kind != mpStr {
		p.add(RefPathIgnored, off, "%s[%d] is a MessagePack %s; the runtime skips it", KeySearchPaths, i, e.kind)
		return p.r.skipChildren(e)
	}
	p.ref.SearchPaths = append(p.ref.SearchPaths, string(e.str))
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
