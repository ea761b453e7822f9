package kpack

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/mpack"
)

// tocParser decodes the TOC the way rocm-kpack's parse_toc does
// (shared/kpack/runtime/src/toc_parser.cpp) and records every deviation from
// the format the Python writer produces as a Problem.
type tocParser struct {
	a        *Archive
	buf      []byte
	base     int64 // file offset of buf[0]
	problems []Problem
	top      map[string]mpack.Head // first value of each string key, as find_key
	entries  []entryRef
	arches   []archRef // gfx_arches string items
	blobsAt  int       // buffer offset of the blobs value, -1 if absent
	blobAt   []int     // buffer offset of each kept blob item
	err      error     // first limit error
	fault    error     // first value the runtime's conversion throws on (*FormatError)
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
	if at, err := mpack.Skip(p.buf, 0); err != nil {
		return p.parseErr(at, "toc", "not valid MessagePack: %v", err)
	}
	h, _ := mpack.ReadHead(p.buf, 0)
	if h.Kind != mpack.Map {
		return p.parseErr(0, "toc", "TOC is a MessagePack %v, not a map", h.Kind)
	}
	p.indexTop(h)
	p.parseInfo()
	p.parseScheme()
	p.parseArches()
	if err := p.parseStorage(); err != nil {
		return err
	}
	p.parseKernels()
	if p.fault != nil {
		return p.fault
	}
	return p.err
}

// convertFault records a TOC value the runtime converts at open with
// as<uint32_t>/as<uint64_t> and cannot: a non-integer, a negative integer
// or, for an ordinal, one over 2^32-1. The fixed runtime's parse_toc
// catches the exception and kpack_open fails with MSGPACK_PARSE_FAILED, so
// the loader skips the archive; the legacy runtime lets it escape and the
// process aborts (FormatError.LegacyAborts). SPEC 1; rocm-systems
// toc_parser.cpp @0bf58574.
func (p *tocParser) convertFault(at int, field, format string, args ...any) {
	if p.fault != nil {
		return
	}
	fe := formatErr(MsgpackParseFailed, ErrTOCParse, p.base+int64(at), field, format, args...)
	fe.LegacyAborts = true
	p.fault = fe
}

// indexTop records the first value of each string key; find_key in the
// runtime returns the first match and ignores non-string keys.
func (p *tocParser) indexTop(h mpack.Head) {
	p.top = map[string]mpack.Head{}
	_ = mpack.EachPair(p.buf, h, func(k, v mpack.Head) error {
		name, ok := mpack.String(p.buf, k)
		if !ok {
			p.add(ProblemMalformed, k.Off, "toc", "top-level key is %s, not a string; the runtime ignores it", k.Kind.Article())
			return nil
		}
		if _, dup := p.top[name]; dup {
			p.add(ProblemMalformed, k.Off, name, "duplicate top-level key %q; the runtime uses the first", name)
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
	s, ok := mpack.String(p.buf, v)
	if !ok {
		p.add(ProblemMalformed, v.Off, name, "%s is %s, want a string", name, v.Kind.Article())
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
	case v.Kind != mpack.Uint || v.N > 1<<62:
		p.add(ProblemMalformed, v.Off, "format_version", "format_version is %s, want integer 1", v.Kind.Article())
	default:
		p.a.FormatVersion = int64(v.N)
		if v.N != 1 {
			p.add(ProblemMalformed, v.Off, "format_version", "format_version %d, want 1", v.N)
		}
	}
}

func (p *tocParser) parseScheme() {
	v, ok := p.top["compression_scheme"]
	if !ok {
		p.add(ProblemMalformed, 0, "compression_scheme", "compression_scheme is absent; the runtime treats the archive as %q", SchemeNone)
		return
	}
	s, ok := mpack.String(p.buf, v)
	if !ok {
		p.add(ProblemMalformed, v.Off, "compression_scheme", "compression_scheme is %s; the runtime treats the archive as %q", v.Kind.Article(), SchemeNone)
		return
	}
	p.a.Scheme = s
	if s != SchemeNone && s != SchemeZstd {
		p.add(ProblemMalformed, v.Off, "compression_scheme", "unknown compression_scheme %q; the runtime treats it as %q", s, SchemeNone)
	}
}

func (p *tocParser) parseArches() {
	v, ok := p.top["gfx_arches"]
	if !ok {
		p.add(ProblemMalformed, 0, "gfx_arches", "gfx_arches is absent; the loader never selects this archive")
		return
	}
	if v.Kind != mpack.Array {
		p.add(ProblemMalformed, v.Off, "gfx_arches", "gfx_arches is %s, not an array; the loader never selects this archive", v.Kind.Article())
		return
	}
	_ = mpack.EachElem(p.buf, v, func(i int, e mpack.Head) error {
		field := fmt.Sprintf("gfx_arches[%d]", i)
		s, ok := mpack.String(p.buf, e)
		if !ok {
			p.add(ProblemMalformed, e.Off, field, "%s is %s, not a string; the runtime skips it", field, e.Kind.Article())
			return nil
		}
		if len(p.a.Arches) >= p.a.opt.MaxEntries {
			p.limit("gfx_arches items")
			return errStop
		}
		p.arches = append(p.arches, archRef{arch: s, at: e.Off, idx: i})
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

// zstdField reads a u64 the runtime converts with as<uint64_t>() at open
// (convertFault on a mistyped value). Absent means 0.
func (p *tocParser) zstdField(name string) (uint64, error) {
	v, ok := p.top[name]
	if !ok {
		p.add(ProblemMalformed, 0, name, "%s is absent (read as 0)", name)
		return 0, nil
	}
	if v.Kind != mpack.Uint {
		p.convertFault(v.Off, name, "%s is %s, not an unsigned integer", name, v.Kind.Article())
		return 0, p.fault
	}
	return v.N, nil
}

func (p *tocParser) parseBlobs() {
	v, ok := p.top["blobs"]
	if !ok {
		return
	}
	p.blobsAt = v.Off
	if v.Kind != mpack.Array {
		p.add(ProblemMalformed, v.Off, "blobs", "blobs is %s, not an array; the runtime ignores it", v.Kind.Article())
		return
	}
	_ = mpack.EachElem(p.buf, v, func(i int, e mpack.Head) error {
		if e.Kind != mpack.Map {
			p.add(ProblemMalformed, e.Off, fmt.Sprintf("blobs[%d]", i),
				"blob item is %s, not a map; the runtime skips it, shifting later ordinals", e.Kind.Article())
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
func (p *tocParser) parseBlob(ordinal int, e mpack.Head) {
	fields := p.fields(e, "offset", "size")
	var b Blob
	p.u64(fields, e, fmt.Sprintf("blobs[%d]", ordinal), "offset", &b.Offset)
	p.u64(fields, e, fmt.Sprintf("blobs[%d]", ordinal), "size", &b.Size)
	p.a.Blobs = append(p.a.Blobs, b)
	p.blobAt = append(p.blobAt, e.Off)
}

// fields returns the first value of each wanted string key of map m.
func (p *tocParser) fields(m mpack.Head, names ...string) map[string]mpack.Head {
	out := map[string]mpack.Head{}
	_ = mpack.EachPair(p.buf, m, func(k, v mpack.Head) error {
		s, ok := mpack.String(p.buf, k)
		if _, seen := out[s]; ok && !seen && slices.Contains(names, s) {
			out[s] = v
		}
		return nil
	})
	return out
}

// u64 stores fields[name] into dst if it is an unsigned integer. An absent
// value is a Problem; a mistyped one is a convertFault. It returns false in
// both cases.
func (p *tocParser) u64(fields map[string]mpack.Head, m mpack.Head, prefix, name string, dst *uint64) bool {
	field := prefix + "." + name
	v, ok := fields[name]
	if !ok {
		p.add(ProblemMalformed, m.Off, field, "%s is absent; the runtime reads an uninitialised value", name)
		return false
	}
	if v.Kind != mpack.Uint {
		p.convertFault(v.Off, field, "%s is %s, not an unsigned integer", name, v.Kind.Article())
		return false
	}
	*dst = v.N
	return true
}

func (p *tocParser) parseKernels() {
	v, ok := p.top["toc"]
	if !ok {
		p.add(ProblemMalformed, 0, "toc", "toc is absent; the archive serves no kernels")
		return
	}
	if v.Kind != mpack.Map {
		p.add(ProblemMalformed, v.Off, "toc", "toc is %s, not a map; the archive serves no kernels", v.Kind.Article())
		return
	}
	_ = mpack.EachPair(p.buf, v, func(k, arches mpack.Head) error {
		key, ok := mpack.String(p.buf, k)
		if !ok {
			p.add(ProblemMalformed, k.Off, "toc", "kernel key is %s, not a string; the runtime skips it", k.Kind.Article())
			return nil
		}
		return p.parseKernel(key, k, arches)
	})
}

func (p *tocParser) parseKernel(key string, k, arches mpack.Head) error {
	field := fmt.Sprintf("toc[%s]", key)
	if !hasCOIndex(key) {
		p.add(ProblemMalformed, k.Off, field, "kernel key %q has no #<co_index> suffix; the loader never asks for it", key)
	}
	if arches.Kind != mpack.Map {
		p.add(ProblemMalformed, arches.Off, field, "%s is %s, not a map; the runtime skips it", field, arches.Kind.Article())
		return nil
	}
	return mpack.EachPair(p.buf, arches, func(ak, e mpack.Head) error {
		arch, ok := mpack.String(p.buf, ak)
		if !ok {
			p.add(ProblemMalformed, ak.Off, field, "arch key is %s, not a string; the runtime skips it", ak.Kind.Article())
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

func (p *tocParser) parseEntry(key, arch string, ak, e mpack.Head) {
	field := fmt.Sprintf("toc[%s][%s]", key, arch)
	if e.Kind != mpack.Map {
		p.add(ProblemMalformed, e.Off, field, "entry is %s, not a map; the runtime skips it", e.Kind.Article())
		return
	}
	fields := p.fields(e, "type", "ordinal", "original_size")
	ent, ok := p.entryValues(fields, e, field)
	ref := entryRef{key: key, arch: arch, at: e.Off, sizeAt: e.Off, ordinalAt: e.Off}
	if v, has := fields["ordinal"]; has {
		ref.ordinalAt = v.Off
	}
	if v, has := fields["original_size"]; has {
		ref.sizeAt = v.Off
	}
	p.arches = append(p.arches, archRef{arch: arch, at: ak.Off, idx: -1})
	if !ok {
		return
	}
	list := p.a.Kernels[key]
	for i := range list {
		if list[i].Arch == arch {
			p.add(ProblemMalformed, ak.Off, field, "duplicate entry; the runtime keeps the last")
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
func (p *tocParser) entryValues(fields map[string]mpack.Head, e mpack.Head, field string) (Entry, bool) {
	var ent Entry
	var ord uint64
	ok := p.u64(fields, e, field, "ordinal", &ord)
	if ok && ord > 0xffffffff {
		p.convertFault(fields["ordinal"].Off, field+".ordinal", "ordinal %d does not fit in u32", ord)
		ok = false
	}
	ent.Ordinal = uint32(ord)
	if v, has := fields["original_size"]; has && v.Kind == mpack.Uint {
		ent.OriginalSize = v.N
	} else if has {
		p.u64(fields, e, field, "original_size", &ent.OriginalSize)
		ok = false
	} else {
		p.add(ProblemMalformed, e.Off, field+".original_size", "original_size is absent")
	}
	ent.Type = p.entryType(fields, e, field)
	return ent, ok
}

func (p *tocParser) entryType(fields map[string]mpack.Head, e mpack.Head, field string) string {
	v, has := fields["type"]
	if !has {
		p.add(ProblemMalformed, e.Off, field+".type", "type is absent, want \"hsaco\"")
		return ""
	}
	s, ok := mpack.String(p.buf, v)
	switch {
	case !ok:
		p.add(ProblemMalformed, v.Off, field+".type", "type is %s, want \"hsaco\"", v.Kind.Article())
	case s != typeHSACO:
		p.add(ProblemMalformed, v.Off, field+".type", "type %q, want \"hsaco\"", s)
	default:
		return typeHSACO // one shared string, not one per entry
	}
	return s
}

// typeHSACO is the only entry type the writer produces.
const typeHSACO = "hsaco"
