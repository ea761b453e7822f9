package kpack

import (
	"fmt"
	"slices"
	"strings"
)

// crossCheck reports problems that need the whole TOC (and, for zstd, the
// frame index): arches the loader cannot serve, ordinals outside their
// table, blobs past end of file and impossible sizes.
func (p *tocParser) crossCheck() {
	for _, t := range p.tocArches {
		if t.used {
			p.a.EntryArches = append(p.a.EntryArches, t.name)
			p.a.ArchTotals = append(p.a.ArchTotals, ArchTotal{Arch: t.name, Entries: t.entries, Bytes: t.bytes})
		}
	}
	slices.Sort(p.a.EntryArches)
	slices.SortFunc(p.a.ArchTotals, func(x, y ArchTotal) int { return strings.Compare(x.Arch, y.Arch) })
	p.checkArches()
	p.checkBlobs()
	p.checkEntries()
	p.checkZstdTail()
}

// checkZstdTail reports zstd blob bytes that no frame covers (known only
// when the frame chain was walked).
func (p *tocParser) checkZstdTail() {
	if tail, ok := p.a.tailProblem(); ok {
		p.problems = append(p.problems, tail)
	}
}

// checkArches compares toc arch keys with gfx_arches: the loader chooses an
// archive for an arch only from gfx_arches.
func (p *tocParser) checkArches() {
	declared := map[string]bool{}
	used := map[string]bool{}
	for _, t := range p.tocArches {
		if t.used {
			used[t.name] = true
		}
	}
	for _, r := range p.arches {
		p.checkDeclared(r, declared, used)
	}
	for _, t := range p.tocArches {
		if t.at >= 0 && !p.a.HasArch(t.name) {
			p.add(ProblemMalformed, t.at, "toc[*]["+t.name+"]",
				"arch %q has toc entries but is not in gfx_arches; the loader never loads them", t.name)
			p.checkTarget(archRef{arch: t.name, at: t.at, idx: -1})
		}
	}
}

func (p *tocParser) checkDeclared(r archRef, declared, used map[string]bool) {
	field := fmt.Sprintf("gfx_arches[%d]", r.idx)
	if declared[r.arch] {
		p.add(ProblemTarget, r.at, field, "arch %q is listed twice in gfx_arches", r.arch)
		return
	}
	declared[r.arch] = true
	p.checkTarget(r)
	if !used[r.arch] {
		p.add(ProblemMalformed, r.at, field,
			"arch %q is declared in gfx_arches but has no kernel entries; every fetch gives KERNEL_NOT_FOUND", r.arch)
	}
}

// checkTarget reports arch strings that cannot match an agent ISA name.
func (p *tocParser) checkTarget(r archRef) {
	field := fmt.Sprintf("gfx_arches[%d]", r.idx)
	if r.idx < 0 {
		field = "toc[*][" + r.arch + "]"
	}
	if why := suspiciousTarget(r.arch); why != "" {
		p.add(ProblemTarget, r.at, field, "arch %q %s", r.arch, why)
	}
}

// suspiciousTarget explains why s cannot be a target ID as the loader
// compares them, or returns "".
func suspiciousTarget(s string) string {
	switch {
	case s == "":
		return "is empty"
	case strings.TrimSpace(s) != s:
		return "has leading or trailing whitespace"
	case strings.Contains(s, "amdgcn-amd-amdhsa"):
		return "has a target triple prefix; the loader compares bare target IDs"
	case !strings.HasPrefix(s, "gfx"):
		return "does not start with \"gfx\""
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(":+-_", c)) {
			return fmt.Sprintf("contains %q", c)
		}
	}
	return ""
}

// checkBlobs reports blobs the runtime cannot read (scheme none).
func (p *tocParser) checkBlobs() {
	if p.a.EffectiveScheme() != SchemeNone {
		return
	}
	for i, b := range p.a.Blobs {
		field := fmt.Sprintf("blobs[%d]", i)
		at := p.blobAt[i]
		if b.Size > MaxSaneKernelSize {
			p.add(ProblemMalformed, at, field+".size", "size %d exceeds 4 GiB; the runtime allocates it before reading "+
				"(from 2^47 bytes the allocation throws and the process aborts)", b.Size)
		}
		if end, ok := addU64(b.Offset, b.Size); !ok || end > uint64(p.a.Size) {
			p.add(ProblemMalformed, at, field, "blob [%d, +%d) runs past end of file (%d bytes); fetch gives IO_ERROR",
				b.Offset, b.Size, p.a.Size)
		}
	}
}

func addU64(a, b uint64) (uint64, bool) {
	s := a + b
	return s, s >= a
}

// checkEntries reports ordinals outside the blob or frame table and
// impossible original sizes: the entries parseEntry kept in refs.
func (p *tocParser) checkEntries() {
	table, name := uint64(len(p.a.Blobs)), "blobs table"
	if p.a.EffectiveScheme() == SchemeZstd {
		table, name = uint64(p.a.FrameCount), "zstd frame table"
	} else if p.blobsAt < 0 && p.kept > 0 {
		p.add(ProblemMalformed, 0, "blobs", "scheme %q has no blobs table; every fetch gives KERNEL_NOT_FOUND", SchemeNone)
		name = ""
	}
	for _, r := range p.refs {
		if r.gone {
			continue
		}
		e := r.ent
		field := entryField(r.key, r.arch)
		if name != "" && uint64(e.Ordinal) >= table {
			p.add(ProblemMalformed, r.ordinalAt, field+".ordinal",
				"ordinal %d is outside the %s (%d items); fetch gives KERNEL_NOT_FOUND", e.Ordinal, name, table)
		}
		if e.OriginalSize > MaxSaneKernelSize {
			p.add(ProblemMalformed, r.sizeAt, field+".original_size", "%s", hugeSizeMsg(p.a.EffectiveScheme(), e.OriginalSize))
		}
	}
}

// hugeSizeMsg describes an original_size no kernel can have. Scheme zstd
// allocates it before decompressing (the process aborts); scheme none
// ignores it and serves the stored blob, so the TOC only misdescribes it.
func hugeSizeMsg(scheme string, size uint64) string {
	if scheme == SchemeZstd {
		return fmt.Sprintf("original_size %d exceeds 4 GiB; the runtime allocates it before decompressing, so the load runs out of memory "+
			"(from 2^47 bytes the allocation throws and the process aborts)", size)
	}
	return fmt.Sprintf("original_size %d exceeds 4 GiB; scheme none ignores original_size and serves the stored blob, so the TOC misdescribes the kernel", size)
}
