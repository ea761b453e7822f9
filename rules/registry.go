// Package rules holds kpack-lint's checks: their documentation (one Rule
// value each, read by the CLI, the README table and SARIF tool.driver.rules)
// and the functions that turn a simulated build into findings.
package rules

import (
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
)

// DocsURI is where the rule reference lives; each rule links to its anchor.
const DocsURI = "https://github.com/rocm-tools/kpack-lint/blob/main/README.md"

func helpURI(id string) string { return DocsURI + "#" + strings.ToLower(id) }

var registry = []finding.Rule{
	{
		ID: "KPL001", Name: "unreachable-kernel", Level: finding.LevelError, Explain: finding.ExplainLoad,
		Title: "A kernel cannot be loaded on an agent the build targets",
		Text: "The simulated kpack_load_code_object of the policy's loader fails for this kernel key on this agent ISA " +
			"(KERNEL_NOT_FOUND, ARCH_NOT_FOUND, DECOMPRESSION_FAILED, ...). On hardware the HIP runtime reports " +
			"hipErrorInvalidImage or 'kpack_load_code_object failed with error: N'.",
		Help: "Ship an archive whose gfx_arches lists a target compatible with the agent and whose TOC holds the kernel key, " +
			"or drop the agent from the policy's targets. `kpack-lint explain --agent ISA KEY DIR` shows the loader's trace.",
	},
	{
		ID: "KPL002", Name: "legacy-loader-shadowing", Level: finding.LevelWarning, Explain: finding.ExplainLoad,
		Title: "A more specific archive shadows the one holding the kernel on the legacy loader",
		Text: "The fall-through loader (rocm-systems #9953 and later) finds the kernel, but the legacy first-match loader " +
			"(rocm-kpack up to the fix, ROCm <= 7.14 wheels) stops at the first archive whose gfx_arches matches " +
			"(e.g. an xnack+ overlay) and returns KERNEL_NOT_FOUND (ROCM-31644, TheRock#7081).",
		Help: "Put every kernel of the kpack group into each feature-tagged archive, or drop the partial overlay, " +
			"or require a runtime with the fall-through loader.",
	},
	{
		ID: "KPL003", Name: "stripped-feature-flags", Level: finding.LevelError,
		Title: "A project's kernels lack a feature flag the variant's targets require",
		Text: "The build variant asks for a target with a feature setting (e.g. gfx950:xnack+ in ASAN builds, " +
			"TheRock cmake/therock_sanitizers.cmake) but this project's kernels for that processor are only in archives " +
			"whose tag lacks it: its CMake strips feature flags from GPU_TARGETS (rocFFT: list(TRANSFORM GPU_TARGETS REPLACE \":[^;]+\" \"\")).",
		Help: "Build the project for the full target ID (keep ':xnack+' in GPU_TARGETS), or package its kernels in their own kpack group.",
	},
	{
		ID: "KPL004", Name: "group-collision", Level: finding.LevelError,
		Title: "A kpack group mixes projects or inputs that disagree",
		Text: "One kpack group holds kernels of several projects whose kernels for one processor sit in archives with " +
			"different feature tags, so the archives shadow each other; or two inputs ship the same path with different bytes " +
			"(an install conflict, TheRock PR 4807).",
		Help: "Give each project its own kpack group, or build all projects of the group with the same target IDs; " +
			"ship each file from exactly one package.",
	},
	{
		ID: "KPL005", Name: "malformed-archive", Level: finding.LevelError,
		Title: "A .kpack archive is malformed",
		Text: "The archive's header, TOC or blob table breaks the kpack format (version 1): the runtime skips it, " +
			"fails on fetch, or aborts the process that loads it.",
		Help: "Rebuild the archive with the rocm-kpack writer; do not edit archives by hand.",
	},
	{
		ID: "KPL006", Name: "missing-archive", Level: finding.LevelError, Explain: finding.ExplainLoad,
		Title: "No kpack archive opens for a host binary on an agent",
		Text: "None of the binary's search paths (with @GFXARCH@ expanded for the agent's compatible targets) names an " +
			"archive that exists and opens: the runtime returns ARCHIVE_NOT_FOUND (error 13).",
		Help: "Ship the archive the loader looks for (the message names it), or fix the binary's kpack_search_paths.",
	},
	{
		ID: "KPL007", Name: "bad-search-path", Level: finding.LevelError,
		Title: "A host binary's kpack reference is invalid or not relocatable",
		Text: "The .rocm_kpack_ref section is not valid MessagePack, lacks kernel_name or kpack_search_paths (INVALID_METADATA, " +
			"error 12), a search path leaves the package, or HIPK wrappers and the reference section do not come together.",
		Help: "Re-run the kpack splitter on the binary; use search paths relative to the binary's directory.",
	},
	{
		ID: "KPL008", Name: "orphan-kernel", Level: finding.LevelNote,
		Title: "An archive holds kernels no shipped host binary references",
		Text:  "TOC keys whose kernel name no host binary carries, or co_indexes beyond the binary's wrapper count: dead weight.",
		Help:  "Drop the kernels from the archive, or ship the host binary that uses them.",
	},
	{
		ID: "KPL009", Name: "code-object-mismatch", Level: finding.LevelError, Explain: finding.ExplainServed,
		Title: "A code object does not fit the agent it is served to",
		Text: "The kernel's bytes are not an AMDGPU code object for the TOC key's target, or are incompatible with an agent " +
			"the loader hands them to (LLVM isCompatibleTargetID): the HIP runtime rejects them with hipErrorInvalidImage.",
		Help: "Store each code object under the target ID it was built for (TheRock PR 5668).",
	},
	{
		ID: "KPL010", Name: "invalid-target", Level: finding.LevelWarning,
		Title: "A target ID is invalid or disagrees with its archive",
		Text: "A target ID in the policy, an archive's gfx_arches or TOC, or an archive file name is one LLVM would reject " +
			"(unknown processor, unsupported or repeated feature), or an archive's file-name tag disagrees with its gfx_arches " +
			"(the loader reads only gfx_arches).",
		Help: "Use LLVM target IDs (processor[:sramecc(+|-)][:xnack(+|-)]) and name archives <group>_<target-id>.kpack after their gfx_arches.",
	},
	{
		ID: "KPL011", Name: "untransformed-binary", Level: finding.LevelError,
		Title: "Archives hold kernels of a binary that was not kpack-transformed",
		Text: "A kpack group's archives hold TOC keys of a host binary that ships with embedded device code (HIPF wrappers, " +
			"a .hip_fatbin offload bundle) and no .rocm_kpack_ref: HIP loads the embedded code and never reads the archives, " +
			"so a GPU the embedded code lacks gets \"invalid device function\" (rocm-libraries#8660). HIP loads a wrapper " +
			"through kpack only when its magic is HIPK and its version 1.",
		Help: "Ship the kpack-transformed binary (run the kpack splitter on it), or drop its kernels from the archives.",
	},
	{
		ID: "KPL012", Name: "inventory-regression", Level: finding.LevelError,
		Title: "A kpack group lost a target or most of its kernels since the baseline",
		Text: "Against a baseline report (check --baseline), a kpack group x target whose archives are gone, or that holds " +
			"fewer kernel keys than the baseline by more than the allowed share (--max-kernel-loss, 10%). " +
			"TheRock PR 6362: a stray 3-kernel blas_lib_gfx906 artifact overwrote the 646-kernel one and gfx906 users got hipErrorInvalidImage.",
		Help: "Package the group's archive for that target from the complete build (look for an artifact that overwrote it); " +
			"if the kernels or the target were dropped on purpose, refresh the baseline.",
	},
	{
		ID: "KPL013", Name: "missing-kernel-database", Level: finding.LevelError,
		Title: "A library cannot open its per-arch kernel database on an agent the build targets",
		Text: "rocBLAS, hipBLASLt and MIOpen read loose per-architecture database files next to the library (or from " +
			"ROCBLAS_TENSILE_LIBPATH, HIPBLASLT_TENSILE_LIBPATH, MIOPEN_SYSTEM_DB_PATH). The simulated lookup finds no Tensile index for the " +
			"agent's processor (rocBLAS aborts: 'rocBLAS error: Cannot read .../TensileLibrary.dat ... for GPU arch : gfx942'; hipBLASLt " +
			"prints 'rocblaslt error: Cannot read' and its calls fail later), no lazy-loading code object, or, with --deep, files the index " +
			"names; MIOpen kernel, find and perf databases for the device's DbId and CU count are notes (run-time compilation is slow, " +
			"not fatal). Also warns about a per-arch file set much smaller than its siblings' and notes files for arches the build does " +
			"not target (TheRock#5179, TheRock#5478, rocm-systems#7645, MIOpen#1651).",
		Help: "Ship the library's per-arch files for every targeted processor (TheRock: the device packages), from the same build as the library; " +
			"`kpack-lint explain-db --agent ISA LIBRARY INPUT` shows the lookup.",
	},
}

func init() {
	for i := range registry {
		registry[i].HelpURI = helpURI(registry[i].ID)
	}
	sort.Slice(registry, func(i, j int) bool { return registry[i].ID < registry[j].ID })
}

// All returns every rule, sorted by ID. The slice is a copy.
func All() []finding.Rule {
	return append([]finding.Rule(nil), registry...)
}

// ByID returns the rule with the given ID ("KPL001").
func ByID(id string) (finding.Rule, bool) {
	for _, r := range registry {
		if r.ID == id {
			return r, true
		}
	}
	return finding.Rule{}, false
}
