package benchtree

import (
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// Files Write puts in its directory.
const (
	TreeDir      = "tree"           // the build to lint
	PolicyFile   = "policies.yaml"  // the release variant's targets
	ManifestFile = "benchtree.json" // the Manifest
)

// poolSize is the code-like filler that objects and host code are cut
// from; larger pieces are cut to it.
const poolSize = 16 << 20

// Manifest describes a written tree (benchtree.json). Counts are exact.
type Manifest struct {
	ID         string   // Version, shape, scale, seed and object size: equal IDs mean equal bytes
	Shape      string   // preset name
	Targets    []string // policy targets
	Agents     []string // agent ISAs they expand to
	Tags       []string // archive targets
	Groups     int
	Archives   int
	Entries    int // TOC entries (kernel key x target) over all archives
	KernelKeys int // distinct kernel keys
	Binaries   int // kpack'd host binaries (real files)
	Links      int // symlinks to binaries
	Plain      int // other files
	// ObjectBytes is the decompressed code objects; ArchiveBytes and
	// BinaryBytes are the files' sizes on disk.
	ObjectBytes, ArchiveBytes, BinaryBytes int64
}

// ID identifies the bytes t generates.
func (t *Tree) ID() string {
	return fmt.Sprintf("benchtree v%d %s scale=%g seed=%d object=%d", Version, t.Shape, t.Scale, t.Seed, t.MeanObject)
}

// DirName names the directory of t under a cache root, e.g.
// "therock-x1-seed1-o17250" (used by `benchtree gen -root` and the
// benchmarks' KPACK_BENCH_DIR, so both find the same tree).
func (t *Tree) DirName() string {
	return fmt.Sprintf("%s-x%g-seed%d-o%d", strings.ReplaceAll(t.Shape, ":", "-"), t.Scale, t.Seed, t.MeanObject)
}

// job writes one file and returns its size and, for archives, the TOC
// entries and object bytes it holds.
type job func(pool []byte) (size int64, entries int, objects int64, err error)

// Write generates t into dir (created if missing; it must not hold a
// tree yet): dir/tree, dir/policies.yaml and dir/benchtree.json. workers
// files are built at once (0 means 1); the bytes do not depend on it.
func Write(dir string, t *Tree, workers int) (*Manifest, error) {
	root := filepath.Join(dir, TreeDir)
	if _, err := os.Lstat(root); err == nil {
		return nil, fmt.Errorf("%s already exists", root)
	}
	m := &Manifest{ID: t.ID(), Shape: t.Shape, Targets: t.Targets, Agents: t.Agents(), Tags: t.Tags(),
		Groups: len(t.Groups), Plain: len(t.Plain)}
	jobs := t.jobs(root, m)
	res, err := run(jobs, kpacktest.NewCodeLike(t.Seed).Bytes(nil, poolSize), max(workers, 1))
	if err != nil {
		return nil, err
	}
	for i, r := range res {
		if i < m.Archives {
			m.ArchiveBytes += r.size
		} else if i < m.Archives+m.Binaries {
			m.BinaryBytes += r.size
		}
		m.Entries += r.entries
		m.ObjectBytes += r.objects
	}
	if err := t.writeLinks(root); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, PolicyFile), []byte(t.Policy()), 0o644); err != nil {
		return nil, err
	}
	data, _ := json.MarshalIndent(m, "", "  ")
	return m, os.WriteFile(filepath.Join(dir, ManifestFile), append(data, '\n'), 0o644)
}

// jobs lists the archives, then the binaries, then the plain files, and
// counts them into m.
func (t *Tree) jobs(root string, m *Manifest) []job {
	var out []job
	for gi := range t.Groups {
		g := &t.Groups[gi]
		keys := g.Keys()
		m.KernelKeys += len(keys)
		for _, tag := range g.Tags {
			out = append(out, t.archiveJob(root, g, keys, tag))
		}
	}
	m.Archives = len(out)
	for gi := range t.Groups {
		g := &t.Groups[gi]
		for _, b := range g.Binaries {
			out = append(out, t.binaryJob(root, g, b))
			m.Links += len(b.Links)
		}
	}
	m.Binaries = len(out) - m.Archives
	for _, p := range t.Plain {
		out = append(out, t.plainJob(root, p))
	}
	return out
}

type result struct {
	size    int64
	entries int
	objects int64
}

// run runs jobs on workers goroutines; the first error stops the rest.
func run(jobs []job, pool []byte, workers int) ([]result, error) {
	res := make([]result, len(jobs))
	next := make(chan int)
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				size, n, obj, err := jobs[i](pool)
				res[i] = result{size, n, obj}
				if err != nil {
					mu.Lock()
					first = errors.Join(first, err)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range jobs {
		mu.Lock()
		failed := first != nil
		mu.Unlock()
		if failed {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return res, first
}

// rngFor seeds a file's own generator from the tree seed and its path, so
// files do not depend on the order they are written in.
func (t *Tree) rngFor(p string) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s", t.Seed, p)
	return rand.New(rand.NewSource(int64(h.Sum64() >> 1)))
}

// cut returns n bytes of pool at a random offset (n is cut to the pool).
func cut(rng *rand.Rand, pool []byte, n int) []byte {
	n = min(max(n, 0), len(pool))
	off := rng.Intn(len(pool) - n + 1)
	return pool[off : off+n]
}

func (t *Tree) archiveJob(root string, g *Group, keys []string, tag string) job {
	p := g.ArchivePath(tag)
	return func(pool []byte) (int64, int, int64, error) {
		rng := t.rngFor(p)
		partial := slices.Contains(g.Partial, tag)
		header := codeobjtest.CodeObject(tag, "")
		var ks []kpacktest.Kernel
		var objects int64
		for i, k := range keys {
			if partial && i > 0 && rng.Float64() >= partialShare {
				continue // an overlay holds some kernels, always the first
			}
			data := codeObject(rng, pool, header, k+"@"+tag+"\n", t.objectSize(rng))
			ks = append(ks, kpacktest.Kernel{Key: k, Arch: tag, Data: data})
			objects += int64(len(data))
		}
		data := kpacktest.Build(kpacktest.Spec{Group: g.Name, Family: family(tag), Arches: []string{tag},
			Scheme: kpack.SchemeZstd, Kernels: ks})
		return int64(len(data)), len(ks), objects, writeFile(root, p, data)
	}
}

// objectSize draws a log-normal size (sigma 1) around MeanObject, cut to
// [MeanObject/16, 64*MeanObject] and at least 128 bytes.
func (t *Tree) objectSize(rng *rand.Rand) int {
	return min(max(lognormal(rng, t.MeanObject, 1), t.MeanObject/16, 128), 64*t.MeanObject)
}

// codeObject is header, then the label (kernel key and target, which makes
// every object distinct), then filler up to size bytes.
func codeObject(rng *rand.Rand, pool, header []byte, label string, size int) []byte {
	data := make([]byte, 0, max(size, len(header)+len(label)))
	data = append(append(data, header...), label...)
	return append(data, cut(rng, pool, size-len(data))...)
}

// family is the informational gfx_arch_family: the processor with its last
// character replaced by X (gfx942 -> gfx94X), or the generic processor.
func family(tag string) string {
	id, err := targetid.Parse(tag)
	if err != nil || strings.Contains(id.Processor, "generic") {
		return id.Processor
	}
	return id.Processor[:len(id.Processor)-1] + "X"
}

// binaryJob writes an ELF shared object: .text (code-like filler), then
// .rocm_kpack_ref naming the binary and its group's archive pattern, then
// .hipFatBinSegment with one HIPK wrapper per kernel pointing at the
// reference, as the rocm-kpack transform leaves a binary.
func (t *Tree) binaryJob(root string, g *Group, b Binary) job {
	return func(pool []byte) (int64, int, int64, error) {
		text := cut(t.rngFor(b.Path), pool, b.Text)
		ref := hostbintest.RefBytes(b.Path, g.SearchPath(path.Dir(b.Path)))
		refAddr := (64 + len(text) + 31) &^ 31 // ELFWith: data from 64, .text first, ref aligned to 32
		data := hostbintest.ELFWith(
			hostbintest.ELFSection{Name: ".text", Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR, Align: 16, Data: text},
			hostbintest.ELFSection{Name: hostbin.RefSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Align: 32, Data: ref},
			hostbintest.ELFSection{Name: hostbin.FatBinSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC | elf.SHF_WRITE, Align: 8,
				Data: hostbintest.WrapperBytes(hostbintest.HIPK(b.Kernels), uint64(refAddr))},
		)
		return int64(len(data)), 0, 0, writeFile(root, b.Path, data)
	}
}

func (t *Tree) plainJob(root, p string) job {
	return func([]byte) (int64, int, int64, error) {
		var sb strings.Builder
		fmt.Fprintf(&sb, "// %s: generated by benchtree\n#pragma once\n", p)
		for i := range 64 {
			fmt.Fprintf(&sb, "int %s_fn%d(int x); // returns x + %d\n", strings.TrimSuffix(path.Base(p), ".h"), i, i)
		}
		return int64(sb.Len()), 0, 0, writeFile(root, p, []byte(sb.String()))
	}
}

// writeLinks creates each binary's symlinks, each to the next name.
func (t *Tree) writeLinks(root string) error {
	for _, g := range t.Groups {
		for _, b := range g.Binaries {
			for i, l := range b.Links {
				target := b.Path
				if i+1 < len(b.Links) {
					target = b.Links[i+1]
				}
				if err := os.Symlink(path.Base(target), filepath.Join(root, filepath.FromSlash(l))); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func writeFile(root, p string, data []byte) error {
	full := filepath.Join(root, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, data, 0o644)
}

// Ensure returns the manifest of the tree t under dir, writing it first
// unless dir already holds a tree with t's ID (a previous run's cache). A
// tree with another ID is removed and regenerated.
func Ensure(dir string, t *Tree, workers int) (*Manifest, error) {
	if m, err := ReadManifest(dir); err == nil && m.ID == t.ID() {
		return m, nil
	}
	for _, name := range []string{TreeDir, PolicyFile, ManifestFile} {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return nil, err
		}
	}
	return Write(dir, t, workers)
}

// ReadManifest reads dir/benchtree.json.
func ReadManifest(dir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, ManifestFile), err)
	}
	return &m, nil
}
