package cli

import (
	"bytes"
	"sort"

	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/check"
	"github.com/rocm-tools/kpack-lint/deep"
	"github.com/rocm-tools/kpack-lint/kerneldb"
	"github.com/rocm-tools/kpack-lint/model"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/report"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/vfs"
)

// maxDeepMemoryMiB bounds --deep-memory (1 TiB).
const maxDeepMemoryMiB = 1 << 20

// DefaultPolicy is read from the working directory when --policy is not
// given and the file exists.
const DefaultPolicy = "policies.yaml"

func checkCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "check",
		Usage:     "simulate the kpack loader over a build and report what would fail",
		ArgsUsage: "INPUT...",
		Description: "INPUTs (directories, wheels .whl/.zip, tarballs .tar/.tar.gz/.tar.zst/.tar.xz; overlaid in the\n" +
			"order given) form one install tree. Every kernel of every kpack'd host binary is loaded on every\n" +
			"agent of the target matrix with the legacy and the fall-through loader. Exit 0: nothing at or\n" +
			"above --fail-on; 1: such findings; 2: usage error or unreadable input.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "policy", Usage: "policy file (default: ./" + DefaultPolicy + " when present)"},
			&ucli.StringFlag{Name: "variant", Usage: "build variant of the policy (default: release, or the only one)"},
			&ucli.StringSliceFlag{Name: "target", Usage: "GPU target ID to check; repeatable; replaces the policy's targets"},
			&ucli.StringSliceFlag{Name: "agent", Usage: "agent ISA to simulate; repeatable; replaces the expansion of targets"},
			&ucli.StringFlag{Name: "loader", Usage: "loader to judge by: fallthrough or legacy (default: the policy's, else fallthrough)"},
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "output format: " + strings.Join(report.Formats(), ", ")},
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the report to this file instead of stdout"},
			&ucli.StringFlag{Name: "fail-on", Value: "error", Usage: "lowest level that makes the exit code 1: error, warning, note or none"},
			&ucli.BoolFlag{Name: "deep", Usage: "read and decompress every code object and check its ELF target against the agents it is served to"},
			&ucli.Int64Flag{Name: "deep-memory", Value: 256, Usage: "with --deep: MiB of decompressed code objects held at once"},
			&ucli.StringSliceFlag{Name: "env", Usage: "environment for the simulation, KEY=VALUE (ROCM_KPACK_PATH, ROCM_KPACK_PATH_PREFIX, ROCM_KPACK_DISABLE, " +
				"ROCBLAS_TENSILE_LIBPATH, HIPBLASLT_TENSILE_LIBPATH, MIOPEN_SYSTEM_DB_PATH); repeatable"},
		},
		Action: runCheck,
	}
}

type checkArgs struct {
	inputs []string
	opt    check.Options
	format string
	output string
	failOn rules.Level
	stdout io.Writer
	stderr io.Writer
}

func runCheck(c *ucli.Context) error {
	a, err := parseCheckArgs(c)
	if err != nil {
		return err
	}
	tree, err := vfs.Open(a.inputs, vfs.Options{Want: wanted(a.opt.Deep), Progress: terminal(a.stderr)})
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	defer tree.Close()
	if err := wholeInputProblem(tree); err != nil {
		return err
	}
	b := model.Load(tree)
	if len(b.Archives) == 0 && len(b.Binaries) == 0 && len(tree.Problems) == 0 && !kerneldb.HasLibraries(tree) {
		return usageErr("%s: no .kpack archive, no HIP host binary (kpack'd or with embedded device code) and no rocBLAS, hipBLASLt or MIOpen library found: nothing to check (is the path right?)", strings.Join(a.inputs, ", "))
	}
	res, err := check.Run(b, a.opt)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	noteSkipped(a.stderr, res)
	noteCUs(a.stderr, res)
	noteNoAgents(a.stderr, res)
	run := reportRun(a.inputs, res.Findings, tree)
	if err := writeReport(a, run); err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	if failing(res.Findings, a.failOn) {
		return &exitError{code: ExitFindings}
	}
	return nil
}

func parseCheckArgs(c *ucli.Context) (*checkArgs, error) {
	if c.NArg() == 0 {
		return nil, usageErr("check: no INPUT given (a build directory, e.g. testdata/example)")
	}
	if err := noFlagsAmongInputs(c.Args().Slice()); err != nil {
		return nil, err
	}
	a := &checkArgs{inputs: c.Args().Slice(), format: c.String("format"), output: c.String("output"), stdout: c.App.Writer, stderr: c.App.ErrWriter}
	if !validFormat(a.format) {
		return nil, usageErr("--format %q: want %s", a.format, strings.Join(report.Formats(), ", "))
	}
	lvl, ok := parseFailOn(c.String("fail-on"))
	if !ok {
		return nil, usageErr("--fail-on %q: want error, warning, note or none", c.String("fail-on"))
	}
	a.failOn = lvl
	pol, err := loadPolicy(c.String("policy"))
	if err != nil {
		return nil, &exitError{code: ExitUsage, err: err}
	}
	if err := policy.CheckLoader(c.String("loader")); err != nil {
		return nil, usageErr("--loader: %v", err)
	}
	if _, _, err := pol.Variant(c.String("variant")); err != nil {
		return nil, &exitError{code: ExitUsage, err: err}
	}
	a.opt = check.Options{
		Policy: pol, Variant: c.String("variant"), Targets: c.StringSlice("target"),
		Agents: c.StringSlice("agent"), Loader: c.String("loader"), InputNames: a.inputs,
		Deep: c.Bool("deep"),
	}
	if mib := c.Int64("deep-memory"); mib <= 0 || mib > maxDeepMemoryMiB {
		return nil, usageErr("--deep-memory %d: want 1 to %d MiB", mib, maxDeepMemoryMiB)
	}
	a.opt.DeepOptions = deep.Options{MaxMemory: c.Int64("deep-memory") << 20, Progress: terminal(c.App.ErrWriter)}
	env, err := loaderEnv(pol, c.StringSlice("env"))
	if err != nil {
		return nil, err
	}
	a.opt.Env = env
	a.opt.DBEnv = databaseEnv(pol, c.StringSlice("env"))
	return a, nil
}

func validFormat(f string) bool {
	for _, x := range report.Formats() {
		if x == f {
			return true
		}
	}
	return false
}

func parseFailOn(s string) (rules.Level, bool) {
	switch rules.Level(s) {
	case rules.LevelError, rules.LevelWarning, rules.LevelNote, rules.LevelNone:
		return rules.Level(s), true
	}
	return "", false
}

// loadPolicy reads --policy, or ./policies.yaml when it exists. No policy
// is fine: the targets then come from --target or the archives.
func loadPolicy(p string) (*policy.Policy, error) {
	if p == "" {
		if _, err := os.Stat(DefaultPolicy); err != nil {
			return nil, nil // no policy: --variant then says so
		}
		p = DefaultPolicy
	}
	pol, err := policy.Load(p)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	if err := knownRules(pol); err != nil {
		return nil, fmt.Errorf("policy: %s: %w", p, err)
	}
	if filepath.IsAbs(pol.Path) {
		pol.Path = filepath.Base(pol.Path) // never put machine paths into reports
	}
	pol.Path = filepath.ToSlash(pol.Path)
	return pol, nil
}

func reportRun(inputs []string, fs []rules.Finding, tree *vfs.Tree) report.Run {
	return report.Run{
		ToolName: "kpack-lint", ToolVersion: Version, InformationURI: InformationURI,
		Rules: rules.All(), Inputs: inputs, Findings: fs,
		FileSize: func(input int, p string) (int64, bool) {
			e := tree.Entry(p)
			if e == nil || e.Input != input {
				return 0, false
			}
			return e.Size, true
		},
	}
}

// writeReport renders into memory first so a failed render leaves no
// half-written --output file.
func writeReport(a *checkArgs, run report.Run) error {
	var buf bytes.Buffer
	if err := report.Write(&buf, a.format, run); err != nil {
		return err
	}
	if a.output == "" {
		_, err := a.stdout.Write(buf.Bytes())
		return err
	}
	return os.WriteFile(a.output, buf.Bytes(), 0o644)
}

func failing(fs []rules.Finding, failOn rules.Level) bool {
	if failOn == rules.LevelNone {
		return false
	}
	for _, f := range fs {
		if f.Level.Rank() >= failOn.Rank() {
			return true
		}
	}
	return false
}

// knownRules rejects rules.<ID> entries for rules that do not exist, as
// unknown keys elsewhere in the policy are rejected.
func knownRules(p *policy.Policy) error {
	ids := make([]string, 0, len(p.Rules))
	for id := range p.Rules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if _, ok := rules.ByID(id); !ok {
			return fmt.Errorf("rules.%s: no such rule (see kpack-lint rules)", id)
		}
	}
	return nil
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
func noteCUs(w io.Writer, res *check.Result) {
	if procs := kerneldb.WithoutCUs(res.Context.Databases); len(procs) > 0 {
		fmt.Fprintf(w, "kpack-lint: note: MIOpen's CU-specific databases (<DbId><CUs>.kdb, .HIP.fdb.txt, .db.txt) were not checked for %s: "+
			"give cu_counts in the policy\n", strings.Join(procs, ", "))
	}
}

// noteNoAgents tells on stderr when libraries with kernel databases were
// found but no target says which GPUs to simulate.
func noteNoAgents(w io.Writer, res *check.Result) {
	db := res.Context.Databases
	if db == nil || len(db.Sites) == 0 || len(res.Context.Agents) > 0 {
		return
	}
	fmt.Fprintf(w, "kpack-lint: note: %s ships a kernel database but there are no targets to simulate: give --target or a policy\n", db.Sites[0].Path)
}

// noteSkipped tells on stderr how many code objects --deep could not verify
// within --deep-memory: a limit of this run, not a defect of the package.
func noteSkipped(w io.Writer, res *check.Result) {
	d := res.Context.Deep
	if d == nil {
		return
	}
	n := 0
	for _, o := range d.Objects {
		if o.Skipped {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(w, "kpack-lint: note: %d code objects need more than --deep-memory to verify and were checked from the TOC only; raise --deep-memory\n", n)
	}
}
