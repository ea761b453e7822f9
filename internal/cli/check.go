package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
	"github.com/rocm-tools/kpack-lint/report"
)

// maxDeepMemoryMiB bounds --deep-memory (1 TiB).
const maxDeepMemoryMiB = 1 << 20

// deepMemoryFlag is --deep-memory, shared by check and explain.
func deepMemoryFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "deep-memory", Value: "256",
		Usage: "MiB (a bare number) or SIZE (512MiB, 2GiB) of decompressed code objects and xz blocks held at once (check --deep, explain, packages read in place); larger ones are streamed"}
}

// memoryBudget reads --deep-memory in bytes: a bare number is MiB (as the
// flag always took), a number with a unit a size (parseSize), from 1 MiB
// to maxDeepMemoryMiB MiB.
func memoryBudget(c *ucli.Context) (int64, error) {
	s := strings.TrimSpace(c.String("deep-memory"))
	n, ok := int64(0), false
	if mib, err := strconv.ParseInt(s, 10, 64); err == nil {
		n, ok = mib<<20, mib > 0 && mib <= maxDeepMemoryMiB
	} else {
		n, ok = parseSize(s)
	}
	if !ok || n < 1<<20 || n > maxDeepMemoryMiB<<20 {
		return 0, errs.Usagef("--deep-memory %q: want MiB as a bare number (1 to %d) or a size from 1MiB to 1TiB, e.g. 256, 512MiB, 2GiB", s, maxDeepMemoryMiB)
	}
	return n, nil
}

func checkCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "check",
		Usage:     "simulate the kpack loader over a build and report what would fail",
		ArgsUsage: "INPUT...",
		Description: wrapWords("INPUTs (directories, and files by name: "+inputKinds()+"; any other file as it is; read in place, "+
			"overlaid in the order given) form one install tree. Every kernel of every kpack'd host binary is loaded on every agent "+
			"of the target matrix with the legacy and the fall-through loader. Exit 0: nothing at or above --fail-on; 1: such "+
			"findings; 2: usage error, bad policy or unreadable input.", 104),
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "policy", Usage: "policy file (default: ./" + lint.DefaultPolicy + ", else one in a parent of the first INPUT up to the repository root or $GITHUB_WORKSPACE; " +
				"one inside an INPUT or next to an INPUT file is never read: exit 2)"},
			&ucli.BoolFlag{Name: "no-policy", Usage: "use no policy file, even when one would be found"},
			&ucli.StringFlag{Name: "variant", Usage: "build variant of the policy (default: release, or the only one)"},
			&ucli.StringSliceFlag{Name: "target", Usage: "GPU target ID (gfx942:xnack+) or TheRock family (gfx94X-dcgpu; kpack-lint targets) to check; repeatable; replaces the policy's targets"},
			&ucli.StringSliceFlag{Name: "agent", Usage: "agent ISA to simulate; repeatable; replaces the expansion of targets"},
			&ucli.StringFlag{Name: "loader", Usage: "loader to judge by: fallthrough or legacy (default: the policy's, else fallthrough; machines: their release's)"},
			machineFlag(),
			hipFlag(),
			&ucli.StringFlag{Name: "fail-on", Value: "error", Usage: "lowest level that makes the exit code 1: error, warning, note or none"},
			&ucli.BoolFlag{Name: "deep", Usage: "read and decompress every code object and check its ELF target against the agents it is served to"},
			deepMemoryFlag(),
			maxDecompressedFlag(),
			xzFlag(),
			&ucli.StringSliceFlag{Name: "env", KeepSpace: true, Usage: "environment for the simulation, KEY=VALUE (ROCM_KPACK_PATH, ROCM_KPACK_PATH_PREFIX, ROCM_KPACK_DISABLE, " +
				"ROCBLAS_TENSILE_LIBPATH, HIPBLASLT_TENSILE_LIBPATH, MIOPEN_SYSTEM_DB_PATH; machines: " + lint.MachineVars + "); repeatable"},
			&ucli.StringFlag{Name: "baseline", Usage: "earlier JSON or SARIF report of kpack-lint: findings are new, unchanged or absent; only new ones fail (KPL012 compares the inventory)"},
			&ucli.BoolFlag{Name: "fail-on-baseline", Usage: "with --baseline: findings unchanged since the baseline fail too"},
			&ucli.Float64Flag{Name: "max-kernel-loss", Value: lint.DefaultMaxKernelLoss * 100, Usage: "with --baseline: percent of a group x target's kernel keys it may lose before KPL012"},
			&ucli.StringFlag{Name: "waivers", Usage: "YAML file of waivers (the policy's waivers: list), added to the policy's"},
			&ucli.StringFlag{Name: "today", Usage: "date waivers expire against, YYYY-MM-DD (default: today, UTC)"},
			&ucli.IntFlag{Name: "warn-expiring", Usage: "warn about waivers that expire within DAYS days (a warning notification in every report; 0: none)"},
			&ucli.IntFlag{Name: "max-waiver-days", Value: lint.DefaultMaxWaiverDays, Usage: "warn about waivers that expire more than DAYS days ahead or never " +
				"(a broad-waiver warning, as for waivers that match every rule, file, group or kernel; 0: no expiry check)"},
			&ucli.StringFlag{Name: "shard", Usage: "check one part of the kpack groups, I/N (1 <= I <= N), for a CI matrix; join the reports with kpack-lint merge"},
		}, outputFlags("text on stdout")...),
		Action: runCheck,
	}
}

// inputKinds words the kinds of input named by their file-name endings
// (lint.InputFormats) for help: "wheel .whl, zip .zip, tar .tar, tar.gz
// .tar.gz/.tgz, ...".
func inputKinds() string {
	var parts []string
	for _, f := range lint.InputFormats() {
		if len(f.Suffixes) > 0 {
			parts = append(parts, f.Word+" "+strings.Join(f.Suffixes, "/"))
		}
	}
	return strings.Join(parts, ", ")
}

// wrapWords breaks s into lines of at most width bytes at spaces (a
// longer word stays whole on its line).
func wrapWords(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		switch {
		case i == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// runCheck turns check's flags into the pipeline's configuration and
// runs it (lint.Check).
func runCheck(c *ucli.Context) error {
	cfg, src, err := checkConfig(c)
	if err != nil {
		return err
	}
	tuneGC(cfg.Deep, blockCache(cfg.Inputs), cfg.DeepOptions.MaxMemory)
	err = lint.Check(cfg)
	var pm *lint.PolicyMismatchError
	if errors.As(err, &pm) {
		return errs.AsUsage(lint.PolicyMismatch(src, pm))
	}
	return err
}

// checkConfig reads check's flags, in the order their errors are
// reported, and the files they name (the policy, waivers, the baseline).
func checkConfig(c *ucli.Context) (lint.Config, lint.PolicySource, error) {
	var cfg lint.Config
	if c.NArg() == 0 {
		return cfg, lint.PolicySource{}, errs.Usagef("check: no INPUT given (a build directory, e.g. testdata/example)")
	}
	cfg.Inputs = c.Args().Slice()
	out, err := parseOutputs(c)
	if err != nil {
		return cfg, lint.PolicySource{}, err
	}
	lvl, err := failOnLevel(c.String("fail-on"))
	if err != nil {
		return cfg, lint.PolicySource{}, err
	}
	cfg.Gate.FailOn = lvl
	if c.Bool("no-policy") && c.String("policy") != "" {
		return cfg, lint.PolicySource{}, errs.Usagef("--policy and --no-policy exclude each other")
	}
	src := lint.FindPolicy(c.String("policy"), c.Bool("no-policy"), cfg.Inputs)
	src.Warn(c.App.ErrWriter)
	pol, err := lint.LoadPolicy(src)
	if err != nil {
		return cfg, src, errs.AsInput(err)
	}
	if _, err := finding.ParseLoader(c.String("loader")); err != nil {
		return cfg, src, badChoice("--loader", c.String("loader"), loaderNames)
	}
	for _, t := range c.StringSlice("target") {
		if err := lint.CheckTarget(t); err != nil { // a TheRock family stands for its processors
			return cfg, src, errs.Usagef("--target: %v%s", err, lint.SuggestTarget(t))
		}
	}
	for _, t := range c.StringSlice("agent") {
		if err := lint.CheckAgent(t); err != nil {
			return cfg, src, errs.Usagef("--agent: %v%s%s", err, lint.SuggestTarget(t), familyAgentHint(t))
		}
	}
	if err := lint.CheckVariant(pol, c.String("variant")); err != nil {
		return cfg, src, errs.AsUsage(src.Wrap(err))
	}
	cfg.Policy, cfg.Variant, cfg.Loader = pol, c.String("variant"), finding.Loader(c.String("loader"))
	cfg.PolicySource = src.Describe()
	cfg.Targets, cfg.Agents, cfg.Deep = c.StringSlice("target"), c.StringSlice("agent"), c.Bool("deep")
	cfg.Machines, cfg.HIP = c.StringSlice("machine"), c.String("hip")
	mem, err := memoryBudget(c)
	if err != nil {
		return cfg, src, err
	}
	cfg.DeepOptions.MaxMemory, cfg.DeepOptions.Progress = mem, terminal(c.App.ErrWriter)
	if cfg.MaxDecompressed, err = maxDecompressed(c); err != nil {
		return cfg, src, err
	}
	if cfg.XZ, err = xzDecoder(c); err != nil {
		return cfg, src, err
	}
	cfg.Progress = terminal(c.App.ErrWriter)
	if err := lint.SetEnv(&cfg, pol, c.StringSlice("env")); err != nil {
		return cfg, src, err
	}
	if err := parseGateArgs(c, &cfg); err != nil {
		return cfg, src, err
	}
	if err := out.checkApart(append(slices.Clone(cfg.Inputs), src.Path(), c.String("waivers"), c.String("baseline"))); err != nil {
		return cfg, src, err
	}
	cfg.Report = out.report(c.App.Writer)
	cfg.Report.Rerun = rerun(&cfg, src, c.StringSlice("env"))
	cfg.Report.Rerun.HIP, cfg.Report.Rerun.Loader = c.String("hip"), c.String("loader")
	cfg.Note = noteWriter(c.App.ErrWriter)
	return cfg, src, nil
}

// machineFlag is --machine, shared by check and explain.
func machineFlag() ucli.Flag {
	return &ucli.StringSliceFlag{Name: "machine", Usage: "machine to simulate: a policy machines: name, or device ISAs in enumeration order " +
		"(gfx1036,gfx1100: device 0 first); repeatable; replaces the policy's machines"}
}

// hipFlag is --hip, shared by check and explain.
func hipFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "hip", Usage: "HIP release to simulate: " + strings.Join(lint.HIPReleases(), ", ") +
		" (or a release one covers: 5.2.3, 6.4, 7.14, 10.1...; default newest); replaces every machine's"}
}

// parseGateArgs reads the nightly-gate flags: shard, baseline, kernel
// loss, waivers and the date they expire against.
func parseGateArgs(c *ucli.Context, cfg *lint.Config) error {
	if s := c.String("shard"); s != "" {
		sh, err := finding.ParseShard(s)
		if err != nil {
			return err
		}
		cfg.Shard = sh
	}
	loss := c.Float64("max-kernel-loss")
	if loss < 0 || loss > 100 {
		return errs.Usagef("--max-kernel-loss %v: want a percentage from 0 to 100", loss)
	}
	g := &cfg.Gate
	g.MaxKernelLoss = loss
	if err := parseBaseline(c, g); err != nil {
		return err
	}
	return parseWaivers(c, cfg)
}

// parseBaseline reads --baseline, --fail-on-baseline and --new-only (check
// and merge).
func parseBaseline(c *ucli.Context, g *lint.Gate) error {
	p := c.String("baseline")
	switch {
	case p == "" && c.Bool("fail-on-baseline"):
		return errs.Usagef("--fail-on-baseline needs --baseline FILE")
	case p == "" && c.Bool("new-only"):
		return errs.Usagef("--new-only needs --baseline FILE (without a baseline every finding is new)")
	case p == "":
		return nil
	}
	base, err := lint.ReadReport(p)
	if errors.Is(err, fs.ErrNotExist) {
		return errs.Usagef("--baseline %s: no such file. A baseline is an earlier report of kpack-lint: for the first one, run without --baseline "+
			"and keep the report (-o sarif=%s), then pass it on later runs", p, p)
	}
	if err != nil {
		return errs.Usagef("--baseline %s: %v", p, err)
	}
	g.Baseline, g.BaselineFile, g.BaselineName, g.FailOnBaseline = &base, p, fsutil.DisplayPath(p), c.Bool("fail-on-baseline")
	return nil
}

// familyAgentHint is, for a TheRock family given as --agent, what to
// write instead: an agent is one device ISA, and --target takes families.
func familyAgentHint(t string) string {
	if !lint.IsTargetFamily(t) {
		return ""
	}
	return "; an agent is one device, so --target " + t + " simulates every device ISA of its processors"
}

// rerun is how the user ran check, for ready-to-run explain commands that
// work from the same working directory: the inputs and the policy as
// given (relative to the working directory when absolute), the policy's
// loader and the --env flags (checkConfig adds --hip and --loader).
func rerun(cfg *lint.Config, src lint.PolicySource, env []string) report.Rerun {
	r := report.Rerun{Inputs: explainInputs(cfg.Inputs), Env: env}
	if cfg.Policy != nil {
		r.Policy = explainInputs([]string{src.Path()})[0]
		r.PolicyLoader = cfg.Policy.Loader
	}
	return r
}

// explainInputs names the inputs for ready-to-run explain commands: as
// given when relative, else relative to the working directory.
func explainInputs(inputs []string) []string {
	out := make([]string, 0, len(inputs))
	for _, in := range inputs {
		if filepath.IsAbs(in) {
			in = fsutil.RelToWD(in)
		}
		out = append(out, filepath.ToSlash(in))
	}
	return out
}

// tuneGC sets the collector's target for a check unless GOGC is set. Most
// of a plain check's heap (TOCs, the model) is built once and kept:
// collecting at three times the live heap instead of twice saves about a
// tenth of the CPU for a few MiB. --deep does the same when its budget
// (--deep-memory) is at least deepGCFloor, whose unused part (the decoders
// hold a few MiB of it) leaves room for the larger heap; with a smaller
// budget, Go's default keeps the peak within --deep-memory plus 0.5 KiB
// per TOC entry (docs/performance.md).
func tuneGC(deep, blockCache bool, deepMemory int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft limit: past it the collector runs more often instead of
		// letting the heap double, so a huge build (a million TOC keys)
		// stays near its live heap. Runs below it are unaffected. The
		// blocks cached of an xz stream read in place are bounded by
		// --deep-memory, and --deep adds its decompression budget, so
		// each adds it (without, a package read in place ran the
		// collector without pause: a third of check's CPU); a run with
		// no such package keeps the plain limit.
		limit := int64(softMemoryLimit)
		if blockCache {
			limit += deepMemory
		}
		if deep {
			limit += deepMemory
		}
		debug.SetMemoryLimit(limit)
	}
	if os.Getenv("GOGC") != "" {
		gcTuning.Add(1) // an earlier run's pending switch (firstCollectionLater) must not undo GOGC
		return
	}
	percent := 200
	if deep && deepMemory < deepGCFloor {
		percent = 100
	}
	first := firstGCPercent
	if deep || blockCache { // bounded by --deep-memory, which may be small
		first = firstGCPercentBounded
	}
	firstCollectionLater(first, percent)
}

// firstGCPercent is a plain check's collector target until its first
// cycle: Go's first heap goal is 4 MiB times GOGC/100, so at 1600 the
// first collection comes at 64 MiB. A small check (one archive of 12,000
// kernels: 8 MiB at its peak) never collects, and TheRock's check
// (199,008 TOC entries) collects once, as its archives are read, and
// runs to its end on that cycle's goal: four collections from 16 MiB on
// took a fifth of its CPU, for the same peak RSS within the spread of
// runs (docs/performance.md). From the first cycle on, percent applies,
// so a large build's peak is what percent gives it.
const firstGCPercent = 1600

// firstGCPercentBounded is the first target of a run whose memory is
// bounded by --deep-memory (--deep, a package read in place), which can
// be smaller than 64 MiB: its first collection comes at 16 MiB.
const firstGCPercentBounded = 400

// firstCollectionLater sets the collector's target to first, and to
// percent once its first cycle has run: a finalizer of an object made
// unreachable here runs after the cycle that finds it.
func firstCollectionLater(first, percent int) {
	gen := gcTuning.Add(1)
	debug.SetGCPercent(first)
	sentinel := new([64]byte) // not tiny-allocated: its finalizer surely runs
	runtime.SetFinalizer(sentinel, func(*[64]byte) {
		if gcTuning.Load() == gen { // no later run has set the target since
			debug.SetGCPercent(percent)
		}
	})
}

// gcTuning counts the runs that set the collector's target, so that a
// switch left pending by an earlier run in the process (a test, a
// library caller running check twice) does not overwrite a later one's.
var gcTuning atomic.Int64

// blockCache reports whether an input is of a kind that may hold an xz
// stream read in place (vfs's format table: a .deb, .rpm or .tar.xz).
func blockCache(inputs []string) bool {
	for _, in := range inputs {
		name := strings.ToLower(in)
		for _, f := range lint.InputFormats() {
			if f.BlockCache && slices.ContainsFunc(f.Suffixes, func(s string) bool { return strings.HasSuffix(name, s) }) {
				return true
			}
		}
	}
	return false
}

// deepGCFloor is the --deep-memory from which --deep collects as a plain
// check does (tuneGC).
const deepGCFloor = 64 << 20

// softMemoryLimit is the Go runtime's soft memory limit for check (plus
// --deep-memory with --deep) unless GOMEMLIMIT is set (docs/limits.md).
const softMemoryLimit = 384 << 20
