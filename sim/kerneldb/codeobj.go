package kerneldb

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/input/codeobj"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// Bounds of the Deep reads. An index over one of them is not parsed: the
// lookup gets a LimitHit miss (Effect NotChecked) naming the limit.
const (
	// MaxIndexBytes bounds a MessagePack index read whole (for a
	// .dat.zlib, its decompressed size).
	MaxIndexBytes = 64 << 20
	// MaxYAMLIndexBytes bounds a YAML index.
	MaxYAMLIndexBytes = 16 << 20
	// MaxYAMLNodes bounds the nodes of a YAML index, counted from its
	// indicators before parsing (maxYAMLNodes): a parsed node costs about
	// 150 bytes, so an index at the bound peaks near 200 MB, where a 16 MiB
	// flow sequence "[a,a,...]" would take over 2 GB.
	MaxYAMLNodes = 1 << 20
	// MaxPlaceholders bounds the distinct Placeholder sub-libraries one
	// index may name (real indexes name a few hundred to a few thousand).
	MaxPlaceholders = 1 << 16
)

// LimitError reports an input over one of the documented limits above.
type LimitError struct {
	Limit string // the limit's name, e.g. "kerneldb.MaxPlaceholders"
	Max   int64
	What  string // what went over it, e.g. "distinct Placeholder sub-libraries"
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("it holds more than %d %s (%s)", e.Max, e.What, e.Limit)
}

// deepCache holds, for one Check, the decoded code objects, parsed indexes
// and file tests by path, so agents sharing a folder read each file once.
type deepCache struct {
	fs    *view
	on    bool
	objs  map[string]codeObject
	idx   map[string]indexResult
	files map[string]bool
}

type codeObject struct {
	id      targetid.ID
	err     error
	bundle  bool
	entries []targetid.ID // HIP code objects of a bundle
}

type indexResult struct {
	prefixes []string
	err      error
}

func newDeepCache(fs *view, on bool) *deepCache {
	return &deepCache{fs: fs, on: on, objs: map[string]codeObject{}, idx: map[string]indexResult{}, files: map[string]bool{}}
}

// isFile is view.isFile, remembered.
func (d *deepCache) isFile(p string) bool {
	ok, seen := d.files[p]
	if !seen {
		ok = d.fs.isFile(p)
		d.files[p] = ok
	}
	return ok
}

// anyFile reports whether dir/prefix+ext exists for one of exts.
func (d *deepCache) anyFile(dir, prefix string, exts []string) bool {
	for _, e := range exts {
		if d.isFile(join(dir, prefix+e)) {
			return true
		}
	}
	return false
}

// misfit returns "" when the code object at p loads on the agent (or Deep
// is off), else why not: not an AMDGPU code object, built for an
// incompatible target (LLVM isCompatibleTargetID, generic targets too),
// or an offload bundle with no compatible entry (hipModuleLoad takes
// uncompressed and CCOB-compressed bundles and picks the entry for the
// device).
func (d *deepCache) misfit(p string, agent targetid.ID) string {
	if !d.on {
		return ""
	}
	e := d.fs.entry(p)
	if e == nil {
		return "missing"
	}
	co, ok := d.objs[e.Path]
	if !ok {
		co = decodeEntry(e, d.fs.t.Budget())
		d.objs[e.Path] = co
	}
	switch {
	case co.err != nil:
		return "not an AMDGPU code object: " + co.err.Error()
	case co.bundle:
		return bundleMisfit(co.entries, agent)
	case !targetid.CompatibleOrGeneric(co.id, agent):
		return "built for " + co.id.String()
	}
	return ""
}

// bundleMisfit says why no entry of an offload bundle loads on the agent.
func bundleMisfit(entries []targetid.ID, agent targetid.ID) string {
	var targets []string
	for _, id := range entries {
		if targetid.CompatibleOrGeneric(id, agent) {
			return ""
		}
		targets = append(targets, id.String())
	}
	if len(targets) == 0 {
		return "an offload bundle with no HIP code object"
	}
	slices.Sort(targets)
	return "an offload bundle for " + strings.Join(slices.Compact(targets), ", ") + " only"
}

// Offload bundle magics (hostbin reads both kinds' entry tables).
const (
	bundleMagic           = "__CLANG_OFFLOAD_BUNDLE__"
	compressedBundleMagic = "CCOB"
)

// decodeEntry decodes a code object's target from its first 64 bytes
// (cheap for every input kind, compressed tarball members included), or
// an offload bundle's entry table (hostbin.ReadBundleEntries, bounded,
// what it decompresses counted against budget).
func decodeEntry(e *vfs.Entry, budget *inflate.Budget) codeObject {
	head, err := e.Head(64)
	if err != nil {
		return codeObject{err: err}
	}
	if bytes.HasPrefix(head, []byte(bundleMagic)) || bytes.HasPrefix(head, []byte(compressedBundleMagic)) {
		return decodeBundle(e, budget)
	}
	id, err := codeobj.DecodeHeader(head, uint64(e.Size))
	if err == nil {
		err = truncated(head, e.Size)
	}
	return codeObject{id: id, err: err}
}

// truncated reports an ELF64 whose program or section header table
// (e_phoff + e_phnum*e_phentsize, e_shoff + e_shnum*e_shentsize) ends
// past the file's size: a copy cut short, which hipModuleLoadData rejects
// (llvm-readobj: "section header table goes past the end of the file").
func truncated(head []byte, size int64) error {
	le := binary.LittleEndian
	for _, t := range []struct {
		what       string
		off        uint64
		num, entsz uint16
	}{
		{"program header table", le.Uint64(head[0x20:]), le.Uint16(head[0x38:]), le.Uint16(head[0x36:])},
		{"section header table", le.Uint64(head[0x28:]), le.Uint16(head[0x3c:]), le.Uint16(head[0x3a:])},
	} {
		if t.num == 0 {
			continue
		}
		end := t.off + uint64(t.num)*uint64(t.entsz)
		if end < t.off || end > uint64(size) {
			return fmt.Errorf("truncated: its %s ends at byte %d, past the end of the file (%d bytes)", t.what, end, size)
		}
	}
	return nil
}

func decodeBundle(e *vfs.Entry, budget *inflate.Budget) codeObject {
	r, err := e.Open()
	if err != nil {
		return codeObject{err: err}
	}
	defer r.Close()
	m := budget.Meter("the offload bundle " + e.Path)
	defer m.Flush()
	ids, _, err := hostbin.ReadBundleEntries(io.NewSectionReader(r, 0, e.Size), m)
	if err != nil {
		return codeObject{err: err}
	}
	co := codeObject{bundle: true}
	for _, s := range ids {
		if id, ok := hip.EntryTarget(s); ok {
			co.entries = append(co.entries, id)
		}
	}
	return co
}

// placeholders returns the file prefixes of the Placeholder sub-libraries
// the index at p names, sorted and distinct.
func (d *deepCache) placeholders(p string) ([]string, error) {
	e := d.fs.entry(p)
	if e == nil {
		return nil, fmt.Errorf("%s: missing", show(p))
	}
	if r, ok := d.idx[e.Path]; ok {
		return r.prefixes, r.err
	}
	prefixes, err := readPlaceholders(e, d.fs.t.Budget())
	d.idx[e.Path] = indexResult{prefixes, err}
	return prefixes, err
}

// readPlaceholders reads an index whole (bounded by MaxIndexBytes or
// MaxYAMLIndexBytes, a .dat.zlib decompressed up to MaxIndexBytes and
// counted against budget) and collects its Placeholder prefixes.
func readPlaceholders(e *vfs.Entry, budget *inflate.Budget) ([]string, error) {
	name := path.Base(e.Path)
	yamlIndex := path.Ext(name) == ".yaml"
	limit, limitName := int64(MaxIndexBytes), "kerneldb.MaxIndexBytes"
	if yamlIndex {
		limit, limitName = MaxYAMLIndexBytes, "kerneldb.MaxYAMLIndexBytes"
	}
	compressed := strings.HasSuffix(name, zlibExt)
	if !compressed && e.Size > limit {
		return nil, &LimitError{Limit: limitName, Max: limit, What: "bytes"}
	}
	r, err := e.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var buf []byte
	if compressed {
		buf, err = inflateIndex(io.NewSectionReader(r, 0, e.Size), limit, budget.Meter("the index "+e.Path))
	} else {
		buf, err = readAll(r, e.Size)
	}
	if err != nil {
		return nil, err
	}
	var names []string
	if yamlIndex {
		names, err = yamlPlaceholders(buf)
	} else {
		names, err = msgpackPlaceholders(buf)
	}
	if err != nil {
		return nil, err
	}
	return cleanPrefixes(names), nil
}

func readAll(r io.ReaderAt, size int64) ([]byte, error) {
	buf := make([]byte, size)
	if n, err := r.ReadAt(buf, 0); n < len(buf) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// inflateIndex decompresses a zlib stream (hipBLASLt's
// readCompressedMsgObject), at most limit bytes, counted with m.
func inflateIndex(r io.Reader, limit int64, m *inflate.Meter) ([]byte, error) {
	z, err := zlib.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("zlib: %w", err)
	}
	defer z.Close()
	zr := m.Reader(z)
	defer zr.Close()
	buf, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err != nil {
		return nil, fmt.Errorf("zlib: %w", err)
	}
	if int64(len(buf)) > limit {
		return nil, &LimitError{Limit: "kerneldb.MaxIndexBytes", Max: limit, What: "bytes once decompressed"}
	}
	return buf, nil
}

// cleanPrefixes sorts and dedupes sub-library prefixes. A prefix is used
// as Tensile uses it (libraryDirectory + "/" + prefix + suffix, opened as a
// C string): one holding "/" names a subfolder, one holding NUL ends there.
func cleanPrefixes(names []string) []string {
	for i, n := range names {
		if j := strings.IndexByte(n, 0); j >= 0 {
			names[i] = n[:j]
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
