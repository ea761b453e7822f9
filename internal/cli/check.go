package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/gate"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/report"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/sim/verify"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// maxDeepMemoryMiB bounds --deep-memory (1 TiB).
const maxDeepMemoryMiB = 1 << 20

// deepMemoryFlag is --deep-memory, shared by check and explain.
func deepMemoryFlag() ucli.Flag {
	return &ucli.Int64Flag{Name: "deep-memory", Value: 256,
		Usage: "MiB of decompressed code objects held at once (check --deep, explain); larger ones are streamed"}
}

// memoryBudget reads --deep-memory in bytes.
func memoryBudget(c *ucli.Context) (int64, error) {
	mib := c.Int64("deep-memory")
	if mib <= 0 || mib > maxDeepMemoryMiB {
		return 0, usageErr("--deep-memory %d: want 1 to %d MiB", mib, maxDeepMemoryMiB)
	}
	return mib << 20, nil
}

func checkCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "check",
		Usage:     "simulate the kpack loader over a build and report what would fail",
		ArgsUsage: "INPUT...",
		Description: "INPUTs (directories, wheels .whl/.zip, tarballs .tar/.tar.gz/.tar.zst/.tar.xz; overlaid in the\n" +
			"order given) form one install tree. Every kernel of every kpack'd host binary is loaded on every\n" +
			"agent of the target matrix with the legacy and the fall-through loader. Exit 0: nothing at or\n" +
			"above --fail-on; 1: such findings; 2: usage error, bad policy or unreadable input.",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "policy", Usage: "policy file (default: ./" + DefaultPolicy + ", else one next to the first INPUT or in its parents up to the repository root)"},
			&ucli.BoolFlag{Name: "no-policy", Usage: "use no policy file, even when one would be found"},
			&ucli.StringFlag{Name: "variant", Usage: "build variant of the policy (default: release, or the only one)"},
			&ucli.StringSliceFlag{Name: "target", Usage: "GPU target ID to check; repeatable; replaces the policy's targets"},
			&ucli.StringSliceFlag{Name: "agent", Usage: "agent ISA to simulate; repeatable; replaces the expansion of targets"},
			&ucli.StringFlag{Name: "loader", Usage: "loader to judge by: fallthrough or legacy (default: the policy's, else fallthrough)"},
			&ucli.StringFlag{Name: "fail-on", Value: "error", Usage: "lowest level that makes the exit code 1: error, warning, note or none"},
			&ucli.BoolFlag{Name: "deep", Usage: "read and decompress every code object and check its ELF target against the agents it is served to"},
			deepMemoryFlag(),
			&ucli.StringSliceFlag{Name: "env", KeepSpace: true, Usage: "environment for the simulation, KEY=VALUE (ROCM_KPACK_PATH, ROCM_KPACK_PATH_PREFIX, ROCM_KPACK_DISABLE, " +
				"ROCBLAS_TENSILE_LIBPATH, HIPBLASLT_TENSILE_LIBPATH, MIOPEN_SYSTEM_DB_PATH); repeatable"},
			&ucli.StringFlag{Name: "baseline", Usage: "earlier JSON or SARIF report of kpack-lint: findings are new, unchanged or absent; only new ones fail (KPL012 compares the inventory)"},
			&ucli.BoolFlag{Name: "fail-on-baseline", Usage: "with --baseline: findings unchanged since the baseline fail too"},
			&ucli.Float64Flag{Name: "max-kernel-loss", Value: rules.DefaultMaxKernelLoss * 100, Usage: "with --baseline: percent of a group x target's kernel keys it may lose before KPL012"},
			&ucli.StringFlag{Name: "waivers", Usage: "YAML file of waivers (the policy's waivers: list), added to the policy's"},
			&ucli.StringFlag{Name: "today", Usage: "date waivers expire against, YYYY-MM-DD (default: today, UTC)"},
			&ucli.StringFlag{Name: "shard", Usage: "check one part of the kpack groups, I/N (1 <= I <= N), for a CI matrix; join the reports with kpack-lint merge"},
		}, outputFlags("text on stdout")...),
		Action: runCheck,
	}
}

type checkArgs struct {
	inputs   []string
	opt      lint.Options
	out      outputs
	failOn   finding.Level
	waivers  []finding.Waiver
	waiverAt string
	today    string
	baseline *report.Run
	// baselinePath is --baseline; failOnBaseline is --fail-on-baseline.
	baselinePath   string
	failOnBaseline bool
	// policySrc is the policy file and how it was found; envFlags are
	// the --env flags as given.
	policySrc policySource
	envFlags  []string
	lossPct   float64 // --max-kernel-loss
	stdout    io.Writer
	stderr    io.Writer
}

func runCheck(c *ucli.Context) error {
	a, err := parseCheckArgs(c)
	if err != nil {
		return err
	}
	tuneGC(a.opt.Deep, a.opt.DeepOptions.MaxMemory)
	tree, err := vfs.Open(a.inputs, vfs.Options{Want: wanted(a.opt.Deep), Progress: terminal(a.stderr)})
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	defer tree.Close()
	if err := wholeInputProblem(tree); err != nil {
		return err
	}
	b := model.Load(tree) // --deep walks the zstd frame chains while it verifies (lint.Run)
	if len(b.Archives) == 0 && len(b.Binaries) == 0 && len(b.Unreadable) == 0 && len(tree.Problems) == 0 && !kerneldb.HasLibraries(tree) {
		return usageErr("%s: no .kpack archive, no HIP host binary (kpack'd or with embedded device code) and no rocBLAS, hipBLASLt or MIOpen library found: nothing to check (is the path right?)", strings.Join(a.inputs, ", "))
	}
	if err := lint.CheckPolicy(b, a.opt.Policy); err != nil {
		return &exitError{code: ExitUsage, err: policyMismatch(a, b, err)}
	}
	res, err := lint.Run(b, a.opt)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	noteCUs(a.stderr, res)
	noteNoAgents(a.stderr, res)
	run := reportRun(a, res, tree)
	if err := a.out.write(run, a.stdout); err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	if err := skippedError(res, a.opt.DeepOptions.MaxMemory); err != nil {
		return err
	}
	if finding.Failing(run.Findings, run.Rules, a.failOn, run.FailOnBaseline) > 0 {
		return &exitError{code: ExitFindings}
	}
	return nil
}

func parseCheckArgs(c *ucli.Context) (*checkArgs, error) {
	if c.NArg() == 0 {
		return nil, usageErr("check: no INPUT given (a build directory, e.g. testdata/example)")
	}
	if err := noFlagsAmongInputs(c); err != nil {
		return nil, err
	}
	a := &checkArgs{inputs: c.Args().Slice(), stdout: c.App.Writer, stderr: c.App.ErrWriter}
	var err error
	if a.out, err = parseOutputs(c); err != nil {
		return nil, err
	}
	lvl, ok := parseFailOn(c.String("fail-on"))
	if !ok {
		return nil, usageErr("--fail-on %q: want error, warning, note or none", c.String("fail-on"))
	}
	a.failOn = lvl
	if c.Bool("no-policy") && c.String("policy") != "" {
		return nil, usageErr("--policy and --no-policy exclude each other")
	}
	a.policySrc = findPolicy(c.String("policy"), c.Bool("no-policy"), a.inputs)
	pol, err := loadPolicy(a.policySrc)
	if err != nil {
		return nil, &exitError{code: ExitUsage, err: err}
	}
	if _, err := finding.ParseLoader(c.String("loader")); err != nil {
		return nil, usageErr("--loader: %v", err)
	}
	for _, flag := range []string{"target", "agent"} {
		for _, t := range c.StringSlice(flag) {
			if _, err := targetid.Parse(t); err != nil {
				return nil, usageErr("--%s: %v%s", flag, err, didYouMeanTarget(t))
			}
		}
	}
	if _, _, err := pol.Variant(c.String("variant")); err != nil {
		return nil, &exitError{code: ExitUsage, err: a.policySrc.wrap(err)}
	}
	a.opt = lint.Options{
		Policy: pol, Variant: c.String("variant"), Targets: c.StringSlice("target"),
		Agents: c.StringSlice("agent"), Loader: finding.Loader(c.String("loader")), InputNames: a.inputs,
		Deep: c.Bool("deep"),
	}
	mem, err := memoryBudget(c)
	if err != nil {
		return nil, err
	}
	a.opt.DeepOptions = verify.Options{MaxMemory: mem, Progress: terminal(c.App.ErrWriter)}
	env, err := loaderEnv(pol, c.StringSlice("env"))
	if err != nil {
		return nil, err
	}
	a.opt.Env = env
	a.opt.DBEnv = databaseEnv(pol, c.StringSlice("env"))
	a.envFlags = c.StringSlice("env")
	if err := parseGateArgs(c, a); err != nil {
		return nil, err
	}
	return a, nil
}

// parseGateArgs reads the nightly-gate flags: shard, baseline, kernel
// loss, waivers and the date they expire against.
func parseGateArgs(c *ucli.Context, a *checkArgs) error {
	if s := c.String("shard"); s != "" {
		sh, err := finding.ParseShard(s)
		if err != nil {
			return usageErr("--%v", err)
		}
		a.opt.Shard = sh
	}
	loss := c.Float64("max-kernel-loss")
	if loss < 0 || loss > 100 {
		return usageErr("--max-kernel-loss %v: want a percentage from 0 to 100", loss)
	}
	a.opt.MaxKernelLoss, a.lossPct = loss/100, loss
	if p := c.String("baseline"); p != "" {
		base, err := readReport(p)
		if errors.Is(err, fs.ErrNotExist) {
			return usageErr("--baseline %s: no such file. A baseline is an earlier report of kpack-lint: for the first one, run without --baseline "+
				"and keep the report (-o sarif=%s), then pass it on later runs", p, p)
		}
		if err != nil {
			return usageErr("--baseline %s: %v", p, err)
		}
		a.baseline, a.baselinePath, a.failOnBaseline = &base, p, c.Bool("fail-on-baseline")
		a.opt.BaselineInventory = base.Inventory
		if a.opt.BaselineInventory == nil {
			a.opt.BaselineInventory = []finding.InventoryItem{}
		}
	} else if c.Bool("fail-on-baseline") {
		return usageErr("--fail-on-baseline needs --baseline FILE")
	}
	if pol := a.opt.Policy; pol != nil && len(pol.Waivers) > 0 {
		a.waivers = append(a.waivers, pol.Waivers...)
		a.waiverAt = pol.Path
	}
	if p := c.String("waivers"); p != "" {
		ws, err := policy.LoadWaivers(p)
		if err != nil {
			return &exitError{code: ExitUsage, err: err}
		}
		if err := knownRules(&policy.Policy{}, ws); err != nil {
			return &exitError{code: ExitUsage, err: err}
		}
		policy.SetWaiverFile(ws, displayPath(p))
		a.waivers = append(a.waivers, ws...)
		a.waiverAt = strings.TrimPrefix(a.waiverAt+", "+displayPath(p), ", ")
	}
	a.today = c.String("today")
	if a.today == "" {
		a.today = time.Now().UTC().Format(finding.DateLayout)
	} else if _, err := time.Parse(finding.DateLayout, a.today); err != nil {
		return usageErr("--today %q: want YYYY-MM-DD", a.today)
	}
	return nil
}

// readReport reads a JSON or SARIF report of kpack-lint.
func readReport(p string) (report.Run, error) {
	data, err := fsutil.ReadFile(p, report.MaxReadSize)
	if err != nil {
		return report.Run{}, err
	}
	r, _, err := report.Read(data)
	if err != nil {
		return report.Run{}, err
	}
	r.Rules = rules.All()
	return r, nil
}

// didYouMeanTarget is " (did you mean X?)" for the closest valid target ID.
func didYouMeanTarget(t string) string {
	if s := targetid.Suggest(t); s != "" {
		return " (did you mean " + s + "?)"
	}
	return ""
}

// displayPath is how reports name a file the user gave: as given when
// relative, else its base name (no machine paths in reports).
func displayPath(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Base(p)
	}
	return filepath.ToSlash(p)
}

func parseFailOn(s string) (finding.Level, bool) {
	switch finding.Level(s) {
	case finding.LevelError, finding.LevelWarning, finding.LevelNote, finding.LevelNone:
		return finding.Level(s), true
	}
	return "", false
}

// reportRun assembles what every format writes: the findings after the
// baseline and the waivers, and what was checked.
func reportRun(a *checkArgs, res *lint.Result, tree *vfs.Tree) report.Run {
	ctx := res.Context
	fs := res.Findings
	if a.baseline != nil {
		fs = gate.Compare(fs, a.baseline.Findings, a.opt.Shard.HasFinding, len(a.inputs))
	}
	var notes []report.Notification
	if len(a.waivers) > 0 {
		notes = gate.Waive(fs, a.waivers, a.today, a.opt.Shard.Count > 1)
	}
	k := checked(a, ctx)
	if a.baseline != nil {
		if n := gate.BaselineMismatch(a.baseline.Checked, k, k.Baseline); n != nil {
			fmt.Fprintf(a.stderr, "kpack-lint: warning: --baseline %s: %s\n", a.baselinePath, n.Message)
			notes = append(notes, *n)
			gate.SortNotifications(notes)
		}
	}
	finding.Sort(fs)
	run := report.Run{
		ToolName: "kpack-lint", ToolVersion: Version, InformationURI: InformationURI,
		Rules: rules.All(), Inputs: a.inputs, Findings: fs,
		FileSize: func(input int, p string) (int64, bool) {
			e := tree.Entry(p)
			if e == nil || e.Input != input {
				return 0, false
			}
			return e.Size, true
		},
		Checked:        k,
		Inventory:      ctx.Inventory,
		Matrix:         ctx.Matrix(),
		Notifications:  notes,
		FailOnBaseline: a.failOnBaseline,
		PathPrefix:     a.out.pathPrefix,
		Rerun:          rerun(a),
		Color:          a.out.color(a.stdout),
	}
	return run
}

// rerun is how the user ran check, for ready-to-run explain commands that
// work from the same working directory: the inputs and the policy as
// given (relative to the working directory when absolute), the policy's
// loader and the --env flags.
func rerun(a *checkArgs) report.Rerun {
	r := report.Rerun{Inputs: explainInputs(a.inputs), Env: a.envFlags}
	if a.opt.Policy != nil {
		r.Policy = explainInputs([]string{a.policySrc.path})[0]
		r.PolicyLoader = a.opt.Policy.Loader
	}
	return r
}

// checked states what the run checked, without machine paths.
func checked(a *checkArgs, ctx *rules.Context) *report.Checked {
	k := &report.Checked{
		Variant: ctx.Variant, Loader: string(ctx.Loader), Targets: nonNil(ctx.Targets),
		TargetSource: ctx.TargetSource, Agents: []string{}, Shard: a.opt.Shard.String(),
		PathPrefix: a.out.pathPrefix,
	}
	for _, in := range a.inputs {
		k.Inputs = append(k.Inputs, inputName(in))
	}
	if p := a.opt.Policy; p != nil {
		k.Policy = &p.Path
	}
	for _, ag := range ctx.Agents {
		k.Agents = append(k.Agents, ag.ISA)
	}
	if a.baseline != nil {
		k.Baseline = displayPath(a.baselinePath)
		k.MaxKernelLoss = &a.lossPct
	}
	k.Env = envList(a.opt.Policy, a.envFlags)
	k.Deep = a.opt.Deep
	if len(a.waivers) > 0 {
		k.Waivers = fmt.Sprintf("%s (%d)", a.waiverAt, len(a.waivers))
	}
	return k
}

// inputName is an input's last path element (a wheel's file name, a
// folder's name), never the machine path that leads to it.
func inputName(in string) string {
	name := filepath.Base(filepath.Clean(in))
	if name == "." || name == string(filepath.Separator) {
		if abs, err := filepath.Abs(in); err == nil {
			name = filepath.Base(abs)
		}
	}
	return name
}

// explainInputs names the inputs for ready-to-run explain commands: as
// given when relative, else relative to the working directory.
func explainInputs(inputs []string) []string {
	out := make([]string, 0, len(inputs))
	for _, in := range inputs {
		if filepath.IsAbs(in) {
			in = relToWD(in)
		}
		out = append(out, filepath.ToSlash(in))
	}
	return out
}

// wholeInputProblem turns a wheel or tarball that cannot be read (not a
// zip, a corrupt or truncated stream) into exit 2: an input that was not
// read must never pass the gate.
func wholeInputProblem(t *vfs.Tree) error {
	for _, p := range t.Problems {
		if p.Path == "" {
			return usageErr("%s: %s (rebuild or re-download the package)", t.Inputs[p.Input].Name, p.Msg)
		}
	}
	return nil
}

// wanted tells vfs which members of compressed tarballs to keep: archives
// and host binaries, and with --deep the lazy Tensile indexes kerneldb
// parses (other database files are needed by name or first bytes only).
func wanted(deep bool) func(string, []byte) bool {
	if !deep {
		return model.Wanted
	}
	return func(p string, head []byte) bool { return model.Wanted(p, head) || kerneldb.IsLazyIndex(p) }
}

// noteCUs tells on stderr which MIOpen processors were checked at DbId
// level only because the policy gives no cu_counts for them.
func noteCUs(w io.Writer, res *lint.Result) {
	if procs := kerneldb.WithoutCUs(res.Context.Databases); len(procs) > 0 {
		fmt.Fprintf(w, "kpack-lint: note: MIOpen's CU-specific databases (<DbId><CUs>.kdb, .HIP.fdb.txt, .db.txt) were not checked for %s: "+
			"give cu_counts in the policy\n", strings.Join(procs, ", "))
	}
}

// noteNoAgents tells on stderr when libraries with kernel databases were
// found but no target says which GPUs to simulate.
func noteNoAgents(w io.Writer, res *lint.Result) {
	db := res.Context.Databases
	if db == nil || len(db.Sites) == 0 || len(res.Context.Agents) > 0 {
		return
	}
	fmt.Fprintf(w, "kpack-lint: note: %s ships a kernel database but there are no targets to simulate: give --target or a policy\n", escape.String(db.Sites[0].Path))
}

// skippedError is exit 2 (after the report is written) when --deep could
// not verify some code objects within --deep-memory: a limit of this run is
// never a pass. It names the first object and the limit to raise.
func skippedError(res *lint.Result, budget int64) error {
	d := res.Context.Deep
	if d == nil {
		return nil
	}
	n := 0
	var first verify.Key
	var firstErr string
	d.Each(func(k verify.Key, _ *model.Archive, _ uint32, o verify.Object) {
		if o.Skipped {
			if n == 0 || verify.CompareKeys(k, first) < 0 {
				first, firstErr = k, o.Err
			}
			n++
		}
	})
	if n == 0 {
		return nil
	}
	return usageErr("--deep: %d code objects need more than --deep-memory %d MiB to decompress and were not verified "+
		"(first: %s in %s, target %s: %s); raise --deep-memory", n, budget>>20, first.Kernel, first.Archive, first.Arch, firstErr)
}

// tuneGC sets the collector's target for a check unless GOGC is set. Most
// of a plain check's heap (TOCs, the model) is built once and kept:
// collecting at three times the live heap instead of twice saves about a
// tenth of the CPU for a few MiB. --deep keeps Go's default so its peak
// stays within 0.5 KiB per TOC entry (docs/performance.md).
func tuneGC(deep bool, deepMemory int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft limit: past it the collector runs more often instead of
		// letting the heap double, so a huge build (a million TOC keys)
		// stays near its live heap. Runs below it are unaffected; --deep
		// adds its decompression budget.
		limit := int64(softMemoryLimit)
		if deep {
			limit += deepMemory
		}
		debug.SetMemoryLimit(limit)
	}
	if os.Getenv("GOGC") != "" {
		return
	}
	if deep {
		debug.SetGCPercent(100)
	} else {
		debug.SetGCPercent(200)
	}
}

// softMemoryLimit is the Go runtime's soft memory limit for check (plus
// --deep-memory with --deep) unless GOMEMLIMIT is set (README "Limits").
const softMemoryLimit = 384 << 20
