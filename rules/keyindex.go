package rules

import (
	"encoding/binary"
	mathbits "math/bits"

	"github.com/rocm-tools/kpack-lint/model"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// keyPlace is one place of a kpack group that stores kernels: an archive
// and a TOC arch (tag) of its entries that is a valid target ID.
type keyPlace struct {
	archive *model.Archive
	tag     *tag
}

// tag is a TOC arch that is a valid target ID, parsed once per group.
type tag struct {
	name string
	id   targetid.ID
}

// keyIndex records where a kpack group stores each kernel key: per key a
// bit set over the group's places (archives in path order, each archive's
// arches as first seen). Built once per group (Context.keyIndex) with one
// map operation per kernel and archive, so per-project and per-kernel
// questions cost the project's own kernels; projects stored alike share
// their tags (tagsFor).
type keyIndex struct {
	places []keyPlace
	rows   map[string]int // kernel key -> row of bits
	bits   []uint64       // row r is bits[r*words : (r+1)*words]
	words  int
	memo   map[string]map[string]map[string][]*model.Archive // tags by place set
}

func newKeyIndex(g *model.Group) *keyIndex {
	idx := &keyIndex{rows: map[string]int{}, words: 1, memo: map[string]map[string]map[string][]*model.Archive{}}
	tags := map[string]*tag{} // nil for an arch that is not a target ID
	for _, a := range g.Archives {
		if a.Info == nil {
			continue
		}
		bits := map[string]int{} // this archive's arch -> bit, -1 when not a target ID
		for key, arches := range a.Info.Kernels {
			row := idx.row(key)
			if row == nil {
				row = idx.addRow(key)
			}
			for _, ae := range arches {
				b, ok := bits[ae.Arch]
				if !ok {
					b = idx.addPlace(a, ae.Arch, tags)
					bits[ae.Arch] = b
					row = idx.row(key) // adding a place may widen the rows
				}
				if b >= 0 {
					row[b/64] |= 1 << (b % 64)
				}
			}
		}
	}
	return idx
}

// row returns the bits of key, nil when the group does not store it.
func (idx *keyIndex) row(key string) []uint64 {
	r, ok := idx.rows[key]
	if !ok {
		return nil
	}
	return idx.bits[r*idx.words : (r+1)*idx.words : (r+1)*idx.words]
}

func (idx *keyIndex) addRow(key string) []uint64 {
	idx.rows[key] = len(idx.rows)
	for range idx.words {
		idx.bits = append(idx.bits, 0)
	}
	return idx.row(key)
}

// addPlace numbers the place (a, arch) and returns its bit, or -1 when
// arch is not a target ID. Past the last word every row gets one more.
func (idx *keyIndex) addPlace(a *model.Archive, arch string, tags map[string]*tag) int {
	t, ok := tags[arch]
	if !ok {
		if id, err := targetid.Parse(arch); err == nil {
			t = &tag{name: arch, id: id}
		}
		tags[arch] = t
	}
	if t == nil {
		return -1
	}
	b := len(idx.places)
	idx.places = append(idx.places, keyPlace{archive: a, tag: t})
	if b/64 >= idx.words {
		words := idx.words + 1
		bits := make([]uint64, len(idx.rows)*words)
		for r := range len(idx.rows) {
			copy(bits[r*words:], idx.bits[r*idx.words:(r+1)*idx.words])
		}
		idx.bits, idx.words = bits, words
	}
	return b
}

// procMask returns the places whose tag is for processor proc.
func (idx *keyIndex) procMask(proc string) []uint64 {
	m := make([]uint64, idx.words)
	for b, p := range idx.places {
		if p.tag.id.Processor == proc {
			m[b/64] |= 1 << (b % 64)
		}
	}
	return m
}

// placesOf returns the places storing any of p's kernels (once per
// project).
func (idx *keyIndex) placesOf(p *project) []uint64 {
	if p.mask == nil {
		p.mask = make([]uint64, idx.words)
		for key := range p.Kernels {
			if row := idx.row(key); row != nil {
				or(p.mask, row)
			}
		}
	}
	return p.mask
}

// tags returns, per processor, the tags of the places in m and the
// archives (in path order, each once) under each. Equal sets share one
// result; callers must not modify it.
func (idx *keyIndex) tags(m []uint64) map[string]map[string][]*model.Archive {
	k := maskKey(m)
	if out, ok := idx.memo[k]; ok {
		return out
	}
	out := map[string]map[string][]*model.Archive{}
	eachBit(m, func(b int) {
		p := idx.places[b]
		byTag := out[p.tag.id.Processor]
		if byTag == nil {
			byTag = map[string][]*model.Archive{}
			out[p.tag.id.Processor] = byTag
		}
		list := byTag[p.tag.name]
		if len(list) == 0 || list[len(list)-1] != p.archive {
			byTag[p.tag.name] = append(list, p.archive)
		}
	})
	idx.memo[k] = out
	return out
}

// ids returns the parsed tags of the places in m.
func (idx *keyIndex) ids(m []uint64) []targetid.ID {
	var out []targetid.ID
	eachBit(m, func(b int) { out = append(out, idx.places[b].tag.id) })
	return out
}

// tagsFor returns, per processor, the archive tags (TOC arches) under
// which the project's kernels are stored in the group's archives, and the
// archives that hold them (in path order, each once). Callers must not
// modify it.
func tagsFor(idx *keyIndex, p *project) map[string]map[string][]*model.Archive {
	if p.tags == nil {
		p.tags = idx.tags(idx.placesOf(p))
	}
	return p.tags
}

// and sets dst to a AND b and reports whether any bit is set.
func and(dst, a, b []uint64) bool {
	any := uint64(0)
	for i := range dst {
		dst[i] = a[i] & b[i]
		any |= dst[i]
	}
	return any != 0
}

// or adds the bits of b to dst.
func or(dst, b []uint64) {
	for i := range dst {
		dst[i] |= b[i]
	}
}

func eachBit(m []uint64, fn func(b int)) {
	for w, bits := range m {
		for ; bits != 0; bits &= bits - 1 {
			fn(w*64 + mathbits.TrailingZeros64(bits))
		}
	}
}

// maskKey is a bit set as a map key.
func maskKey(m []uint64) string {
	b := make([]byte, 0, 8*len(m))
	for _, w := range m {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return string(b)
}
