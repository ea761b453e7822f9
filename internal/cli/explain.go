package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/verify"
	"github.com/rocm-tools/kpack-lint/targetid"
)

func explainCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "explain",
		Usage:     "simulate one kpack_load_code_object and show its trace",
		ArgsUsage: "KERNEL_KEY [INPUT...]",
		Description: "KERNEL_KEY is name#co_index (e.g. lib/libtest.so#0), or keys as findings print them (bin/x#0-2,57).\n" +
			"The arch_list is what HIP passes: for each --agent device ISA, the ISA and then its family's generic\n" +
			"target with the device's feature settings (gfx942:sramecc+:xnack- -> gfx9-4-generic:sramecc+:xnack-);\n" +
			"--no-generic leaves the generic targets out, and an --agent value that is itself a generic target is added\n" +
			"as given. With --policy/--variant every agent of the variant (or each --agent) is one device whose\n" +
			"arch_list the variant decides (arch_list:), and the loader and env default to the policy's. The policy\n" +
			"is found as check finds it (./policies.yaml, else next to the first INPUT): without --agent and --policy,\n" +
			"explain loads on every agent of that policy's default variant (a note on stderr says so); --no-policy: none.\n" +
			"Without --search the search paths come from the host binary whose kernel_name is the key's name (or, with\n" +
			"none, from the archives holding the key, as check does); with --search, relative paths resolve against\n" +
			"the INPUTs (default: the current directory), overlaid as check does.\n" +
			"The selected kernel is fetched and decompressed as the runtime does. Exit 0: every load succeeds; 1: one fails.",
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "agent", Usage: "device ISA (HIP adds its generic target); repeatable; required without --policy/--variant"},
			&ucli.BoolFlag{Name: "no-generic", Usage: "pass the --agent values alone, without HIP's generic targets"},
			&ucli.StringFlag{Name: "policy", Usage: "policy file (default: found as check finds it); its loader, env: and arch_list apply, and without --agent its variant's agents"},
			&ucli.BoolFlag{Name: "no-policy", Usage: "read no policy file"},
			&ucli.StringFlag{Name: "variant", Usage: "build variant of the policy whose agents to load on"},
			&ucli.StringFlag{Name: "loader", Usage: "fallthrough or legacy (default: the policy's, else fallthrough)"},
			&ucli.StringSliceFlag{Name: "search", KeepSpace: true, Usage: "archive search path (may hold @GFXARCH@); repeatable"},
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&ucli.StringFlag{Name: "binary", Usage: "host binary (path inside INPUT) whose search paths to use, when several have the kernel name"},
			&ucli.StringSliceFlag{Name: "env", KeepSpace: true, Usage: "loader environment, KEY=VALUE (ROCM_KPACK_PATH, ROCM_KPACK_PATH_PREFIX, ROCM_KPACK_DISABLE); repeatable"},
			deepMemoryFlag(),
		},
		Action: runExplain,
	}
}

// explanation is explain's JSON output.
type explanation struct {
	Kernel        string   `json:"kernel"`
	ArchList      []string `json:"arch_list"`
	Loader        string   `json:"loader"`
	Result        string   `json:"result"`
	Code          int      `json:"code"`
	Archive       string   `json:"archive,omitempty"`
	MatchedTarget string   `json:"matched_target,omitempty"`
	Binary        string   `json:"binary,omitempty"`
	SearchPaths   []string `json:"search_paths"`
	Refused       []string `json:"refused,omitempty"`
	// CodeObject is the target ID decoded from the served code object's
	// ELF header; HIP is what HIP makes of the load on the agent: after a
	// success, of that code object (hipSuccess or hipErrorInvalidImage);
	// after a failure, of the loader's error (hip.LoadEffect), which
	// HIPEffect says in words.
	CodeObject string `json:"code_object_target,omitempty"`
	HIP        string `json:"hip,omitempty"`
	HIPEffect  string `json:"hip_effect,omitempty"`
	// Faulted lists archives whose TOC the fixed runtime refuses and the
	// legacy runtime aborts on.
	Faulted []string `json:"faulted,omitempty"`
	// Disabled is set when ROCM_KPACK_DISABLE turned kpack loading off.
	Disabled bool `json:"disabled,omitempty"`
	// Overridden is set when ROCM_KPACK_PATH replaced the search paths.
	Overridden bool `json:"overridden,omitempty"`
	// Note explains a failure further, e.g. a co_index the binary lacks.
	Note   string      `json:"note,omitempty"`
	Opened []string    `json:"opened"`
	Trace  []traceStep `json:"trace"`

	state map[string]string // search path -> what opening it gave, for text
}

type traceStep struct {
	Arch    string `json:"arch"`
	Target  string `json:"target"`
	Archive string `json:"archive"`
	Result  string `json:"result"`
	Code    int    `json:"code"`
}

// maxExplainKeys bounds the kernel keys one explain expands a range into.
const maxExplainKeys = 1024

// device is one simulated device: its ISA and the arch_list HIP passes.
type device struct {
	isa      string
	archList []string
}

func runExplain(c *ucli.Context) error {
	if err := noFlagsAmongInputs(c); err != nil {
		return err
	}
	keys, inputs, err := explainArgs(c)
	if err != nil {
		return err
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return usageErr("--format %q: want text or json", format)
	}
	if c.String("loader") != "" {
		if _, err := finding.ParseLoader(c.String("loader")); err != nil {
			return usageErr("--loader %q: want fallthrough or legacy", c.String("loader"))
		}
	}
	mem, err := memoryBudget(c)
	if err != nil {
		return err
	}
	tree, err := vfs.Open(inputs, vfs.Options{})
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	defer tree.Close()
	b := model.LoadOptions(tree, model.Options{FrameChains: true}) // explain fetches as the runtime does
	objs := &fetched{opt: verify.Options{MaxMemory: mem}, objects: map[verify.Key]verify.Object{}}
	b.SetFetch(objs.fetch)
	devices, loader, env, err := explainDevices(c, b, inputs)
	if err != nil {
		return err
	}
	var out []explanation
	failed := false
	for _, key := range keys {
		req, binPath, err := explainRequest(b, key, c.StringSlice("search"), c.String("binary"), c.App.ErrWriter)
		if err != nil {
			return err
		}
		for _, d := range devices {
			req.Env = env
			ex, ok := explainOne(b, objs, key, d, req, binPath, loader)
			out = append(out, ex)
			failed = failed || !ok
		}
	}
	if err := writeExplanations(c.App.Writer, format, out); err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	if err := objs.skippedError(); err != nil {
		return err
	}
	if failed {
		return &exitError{code: ExitFindings} // the exit code is kpack's verdict; hip is advice
	}
	return nil
}

// explainOne simulates one load of key on device d.
func explainOne(b *model.Build, objs *fetched, key string, d device, req resolver.Request, binPath string, loader finding.Loader) (explanation, bool) {
	req.ArchList = d.archList
	res, plan := resolver.Resolve(b, req, key, loader)
	ex := newExplanation(key, loader, req, binPath, res, plan)
	if res.OK() {
		ex.CodeObject, ex.HIP = checkCodeObject(objs.objects[verify.Key{Archive: res.Archive, Kernel: key, Arch: res.Target}], d.archList[0])
	} else {
		effect := hip.LoadEffect(res.Code)
		ex.HIP, ex.HIPEffect = effect.Error, effect.Text
	}
	ex.Note = coIndexNote(b, binPath, key)
	ex.Overridden = req.Overridden()
	return ex, res.OK()
}

// explainDevices returns the devices to load on, the loader and the loader
// environment. The policy is found as check finds it (--policy, else
// ./policies.yaml, else next to the first input; --no-policy: none): its
// loader, env: and arch_list apply as in check. --agent gives one device
// (HIP's arch_list, unless --no-generic, or the variant's arch_list for
// its processor); without --agent, --variant (or the policy's default
// variant) gives its agents.
func explainDevices(c *ucli.Context, b *model.Build, inputs []string) ([]device, finding.Loader, resolver.Env, error) {
	src := findPolicy(c.String("policy"), c.Bool("no-policy"), inputs)
	pol, err := loadPolicy(src)
	if err != nil {
		return nil, "", resolver.Env{}, &exitError{code: ExitUsage, err: err}
	}
	env, err := loaderEnv(pol, c.StringSlice("env"))
	if err != nil {
		return nil, "", resolver.Env{}, err
	}
	loader := pol.LoaderOrDefault()
	if s := c.String("loader"); s != "" {
		loader, _ = finding.ParseLoader(s) // runExplain checked it
	}
	if len(c.StringSlice("agent")) > 0 {
		// The variant only decides the arch_list here: a policy whose
		// default variant is ambiguous gives HIP's (an unknown --variant
		// is still an error).
		v, _, err := pol.Variant(c.String("variant"))
		if err != nil && c.String("variant") != "" {
			return nil, "", resolver.Env{}, &exitError{code: ExitUsage, err: src.wrap(err)}
		}
		noteDiscovered(c, src, "")
		archList, notes, err := parseAgents(c.StringSlice("agent"), !c.Bool("no-generic"), v.ArchLists())
		if err != nil {
			return nil, "", resolver.Env{}, err
		}
		for _, n := range notes {
			fmt.Fprintf(c.App.ErrWriter, "kpack-lint: note: %s\n", escape.String(n))
		}
		return []device{{isa: archList[0], archList: archList}}, loader, env, nil
	}
	if pol == nil {
		return nil, "", resolver.Env{}, usageErr("explain: give --agent ISA (the device), or --policy/--variant to load on a variant's agents")
	}
	ctx, err := lint.NewContext(b, lint.Options{Policy: pol, Variant: c.String("variant"), Loader: finding.Loader(c.String("loader"))})
	if err != nil {
		return nil, "", resolver.Env{}, &exitError{code: ExitUsage, err: src.wrap(err)}
	}
	var out []device
	for _, a := range ctx.Agents {
		out = append(out, device{isa: a.ISA, archList: a.ArchList})
	}
	noteDiscovered(c, src, fmt.Sprintf("; without --agent, every agent of its %s variant (%d) is loaded on", ctx.Variant, len(out)))
	if len(out) == 0 {
		return nil, "", resolver.Env{}, usageErr("explain: the %s variant of %s has no agents to load on", ctx.Variant, pol.File())
	}
	return out, loader, env, nil
}

// noteDiscovered tells on stderr which policy explain found by itself
// (not named by --policy), as its loader, env: and arch_list change the
// simulated load; more says what else it decided.
func noteDiscovered(c *ucli.Context, src policySource, more string) {
	if src.found != "" {
		fmt.Fprintf(c.App.ErrWriter, "kpack-lint: note: using %s (found %s; --no-policy for none): its loader, env: and arch_list apply%s\n",
			src.path, src.found, more)
	}
}

func explainArgs(c *ucli.Context) (keys, inputs []string, err error) {
	if c.NArg() == 0 {
		return nil, nil, usageErr("explain: want KERNEL_KEY [INPUT...]")
	}
	inputs = c.Args().Slice()[1:]
	if len(inputs) == 0 {
		inputs = []string{"."}
	}
	keys, err = expandKeys(c.Args().First())
	return keys, inputs, err
}

// expandKeys reads a kernel key (name#co_index) or keys as findings print
// them: name#0-2,57 gives name#0, name#1, name#2, name#57.
func expandKeys(spec string) ([]string, error) {
	bad := usageErr("explain: kernel key %q: want name#co_index, e.g. lib/libtest.so#0, or name#0-2,57", spec)
	i := strings.LastIndexByte(spec, '#')
	if i < 0 {
		return nil, bad
	}
	name := spec[:i]
	var keys []string
	for _, part := range strings.Split(spec[i+1:], ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.ParseUint(lo, 10, 32)
		z, err2 := a, error(nil)
		if isRange {
			z, err2 = strconv.ParseUint(hi, 10, 32)
		}
		if err1 != nil || err2 != nil || z < a {
			return nil, bad
		}
		if z-a >= maxExplainKeys || len(keys)+int(z-a) >= maxExplainKeys {
			return nil, usageErr("explain: %q names more than %d kernel keys; narrow the range", spec, maxExplainKeys)
		}
		for co := a; co <= z; co++ {
			keys = append(keys, name+"#"+strconv.FormatUint(co, 10))
		}
	}
	return keys, nil
}

// parseAgents builds the arch_list: per device ISA, HIP's entries
// (hip.ArchList), the policy variant's arch_list for its processor, or,
// without generic, the ISA alone; a generic target is added as given (not
// first).
//
// An --agent no device reports (gfx900 without xnack, gfx90c:xnack+) is
// still simulated, as the runtime's own tests call the loader with such
// names; notes say so.
func parseAgents(agents []string, generic bool, archLists map[string][]string) (out, notes []string, err error) {
	for i, a := range agents {
		id, err := targetid.Parse(a)
		if err != nil {
			return nil, nil, usageErr("--agent: %v", err)
		}
		p, _ := targetid.LookupProcessor(id.Processor)
		switch {
		case p.Generic && i == 0:
			return nil, nil, usageErr("--agent %s: a generic target is not a device ISA; give the device's ISA (HIP adds its generic target)", a)
		case !targetid.IsDeviceISA(id):
			notes = append(notes, fmt.Sprintf("--agent %s: not an ISA a device reports (%s); explain simulates the arch_list as given, "+
				"as the runtime's own tests call the loader (check and explain-db refuse it)", a, policy.DeviceISAHint(id)))
		}
		switch {
		case p.Generic || !generic:
			out = append(out, id.String())
		default:
			if entries, ok := archLists[id.Processor]; ok {
				out = append(append(out, id.String()), entries...)
				continue
			}
			out = append(out, hip.ArchList(id)...)
		}
	}
	return out, notes, nil
}

// explainRequest takes --search paths (relative to the input root) or the
// search paths of the host binary whose kernel_name is the key's name
// (--binary picks one when several have it; otherwise the first by path,
// with a note on stderr naming the others).
func explainRequest(b *model.Build, key string, search []string, binary string, stderr io.Writer) (resolver.Request, string, error) {
	if len(search) > 0 {
		return resolver.Request{SearchPaths: search, BinaryDir: "."}, "", nil
	}
	name, _, _ := finding.SplitKey(key)
	var found []*model.Binary
	for _, bin := range b.Binaries {
		if bin.Info != nil && bin.Info.Ref != nil && bin.Info.Ref.KernelName == name && (binary == "" || bin.Path == binary) {
			found = append(found, bin)
		}
	}
	if len(found) == 0 {
		if binary != "" {
			return resolver.Request{}, "", usageErr("explain: %s is not a host binary with kernel_name %q in the input", binary, name)
		}
		if req, ok := archiveRequest(b, key); ok {
			return req, "", nil
		}
		if near := nearKernelName(b, name); near != "" {
			_, co, _ := finding.SplitKey(key)
			return resolver.Request{}, "", usageErr("explain: no host binary in the input has kernel_name %q and no archive holds %s; did you mean %s#%d?", name, key, near, co)
		}
		return resolver.Request{}, "", usageErr("explain: no host binary in the input has kernel_name %q and no archive holds %s; pass --search PATH", name, key)
	}
	if len(found) > 1 {
		var others []string
		for _, f := range found[1:] {
			others = append(others, f.Path)
		}
		fmt.Fprintf(stderr, "kpack-lint: note: %s\n", escape.String(fmt.Sprintf("%d host binaries have kernel_name %q; using %s (others: %s); choose with --binary",
			len(found), name, found[0].Path, strings.Join(others, ", "))))
	}
	bin := found[0]
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

func newExplanation(key string, l finding.Loader, req resolver.Request, bin string, res resolver.Result, plan *resolver.Plan) explanation {
	ex := explanation{
		Kernel: key, ArchList: req.ArchList, Loader: string(l), Result: res.Code.String(), Code: int(res.Code),
		Archive: res.Archive, MatchedTarget: res.Target, Binary: bin,
		SearchPaths: nonEmpty(plan.Paths), Opened: nonNil(plan.Opened), Refused: plan.Refused, Faulted: plan.Faulted,
		Disabled: plan.Disabled, Trace: []traceStep{},
		state: pathStates(plan),
	}
	for _, s := range res.Trace {
		ex.Trace = append(ex.Trace, traceStep{Arch: s.Arch, Target: s.Target, Archive: s.Archive, Result: s.Code.String(), Code: int(s.Code)})
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

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// writeExplanations writes one explanation as a JSON object, several as
// an array; text separates them with a blank line.
func writeExplanations(w io.Writer, format string, exs []explanation) error {
	var buf bytes.Buffer
	if format == "json" {
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		var v any = exs
		if len(exs) == 1 {
			v = exs[0]
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
	} else {
		for i, ex := range exs {
			if i > 0 {
				buf.WriteByte('\n')
			}
			writeExplanationText(escapedLines{&buf}, ex)
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func writeExplanationText(w io.Writer, ex explanation) {
	fmt.Fprintf(w, "kpack: load %s, arch_list [%s], %s loader\n", ex.Kernel, strings.Join(ex.ArchList, ", "), ex.Loader)
	if ex.Disabled {
		fmt.Fprintf(w, "kpack: kpack disabled via %s\n", resolver.EnvDisable)
	} else if ex.Overridden {
		fmt.Fprintf(w, "kpack: %s replaces the search paths\n", resolver.EnvPath)
	} else if ex.Binary != "" {
		fmt.Fprintf(w, "kpack: search paths of %s\n", ex.Binary)
	}
	for _, p := range ex.SearchPaths {
		fmt.Fprintf(w, "kpack:   %s: %s\n", p, ex.state[p])
	}
	for _, p := range ex.Refused {
		fmt.Fprintf(w, "kpack:   %s: not simulated: absolute or outside the input\n", p)
	}
	for i, s := range ex.Trace {
		fmt.Fprintf(w, "kpack: candidate %d: arch %s, target %s in %s: %s\n", i+1, s.Arch, s.Target, s.Archive, s.Result)
	}
	if ex.Code == int(kpack.Success) {
		fmt.Fprintf(w, "kpack: %s: loaded from %s (target %s)\n", ex.Result, ex.Archive, ex.MatchedTarget)
		if ex.CodeObject != "" {
			fmt.Fprintf(w, "hip: code object target %s, agent %s: %s\n", ex.CodeObject, ex.ArchList[0], ex.HIP)
		}
		return
	}
	if ex.Code == int(kpack.Abort) {
		fmt.Fprintf(w, "kpack: the process aborts (%s)\n", abortWhy(ex))
	} else {
		fmt.Fprintf(w, "kpack: %s (error %d)\n", ex.Result, ex.Code)
	}
	if ex.HIPEffect != "" {
		fmt.Fprintf(w, "hip: %s\n", ex.HIPEffect)
	}
	if ex.Note != "" {
		fmt.Fprintf(w, "note: %s\n", ex.Note)
	}
}

// abortWhy says where an aborted load died: opening an archive whose TOC
// the legacy runtime cannot convert, or allocating a kernel no host can.
func abortWhy(ex explanation) string {
	if len(ex.Trace) == 0 {
		return "std::bad_cast opening " + ex.Archive + ", whose TOC the legacy runtime cannot convert; the fall-through loader skips it"
	}
	last := ex.Trace[len(ex.Trace)-1]
	return "std::bad_alloc fetching from " + last.Archive + " as " + last.Target + ": a size no host can allocate"
}

const hipInvalidImage = hip.ErrInvalidImage

// escapedLines escapes each line written to it (one Write per line, as
// writeExplanationText does with fmt.Fprintf): search paths, kernel names
// and archive names come from the inputs.
type escapedLines struct{ w io.Writer }

func (e escapedLines) Write(p []byte) (int, error) {
	line, nl := strings.CutSuffix(string(p), "\n")
	out := escape.String(line)
	if nl {
		out += "\n"
	}
	if _, err := io.WriteString(e.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// fetched simulates kpack_get_kernel for explain: each kernel it is asked
// for is read and decompressed once (verify.VerifyOne, within --deep-memory).
type fetched struct {
	opt     verify.Options
	objects map[verify.Key]verify.Object
	skipped []verify.Key
}

// fetch is a model.FetchFunc. An object the memory budget cannot verify is
// judged from the TOC, and remembered for skippedError.
func (f *fetched) fetch(a *model.Archive, key, arch string) kpack.Code {
	k := verify.Key{Archive: a.Path, Kernel: key, Arch: arch}
	o, ok := f.objects[k]
	if !ok {
		o = verify.VerifyOne(a, key, arch, f.opt)
		f.objects[k] = o
		if o.Skipped {
			f.skipped = append(f.skipped, k)
		}
	}
	if o.Skipped {
		return model.TOCFetch(a, key, arch)
	}
	return o.Code
}

// skippedError is exit 2 when a fetched kernel could not be verified within
// --deep-memory: a limit of this run must never pass as a load.
func (f *fetched) skippedError() error {
	if len(f.skipped) == 0 {
		return nil
	}
	k := f.skipped[0]
	return usageErr("%s in %s (target %s) needs more than --deep-memory %d MiB to decompress (%s); raise --deep-memory",
		k.Kernel, k.Archive, k.Arch, f.opt.MaxMemory>>20, f.objects[k].Err)
}

// checkCodeObject judges the served code object's ELF target against the
// agent (LLVM isCompatibleTargetID), as HIP does after kpack found the
// bytes.
func checkCodeObject(o verify.Object, agent string) (target, hip string) {
	if o.Code != kpack.Success || o.Skipped {
		return "", ""
	}
	if o.Err != "" {
		return "none (" + o.Err + ")", hipInvalidImage
	}
	co, err := targetid.Parse(o.Target)
	if err != nil {
		return "none (" + err.Error() + ")", hipInvalidImage
	}
	ag, err := targetid.Parse(agent)
	if err == nil && !targetid.CompatibleOrGeneric(co, ag) {
		return co.String(), hipInvalidImage
	}
	return co.String(), "hipSuccess"
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
