package kerneldb

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/deep"
	"github.com/rocm-tools/kpack-lint/targetid"
	"github.com/rocm-tools/kpack-lint/vfs"
)

// Bounds of the Deep reads.
const (
	// MaxIndexBytes bounds a MessagePack index read whole; larger ones are
	// reported as unreadable, not parsed.
	MaxIndexBytes = 64 << 20
	// MaxYAMLIndexBytes bounds a YAML index (its node tree costs several
	// times its size).
	MaxYAMLIndexBytes = 16 << 20
	// MaxPlaceholders bounds the sub-libraries one index may name.
	MaxPlaceholders = 1 << 20
)

// bundleMagic starts a clang offload bundle, which hipModuleLoad accepts
// too; its entries are not decoded here.
const bundleMagic = "__CLANG_OFFLOAD_BUNDLE__"

// deepCache holds, for one Check, the decoded code objects and parsed
// indexes by real path, so agents sharing a folder read each file once.
type deepCache struct {
	fs   *view
	on   bool
	objs map[string]codeObject
	idx  map[string]indexResult
}

type codeObject struct {
	id     targetid.ID
	err    error
	bundle bool
}

type indexResult struct {
	prefixes []string
	err      error
}

func newDeepCache(fs *view, on bool) *deepCache {
	return &deepCache{fs: fs, on: on, objs: map[string]codeObject{}, idx: map[string]indexResult{}}
}

// misfit returns "" when the code object at p loads on the agent (or Deep
// is off), else why not: not an AMDGPU code object, or built for an
// incompatible target (LLVM isCompatibleTargetID, generic targets too).
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
		co = decodeEntry(e)
		d.objs[e.Path] = co
	}
	switch {
	case co.bundle:
		return ""
	case co.err != nil:
		return "not an AMDGPU code object: " + co.err.Error()
	case !targetid.CompatibleOrGeneric(co.id, agent):
		return "built for " + co.id.String()
	}
	return ""
}

// decodeEntry decodes a code object's target from its first 64 bytes
// (cheap for every input kind, compressed tarball members included).
func decodeEntry(e *vfs.Entry) codeObject {
	head, err := e.Head(64)
	if err != nil {
		return codeObject{err: err}
	}
	if bytes.HasPrefix(head, []byte(bundleMagic)) {
		return codeObject{bundle: true}
	}
	id, err := deep.DecodeHeader(head, uint64(e.Size))
	return codeObject{id: id, err: err}
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
	prefixes, err := readPlaceholders(e)
	d.idx[e.Path] = indexResult{prefixes, err}
	return prefixes, err
}

func readPlaceholders(e *vfs.Entry) ([]string, error) {
	yamlIndex := path.Ext(e.Path) == ".yaml"
	limit := int64(MaxIndexBytes)
	if yamlIndex {
		limit = MaxYAMLIndexBytes
	}
	if e.Size > limit {
		return nil, fmt.Errorf("%d bytes, more than the %d read for --deep", e.Size, limit)
	}
	r, err := e.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, e.Size)
	if n, err := r.ReadAt(buf, 0); n < len(buf) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
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
	return checkPrefixes(names)
}

// checkPrefixes sorts and dedupes sub-library prefixes and rejects ones
// that are not plain file names (they would leave the library folder).
func checkPrefixes(names []string) ([]string, error) {
	sort.Strings(names)
	out := names[:0]
	for i, n := range names {
		if i > 0 && n == names[i-1] {
			continue
		}
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\\\x00") {
			return nil, fmt.Errorf("Placeholder value %q is not a file name", n)
		}
		out = append(out, n)
	}
	return out, nil
}
