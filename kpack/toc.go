package kpack

import (
	"fmt"
	"strings"
)

// tocParser decodes the TOC the way rocm-kpack's parse_toc does
// (shared/kpack/runtime/src/toc_parser.cpp) and records every deviation from
// the format the Python writer produces as a Problem.
type tocParser struct {
	a        *Archive
	buf      []byte
	base     int64 // file offset of buf[0]
	problems []Problem
	top      map[string]mpHead // first value of each string key, as find_key
	entries  []entryRef
	arches   []archRef // gfx_arches string items
	blobsAt  int       // buffer offset of the blobs value, -1 if absent
	blobAt   []int     // buffer offset of each kept blob item
	err      error     // first limit error
	visited  int       // toc entries seen, kept or not
	dropped  int       // problems not recorded (over the collection cap)
}

// entryRef locates a kept toc entry in the TOC buffer.
type entryRef struct {
	key, arch string
	at        int // entry map
	sizeAt    int // original_size value (or the map)
	ordinalAt int // ordinal value (or the map)
}

// archRef locates an arch string: a gfx_arches item (idx >= 0) or a toc arch key (idx -1).
type archRef struct {
	arch string
	at   int
	idx  int
}

// add records a problem at buffer offset at. Collection stops at four
// times Options.MaxProblems so hostile input cannot grow it without bound.
func (p *tocParser) add(kind ProblemKind, at int, field, format string, args ...any) {
	if len(p.problems) >= 4*p.a.opt.MaxProblems {
		p.dropped++
		return
	}
	p.problems = append(p.problems, Problem{Kind: kind, Field: field, Offset: p.base + int64(at), Msg: fmt.Sprintf(format, args...)})
}

func (p *tocParser) parseErr(at int, field, format string, args ...any) error {
	return formatErr(MsgpackParseFailed, ErrTOCParse, p.base+int64(at), field, format, args...)
}

// parse decodes the TOC; it fails only where kpack_open fails.
func (p *tocParser) parse() error {
	if at, err := mpSkip(p.buf, 0); err != nil {
		return p.parseErr(at, "toc", "not valid MessagePack: %v", err)
	}
	h, _ := readHead(p.buf, 0)
	if h.kind != mpMap {
		return p.parseErr(0, "toc", "TOC is a MessagePack %v, not a map", h.kind)
	}
	p.indexTop(h)
	p.parseInfo()
	p.parseScheme()
	p.parseArches()
	if err := p.parseStorage(); err != nil {
		return err
	}
	p.parseKernels()
	return p.err
}

// indexTop records the first value of each string key; find_key in the
// runtime returns the first match and ignores non-string keys.
func (p *tocParser) indexTop(h mpHead) {
	p.top = map[string]mpHead{}
	_ = mpEachPair(p.buf, h, func(k, v mpHead) error {
		name, ok := mpString(p.buf, k)
		if !ok {
			p.add(ProblemMalformed, k.off, "toc", "top-level key is a %v, not a string; the runtime ignores it", k.kind)
			return nil
		}
		if _, dup := p.top[name]; dup {
			p.add(ProblemMalformed, k.off, name, "duplicate top-level key %q; the runtime uses the first", name)
			return nil
		}
		p.top[name] = v
		return nil
	})
}

// str returns the string at top-level key name, reporting absent or mistyped values.
func (p *tocParser) str(name string) string {
	v, ok := p.top[name]
	if !ok {
		p.add(ProblemMalformed, 0, name, "%s is absent", name)
		return ""
	}
	s, ok := mpString(p.buf, v)
	if !ok {
		p.add(ProblemMalformed, v.off, name, "%s is a %v, want a string", name, v.kind)
	}
	return s
}

func (p *tocParser) parseInfo() {
	p.a.GroupName = p.str("group_name")
	p.a.ArchFamily = p.str("gfx_arch_family")
	v, ok := p.top["format_version"]
	switch {
	case !ok:
		p.add(ProblemMalformed, 0, "format_version", "format_version is absent")
	case v.kind != mpUint || v.n > 1<<62:
		p.add(ProblemMalformed, v.off, "format_version", "format_version is a %v, want integer 1", v.kind)
	default:
		p.a.FormatVersion = int64(v.n)
		if v.n != 1 {
			p.add(ProblemMalformed, v.off, "format_version", "format_version %d, want 1", v.n)
		}
	}
}

func (p *tocParser) parseScheme() {
	v, ok := p.top["compression_scheme"]
	if !ok {
		p.add(ProblemMalformed, 0, "compression_scheme", "compression_scheme is absent; the runtime treats the archive as %q", SchemeNone)
		return
	}
	s, ok := mpString(p.buf, v)
	if !ok {
		p.add(ProblemMalformed, v.off, "compression_scheme", "compression_scheme is a %v; the runtime treats the archive as %q", v.kind, SchemeNone)
		return
	}
	p.a.Scheme = s
	if s != SchemeNone && s != SchemeZstd {
		p.add(ProblemMalformed, v.off, "compression_scheme", "unknown compression_scheme %q; the runtime treats it as %q", s, SchemeNone)
	}
}

func (p *tocParser) parseArches() {
	v, ok := p.top["gfx_arches"]
	if !ok {
		p.add(ProblemMalformed, 0, "gfx_arches", "gfx_arches is absent; the loader never selects this archive")
		return
	}
	if v.kind != mpArray {
		p.add(ProblemMalformed, v.off, "gfx_arches", "gfx_arches is a %v, not an array; the loader never selects this archive", v.kind)
		return
	}
	_ = mpEachElem(p.buf, v, func(i int, e mpHead) error {
		field := fmt.Sprintf("gfx_arches[%d]", i)
		s, ok := mpString(p.buf, e)
		if !ok {
			p.add(ProblemMalformed, e.off, field, "%s is a %v, not a string; the runtime skips it", field, e.kind)
			return nil
		}
		if len(p.a.Arches) >= p.a.opt.MaxEntries {
			p.limit("gfx_arches items")
			return errStop
		}
		p.arches = append(p.arches, archRef{arch: s, at: e.off, idx: i})
		p.a.Arches = append(p.a.Arches, s)
		return nil
	})
}

// parseStorage reads the blobs table (none) or zstd_offset/zstd_size (zstd).
func (p *tocParser) parseStorage() error {
	p.blobsAt = -1
	if p.a.EffectiveScheme() == SchemeNone {
		p.parseBlobs()
		return nil
	}
	var err error
	if p.a.ZstdOffset, err = p.zstdField("zstd_offset"); err != nil {
		return err
	}
	p.a.ZstdSize, err = p.zstdField("zstd_size")
	return err
}

// zstdField reads a u64 the runtime converts with as<uint64_t>() at open:
// a mistyped value throws, which the hardened runtime turns into
// KPACK_ERROR_MSGPACK_PARSE_FAILED. Absent means 0.
func (p *tocParser) zstdField(name string) (uint64, error) {
	v, ok := p.top[name]
	if !ok {
		p.add(ProblemMalformed, 0, name, "%s is absent (read as 0)", name)
		return 0, nil
	}
	if v.kind != mpUint {
		return 0, p.parseErr(v.off, name, "%s is a %v, not an unsigned integer", name, v.kind)
	}
	return v.n, nil
}

func (p *tocParser) parseBlobs() {
	v, ok := p.top["blobs"]
	if !ok {
		return
	}
	p.blobsAt = v.off
	if v.kind != mpArray {
		p.add(ProblemMalformed, v.off, "blobs", "blobs is a %v, not an array; the runtime ignores it", v.kind)
		return
	}
	_ = mpEachElem(p.buf, v, func(i int, e mpHead) error {
		if e.kind != mpMap {
			p.add(ProblemMalformed, e.off, fmt.Sprintf("blobs[%d]", i),
				"blob item is a %v, not a map; the runtime skips it, shifting later ordinals", e.kind)
			return nil
		}
		if len(p.a.Blobs) >= p.a.opt.MaxEntries {
			p.limit("blobs")
			return errStop
		}
		p.parseBlob(len(p.a.Blobs), e)
		return nil
	})
}

var errStop = fmt.Errorf("stop")

func (p *tocParser) limit(what string) {
	if p.err == nil {
		p.err = fmt.Errorf("kpack: more than %d %s: %w", p.a.opt.MaxEntries, what, ErrLimit)
	}
}

// parseBlob decodes one blobs item; ordinal is its index among map items.
func (p *tocParser) parseBlob(ordinal int, e mpHead) {
	fields := p.fields(e, "offset", "size")
	var b Blob
	ok1 := p.u64(fields, e, fmt.Sprintf("blobs[%d]", ordinal), "offset", &b.Offset)
	ok2 := p.u64(fields, e, fmt.Sprintf("blobs[%d]", ordinal), "size", &b.Size)
	if !ok1 || !ok2 {
		if p.a.bad == nil {
			p.a.bad = map[uint32]bool{}
		}
		p.a.bad[uint32(ordinal)] = true
	}
	p.a.Blobs = append(p.a.Blobs, b)
	p.blobAt = append(p.blobAt, e.off)
}

// fields returns the first value of each wanted string key of map m.
func (p *tocParser) fields(m mpHead, names ...string) map[string]mpHead {
	out := map[string]mpHead{}
	_ = mpEachPair(p.buf, m, func(k, v mpHead) error {
		s, ok := mpString(p.buf, k)
		if _, seen := out[s]; ok && !seen && containsStr(names, s) {
			out[s] = v
		}
		return nil
	})
	return out
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// u64 stores fields[name] into dst if it is an unsigned integer; otherwise
// it reports why the runtime would misread it and returns false.
func (p *tocParser) u64(fields map[string]mpHead, m mpHead, prefix, name string, dst *uint64) bool {
	field := prefix + "." + name
	v, ok := fields[name]
	if !ok {
		p.add(ProblemMalformed, m.off, field, "%s is absent; the runtime reads an uninitialised value", name)
		return false
	}
	if v.kind != mpUint {
		p.add(ProblemMalformed, v.off, field, "%s is a %v, not an unsigned integer; the runtime's conversion throws "+
			"(process abort, or MSGPACK_PARSE_FAILED at open in hardened builds)", name, v.kind)
		return false
	}
	*dst = v.n
	return true
}

func (p *tocParser) parseKernels() {
	v, ok := p.top["toc"]
	if !ok {
		p.add(ProblemMalformed, 0, "toc", "toc is absent; the archive serves no kernels")
		return
	}
	if v.kind != mpMap {
		p.add(ProblemMalformed, v.off, "toc", "toc is a %v, not a map; the archive serves no kernels", v.kind)
		return
	}
	_ = mpEachPair(p.buf, v, func(k, arches mpHead) error {
		key, ok := mpString(p.buf, k)
		if !ok {
			p.add(ProblemMalformed, k.off, "toc", "kernel key is a %v, not a string; the runtime skips it", k.kind)
			return nil
		}
		return p.parseKernel(key, k, arches)
	})
}

func (p *tocParser) parseKernel(key string, k, arches mpHead) error {
	field := fmt.Sprintf("toc[%s]", key)
	if !hasCOIndex(key) {
		p.add(ProblemMalformed, k.off, field, "kernel key %q has no #<co_index> suffix; the loader never asks for it", key)
	}
	if arches.kind != mpMap {
		p.add(ProblemMalformed, arches.off, field, "%s is a %v, not a map; the runtime skips it", field, arches.kind)
		return nil
	}
	return mpEachPair(p.buf, arches, func(ak, e mpHead) error {
		arch, ok := mpString(p.buf, ak)
		if !ok {
			p.add(ProblemMalformed, ak.off, field, "arch key is a %v, not a string; the runtime skips it", ak.kind)
			return nil
		}
		if p.visited++; p.visited > p.a.opt.MaxEntries {
			p.limit("toc entries")
			return errStop
		}
		p.parseEntry(key, arch, ak, e)
		return nil
	})
}

// hasCOIndex reports whether key ends in "#<decimal co_index>".
func hasCOIndex(key string) bool {
	i := strings.LastIndexByte(key, '#')
	if i <= 0 || i == len(key)-1 {
		return false
	}
	return strings.Trim(key[i+1:], "0123456789") == ""
}

func (p *tocParser) parseEntry(key, arch string, ak, e mpHead) {
	field := fmt.Sprintf("toc[%s][%s]", key, arch)
	if e.kind != mpMap {
		p.add(ProblemMalformed, e.off, field, "entry is a %v, not a map; the runtime skips it", e.kind)
		return
	}
	fields := p.fields(e, "type", "ordinal", "original_size")
	ent, ok := p.entryValues(fields, e, field)
	ref := entryRef{key: key, arch: arch, at: e.off, sizeAt: e.off, ordinalAt: e.off}
	if v, has := fields["ordinal"]; has {
		ref.ordinalAt = v.off
	}
	if v, has := fields["original_size"]; has {
		ref.sizeAt = v.off
	}
	p.arches = append(p.arches, archRef{arch: arch, at: ak.off, idx: -1})
	if !ok {
		return
	}
	list := p.a.Kernels[key]
	for i := range list {
		if list[i].Arch == arch {
			p.add(ProblemMalformed, ak.off, field, "duplicate entry; the runtime keeps the last")
			list[i].Entry = ent
			p.entries = append(p.entries, ref)
			return
		}
	}
	p.a.Kernels[key] = append(list, ArchEntry{Arch: arch, Entry: ent})
	p.entries = append(p.entries, ref)
}

// entryValues decodes type/ordinal/original_size; ok is false when the
// entry must be dropped (its ordinal or size cannot be known).
func (p *tocParser) entryValues(fields map[string]mpHead, e mpHead, field string) (Entry, bool) {
	var ent Entry
	var ord uint64
	ok := p.u64(fields, e, field, "ordinal", &ord)
	if ok && ord > 0xffffffff {
		p.add(ProblemMalformed, fields["ordinal"].off, field+".ordinal",
			"ordinal %d does not fit in u32; the runtime's conversion throws", ord)
		ok = false
	}
	ent.Ordinal = uint32(ord)
	if v, has := fields["original_size"]; has && v.kind == mpUint {
		ent.OriginalSize = v.n
	} else if has {
		p.u64(fields, e, field, "original_size", &ent.OriginalSize)
		ok = false
	} else {
		p.add(ProblemMalformed, e.off, field+".original_size", "original_size is absent")
	}
	ent.Type = p.entryType(fields, e, field)
	return ent, ok
}

func (p *tocParser) entryType(fields map[string]mpHead, e mpHead, field string) string {
	v, has := fields["type"]
	if !has {
		p.add(ProblemMalformed, e.off, field+".type", "type is absent, want \"hsaco\"")
		return ""
	}
	s, ok := mpString(p.buf, v)
	switch {
	case !ok:
		p.add(ProblemMalformed, v.off, field+".type", "type is a %v, want \"hsaco\"", v.kind)
	case s != typeHSACO:
		p.add(ProblemMalformed, v.off, field+".type", "type %q, want \"hsaco\"", s)
	default:
		return typeHSACO // one shared string, not one per entry
	}
	return s
}

// typeHSACO is the only entry type the writer produces.
const typeHSACO = "hsaco"
