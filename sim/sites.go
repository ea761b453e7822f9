package sim

import (
	"path"
	"slices"
	"sort"
	"strconv"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/resolver"
)

// Sites lists every place kernels load from: each kpack'd host binary with
// a valid reference, and the archive folders of groups no binary uses.
func Sites(b *model.Build, env resolver.Env) []*Site {
	var out []*Site
	used := map[string]bool{}
	keyBytes := MaxTotalKeyBytes // left for the binaries' kernel keys
	for _, bin := range b.Binaries {
		if s := binarySite(bin, env, &keyBytes); s != nil {
			out = append(out, s)
			used[s.Group] = true
		}
	}
	for _, g := range b.Groups {
		if !used[g.Name] && len(g.Binaries) == 0 {
			out = append(out, archiveSites(b, g, env)...)
		}
	}
	return out
}

// binarySite is bin's site; its kernel keys take at most
// MaxSiteKeyBytes of *keyBytes, the bytes left for the run's keys.
func binarySite(bin *model.Binary, env resolver.Env, keyBytes *int) *Site {
	info := bin.Info
	if info == nil || info.Ref == nil {
		return nil
	}
	cos := info.COIndexes()
	if len(cos) == 0 {
		return nil
	}
	var paths []string
	for _, p := range info.Ref.SearchPaths {
		paths = append(paths, hostbin.NormalizeSearchPath(p, info.Format))
	}
	cos, dropped := firstDistinct(cos, MaxSiteKernels)
	keyLen := len(info.Ref.KernelName) + len("#4294967295") // the most a key takes
	if room := min(*keyBytes, MaxSiteKeyBytes); keyLen*len(cos) > room {
		slices.Sort(cos)
		keep := room / keyLen
		cos, dropped = cos[:keep], dropped+len(cos)-keep
	}
	*keyBytes -= keyLen * len(cos)
	slices.Sort(cos) // one kernel name: SortKernels order is co_index order
	kernels := make([]string, len(cos))
	for i, co := range cos {
		kernels[i] = info.Ref.KernelName + "#" + strconv.FormatUint(uint64(co), 10)
	}
	return &Site{
		Binary: bin, Group: bin.Group, Path: bin.Path, Kernels: kernels, Dropped: dropped,
		Request: resolver.Request{SearchPaths: paths, BinaryDir: bin.Dir(), Env: env,
			Windows: info.Format == hostbin.FormatPE},
		Location: BinaryLocation(bin),
	}
}

// firstDistinct returns the first max distinct values of cos, in any
// order, and how many distinct values came after them.
func firstDistinct(cos []uint32, max int) ([]uint32, int) {
	if len(cos) <= max {
		out := slices.Clone(cos)
		slices.Sort(out)
		return slices.Compact(out), 0
	}
	var out []uint32
	seen := map[uint32]bool{}
	dropped := 0
	for _, co := range cos {
		switch {
		case seen[co]:
		case len(out) == max:
			dropped++
		default:
			out = append(out, co)
		}
		seen[co] = true
	}
	return out, dropped
}

// archiveSites gives one site per folder of an archive-only group: its
// kernels are the TOC keys and its search path is
// "<group>_@GFXARCH@.kpack" in that folder, then any archive of the folder
// not named after that pattern.
func archiveSites(b *model.Build, g *model.Group, env resolver.Env) []*Site {
	byDir := map[string][]*model.Archive{}
	var dirs []string
	for _, a := range g.Archives {
		d := path.Dir(a.Path)
		if byDir[d] == nil {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], a)
	}
	sort.Strings(dirs)
	var out []*Site
	for _, d := range dirs {
		out = append(out, archiveSite(b, g.Name, d, byDir[d], env))
	}
	return out
}

func archiveSite(b *model.Build, group, dir string, archives []*model.Archive, env resolver.Env) *Site {
	paths := []string{group + "_" + kpack.GfxArch + ".kpack"}
	keys := map[string]bool{}
	walked := map[kpack.TOCID]bool{} // hard links and copies share one parsed TOC
	for _, a := range archives {
		if a.NameGroup != group {
			paths = append(paths, path.Base(a.Path))
		}
		if a.Info == nil || walked[a.Info.TOCID()] {
			continue
		}
		walked[a.Info.TOCID()] = true
		for k := range a.Info.Kernels {
			if name, _, _ := finding.SplitKey(k); b.Untransformed(name) == nil {
				keys[k] = true // an untransformed binary's keys are never loaded (KPL011)
			}
		}
	}
	kernels := make([]string, 0, len(keys))
	for k := range keys {
		kernels = append(kernels, k)
	}
	finding.SortKernels(kernels)
	return &Site{
		Group: group, Path: dir, Kernels: kernels,
		Request:  resolver.Request{SearchPaths: paths, BinaryDir: dir, Env: env},
		Location: ArchiveLocation(archives[0]),
	}
}
