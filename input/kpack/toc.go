package kpack

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/util/mpack"
)

// tocParser decodes the TOC the way rocm-kpack's parse_toc does
// (shared/kpack/runtime/src/toc_parser.cpp) and records every deviation from
// the format the Python writer produces as a Problem.
type tocParser struct {
	a         *Archive
	r         io.ReaderAt // the archive, for the zstd frame count
	buf       []byte
	base      int64 // file offset of buf[0]
	problems  []Problem
	top       map[string]mpack.Head // first value of each string key, as find_key
	arches    []archRef             // gfx_arches string items
	tocArches []tocArch             // arch keys of toc entries, first seen first
	archIdx   map[string]int        // index in tocArches by name
	lastArch  int                   // index in tocArches of the last arch looked up
	refs      []entryRef            // kept entries crossCheck reports (see suspect)
	refAt     map[[2]string]int     // index in refs by kernel key and arch
	// archAt indexes the entries of the kernels holding more than
	// smallKernel entries by arch (position in the kernel's entries: the
	// earlier pairs' first, then the current pair's), so a kernel key
	// repeated in the toc map or holding many arches is checked for
	// duplicate arches in constant time per entry.
	archAt   map[string]map[string]int
	kept     int         // toc entries kept
	slab     []ArchEntry // the current chunk of Kernels' entries
	kernel   kernelSeg   // the kernel being parsed
	blobsAt  int         // buffer offset of the blobs value, -1 if absent
	blobAt   []int       // buffer offset of each kept blob item
	err      error       // first limit error
	fault    error       // first value the runtime's conversion throws on (*FormatError)
	countErr error       // why the zstd frame count does not read or fit
	visited  int         // toc entries seen, kept or not
	dropped  int         // problems not recorded (over the collection cap)
}

// entryRef locates a kept toc entry whose values crossCheck reports.
type entryRef struct {
	key, arch string
	gone      bool // replaced by a later duplicate entry
	ent       Entry
	sizeAt    int // original_size value (or the map)
	ordinalAt int // ordinal value (or the map)
}

// archRef locates a gfx_arches string item.
type archRef struct {
	arch string
	at   int
	idx  int
}

// tocArch is an arch key of the toc: at is the offset of its first key
// whose entry is a map (-1 if none), used tells whether an entry filed
// under it was kept.
type tocArch struct {
	name    string
	at      int
	used    bool
	entries int    // entries kept under it
	bytes   uint64 // their original_size sum (wrapping, as any sum of them)
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

// parse decodes the TOC; it fails only where kpack_open fails. For
// zstd-per-kernel it also reads the frame count (readFrameCount), so
// ordinals are checked against it as entries are parsed; a count that does
// not read or fit is countErr, which kpack_open reports after TOC errors.
func (p *tocParser) parse() error {
	h, err := mpack.ReadHead(p.buf, 0)
	if err != nil || h.Kind != mpack.Map {
		if at, err := mpack.Skip(p.buf, 0); err != nil {
			return p.parseErr(at, "toc", "not valid MessagePack: %v", err)
		}
		return p.parseErr(0, "toc", "TOC is a MessagePack %v, not a map", h.Kind)
	}
	if at, err := p.indexTop(h); err != nil {
		return p.parseErr(at, "toc", "not valid MessagePack: %v", err)
	}
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
// runtime returns the first match and ignores non-string keys. It checks
// the whole map as mpack.Skip does, in the same order, and returns where
// it is not valid MessagePack: one pass validates and indexes.
func (p *tocParser) indexTop(h mpack.Head) (int, error) {
	if h.N > uint64(len(p.buf)-h.Body)/2 {
		return h.Body, mpack.ErrTruncated
	}
	p.top = map[string]mpack.Head{}
	off := h.Body
	for range h.N {
		k, _ := mpack.ReadHead(p.buf, off)
		end, err := mpack.Skip(p.buf, off)
		if err != nil {
			return end, err
		}
		v, _ := mpack.ReadHead(p.buf, end)
		if off, err = mpack.Skip(p.buf, end); err != nil {
			return off, err
		}
		name, ok := mpack.String(p.buf, k)
		switch _, dup := p.top[name]; {
		case !ok:
			p.add(ProblemMalformed, k.Off, "toc", "top-level key is %s, not a string; the runtime ignores it", k.Kind.Article())
		case dup:
			p.add(ProblemMalformed, k.Off, name, "duplicate top-level key %q; the runtime uses the first", name)
		default:
			p.top[name] = v
		}
	}
	return 0, nil
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
	if p.a.ZstdSize, err = p.zstdField("zstd_size"); err != nil {
		return err
	}
	p.countErr = p.a.readFrameCount(p.r)
	return nil
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
	var f [2]mpack.Head
	p.pick(e, blobNames[:], f[:])
	var b Blob
	at := place{blob: ordinal}
	p.u64(f[0], e, at, "offset", &b.Offset)
	p.u64(f[1], e, at, "size", &b.Size)
	p.a.Blobs = append(p.a.Blobs, b)
	p.blobAt = append(p.blobAt, e.Off)
}

var blobNames = [...]string{"offset", "size"}

// place names a blobs item or a toc entry in problems; the name is built
// only when a problem is reported.
type place struct {
	blob      int // blobs[blob] when key is ""
	key, arch string
}

func (pl place) String() string {
	if pl.key == "" {
		return "blobs[" + strconv.Itoa(pl.blob) + "]"
	}
	return entryField(pl.key, pl.arch)
}

// u64 stores v (the value of key name of map m at place at, Kind absent
// if m lacks it) into dst if it is an unsigned integer. An absent value is
// a Problem; a mistyped one is a convertFault. It returns false in both
// cases.
func (p *tocParser) u64(v, m mpack.Head, at place, name string, dst *uint64) bool {
	if v.Kind == absent {
		p.add(ProblemMalformed, m.Off, at.String()+"."+name, "%s is absent; the runtime reads an uninitialised value", name)
		return false
	}
	if v.Kind != mpack.Uint {
		p.convertFault(v.Off, at.String()+"."+name, "%s is %s, not an unsigned integer", name, v.Kind.Article())
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
	// The pair count is bounded by the TOC's bytes (parse checked the
	// whole TOC); the hint is bounded further.
	p.a.Kernels = make(map[string][]ArchEntry, min(v.N, maxHint))
	if p.a.opt.Keys != nil {
		p.a.opt.Keys.Round(int(min(v.N, maxHint)))
	}
	// A split archive (one target, TheRock's) holds one entry per kernel:
	// the first chunk fits them all. The count is bounded as above.
	p.slab = make([]ArchEntry, 0, max(minChunk, min(v.N, maxChunk)))
	it := newMapIter(p.buf, v)
	for k, arches, ok := it.next(); ok; k, arches, ok = it.next() {
		if k.Kind != mpack.Str {
			p.add(ProblemMalformed, k.Off, "toc", "kernel key is %s, not a string; the runtime skips it", k.Kind.Article())
			continue
		}
		key, again := p.key(p.bytes(k))
		end, stop := p.parseKernel(key, again, k, arches)
		if stop {
			return
		}
		it.consumed(end)
	}
}

// key returns the kernel key b as a string, shared through Options.Keys,
// and whether the TOC may have named it before (always true without
// Keys: parseKernel then looks).
func (p *tocParser) key(b []byte) (string, bool) {
	if p.a.opt.Keys != nil {
		return p.a.opt.Keys.Seen(b)
	}
	return string(b), true
}

// maxHint bounds the capacity reserved from a count the TOC declares.
const maxHint = 1 << 16

// bytes returns the payload of a string head of the (validated) TOC.
func (p *tocParser) bytes(h mpack.Head) []byte { return p.buf[h.Body : h.Body+int(h.N)] }

// parseKernel decodes toc[key]; again tells whether an earlier pair of
// the toc map may have had the same key (the entries it kept are then
// looked up). It returns the offset past the arches value (-1 when it did
// not walk it) and whether the entry limit stopped the parse.
func (p *tocParser) parseKernel(key string, again bool, k, arches mpack.Head) (int, bool) {
	if !hasCOIndex(key) {
		p.add(ProblemMalformed, k.Off, "toc["+key+"]", "kernel key %q has no #<co_index> suffix; the loader never asks for it", key)
	}
	if arches.Kind != mpack.Map {
		p.add(ProblemMalformed, arches.Off, "toc["+key+"]", "toc[%s] is %s, not a map; the runtime skips it", key, arches.Kind.Article())
		return -1, false
	}
	p.kernel = kernelSeg{key: key, start: len(p.slab)}
	if again {
		p.kernel.prev, p.kernel.at = p.a.Kernels[key], p.archAt[key]
	}
	it := newMapIter(p.buf, arches)
	for ak, e, ok := it.next(); ok; ak, e, ok = it.next() {
		if ak.Kind != mpack.Str {
			p.add(ProblemMalformed, ak.Off, "toc["+key+"]", "arch key is %s, not a string; the runtime skips it", ak.Kind.Article())
			continue
		}
		if p.visited++; p.visited > p.a.opt.MaxEntries {
			p.limit("toc entries")
			p.storeKernel()
			return -1, true
		}
		it.consumed(p.parseEntry(key, p.arch(p.bytes(ak)), ak, e))
	}
	p.storeKernel()
	return it.off, false
}

// kernelSeg is the kernel being parsed: its key, the entries an earlier
// toc pair with the same key kept, and where its own entries start in the
// slab.
type kernelSeg struct {
	key   string
	prev  []ArchEntry
	start int
	at    map[string]int // p.archAt[key], nil for a small kernel
}

// smallKernel is the entry count up to which a kernel's entries are
// scanned for a duplicate arch (a real kernel has one per arch).
const smallKernel = 16

// storeKernel files the current kernel's kept entries under its key: a
// slice of the slab, so a TOC's entries share a few large allocations.
func (p *tocParser) storeKernel() {
	seg := p.slab[p.kernel.start:len(p.slab):len(p.slab)]
	switch {
	case len(seg) == 0:
	case p.kernel.prev != nil:
		p.a.Kernels[p.kernel.key] = append(p.kernel.prev, seg...)
	default:
		p.a.Kernels[p.kernel.key] = seg
	}
}

// push appends an entry to the current kernel's slab segment; a full
// chunk is replaced by a new one holding the segment so far.
func (p *tocParser) push(ae ArchEntry) {
	if len(p.slab) == cap(p.slab) {
		seg := p.slab[p.kernel.start:]
		n := max(minChunk, min(maxChunk, 2*cap(p.slab)), 2*len(seg))
		p.slab = append(make([]ArchEntry, 0, n), seg...)
		p.kernel.start = 0
	}
	p.slab = append(p.slab, ae)
	n := len(p.kernel.prev) + len(p.slab) - p.kernel.start
	switch {
	case p.kernel.at != nil:
		p.kernel.at[ae.Arch] = n - 1
	case n > smallKernel:
		at := make(map[string]int, 2*n)
		for i, e := range p.kernel.prev {
			at[e.Arch] = i
		}
		for i, e := range p.slab[p.kernel.start:] {
			at[e.Arch] = len(p.kernel.prev) + i
		}
		if p.archAt == nil {
			p.archAt = map[string]map[string]int{}
		}
		p.archAt[p.kernel.key], p.kernel.at = at, at
	}
}

// Slab chunk sizes, in entries: the first chunk is small, as most
// archives of a build hold a few entries and a build can hold 100,000
// archives (64 entries each would keep 220 MB of empty slab); each later
// chunk doubles, up to maxChunk.
const (
	minChunk = 4
	maxChunk = 4096
)

// arch interns a toc arch key: one string per distinct arch of the archive.
func (p *tocParser) arch(b []byte) *tocArch {
	if len(p.tocArches) > 0 && p.tocArches[p.lastArch].name == string(b) {
		return &p.tocArches[p.lastArch] // entries of one archive mostly share one arch
	}
	if i, ok := p.archIdx[string(b)]; ok {
		p.lastArch = i
		return &p.tocArches[i]
	}
	name := string(b)
	if i := slices.Index(p.a.Arches, name); i >= 0 {
		name = p.a.Arches[i]
	}
	if p.archIdx == nil {
		p.archIdx = map[string]int{}
	}
	p.archIdx[name] = len(p.tocArches)
	p.lastArch = len(p.tocArches)
	p.tocArches = append(p.tocArches, tocArch{name: name, at: -1})
	return &p.tocArches[len(p.tocArches)-1]
}

// hasCOIndex reports whether key ends in "#<decimal co_index>".
func hasCOIndex(key string) bool {
	i := strings.LastIndexByte(key, '#')
	if i <= 0 || i == len(key)-1 {
		return false
	}
	for _, c := range []byte(key[i+1:]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseEntry decodes toc[key][arch] and returns the offset past it (-1
// when it did not walk it).
func (p *tocParser) parseEntry(key string, arch *tocArch, ak, e mpack.Head) int {
	if e.Kind != mpack.Map {
		p.add(ProblemMalformed, e.Off, entryField(key, arch.name), "entry is %s, not a map; the runtime skips it", e.Kind.Article())
		return -1
	}
	if arch.at < 0 {
		arch.at = ak.Off
	}
	var f entryFields
	end := p.pick(e, entryNames[:], f[:])
	ent, ok := p.entryValues(&f, e, key, arch.name)
	if !ok {
		return end
	}
	arch.used = true
	p.kept++
	ref := entryRef{key: key, arch: arch.name, ent: ent, sizeAt: e.Off, ordinalAt: e.Off}
	if f[fieldOrdinal].Kind != absent {
		ref.ordinalAt = f[fieldOrdinal].Off
	}
	if f[fieldSize].Kind != absent {
		ref.sizeAt = f[fieldSize].Off
	}
	p.keep(ArchEntry{Arch: arch.name, Entry: ent}, arch, ak, ref)
	return end
}

// keep files a kept entry under the current kernel; a second entry for
// the same arch replaces the first, as the runtime keeps the last. Only
// entries whose values crossCheck reports are remembered (refs).
func (p *tocParser) keep(ae ArchEntry, arch *tocArch, ak mpack.Head, ref entryRef) {
	if old := p.duplicate(ae.Arch); old != nil {
		p.add(ProblemMalformed, ak.Off, entryField(ref.key, ae.Arch), "duplicate entry; the runtime keeps the last")
		ae.Index = old.Index
		arch.bytes += ae.OriginalSize - old.OriginalSize
		old.Entry = ae.Entry
		if i, ok := p.refAt[[2]string{ref.key, ref.arch}]; ok {
			p.refs[i].gone = true
			delete(p.refAt, [2]string{ref.key, ref.arch})
		}
	} else {
		ae.Index = uint32(p.a.Entries)
		p.a.Entries++
		arch.entries++
		arch.bytes += ae.OriginalSize
		p.push(ae)
	}
	if p.suspect(ae.Entry) {
		if p.refAt == nil {
			p.refAt = map[[2]string]int{}
		}
		p.refAt[[2]string{ref.key, ref.arch}] = len(p.refs)
		p.refs = append(p.refs, ref)
	}
}

// duplicate returns the current kernel's entry for arch, if any.
func (p *tocParser) duplicate(arch string) *ArchEntry {
	if at := p.kernel.at; at != nil {
		i, ok := at[arch]
		switch {
		case !ok:
			return nil
		case i < len(p.kernel.prev):
			return &p.kernel.prev[i]
		}
		return &p.slab[p.kernel.start+i-len(p.kernel.prev)]
	}
	for i := range p.kernel.prev {
		if p.kernel.prev[i].Arch == arch {
			return &p.kernel.prev[i]
		}
	}
	seg := p.slab[p.kernel.start:]
	for i := range seg {
		if seg[i].Arch == arch {
			return &seg[i]
		}
	}
	return nil
}

// suspect reports whether crossCheck has something to say about e: an
// ordinal outside its table or an impossible size.
func (p *tocParser) suspect(e Entry) bool {
	if e.OriginalSize > MaxSaneKernelSize {
		return true
	}
	if p.a.EffectiveScheme() == SchemeZstd {
		return e.Ordinal >= p.a.FrameCount
	}
	return p.blobsAt >= 0 && int64(e.Ordinal) >= int64(len(p.a.Blobs))
}

// Entry fields, in entryNames order; a field's Kind is absent when the map
// lacks it.
const (
	fieldType = iota
	fieldOrdinal
	fieldSize
)

var entryNames = [...]string{"type", "ordinal", "original_size"}

type entryFields [len(entryNames)]mpack.Head

// absent marks a field pick did not find (no MessagePack kind has it).
const absent mpack.Kind = 0xff

// pick walks map m and stores in vals[i] the first value of string key
// names[i] (Kind absent when there is none). It returns the offset past m.
func (p *tocParser) pick(m mpack.Head, names []string, vals []mpack.Head) int {
	for i := range vals {
		vals[i].Kind = absent
	}
	it := newMapIter(p.buf, m)
	for k, v, ok := it.next(); ok; k, v, ok = it.next() {
		if k.Kind != mpack.Str {
			continue
		}
		name := p.bytes(k)
		for i, n := range names {
			if vals[i].Kind == absent && string(name) == n {
				vals[i] = v
				break
			}
		}
	}
	return it.off
}

// entryField names an entry in problems: "toc[<key>][<arch>]".
func entryField(key, arch string) string { return "toc[" + key + "][" + arch + "]" }

// entryValues decodes type/ordinal/original_size; ok is false when the
// entry must be dropped (its ordinal or size cannot be known).
func (p *tocParser) entryValues(f *entryFields, e mpack.Head, key, arch string) (Entry, bool) {
	var ent Entry
	var ord uint64
	at := place{key: key, arch: arch}
	ok := p.u64(f[fieldOrdinal], e, at, "ordinal", &ord)
	if ok && ord > 0xffffffff {
		p.convertFault(f[fieldOrdinal].Off, entryField(key, arch)+".ordinal", "ordinal %d does not fit in u32", ord)
		ok = false
	}
	ent.Ordinal = uint32(ord)
	switch v := f[fieldSize]; v.Kind {
	case mpack.Uint:
		ent.OriginalSize = v.N
	case absent:
		p.add(ProblemMalformed, e.Off, entryField(key, arch)+".original_size", "original_size is absent")
	default:
		p.u64(v, e, at, "original_size", &ent.OriginalSize)
		ok = false
	}
	p.checkType(f[fieldType], e, key, arch)
	return ent, ok
}

// checkType reports an entry type other than "hsaco".
func (p *tocParser) checkType(v, e mpack.Head, key, arch string) {
	if v.Kind == mpack.Str && string(p.bytes(v)) == typeHSACO {
		return
	}
	switch s, ok := mpack.String(p.buf, v); {
	case v.Kind == absent:
		p.add(ProblemMalformed, e.Off, entryField(key, arch)+".type", "type is absent, want \"hsaco\"")
	case !ok:
		p.add(ProblemMalformed, v.Off, entryField(key, arch)+".type", "type is %s, want \"hsaco\"", v.Kind.Article())
	case s != typeHSACO:
		p.add(ProblemMalformed, v.Off, entryField(key, arch)+".type", "type %q, want \"hsaco\"", s)
	}
}

// typeHSACO is the only entry type the writer produces.
const typeHSACO = "hsaco"

// mapIter walks the key/value pairs of a map of the TOC, which parse has
// checked whole, so no read can fail. A value the caller does not walk
// itself (consumed) is skipped by the next call.
type mapIter struct {
	buf  []byte
	left uint64
	off  int        // offset of the next key; -1 until the current value's end is known
	v    mpack.Head // the current value
}

func newMapIter(buf []byte, m mpack.Head) mapIter {
	return mapIter{buf: buf, left: m.N, off: m.Body}
}

// next returns the next pair, or ok false after the last (off is then the
// offset past the map).
func (it *mapIter) next() (k, v mpack.Head, ok bool) {
	if it.off < 0 {
		it.off = mpack.End(it.buf, it.v)
	}
	if it.left == 0 {
		return k, v, false
	}
	it.left--
	k, _ = mpack.ReadHead(it.buf, it.off)
	v, _ = mpack.ReadHead(it.buf, mpack.End(it.buf, k))
	it.v, it.off = v, -1
	return k, v, true
}

// consumed tells the iterator the current value ends at end (-1: unknown).
func (it *mapIter) consumed(end int) { it.off = end }
