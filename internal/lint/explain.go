package lint

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/report"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/machine"
	"github.com/rocm-tools/kpack-lint/sim/verify"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// device is one simulated device: its ISA and the arch_list HIP passes.
type device struct {
	isa      string
	archList []string
}

// Explain is `kpack-lint explain`: it reads the inputs (stage 1, the frame
// chains walked as the runtime does), takes the devices of the matrix
// (cfg.Agents, else every agent of the policy's variant), simulates one
// kpack_load_code_object per kernel key of cfg.Explain and device,
// fetching and decompressing the selected kernel within
// cfg.DeepOptions.MaxMemory (verify), and writes the explanations in
// cfg.Report.Format (report.WriteExplanations). It returns ErrFindings
// when a load fails (kpack's verdict; HIP's is advice), and after the
// output a *MemoryError when a fetched kernel could not be verified within
// the memory budget.
func Explain(cfg Config) error {
	tree, err := openTree(&cfg, vfs.Options{})
	if err != nil {
		return err
	}
	defer tree.Close()
	b := model.LoadOptions(tree, model.Options{FrameChains: true})
	if err := budgetSpent(tree); err != nil {
		return err
	}
	objs := &fetched{opt: verify.Options{MaxMemory: cfg.DeepOptions.MaxMemory, Budget: tree.Budget()}, objects: map[verify.Key]verify.Object{}}
	b.SetFetch(objs.fetch)
	rel, err := sim.MatrixRelease(cfg.HIP)
	if err != nil {
		return errs.AsUsage(err)
	}
	if len(cfg.Machines) > 0 {
		return explainMachines(&cfg, b, objs, rel)
	}
	devices, loader, err := explainDevices(&cfg, b, rel)
	if err != nil {
		return err
	}
	var out []report.Explanation
	failed := false
	for _, key := range cfg.Explain.Keys {
		if path, n, ok := embeddedKey(key); ok {
			bin, bd, err := embeddedBundle(b, key, path, n)
			if err != nil {
				return err
			}
			decoded := verify.VerifyBundle(bin, bd, objs.opt)
			for _, d := range embeddedDevices(&cfg, devices) {
				ex, ok := explainEmbedded(key, bin, bd, d, decoded, rel)
				out = append(out, ex)
				failed = failed || !ok
			}
			continue
		}
		req, binPath, err := explainRequest(&cfg, b, key)
		if err != nil {
			return err
		}
		for _, d := range devices {
			req.Env = cfg.Env
			ex, ok := explainOne(b, objs, key, d, req, binPath, loader, rel)
			out = append(out, ex)
			failed = failed || !ok
		}
	}
	if err := budgetSpent(tree); err != nil {
		return err
	}
	return explained(report.WriteExplanations(cfg.Report.Stdout, cfg.Report.Format, out), objs, failed)
}

// explainOne simulates one load of key on device d, the only device of
// its process, as rel's HIP loads it.
func explainOne(b *model.Build, objs *fetched, key string, d device, req resolver.Request, binPath string, loader finding.Loader, rel hip.Release) (report.Explanation, bool) {
	req.ArchList = d.archList
	res, plan := resolver.Resolve(b, req, key, loader)
	ex := newExplanation(key, loader, req, binPath, res, plan)
	if res.OK() {
		ex.CodeObject, ex.HIP = checkCodeObject(objs.objects[verify.Key{Archive: res.Archive, Kernel: key, Arch: res.Target}], d.archList[0])
	} else {
		seen := machine.Alone(rel, false, false, res.Code).Seen
		ex.HIP, ex.HIPEffect = seen.Error(), "HIP "+rel.Name+": "+seen.Text()
	}
	ex.Note = coIndexNote(b, binPath, key)
	ex.Overridden = req.Overridden()
	return ex, res.OK()
}

// explainDevices returns the devices to load on and the loader (the
// policy's unless cfg.Loader says otherwise). cfg.Agents give one device
// (HIP's arch_list, unless cfg.Explain.NoGeneric, or the variant's
// arch_list for its processor); without them, cfg.Variant (or the
// policy's default variant) gives its agents, each one device whose
// arch_list the variant decides. A policy found by discovery is told
// (PolicyNote): its loader, env: and arch_list change the load.
func explainDevices(cfg *Config, b *model.Build, rel hip.Release) ([]device, finding.Loader, error) {
	pol := cfg.Policy
	loader := pol.LoaderOrDefault()
	if cfg.Loader != "" {
		l, err := finding.ParseLoader(string(cfg.Loader))
		if err != nil {
			return nil, "", errs.AsUsage(err)
		}
		loader = l
	}
	if len(cfg.Agents) > 0 {
		// The variant only decides the arch_list here: a policy whose
		// default variant is ambiguous gives HIP's (an unknown variant
		// is still an error).
		v, _, err := pol.Variant(cfg.Variant)
		if err != nil && cfg.Variant != "" {
			return nil, "", errs.AsUsage(err)
		}
		tellPolicy(cfg, PolicyNote{})
		devices, err := agentDevices(cfg, v.ArchLists(), rel)
		if err != nil {
			return nil, "", err
		}
		return devices, loader, nil
	}
	if pol == nil {
		return nil, "", errs.AsUsage(ErrNoDevices)
	}
	ctx, err := newContext(b, Config{Policy: pol, Variant: cfg.Variant, Loader: cfg.Loader, HIP: cfg.HIP}, nil, nil)
	if err != nil {
		return nil, "", errs.AsUsage(err)
	}
	var out []device
	for _, a := range ctx.Agents {
		out = append(out, device{isa: a.ISA, archList: a.ArchList})
	}
	tellPolicy(cfg, PolicyNote{FromVariant: true, Variant: ctx.Variant, Agents: len(out)})
	if len(out) == 0 {
		return nil, "", errs.Usagef("explain: the %s variant of %s has no agents to load on", ctx.Variant, pol.File())
	}
	return out, loader, nil
}

// tellPolicy notes the policy discovery found (cfg.PolicyFound), if any.
func tellPolicy(cfg *Config, n PolicyNote) {
	if cfg.PolicyFound != "" && cfg.Policy != nil {
		n.Path, n.Found = cfg.Policy.File(), cfg.PolicyFound
		cfg.tell(n)
	}
}

// agentDevices are the devices of cfg.Agents: each device ISA is one
// device, alone in its process, whose arch_list is the ISA and rel's HIP
// entries (hip.Release.ArchList), the policy variant's arch_list for its
// processor, or, with NoGeneric, the ISA alone; an --agent that is a
// generic target is added as given to the arch_list of the device before
// it (never first).
//
// An agent no device reports (gfx900 without xnack, gfx90c:xnack+) is
// still simulated, as the runtime's own tests call the loader with such
// names; an AgentNote says so.
func agentDevices(cfg *Config, archLists map[string][]string, rel hip.Release) ([]device, error) {
	var out []device
	for i, a := range cfg.Agents {
		id, err := targetid.Parse(a)
		if err != nil {
			return nil, &errs.OptionError{Option: "agent", Value: a, Err: err}
		}
		p, _ := targetid.LookupProcessor(id.Processor)
		switch {
		case p.Generic && i == 0:
			return nil, &errs.OptionError{Option: "agent", Value: a, Err: ErrGenericAgent}
		case !targetid.IsDeviceISA(id):
			cfg.tell(AgentNote{Agent: a, Hint: policy.DeviceISAHint(id)})
		}
		var list []string
		switch entries, ok := archLists[id.Processor]; {
		case p.Generic:
			last := &out[len(out)-1]
			last.archList = append(last.archList, id.String())
			continue
		case cfg.Explain.NoGeneric:
			list = []string{id.String()}
		case ok:
			list = append([]string{id.String()}, entries...)
		default:
			list = rel.ArchList(id)
		}
		out = append(out, device{isa: id.String(), archList: list})
	}
	return out, nil
}

// explainRequest takes cfg.Explain.Search (relative to the input root) or
// the search paths of the host binary whose kernel_name is the key's name
// (cfg.Explain.Binary picks one when several have it; otherwise the first
// by path, with a BinariesNote naming the others), or, with none, searches
// the archives holding the key as check does.
func explainRequest(cfg *Config, b *model.Build, key string) (resolver.Request, string, error) {
	if len(cfg.Explain.Search) > 0 {
		return resolver.Request{SearchPaths: cfg.Explain.Search, BinaryDir: "."}, "", nil
	}
	binary := cfg.Explain.Binary
	name, co, _ := finding.SplitKey(key)
	var found []*model.Binary
	for _, bin := range b.Binaries {
		if bin.Info != nil && bin.Info.Ref != nil && bin.Info.Ref.KernelName == name && (binary == "" || bin.Path == binary) {
			found = append(found, bin)
		}
	}
	if len(found) == 0 {
		if binary != "" {
			return resolver.Request{}, "", errs.Usagef("explain: %s is not a host binary with kernel_name %q in the input", binary, name)
		}
		if req, ok := archiveRequest(b, key); ok {
			return req, "", nil
		}
		return resolver.Request{}, "", errs.AsUsage(&KernelNotFoundError{Name: name, Key: key, Near: nearKernelName(b, name), CO: co})
	}
	if len(found) > 1 {
		var others []string
		for _, f := range found[1:] {
			others = append(others, f.Path)
		}
		cfg.tell(BinariesNote{Name: name, Using: found[0].Path, Others: others})
	}
	bin := found[0]
	if err := missingCOIndex(b, bin, key, co); err != nil {
		return resolver.Request{}, "", err
	}
	var paths []string
	for _, p := range bin.Info.Ref.SearchPaths {
		paths = append(paths, hostbin.NormalizeSearchPath(p, bin.Info.Format))
	}
	return resolver.Request{SearchPaths: paths, BinaryDir: bin.Dir(), Windows: bin.Info.Format == hostbin.FormatPE}, bin.Path, nil
}

// nearKernelName returns the kernel name of the build (a host binary's
// kernel_name or a name in an archive's TOC) that name most likely means:
// one ending in "/"+name (rocfft-test for bin/rocfft-test), else the
// closest by edit distance; "" when none is close.
func nearKernelName(b *model.Build, name string) string {
	seen := map[string]bool{}
	for _, bin := range b.Binaries {
		if bin.Info != nil && bin.Info.Ref != nil {
			seen[bin.Info.Ref.KernelName] = true
		}
	}
	for _, a := range b.Archives {
		if a.Info == nil {
			continue
		}
		for k := range a.Info.Kernels {
			if n, _, ok := finding.SplitKey(k); ok {
				seen[n] = true
			}
		}
	}
	names := slices.Sorted(maps.Keys(seen))
	for _, n := range names {
		if strings.HasSuffix(n, "/"+name) {
			return n
		}
	}
	return strings.TrimSuffix(strings.TrimPrefix(policy.DidYouMean(name, names), " (did you mean "), "?)")
}

// archiveRequest searches for key as check does for a kpack group with no
// host binary: <group>_@GFXARCH@.kpack in the folder of the first archive
// (by path) whose TOC holds the key.
func archiveRequest(b *model.Build, key string) (resolver.Request, bool) {
	for _, a := range b.Archives {
		if a.Info == nil || a.Group() == "" {
			continue
		}
		if _, ok := a.Info.Kernels[key]; ok {
			return resolver.Request{SearchPaths: []string{a.Group() + "_" + kpack.GfxArch + ".kpack"}, BinaryDir: path.Dir(a.Path)}, true
		}
	}
	return resolver.Request{}, false
}

func newExplanation(key string, l finding.Loader, req resolver.Request, bin string, res resolver.Result, plan *resolver.Plan) report.Explanation {
	ex := report.Explanation{
		Kernel: key, ArchList: req.ArchList, Loader: string(l), Result: res.Code.String(), Code: int(res.Code),
		Archive: res.Archive, MatchedTarget: res.Target, Binary: bin,
		SearchPaths: nonEmpty(plan.Paths), Opened: nonNil(plan.Opened), Refused: plan.Refused, Faulted: plan.Faulted,
		Disabled: plan.Disabled, Trace: []report.TraceStep{}, Omitted: res.Omitted,
		Loaded: res.Code == kpack.Success, Aborted: res.Code == kpack.Abort,
		States: pathStates(plan), DisabledBy: resolver.EnvDisable, OverriddenBy: resolver.EnvPath,
	}
	for _, s := range res.Trace {
		ex.Trace = append(ex.Trace, report.TraceStep{Arch: s.Arch, Target: s.Target, Archive: s.Archive, Result: s.Code.String(), Code: int(s.Code)})
	}
	return ex
}

// nonEmpty drops the "" entries of refused paths (listed in Refused).
func nonEmpty(s []string) []string {
	out := []string{}
	for _, x := range s {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// fetched simulates kpack_get_kernel for explain: each kernel it is asked
// for is read and decompressed once (verify.VerifyOne, within the memory
// budget).
type fetched struct {
	opt     verify.Options
	objects map[verify.Key]verify.Object
	skip    []verify.Key
}

// fetch is a model.FetchFunc. An object the memory budget cannot verify is
// judged from the TOC, and remembered for skipped.
func (f *fetched) fetch(a *model.Archive, key, arch string) kpack.Code {
	k := verify.Key{Archive: a.Path, Kernel: key, Arch: arch}
	o, ok := f.objects[k]
	if !ok {
		o = verify.VerifyOne(a, key, arch, f.opt)
		f.objects[k] = o
		if o.Skipped {
			f.skip = append(f.skip, k)
		}
	}
	if o.Skipped {
		return model.TOCFetch(a, key, arch)
	}
	return o.Code
}

// skipped is a *MemoryError naming the first kernel that could not be
// verified within the memory budget: a limit of this run must never pass
// as a load.
func (f *fetched) skipped() error {
	if len(f.skip) == 0 {
		return nil
	}
	k := f.skip[0]
	return errs.AsUsage(&MemoryError{Objects: len(f.skip), Budget: f.opt.MaxMemory, Key: k, Err: f.objects[k].Err})
}

// checkCodeObject judges the served code object's ELF target against the
// agent (LLVM isCompatibleTargetID), as HIP does after kpack found the
// bytes.
func checkCodeObject(o verify.Object, agent string) (target, hipResult string) {
	if o.Code != kpack.Success || o.Skipped {
		return "", ""
	}
	if o.Err != "" {
		return "none (" + o.Err + ")", hip.ErrInvalidImage
	}
	co, err := targetid.Parse(o.Target)
	if err != nil {
		return "none (" + err.Error() + ")", hip.ErrInvalidImage
	}
	ag, err := targetid.Parse(agent)
	if err == nil && !targetid.CompatibleOrGeneric(co, ag) {
		return co.String(), hip.ErrInvalidImage
	}
	return co.String(), "hipSuccess"
}

// missingCOIndex is the usage error for a key whose co_index is none of
// bin's version-1 HIPK wrappers while no archive's TOC holds it either:
// HIP never asks for it and the loader has nothing to say, so the error
// names the keys there are instead of simulating loads that can only
// answer KERNEL_NOT_FOUND. nil when bin has the wrapper or an archive
// holds the key (explain then loads it, with coIndexNote).
func missingCOIndex(b *model.Build, bin *model.Binary, key string, co uint64) error {
	var keys []string
	for _, c := range bin.Info.COIndexes() {
		if uint64(c) == co {
			return nil
		}
		keys = append(keys, fmt.Sprintf("%s#%d", bin.Info.Ref.KernelName, c))
	}
	for _, a := range b.Archives {
		if a.Info != nil {
			if _, ok := a.Info.Kernels[key]; ok {
				return nil
			}
		}
	}
	if len(keys) == 0 {
		return errs.Usagef("explain: %s has no kpack wrapper (HIPK, version 1) and no archive holds %s: there is nothing to load", bin.Path, key)
	}
	finding.SortKernels(keys)
	return errs.Usagef("explain: %s has kpack wrappers for %s only and no archive holds %s: explain one of those",
		bin.Path, finding.CompactKernels(keys), key)
}

// coIndexNote says when the key's co_index is not one of the binary's
// version-1 HIPK wrappers: HIP never loads it through kpack, whatever the
// loader answers.
func coIndexNote(b *model.Build, binPath, key string) string {
	_, co, _ := finding.SplitKey(key)
	for _, bin := range b.Binaries {
		if bin.Path != binPath || bin.Info == nil {
			continue
		}
		var keys []string
		for _, c := range bin.Info.COIndexes() {
			if uint64(c) == co {
				return ""
			}
			keys = append(keys, fmt.Sprintf("%s#%d", bin.Info.Ref.KernelName, c))
		}
		if len(keys) == 0 {
			return fmt.Sprintf("%s has no kpack wrapper (HIPK, version 1); HIP never loads %s through kpack", binPath, key)
		}
		return fmt.Sprintf("%s has kpack wrappers (HIPK, version 1) for %s only; HIP never loads %s through kpack",
			binPath, finding.CompactKernels(keys), key)
	}
	return ""
}

// pathStates says for each search path whether it opened, and as which
// file when a symlink led elsewhere.
func pathStates(plan *resolver.Plan) map[string]string {
	out := map[string]string{}
	for i, p := range plan.Paths {
		switch {
		case p == "":
		case plan.Real[i] == "":
			out[p] = "missing or fails to open"
		case slices.Contains(plan.Faulted, plan.Real[i]):
			out[p] = "TOC does not convert: the fixed runtime skips it, the legacy runtime aborts"
		case plan.Real[i] == p:
			out[p] = "opened"
		default:
			out[p] = "opened (link to " + plan.Real[i] + ")"
		}
	}
	return out
}

// explained ends an explain run: the error of writing the explanations,
// else a *MemoryError when a fetched kernel could not be verified within
// the memory budget, else ErrFindings when a load failed.
func explained(written error, objs *fetched, failed bool) error {
	if written != nil {
		return written
	}
	if err := objs.skipped(); err != nil {
		return err
	}
	if failed {
		return ErrFindings
	}
	return nil
}
