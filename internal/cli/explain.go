package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/deep"
	"github.com/rocm-tools/kpack-lint/hip"
	"github.com/rocm-tools/kpack-lint/hostbin"
	"github.com/rocm-tools/kpack-lint/kpack"
	"github.com/rocm-tools/kpack-lint/model"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/targetid"
	"github.com/rocm-tools/kpack-lint/vfs"
)

func explainCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "explain",
		Usage:     "simulate one kpack_load_code_object and show its trace",
		ArgsUsage: "KERNEL_KEY [INPUT]",
		Description: "KERNEL_KEY is name#co_index (e.g. lib/libtest.so#0). The arch_list is what HIP passes: for each --agent\n" +
			"device ISA, the ISA and then its family's generic target with the device's feature settings\n" +
			"(gfx942:sramecc+:xnack- -> gfx9-4-generic:sramecc+:xnack-); --no-generic leaves the generic targets out,\n" +
			"and an --agent value that is itself a generic target is added as given.\n" +
			"Without --search the search paths come from the host binary whose kernel_name is the key's name;\n" +
			"with --search, relative paths resolve against INPUT (default: the current directory).\n" +
			"The selected kernel is fetched and decompressed as the runtime does. Exit 0: the load succeeds; 1: it fails.",
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "agent", Required: true, Usage: "device ISA (HIP adds its generic target); repeatable"},
			&ucli.BoolFlag{Name: "no-generic", Usage: "pass the --agent values alone, without HIP's generic targets"},
			&ucli.StringFlag{Name: "loader", Value: "fallthrough", Usage: "fallthrough or legacy"},
			&ucli.StringSliceFlag{Name: "search", Usage: "archive search path (may hold @GFXARCH@); repeatable"},
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&ucli.StringFlag{Name: "binary", Usage: "host binary (path inside INPUT) whose search paths to use, when several have the kernel name"},
			&ucli.StringSliceFlag{Name: "env", Usage: "loader environment, KEY=VALUE (ROCM_KPACK_PATH, ROCM_KPACK_PATH_PREFIX, ROCM_KPACK_DISABLE); repeatable"},
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

func runExplain(c *ucli.Context) error {
	if err := noFlagsAmongInputs(c.Args().Slice()); err != nil {
		return err
	}
	key, input, err := explainArgs(c)
	if err != nil {
		return err
	}
	loader, ok := resolver.ParseLoader(c.String("loader"))
	if !ok {
		return usageErr("--loader %q: want fallthrough or legacy", c.String("loader"))
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return usageErr("--format %q: want text or json", format)
	}
	archList, err := parseAgents(c.StringSlice("agent"), !c.Bool("no-generic"))
	if err != nil {
		return err
	}
	tree, err := vfs.Open([]string{input}, vfs.Options{})
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	defer tree.Close()
	b := model.Load(tree)
	b.SetFetch(model.DeepFetch)
	req, binPath, err := explainRequest(b, key, c.StringSlice("search"), c.String("binary"), c.App.ErrWriter)
	if err != nil {
		return err
	}
	req.ArchList = archList
	if req.Env, err = loaderEnv(nil, c.StringSlice("env")); err != nil {
		return err
	}
	res, plan := resolver.Resolve(b, req, key, loader)
	ex := newExplanation(key, loader, req, binPath, res, plan)
	if res.OK() {
		ex.CodeObject, ex.HIP = checkCodeObject(b, res, key, archList[0])
	} else {
		effect := hip.LoadEffect(res.Code)
		ex.HIP, ex.HIPEffect = effect.Error, effect.Text
		ex.Note = coIndexNote(b, binPath, key)
	}
	if err := writeExplanation(c.App.Writer, format, ex); err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	if !res.OK() {
		return &exitError{code: ExitFindings} // the exit code is kpack's verdict; hip is advice
	}
	return nil
}

func explainArgs(c *ucli.Context) (key, input string, err error) {
	switch c.NArg() {
	case 1:
		input = "."
	case 2:
		input = c.Args().Get(1)
	default:
		return "", "", usageErr("explain: want KERNEL_KEY [INPUT], got %d arguments", c.NArg())
	}
	key = c.Args().First()
	if _, _, ok := rules.SplitKey(key); !ok {
		return "", "", usageErr("explain: kernel key %q: want name#co_index, e.g. lib/libtest.so#0", key)
	}
	return key, input, nil
}

// parseAgents builds the arch_list: per device ISA, HIP's entries
// (hip.ArchList) or, without generic, the ISA alone; a generic target is
// added as given (not first).
func parseAgents(agents []string, generic bool) ([]string, error) {
	var out []string
	for i, a := range agents {
		id, err := targetid.Parse(a)
		if err != nil {
			return nil, usageErr("--agent: %v", err)
		}
		p, _ := targetid.LookupProcessor(id.Processor)
		switch {
		case p.Generic && i == 0:
			return nil, usageErr("--agent %s: a generic target is not a device ISA; give the device's ISA (HIP adds its generic target)", a)
		case p.Generic || !generic:
			out = append(out, id.String())
		default:
			out = append(out, hip.ArchList(id)...)
		}
	}
	return out, nil
}

// explainRequest takes --search paths (relative to the input root) or the
// search paths of the host binary whose kernel_name is the key's name
// (--binary picks one when several have it; otherwise the first by path,
// with a note on stderr naming the others).
func explainRequest(b *model.Build, key string, search []string, binary string, stderr io.Writer) (resolver.Request, string, error) {
	if len(search) > 0 {
		return resolver.Request{SearchPaths: search, BinaryDir: "."}, "", nil
	}
	name, _, _ := rules.SplitKey(key)
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
		return resolver.Request{}, "", usageErr("explain: no host binary in the input has kernel_name %q; pass --search PATH", name)
	}
	if len(found) > 1 {
		var others []string
		for _, f := range found[1:] {
			others = append(others, f.Path)
		}
		fmt.Fprintf(stderr, "kpack-lint: note: %d host binaries have kernel_name %q; using %s (others: %s); choose with --binary\n",
			len(found), name, found[0].Path, strings.Join(others, ", "))
	}
	bin := found[0]
	var paths []string
	for _, p := range bin.Info.Ref.SearchPaths {
		paths = append(paths, hostbin.NormalizeSearchPath(p, bin.Info.Format))
	}
	return resolver.Request{SearchPaths: paths, BinaryDir: bin.Dir()}, bin.Path, nil
}

func newExplanation(key string, l resolver.Loader, req resolver.Request, bin string, res resolver.Result, plan *resolver.Plan) explanation {
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

func writeExplanation(w io.Writer, format string, ex explanation) error {
	var buf bytes.Buffer
	if format == "json" {
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ex); err != nil {
			return err
		}
	} else {
		writeExplanationText(&buf, ex)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func writeExplanationText(w io.Writer, ex explanation) {
	fmt.Fprintf(w, "kpack: load %s, arch_list [%s], %s loader\n", ex.Kernel, strings.Join(ex.ArchList, ", "), ex.Loader)
	if ex.Disabled {
		fmt.Fprintf(w, "kpack: kpack disabled via %s\n", resolver.EnvDisable)
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

// checkCodeObject decodes the served code object's ELF target and checks it
// against the agent (LLVM isCompatibleTargetID), as HIP does after kpack
// found the bytes.
func checkCodeObject(b *model.Build, res resolver.Result, key, agent string) (target, hip string) {
	a := b.ArchiveAt(res.Archive)
	if a == nil || a.Info == nil {
		return "", ""
	}
	r, err := a.Entry.Open()
	if err != nil {
		return "", ""
	}
	defer r.Close()
	data, code, _ := a.Info.Fetch(r, key, res.Target)
	if code != kpack.Success {
		return "", ""
	}
	co, err := deep.DecodeCodeObject(data)
	if err != nil {
		return "none (" + err.Error() + ")", hipInvalidImage
	}
	ag, err := targetid.Parse(agent)
	if err == nil && !targetid.CompatibleOrGeneric(co, ag) {
		return co.String(), hipInvalidImage
	}
	return co.String(), "hipSuccess"
}

// coIndexNote says when the key's co_index is not one of the binary's HIPK
// wrappers: HIP would never ask for it.
func coIndexNote(b *model.Build, binPath, key string) string {
	_, co, _ := rules.SplitKey(key)
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
		return fmt.Sprintf("%s has HIPK wrappers for %s only; HIP never loads %s", binPath, rules.CompactKernels(keys), key)
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
