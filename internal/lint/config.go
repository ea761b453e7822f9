package lint

import (
	"io"
	"time"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/report"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/verify"
)

// Config is one run of the pipeline, for every command: check, explain,
// explain-db and merge each take one (Check, Explain, ExplainDB, Merge).
// The command line fills it from its flags; tests fill it directly. Its
// fields are grouped by the stage that reads them:
//
//	inputs   Inputs, Progress: the file tree and the model (Load)
//	verify   Deep, DeepOptions: the code objects, byte for byte (--deep)
//	simulate Policy, Variant, Targets, Agents, Loader, Env, DBEnv, Shard,
//	         Machines, HIP, MachineEnv: the matrix of devices, the
//	         machines and environment, the loads, the kernel databases (Run)
//	rules    Policy's rule levels, Workers, RuleTimes (Run)
//	gate     Gate: baseline, waivers, the fail-on level
//	report   Report: the formats, files and words of the report
//
// Explain and Library select what explain and explain-db look at.
//
// Each decision has one place a new capability extends: a new kind of
// input is a row of input/vfs's format table (vfs.Formats) and its
// loader, opened by openTree for every command; a new shape of the
// matrix is resolved into agents and their arch_lists by newContext
// (check: sim.NewAgents) and explainDevices (explain), which read the
// matrix fields below; machines (several devices in one process, a HIP
// release and an environment per machine) are resolved by
// sim.ResolveMachines and simulated next to the agents (sim.Simulate);
// what --deep verifies is Run's first step (verifyBuild: archives, which
// decide what opens) and, once the matrix is known,
// verify.VerifyEmbedded (the code objects of embedded offload bundles).
type Config struct {
	// Inputs are the paths as given, overlaid in order: build trees,
	// wheels and tarballs; for merge, the shards' reports. Reports name
	// an input by InputName.
	Inputs []string
	// Progress is where progress bars are drawn (a terminal); nil for none.
	Progress io.Writer

	// Policy is the policy read (nil for none); PolicyFound says where
	// policy discovery found it ("in the working directory", "next to the
	// input dist"), "" when it was named or there is none.
	Policy      *policy.Policy
	PolicyFound string
	// PolicySource is how the reports state the choice of policy
	// (report.Checked.PolicySource: "--policy", "found in the working
	// directory", "--no-policy", "none found: ...").
	PolicySource string
	// Variant, Targets and Agents select the matrix: Targets and Agents,
	// when set, replace the policy's (as --target and --agent do); Loader,
	// when set, replaces its loader.
	Variant string
	Targets []string
	Agents  []string
	Loader  finding.Loader // "" is the policy's
	// Machines are the machines to simulate (--machine): a policy
	// machine's name, or device ISAs separated by commas in enumeration
	// order ("gfx1036,gfx1100"); they replace the policy's machines:, and
	// none takes all of them. HIP is the HIP release (--hip, a
	// hip.Lookup name): it replaces every machine's and is the target
	// matrix's ("" is each machine's own, and the newest modelled for
	// the matrix). MachineEnv holds the machine variables of the
	// environment (machine.IsEnvKey: HSA_OVERRIDE_GFX_VERSION,
	// HIP_VISIBLE_DEVICES...; the policy's env: and --env), set over
	// every machine's env:; without machines they make the matrix's
	// agents one-device machines.
	Machines   []string
	HIP        string
	MachineEnv map[string]string
	// Env is the loader environment (the policy's env: and --env); EnvList
	// the whole simulated environment as KEY=VALUE sorted by key, which
	// reports state (nil when none is set).
	Env     resolver.Env
	EnvList []string
	// DBEnv holds the kernel-database libraries' environment variables
	// (ROCBLAS_TENSILE_LIBPATH, HIPBLASLT_TENSILE_LIBPATH,
	// MIOPEN_SYSTEM_DB_PATH, MIOPEN_DEVICE_CU), paths relative to the build
	// root; CUs the compute-unit counts per processor explain-db looks up
	// (check takes the policy's cu_counts).
	DBEnv map[string]string
	CUs   map[string][]int
	// Deep reads and decompresses every stored code object (check --deep,
	// explain-db --deep); DeepOptions bounds it (MaxMemory is the budget
	// explain fetches within too).
	Deep        bool
	DeepOptions verify.Options
	// MaxDecompressed is the run's budget of decompressed bytes, shared
	// by every decoder of every command (tarball, .deb and rpm streams,
	// zip members, compressed ELF sections and offload bundles, the zstd
	// frames --deep and explain decode); 0 means
	// inflate.DefaultMaxBytes. A run that passes it ends with its
	// *inflate.LimitError, an input error, before any report is written.
	MaxDecompressed int64
	// XZ is the decoder of the xz blocks of packages read in place
	// (--xz; XZDecoder); the zero XZ is the built-in decoder.
	XZ XZ
	// Shard limits the simulation, --deep and the findings to one part of
	// the kpack groups (check --shard I/N); the zero Shard is everything.
	Shard finding.Shard
	// early is what --deep verified of the embedded bundles of binaries
	// read in place while check read them (loadBuild); nil otherwise.
	early *verify.Early

	Gate    Gate
	Report  Report
	Explain Selection
	// Library is the library explain-db looks up: a path inside the
	// inputs (any of its names) or rocblas, hipblaslt, miopen.
	Library string

	// Note receives what the run tells besides its report (notes and
	// warnings, see Note); nil drops them.
	Note func(Note)
	// Workers is how many goroutines simulate sites and run checks at
	// once; 0 means runtime.GOMAXPROCS(0). The result does not depend on it.
	Workers int
	// RuleTimes, when not nil, receives the time spent per rule
	// (rules.Context.RuleTimes; benchmarks).
	RuleTimes map[string]time.Duration
}

// Gate is what decides which findings count: the baseline, the waivers
// and the fail-on level.
type Gate struct {
	// FailOn is the lowest level that fails the run (ErrFindings);
	// LevelNone never fails. The zero value is LevelError.
	FailOn finding.Level
	// Baseline is an earlier report (nil for none), read from
	// BaselineFile (as given), which reports name BaselineName; findings
	// are new, unchanged or absent against it, and only new ones fail
	// unless FailOnBaseline.
	Baseline       *report.Run
	BaselineFile   string
	BaselineName   string
	FailOnBaseline bool
	// MaxKernelLoss is the percentage of a group x target's kernel keys
	// it may lose against the baseline's inventory before KPL012 (0: any
	// loss).
	MaxKernelLoss float64
	// Waivers accept known findings as of Today (YYYY-MM-DD); reports say
	// they came from WaiverFiles ("policies.yaml, w.yaml").
	Waivers     []finding.Waiver
	WaiverFiles string
	Today       string
	// WarnExpiring warns about waivers that expire within this many days
	// of Today (gate.Expiring); 0 for none.
	WarnExpiring int
	// MaxWaiverDays is how far after Today a waiver may expire before a
	// broad-waiver warning says so (policy.BroadWaivers; a waiver with no
	// expires date too); 0 checks no expiry. Waivers that match every
	// rule, file, group or kernel are warned about whatever it is.
	MaxWaiverDays int
}

// Report is where the report goes and how it is worded.
type Report struct {
	// Outputs are the reports to write, each in its format; a Path of "-"
	// is Stdout. Every report is rendered before any is written, and each
	// file is replaced whole.
	Outputs []Output
	Stdout  io.Writer
	// Color writes ANSI colours in text on Stdout.
	Color bool
	// PathPrefix is put before every input path in SARIF and GitHub
	// annotations.
	PathPrefix string
	// Rerun is how the command was run, for the ready-to-run commands of
	// text, markdown and GitHub reports.
	Rerun report.Rerun
	// ToolVersion is kpack-lint's version; InformationURI its home page.
	ToolVersion    string
	InformationURI string
	// Format is explain's and explain-db's format: text or json.
	Format string
	// NewOnly and MaxPerRule shape the listings of the text and HTML
	// reports (report.Run.NewOnly, report.Run.MaxPerRule).
	NewOnly    bool
	MaxPerRule int
	// Guard, when set, is held while each report is written, so an
	// interrupt (Guard.Stop) never leaves one half written and can say
	// which were; nil writes without one.
	Guard *WriteGuard
}

// Output is one report to write: its format (report.Formats) and path.
type Output struct {
	Format, Path string
}

// Selection is what explain loads: the kernel keys, and how the loader
// finds their archives.
type Selection struct {
	Keys []string
	// Search replaces the host binary's search paths (relative to the
	// input root); Binary picks the host binary when several have the
	// key's kernel name.
	Search []string
	Binary string
	// NoGeneric passes the agents alone, without HIP's generic targets.
	NoGeneric bool
}

// machineConfig is what the run says of its machines (sim's view of the
// fields of the same names).
func (c *Config) machineConfig() *sim.MachineConfig {
	return &sim.MachineConfig{Policy: c.Policy, Machines: c.Machines, HIP: c.HIP, MachineEnv: c.MachineEnv, Loader: c.Loader}
}
