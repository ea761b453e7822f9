package rules

import (
	"encoding/binary"
	mathbits "math/bits"
	"slices"
	"sync"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
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

// keyIndex numbers the places of a kpack group (archives in path order,
// each archive's arches as its TOC holds them) so that where a kernel key
// is stored is a bit set over them (kernelMask). Built once per group
// (Context.keyIndex); per-project and per-kernel questions then cost the
// project's own kernels, and projects stored alike share their tags
// (tagsFor).
type keyIndex struct {
	places   []keyPlace
	archives []*model.Archive // the group's archives that open
	bit      []archBits       // per archive: its entries' arches and their bits
	words    int

	mu   sync.Mutex         // guards memo: checks may share the index
	memo map[string]*tagSet // tags by place set

	// refs, per archive (as archives), marks by Entry.Index the TOC
	// entries whose key a project's kernel is: set while prepare computes
	// every project's masks (marking), complete once marking ends.
	// KPL008 then needs no lookup for a referenced entry.
	refs    [][]uint64
	marking bool
}

// archBits are the TOC arches of an archive's entries and their places'
// bits (-1 for an arch that is not a target ID). An archive has a handful:
// a scan costs less than hashing the arch of every entry; a hostile TOC
// with many arches gets a map.
type archBits struct {
	list []archBit
	m    map[string]int // when list is long
}

type archBit struct {
	arch string
	bit  int
}

// maxArchScan is the most arches bitOf scans.
const maxArchScan = 8

func (ab *archBits) add(arch string, bit int) {
	ab.list = append(ab.list, archBit{arch, bit})
	if ab.m != nil || len(ab.list) > maxArchScan {
		if ab.m == nil {
			ab.m = make(map[string]int, len(ab.list))
			for _, x := range ab.list {
				ab.m[x.arch] = x.bit
			}
		}
		ab.m[arch] = bit
	}
}

func (ab *archBits) has(arch string) bool {
	_, ok := ab.lookup(arch)
	return ok
}

func (ab *archBits) lookup(arch string) (int, bool) {
	if ab.m != nil {
		if b, ok := ab.m[arch]; ok {
			return b, true
		}
		return -1, false
	}
	for _, x := range ab.list {
		if x.arch == arch {
			return x.bit, true
		}
	}
	return -1, false
}

// bitOf returns the bit of arch, or -1.
func (ab *archBits) bitOf(arch string) int {
	b, _ := ab.lookup(arch)
	return b
}

// tagSet is, per processor, the tags (TOC arches) of some places and the
// archives under each, in path order, each once. Projects stored alike
// share one.
type tagSet struct {
	byProc map[string]map[string][]*model.Archive
}

func newKeyIndex(g *model.Group) *keyIndex {
	idx := &keyIndex{memo: map[string]*tagSet{}}
	tags := map[string]*tag{} // nil for an arch that is not a target ID
	for _, a := range g.Archives {
		if a.Info == nil {
			continue
		}
		var bits archBits
		arches := append(slices.Clone(a.Info.Arches), a.Info.EntryArches...)
		for _, arch := range arches {
			if _, entries := slices.BinarySearch(a.Info.EntryArches, arch); entries && !bits.has(arch) { // EntryArches is sorted
				bits.add(arch, idx.addPlace(a, arch, tags))
			}
		}
		idx.archives = append(idx.archives, a)
		idx.bit = append(idx.bit, bits)
	}
	idx.words = max(1, (len(idx.places)+63)/64)
	return idx
}

// kernelMask sets in dst (len words, cleared) the places that store key
// and, while marking, marks its entries in refs.
func (idx *keyIndex) kernelMask(key string, dst []uint64) {
	for i, a := range idx.archives {
		for _, ae := range a.Info.Kernels[key] {
			if b := idx.bit[i].bitOf(ae.Arch); b >= 0 {
				dst[b/64] |= 1 << (b % 64)
			}
			if w := int(ae.Index / 64); idx.marking && w < len(idx.refs[i]) { // Index < Entries (kpack)
				idx.refs[i][w] |= 1 << (ae.Index % 64)
			}
		}
	}
}

// markReferences computes the masks of projects (every project of the
// group, all of host binaries) and with them which TOC entries the
// projects' kernels are (referenced).
func (idx *keyIndex) markReferences(projects []*project) {
	idx.refs = make([][]uint64, len(idx.archives))
	for i, a := range idx.archives {
		idx.refs[i] = make([]uint64, (a.Info.Entries+63)/64)
	}
	idx.marking = true
	idx.allMasks(projects)
	idx.marking = false
}

// marked reports whether refs is complete (markReferences ran; a nil
// index has no marks).
func (idx *keyIndex) marked() bool { return idx != nil && idx.refs != nil && !idx.marking }

// allReferenced reports whether every TOC entry of idx.archives[i] is a
// project's kernel (false when the marks were not made: the group has an
// archive-only site, or prepare did not run).
func (idx *keyIndex) allReferenced(i int) bool {
	if !idx.marked() {
		return false
	}
	n := idx.archives[i].Info.Entries
	for w, word := range idx.refs[i] {
		want := ^uint64(0)
		if rest := n - 64*w; rest < 64 {
			want = 1<<rest - 1
		}
		if word != want {
			return false
		}
	}
	return true
}

// referenced reports whether a project's kernel is the TOC entry e of
// idx.archives[i] (false when the marks were not made).
func (idx *keyIndex) referenced(i int, e kpack.Entry) bool {
	if !idx.marked() {
		return false
	}
	w := int(e.Index / 64)
	return w < len(idx.refs[i]) && idx.refs[i][w]&(1<<(e.Index%64)) != 0
}

// kernelMasks returns p's kernels' place sets, words per kernel in
// p.Kernels order (computed once per project).
func (idx *keyIndex) kernelMasks(p *project) []uint64 {
	if p.masks == nil {
		idx.fillMasks(p, make([]uint64, len(p.Kernels)*idx.words))
	}
	return p.masks
}

// allMasks computes the kernel masks of projects in one allocation.
func (idx *keyIndex) allMasks(projects []*project) {
	n := 0
	for _, p := range projects {
		n += len(p.Kernels)
	}
	slab := make([]uint64, n*idx.words)
	for _, p := range projects {
		k := len(p.Kernels) * idx.words
		idx.fillMasks(p, slab[:k:k])
		slab = slab[k:]
	}
}

// fillMasks sets p.masks to m (cleared, len(p.Kernels) x words) holding
// p's kernels' place sets.
func (idx *keyIndex) fillMasks(p *project, m []uint64) {
	for i, key := range p.Kernels {
		idx.kernelMask(key, m[i*idx.words:(i+1)*idx.words])
	}
	p.masks = m
}

// addPlace numbers the place (a, arch) and returns its bit, or -1 when
// arch is not a target ID.
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
	idx.places = append(idx.places, keyPlace{archive: a, tag: t})
	return len(idx.places) - 1
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

// placesOf returns in dst (len words) the places storing any of p's
// kernels.
func (idx *keyIndex) placesOf(p *project, dst []uint64) []uint64 {
	clear(dst)
	masks := idx.kernelMasks(p)
	for i := range p.Kernels {
		or(dst, masks[i*idx.words:(i+1)*idx.words])
	}
	return dst
}

// tags returns the tag set of the places in m. Equal sets share one
// result; callers must not modify it.
func (idx *keyIndex) tags(m []uint64) *tagSet {
	var buf [64]byte
	k := appendMask(buf[:0], m)
	idx.mu.Lock()
	defer idx.mu.Unlock()
	if ts, ok := idx.memo[string(k)]; ok {
		return ts
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
	ts := &tagSet{byProc: out}
	idx.memo[string(k)] = ts
	return ts
}

// ids returns the parsed tags of the places in m.
func (idx *keyIndex) ids(m []uint64) []targetid.ID {
	var out []targetid.ID
	eachBit(m, func(b int) { out = append(out, idx.places[b].tag.id) })
	return out
}

// tagsFor returns the tags (TOC arches) under which the project's kernels
// are stored in the group's archives, per processor, and the archives that
// hold them. Callers must not modify it.
func tagsFor(idx *keyIndex, p *project) *tagSet {
	if p.tags == nil {
		var buf [4]uint64
		m := buf[:0]
		if idx.words > len(buf) {
			m = make([]uint64, 0, idx.words)
		}
		p.tags = idx.tags(idx.placesOf(p, m[:idx.words]))
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
func maskKey(m []uint64) string { return string(appendMask(nil, m)) }

// appendMask appends the bytes of a bit set to b.
func appendMask(b []byte, m []uint64) []byte {
	for _, w := range m {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}
