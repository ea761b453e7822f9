package hip

// The HIP releases kpack-lint models: one table, one row per set of
// behaviours users meet, each cell with the source that decides it. The
// evidence (file:line, tag or commit, quoted line) is gathered in
// notes/hip-releases.md; where it contradicts SPEC 4b/4c the source wins.
//
// Sources are written "repo path:line@tag-or-commit" or "repo PR N". An
// "index" source is the file index's copy of a rocm-systems clr file of
// 2026 whose commit the index does not give; it is named by its id and the
// function. "inferred" marks a cell decided from dates or neighbouring
// releases rather than read in that release's code. The cells' sources are
// the evidence; what reports and explain cite is each row's Cite, worded
// for users from public, checkable sources only.

// KpackMode is what a release does with an HIPK wrapper (a kpack'd
// module): HIP asks rocm-kpack for the code object instead of reading an
// embedded offload bundle.
type KpackMode int

// The kpack modes.
const (
	// KpackUnknown: the release predates kpack. HIPK is an unknown
	// wrapper magic, so the module is not registered ("Cannot Register
	// fat binary", a nil module) and a launch from it fails.
	KpackUnknown KpackMode = iota
	// KpackPerProcess is rocm-systems PR 2622: one kpack_load_code_object
	// call whose arch_list holds every device's ISA and generic target,
	// [isa0, generic0, isa1, generic1, ...] in HIP device order (repeats
	// kept), and the one code object it returns registered on every
	// device; any error fails the module with hipErrorInvalidImage.
	KpackPerProcess
	// KpackPerDevice is rocm-systems PR 9167: one load per unique device
	// ISA with [isa, generic(isa)]; ARCHIVE_NOT_FOUND (13) and
	// ARCH_NOT_FOUND (14) leave that ISA's devices without code, any
	// other error rolls the module back on every device
	// (hipErrorInvalidImage), no ISA loaded is hipErrorInvalidKernelFile.
	KpackPerDevice
)

// String names the mode as the docs do.
func (m KpackMode) String() string {
	switch m {
	case KpackPerProcess:
		return "per-process (PR 2622)"
	case KpackPerDevice:
		return "per-device (PR 9167)"
	}
	return "none"
}

// FatMode is how a release's loop over the devices treats an embedded fat
// binary (an HIPF wrapper's clang offload bundle) when a device has no
// compatible code object in it.
type FatMode int

// The fat-binary modes.
const (
	// FatAbort (HIP up to 5.3): the process aborts at HIP init when any
	// device lacks a code object (guarantee(false, "hipErrorNoBinaryForGpu:
	// Unable to find code object for all current devices!")).
	FatAbort FatMode = iota
	// FatAllOrNothing (5.4-5.7): any device lacking a code object fails
	// the module, and no device gets code.
	FatAllOrNothing
	// FatStopAtFirst (6.0 up to rocm-systems PR 9498): the loop stops at
	// the first device without a code object: the devices before it keep
	// their code, it and every later device get none. When that is device
	// 0 the module fails on every device.
	FatStopAtFirst
	// FatPerDevice (PR 9498, the loop's break became continue): only the
	// devices without a code object lack code; the module fails only when
	// no device got one.
	FatPerDevice
)

// String names the mode as the docs do.
func (m FatMode) String() string {
	switch m {
	case FatAbort:
		return "abort"
	case FatAllOrNothing:
		return "all-or-nothing"
	case FatStopAtFirst:
		return "stop at first device without code"
	}
	return "per-device (PR 9498)"
}

// Loader is the rocm-kpack loader a release ships (SPEC 4.5).
type Loader int

// The loaders.
const (
	// LegacyLoader takes the first candidate archive only.
	LegacyLoader Loader = iota
	// FallthroughLoader tries every candidate (rocm-systems #9953).
	FallthroughLoader
)

// String is "legacy" or "fallthrough", the names of --loader.
func (l Loader) String() string {
	if l == FallthroughLoader {
		return "fallthrough"
	}
	return "legacy"
}

// Outcome words that are not hip_runtime_api.h error names, used in
// Symptom fields.
const (
	// Crash: the process dies with a segmentation fault (Linux) or an
	// access violation 0xC0000005 (Windows) at the launch.
	Crash = "crash"
	// NotRegistered: __hipRegisterFatBinary rejects the wrapper and
	// returns a nil module (only logged).
	NotRegistered = "not registered"
)

// More HIP error names (hip_runtime_api.h) the release table uses.
const (
	ErrInvalidKernelFile     = "hipErrorInvalidKernelFile"
	ErrInvalidDeviceFunction = "hipErrorInvalidDeviceFunction" // "invalid device function", 98
	ErrNotSupported          = "hipErrorNotSupported"
)

// Symptom is what a user sees on one device in one case: what the module
// load (the fat binary's digest, at registration or, deferred, at the
// first launch) returns or logs, and what a kernel launch there gives.
type Symptom struct {
	// Registration is the digest's error for the module: a HIP error
	// name, NotRegistered, Aborted (the process ends), or "" when the
	// module loads (a device may still be without code; see Launch).
	Registration string
	// Launch is what a kernel launch on the device gives: a HIP error
	// name, Crash, Aborted, or "" when it runs.
	Launch string
	// Then is what later launches give when it differs from the first
	// (the first launch digests the module, later ones find it failed),
	// else "".
	Then string
	// Lookup is what hipGetFuncBySymbol returns for the device's kernels
	// (libraries that look a kernel up before launching it: RCCL, XLA),
	// "" where the release has no hipGetFuncBySymbol or the device runs
	// (withLookup).
	Lookup string
}

// Cell is one table cell: a value and the source that decides it.
type Cell[T any] struct {
	Value  T
	Source string
}

// Cite is what user-facing output (explain --machine, docs/machines.md) cites
// for a row's behaviour: public, checkable sources (repository, PR
// number, file and function, release tag or submodule pin) in plain
// words, saying "inferred" where the behaviour was not read in that
// release's own source. Kpack is how a kpack'd (HIPK) module loads,
// KpackOff what a HIP built without ROCM_KPACK_ENABLED does with one,
// Fat the fat-binary loop over the devices.
type Cite struct {
	Kpack, KpackOff, Fat string
	// Launch is what a kernel launch (and hipGetFuncBySymbol) makes of a
	// module or device that failed.
	Launch string
}

// Release is one row of the release table: a set of HIP releases that
// behave alike for kpack-lint. Every field but Name, Covers and Cite is
// a Cell citing its source.
type Release struct {
	// Name is the value --hip and policy hip: take ("7.13", "newest").
	Name string
	// Covers says which releases the row stands for.
	Covers string
	// Cite is what users are told the behaviour rests on.
	Cite Cite

	// Kpack is how HIPK wrappers load; KpackBuiltIn says whether HIP of
	// these releases is built with ROCM_KPACK_ENABLED (TheRock's CMake);
	// a HIP built without it rejects HIPK wrappers (KpackUnsupported).
	Kpack        Cell[KpackMode]
	KpackBuiltIn Cell[bool]
	// Loader is the rocm-kpack loader these releases ship.
	Loader Cell[Loader]
	// Fat is the fat-binary loop's behaviour.
	Fat Cell[FatMode]
	// Generic is HIP's TargetGenericMap (TargetToGeneric): the generic
	// target appended to a device's arch_list and tried for an embedded
	// bundle after the native entry. nil for releases without one.
	Generic Cell[[]GenericEntry]
	// SPIRV says whether an embedded amdgcnspirv entry is compiled for a
	// device that has no native or generic entry.
	SPIRV Cell[bool]

	// OverrideBug: an empty or malformed HSA_OVERRIDE_GFX_VERSION makes
	// libhsakmt's topology snapshot fail, so ROCr does not initialise and
	// HIP sees no device (ROCR-Runtime#354). Fixed releases read an empty
	// value as unset and refuse an override to another major version.
	OverrideBug Cell[bool]
	// PerNodeOverride says whether HSA_OVERRIDE_GFX_VERSION_<node> is read.
	PerNodeOverride Cell[bool]
	// HIPVisibleUUIDs says whether HIP_VISIBLE_DEVICES takes GPU-<uuid>
	// entries.
	HIPVisibleUUIDs Cell[bool]

	// Launch is how ihipLaunchKernel returns the function lookup's error
	// (launch.go); FuncBySymbol whether hipGetFuncBySymbol exists (it
	// returns hipErrorInvalidDeviceFunction for every failure, Symptom.Lookup).
	Launch       Cell[LaunchRule]
	FuncBySymbol Cell[bool]

	// What the user sees, kpack path. KpackUnsupported: the wrapper cannot
	// load at all (KpackUnknown rows: an unknown magic; kpack rows: a HIP
	// built without ROCM_KPACK_ENABLED). KpackFailed: a failed module (any PR 2622 error, a fatal
	// PR 9167 error). KpackNoCode: a device left without code by 13/14 in
	// a module that loaded on other devices (PR 9167). KpackNoneLoaded: no
	// ISA loaded (PR 9167). KpackForeign: a device given a code object
	// built for another ISA (PR 2622).
	KpackUnsupported Cell[Symptom]
	KpackFailed      Cell[Symptom]
	KpackNoCode      Cell[Symptom]
	KpackNoneLoaded  Cell[Symptom]
	KpackForeign     Cell[Symptom]
	// KpackRejected: a load returned SUCCESS with a buffer that is not an
	// ELF file, which AddDevProgram rejects (rocclr Program::addDeviceProgram:
	// amd::Elf::isElfMagic fails, CL_INVALID_BINARY; HIP returns
	// hipErrorInvalidKernelFile), failing the module on every device.
	KpackRejected Cell[Symptom]
	// What the user sees, fat-binary path. FatFailed: a module no device
	// got code from (FatAbort: the process). FatNoCode: a device without
	// code in a module that loaded on other devices.
	FatFailed Cell[Symptom]
	FatNoCode Cell[Symptom]
}

// Sources of cells shared by several rows.
const (
	srcUnknownMagic   = "hipamd src/hip_platform.cpp:79-80@rocm-5.2.3 and clr hipamd/src/hip_platform.cpp:72-75@rocm-6.2.0 (magic != __hipFatMAGIC2: \"Cannot Register fat binary\", return nullptr)"
	srcNilModule      = "clr hipamd/src/hip_global.cpp:151@rocm-6.2.0 (guarantee(modules_ != nullptr, \"Module not initialized\")); 5.x inferred from the same registration code"
	srcNoKpackClassic = "classic ROCm 6.4-7.2 has no kpack (notes 1a); TheRock passes -DROCM_KPACK_ENABLED=ON only from 2e8964557 (2026-02-10, after therock-7.11); a HIP with the code built OFF crashes at launch too (rocm-systems PR 11580's description)"
	srcPR2622         = "rocm-systems projects/clr/hipamd/src/hip_fatbin.cpp ExtractKpackBinary@6b0e43f3 (therock-10.0 pin): arch_list of every device, one kpack_load_code_object, \"Add code object to all devices\""
	srcPR9167         = "rocm-systems PR 9167; index 66615623207 hip_fatbin.cpp ExtractKpackBinary (devices_by_isa, 13/14 continue, rollback_kpack_state)"
	srcBuiltInTheRock = "TheRock core/CMakeLists.txt:289@therock-7.13, :275@therock-7.14, :293@release/therock-10.0, :301@main (-DROCM_KPACK_ENABLED=ON always)"
	srcKpackOffCrash  = "index 6b0e43f3 hip_fatbin.cpp ExtractKpackBinary (#if !ROCM_KPACK_ENABLED: return hipErrorNotSupported); the launch did not propagate it and crashed before rocm-systems PR 10150 (PR 11580's description)"
	srcLegacyLoader   = "SPEC 4.5: the legacy loader is rocm-kpack up to the fix, ROCm <= 7.14 wheels; 10.0 and 7.14 inferred legacy: rocm-systems PR 9953 (opened 2026-08-10) postdates both branch points (TheRock release/therock-7.14 from main 2026-06-25, release/therock-10.0 from main 2026-07-28), and the rocm-systems cherry-picks the branches took since (7.14: PRs 7976, 7937, 7867, 8170, 8194, 8212, 8286, 10004, 10005, 8489; 10.0: 9624, 9674, 9650, 9786, 9737, 9683, 9675, 9880, 9904, 10057, 9864, 10315, 10321, TheRock bump commits) do not name it; shared/kpack/runtime/src/loader.cpp at the pins ca887ee8 and 6b0e43f3 could not be read"
	srcNoLoader       = "no kpack in these releases: the loader is never called"
	srcAbort          = "hipamd src/hip_code_object.cpp:456,489@rocm-5.2.3 (:485@rocm-5.3.3), src/hip_fatbin.cpp:83 (guarantee(false, ...) when any device lacks a code object); removed by hipamd 9463e6c0, first in rocm-5.4.0"
	srcAllOrNothing   = "hipamd src/hip_code_object.cpp:485-486@rocm-5.4.0 (return hipErrorNoBinaryForGpu), src/hip_fatbin.cpp:82-84 (returns before filling any device); clr rocclr/utils/flags.hpp:281@rocm-5.7.0 (runtime unbundler still the default)"
	srcStop6          = "clr hipamd/src/hip_fatbin.cpp:276-280@rocm-6.2.0 (\"Cannot find CO in the bundle\", hipErrorNoBinaryForGpu, break), :256-258@rocm-6.0.0, :279@release/rocm-rel-6.3.0.1; COMGR path default from clr flags.hpp:225@rocm-6.0.0"
	srcStop64         = "index 02ba0621 and rocm-systems 6b0e43f3 hip_fatbin.cpp ExtractFatBinaryUsingCOMGR (hip_status = hipErrorInvalidImage; native, else generic, else SPIR-V, else \"No compatible code objects found\"; break)"
	srcPR9498         = "rocm-systems PR 9498 (the else-branch break became continue); index 66615623207 ExtractFatBinaryUsingCOMGR (\"Skipping device with no compatible code object\")"
	srcNoGeneric      = "ROCm/clr tags to rocm-6.2.2, release/rocm-rel-6.3.0.1, amd-staging 2024-10-22: no generic target in hip_fatbin.cpp or hip_code_object.cpp (git grep)"
	srcGeneric29      = "TargetGenericMap, 29 entries, identical at ROCm/clr 0781225b, index 02ba0621 and rocm-systems 6b0e43f3 hip_fatbin.cpp; first release reported as ROCm 6.4 (rocSOLVER#937, cgmb)"
	srcGeneric30      = "rocm-systems PR 9741 (gfx1250 -> gfx12-5-generic); index 66615623207 hip_fatbin.cpp TargetGenericMap (30 entries; no gfx1251)"
	srcNoSPIRV        = "no SPIR-V lookup before the ROCm 6.4 rewrite (clr hip_fatbin.cpp@rocm-6.2.0 looks up the device ISA only)"
	srcSPIRV          = "index 02ba0621 hip_fatbin.cpp ExtractFatBinaryUsingCOMGR (SPIR-V after native and generic)"
	srcOverrideBug    = "rocm-systems projects/rocr-runtime/libhsakmt/src/topology.c:1237-1251@1b1610fc (sscanf(\"%u.%u.%u%c\") != 3: HSAKMT_STATUS_ERROR), :1991-1996 (the snapshot fails), core/driver/kfd/amd_kfd_driver.cpp:158; unchanged since 13aadde5 (2017); ROCR-Runtime#354"
	srcPerNodeNo      = "ROCR-Runtime 84567b64 (2024-06-04, HSA_OVERRIDE_GFX_VERSION_<n>) is on release/rocm-rel-6.3.0.1 and in no rocm-6.2.x tag"
	srcPerNodeYes     = "ROCR-Runtime 84567b64; libhsakmt/src/topology.c:1237-1239@1b1610fc (the per-node variable first)"
	srcUUIDNo         = "clr rocclr/device/rocm/rocdevice.cpp:518@rocm-6.2.0 first accepts GPU- entries; not in rocm-5.7/6.0/6.1"
	srcUUIDYes        = "clr rocclr/device/rocm/rocdevice.cpp:518@rocm-6.2.0 (str_id.find(\"GPU-\"): substring of the agent UUID)"
	srcFailed2026     = "index 56177578034 ihipLaunchKernel (InvalidKernelFile, InvalidDeviceFunction and InvalidImage propagated) and BuildProgram (dev_programs_[device_id] == nullptr: hipErrorInvalidKernelFile); TheRock#5543 on 7.13a (\"device kernel image is invalid\")"
	srcNoCode2026     = "hip_fatbin.cpp BuildProgram (dev_programs_[device_id] == nullptr: return hipErrorInvalidKernelFile), index 56177578034 ihipLaunchKernel propagates it"
	srcForeign        = "amd::Program::addDeviceProgram does no ISA check (clr rocclr/platform/program.cpp:111-125@amd-staging); rocm-systems PR 9167's description reports the segfault"
	srcNoneLoaded     = "index 66615623207 ExtractKpackBinary (loaded_code_objects.empty(): hipErrorInvalidKernelFile); BuildProgram gives the same at launch"
	srcFat6Launch     = "clr hipamd/src/hip_platform.cpp:611-617@rocm-6.2.0 (every GetFunc error but hipErrorNoBinaryForGpu returned as hipErrorInvalidDeviceFunction), :568-574@rocm-6.0.0; init logs and continues (hip_platform.cpp:713-716)"
	srcFat72Launch    = "reported: the launch casts the host pointer and crashes (rocm-systems#2805 on 7.1.1/7.2.0; TheRock#5543 on 7.10 Windows, 0xC0000005); some builds give 98 (MIVisionX#1437)"
	srcNotApplicable  = "not reached in this release's mode"

	srcLaunch52      = "hipamd src/hip_platform.cpp:659-661@rocm-5.2.3 (ihipLaunchKernel: getStatFunc fails, HIP_RETURN(hipErrorInvalidDeviceFunction))"
	srcLaunch56      = "hipamd src/hip_platform.cpp:616-622@rocm-5.4.0, :560-566@rocm-5.6.0 (hipErrorSharedObjectInitFailed returned, every other error hipErrorInvalidDeviceFunction)"
	srcLaunch57      = "clr hipamd/src/hip_platform.cpp:568-574@rocm-5.7.0 (hipErrorSharedObjectInitFailed returned, every other error hipErrorInvalidDeviceFunction)"
	srcLaunch61      = "clr hipamd/src/hip_platform.cpp:599-605@rocm-6.1.0 (hipErrorNoBinaryForGpu returned, every other error hipErrorInvalidDeviceFunction); rocm-6.0.0 keeps hipErrorSharedObjectInitFailed instead (:568-574@rocm-6.0.0), alike for the errors modelled here"
	srcLaunch62      = "clr hipamd/src/hip_platform.cpp:611-617@rocm-6.2.0 (hipErrorNoBinaryForGpu returned, every other error hipErrorInvalidDeviceFunction)"
	srcLaunch63      = "clr hipamd/src/hip_platform.cpp:611-617@release/rocm-rel-6.3.0.1 (as 6.2)"
	srcLaunch72      = "rocm-systems#2805: ihipLaunchKernel casts the host pointer when getStatFunc fails (ROCm 7.1.1 confirmed, 7.2.0 by source review); inferred for 6.4-7.0, nearest read source clr hip_platform.cpp:611-617@release/rocm-rel-6.3.0.1"
	srcLaunch2026    = "inferred: rocm-systems PR 8501's description (2026-07-13, \"currently catches 3 known errors\") and PR 10150's diff (2026-08-13) show develop returning hipErrorInvalidKernelFile, hipErrorInvalidDeviceFunction and hipErrorInvalidImage and casting on the rest; the pins' hip_platform.cpp was not read; TheRock#5543 on 7.13a reports \"device kernel image is invalid\" (nearest proof: index 56177578034 ihipLaunchKernel)"
	srcLaunchNewest  = "rocm-systems PR 10150 (e14bd0645af, 2026-08-13) and PR 8501: every GetFunc error but hipErrorInvalidSymbol returned (their diffs; the merged file was not read)"
	srcNoBySymbol5   = "hipamd rocm-5.2.3 and rocm-5.6.0 have no hipGetFuncBySymbol (git grep src/)"
	srcNoBySymbol6   = "clr rocm-5.7.0, rocm-6.0.0 and rocm-6.1.0 have no hipGetFuncBySymbol (hipamd/src/hip_module.cpp)"
	srcBySymbol62    = "clr hipamd/src/hip_module.cpp:655-662@rocm-6.2.0 (any getStatFunc error: HIP_RETURN(hipErrorInvalidDeviceFunction))"
	srcBySymbol63    = "clr hipamd/src/hip_module.cpp:664-671@release/rocm-rel-6.3.0.1 (as 6.2)"
	srcBySymbolLater = "inferred from clr hip_module.cpp:664-671@release/rocm-rel-6.3.0.1 and 2026's hip_module.cpp hipGetFuncBySymbol (index 4467640629, the same mapping); reported: TheRock PR 5184 (RCCL, \"invalid device function\"), ROCm/rccl#2189 (ROCm 7.14.0-3, 10.0.0-4), rocm-jax#390"
	srcRejected2622  = "rocm-systems 6b0e43f3 hip_fatbin.cpp ExtractKpackBinary (\"Add code object to all devices\": AddDevProgram's error returned) and AddDevProgram (addDeviceProgram != CL_SUCCESS: hipErrorInvalidKernelFile); clr rocclr/platform/program.cpp:115-117@rocm-6.2.0 (!amd::Elf::isElfMagic: CL_INVALID_BINARY), rocclr/elf/elf.cpp:996-1002 (the 4-byte ELF magic); the launch inferred from the launch rule"
	srcRejected9167  = "index 66615623207 hip_fatbin.cpp ExtractKpackBinary (AddDevProgram fails: rollback_kpack_state(), return hip_err) and AddDevProgram (hipErrorInvalidKernelFile); clr rocclr/platform/program.cpp:115-117@rocm-6.2.0 (isElfMagic, CL_INVALID_BINARY); BuildProgram after the rollback: hipErrorInvalidKernelFile"
)

// What users are told the rows' behaviours rest on (Cite).
const (
	citeNoKpack = "HIP before rocm-systems PR 2622 does not know the HIPK wrapper: __hipRegisterFatBinary logs \"Cannot Register fat binary\" " +
		"and registers no module (hipamd src/hip_platform.cpp at rocm-5.2.3, clr hipamd/src/hip_platform.cpp at rocm-6.2.0)"
	citeNoKpack72 = "classic ROCm 6.4 to 7.2 and TheRock up to 7.11 have no kpack support: TheRock builds HIP with -DROCM_KPACK_ENABLED=ON " +
		"only from February 2026, after therock-7.11; a launch from the rejected module crashes (rocm-systems PR 11580's description)"
	cite2622 = "rocm-systems PR 2622: FatBinaryInfo::ExtractKpackBinary (projects/clr/hipamd/src/hip_fatbin.cpp) makes one kpack_load_code_object " +
		"call with every device's ISA and generic target and adds the code object it returns to every device"
	citeAt10      = "read at rocm-systems 6b0e43f3, the therock-10.0 submodule pin"
	citeInferred  = "read at rocm-systems 6b0e43f3, the therock-10.0 submodule pin; inferred for this release, not confirmed in its own source"
	citeOff2622   = "built without ROCM_KPACK_ENABLED, ExtractKpackBinary returns hipErrorNotSupported (rocm-systems 6b0e43f3); the launch did not return that error and crashed until rocm-systems PR 10150 (PR 11580's description)"
	citeAbort     = "hipamd src/hip_code_object.cpp at rocm-5.2.3, line 489: guarantee(false, \"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\") aborts the process at HIP init when any device lacks a code object; removed in rocm-5.4.0 (hipamd commit 9463e6c0)"
	citeAllOrNone = "hipamd src/hip_code_object.cpp at rocm-5.4.0, lines 485-486: a device without a code object makes the load return hipErrorNoBinaryForGpu before any device gets code"
	citeStop6     = "clr hipamd/src/hip_fatbin.cpp at rocm-6.2.0, lines 276-280: the loop stops at the first device without a code object (\"Cannot find CO in the bundle\"); the devices before it keep theirs"
	citeLaunch52  = "hipamd src/hip_platform.cpp at rocm-5.2.3, ihipLaunchKernel (lines 659-661): a launch whose function lookup fails returns hipErrorInvalidDeviceFunction (\"invalid device function\")"
	citeLaunch56  = "hipamd src/hip_platform.cpp at rocm-5.4.0 (lines 616-622) and rocm-5.6.0 (560-566), clr at rocm-5.7.0 and rocm-6.0.0 (568-574): a failed lookup is returned as hipErrorInvalidDeviceFunction (\"invalid device function\") unless it is hipErrorSharedObjectInitFailed"
	citeLaunch6   = "clr hipamd/src/hip_platform.cpp at rocm-6.1.0 (lines 599-605) and rocm-6.2.0 (611-617): a failed lookup is returned as hipErrorInvalidDeviceFunction (\"invalid device function\") unless it is hipErrorNoBinaryForGpu; from rocm-6.2.0 hipGetFuncBySymbol (hip_module.cpp, lines 655-662) returns hipErrorInvalidDeviceFunction for every failure"
	citeLaunch72  = "rocm-systems#2805: in ROCm 7.1.1 and 7.2.0 a launch whose function lookup fails takes the host pointer for a function and crashes (inferred for 6.4 to 7.0); hipGetFuncBySymbol returns hipErrorInvalidDeviceFunction (\"invalid device function\"), as from rocm-6.2.0"
	citeLaunch26  = "a launch returns hipErrorInvalidImage (\"device kernel image is invalid\", TheRock#5543 on 7.13) or hipErrorInvalidKernelFile as the lookup gives them, as rocm-systems develop did before PRs 10150 and 8501 (inferred for this release: its hip_platform.cpp was not read); hipGetFuncBySymbol returns hipErrorInvalidDeviceFunction (\"invalid device function\"): RCCL's reports (TheRock PR 5184, ROCm/rccl#2189 on 7.14 and 10.0)"
	citeLaunchNw  = "rocm-systems PRs 10150 and 8501: a launch returns every lookup error as it is (hipErrorInvalidImage, \"device kernel image is invalid\"; hipErrorInvalidKernelFile, \"invalid kernel file\"); hipGetFuncBySymbol (RCCL, XLA) returns hipErrorInvalidDeviceFunction (\"invalid device function\")"
	citeStop64    = "FatBinaryInfo::ExtractFatBinaryUsingCOMGR (hipamd/src/hip_fatbin.cpp) tries the native, generic and SPIR-V entries per device and stops at the first device without one: " +
		"device 0 without code fails the module (hipErrorInvalidImage), a later gap leaves that device and the ones after it without code"
)

// Shared effects.
var (
	effAbort       = Symptom{Registration: Aborted, Launch: Aborted}
	effNilModule   = Symptom{Registration: NotRegistered, Launch: Aborted}
	effClassic     = Symptom{Registration: NotRegistered, Launch: Crash}
	effKpackOffOld = Symptom{Registration: ErrNotSupported, Launch: Crash}
	effFailed2026  = Symptom{Registration: ErrInvalidImage, Launch: ErrInvalidImage, Then: ErrInvalidKernelFile}
	effNoCode2026  = Symptom{Launch: ErrInvalidKernelFile}
	effForeign     = Symptom{Launch: Crash}
	effRejected    = Symptom{Registration: ErrInvalidKernelFile, Launch: ErrInvalidKernelFile}
	effNone        = Symptom{}
)

// releases is the release table, oldest first; the last row is the
// newest modelled release and the default.
var releases = []Release{
	{
		Name:             "5.2",
		Covers:           "hipamd rocm-4.5.0 to rocm-5.3.3 (Debian 12's HIP 5.2.3)",
		Cite:             Cite{Kpack: citeNoKpack, KpackOff: citeNoKpack, Fat: citeAbort, Launch: citeLaunch52},
		Kpack:            Cell[KpackMode]{KpackUnknown, srcUnknownMagic},
		KpackBuiltIn:     Cell[bool]{false, srcUnknownMagic},
		Loader:           Cell[Loader]{LegacyLoader, srcNoLoader},
		Fat:              Cell[FatMode]{FatAbort, srcAbort},
		Generic:          Cell[[]GenericEntry]{nil, srcNoGeneric},
		SPIRV:            Cell[bool]{false, srcNoSPIRV},
		OverrideBug:      Cell[bool]{true, srcOverrideBug},
		PerNodeOverride:  Cell[bool]{false, srcPerNodeNo},
		HIPVisibleUUIDs:  Cell[bool]{false, srcUUIDNo},
		Launch:           Cell[LaunchRule]{LaunchAllDeviceFunction, srcLaunch52},
		FuncBySymbol:     Cell[bool]{false, srcNoBySymbol5},
		KpackUnsupported: Cell[Symptom]{effNilModule, srcNilModule},
		KpackFailed:      Cell[Symptom]{effNone, srcNotApplicable},
		KpackNoCode:      Cell[Symptom]{effNone, srcNotApplicable},
		KpackNoneLoaded:  Cell[Symptom]{effNone, srcNotApplicable},
		KpackForeign:     Cell[Symptom]{effNone, srcNotApplicable},
		KpackRejected:    Cell[Symptom]{effNone, srcNotApplicable},
		FatFailed:        Cell[Symptom]{effAbort, srcAbort + "; it runs at HIP init (hip_platform.cpp:745, hip_code_object.cpp:702), so the process aborts at its first HIP call"},
		FatNoCode:        Cell[Symptom]{effAbort, srcAbort},
	},
	relAllOrNothing("5.6", "hipamd rocm-5.4.0 to rocm-5.6.1", "; the launch then crashes (ROCm/clr#4)",
		Cell[LaunchRule]{LaunchKeepSharedObject, srcLaunch56}, Cell[bool]{false, srcNoBySymbol5},
		Cell[Symptom]{Symptom{Registration: ErrNoBinaryForGpu, Launch: Crash},
			srcAllOrNothing + "; launch: 5.4/5.5 PlatformState::init only asserts and AddDevProgram dereferences a null fbd_info, 5.6 stops digesting later modules (hipamd hip_platform.cpp:662-665@rocm-5.6.0), a SIGSEGV (ROCm/clr#4)"}),
	relAllOrNothing("5.7", "clr rocm-5.7.0 and rocm-5.7.1 (Ubuntu 24.04's HIP)", "; the launch returns hipErrorInvalidDeviceFunction",
		Cell[LaunchRule]{LaunchKeepSharedObject, srcLaunch57}, Cell[bool]{false, srcNoBySymbol6},
		Cell[Symptom]{Symptom{Registration: ErrNoBinaryForGpu, Launch: ErrInvalidDeviceFunction},
			srcAllOrNothing + "; launch: clr 5.7 returns hipErrorInvalidKernelFile for a null fbd_info, mapped to 98 by ihipLaunchKernel (notes 2a)"}),
	rel6("6.1", "clr rocm-6.0.0 to rocm-6.1.x", false, false, srcLaunch61, Cell[bool]{false, srcNoBySymbol6}),
	rel6("6.2", "clr rocm-6.2.0 to rocm-6.2.4", false, true, srcLaunch62, Cell[bool]{true, srcBySymbol62}),
	rel6("6.3", "clr rocm-6.3.0 to rocm-6.3.x", true, true, srcLaunch63, Cell[bool]{true, srcBySymbol63}),
	{
		Name:             "7.2",
		Covers:           "classic ROCm 6.4 to 7.2 and TheRock up to 7.11 (generic targets and SPIR-V, no kpack)",
		Cite:             Cite{Kpack: citeNoKpack72, KpackOff: citeNoKpack72, Fat: citeStop64 + " (" + citeInferred + "; the crash at launch is reported in rocm-systems#2805 and TheRock#5543)", Launch: citeLaunch72},
		Kpack:            Cell[KpackMode]{KpackUnknown, srcNoKpackClassic},
		KpackBuiltIn:     Cell[bool]{false, srcNoKpackClassic},
		Loader:           Cell[Loader]{LegacyLoader, srcNoLoader},
		Fat:              Cell[FatMode]{FatStopAtFirst, srcStop64},
		Generic:          Cell[[]GenericEntry]{genericMap29, srcGeneric29},
		SPIRV:            Cell[bool]{true, srcSPIRV},
		OverrideBug:      Cell[bool]{true, srcOverrideBug},
		PerNodeOverride:  Cell[bool]{true, srcPerNodeYes},
		HIPVisibleUUIDs:  Cell[bool]{true, srcUUIDYes},
		Launch:           Cell[LaunchRule]{LaunchCast, srcLaunch72},
		FuncBySymbol:     Cell[bool]{true, srcBySymbolLater},
		KpackUnsupported: Cell[Symptom]{effClassic, srcNoKpackClassic},
		KpackFailed:      Cell[Symptom]{effNone, srcNotApplicable},
		KpackNoCode:      Cell[Symptom]{effNone, srcNotApplicable},
		KpackNoneLoaded:  Cell[Symptom]{effNone, srcNotApplicable},
		KpackForeign:     Cell[Symptom]{effNone, srcNotApplicable},
		KpackRejected:    Cell[Symptom]{effNone, srcNotApplicable},
		FatFailed:        Cell[Symptom]{Symptom{Registration: ErrInvalidImage, Launch: Crash}, srcStop64 + "; " + srcFat72Launch},
		FatNoCode:        Cell[Symptom]{Symptom{Launch: Crash}, srcStop64 + " (the load returns the last AddDevProgram status, hipSuccess); " + srcFat72Launch},
	},
	rel2622("7.12", "therock-7.12 (rocm-systems pin 769135f7)",
		Cite{Kpack: cite2622 + " (" + citeInferred + "); TheRock 7.12 builds it in only for split-artifact builds (core/CMakeLists.txt)", KpackOff: citeOff2622, Fat: citeStop64 + " (" + citeInferred + ")", Launch: citeLaunch26},
		"TheRock core/CMakeLists.txt:165-171@therock-7.12 (kpack only with THEROCK_KPACK_SPLIT_ARTIFACTS, the builds that ship HIPK binaries); the PR 2622 code in pin 769135f7 is unproven, nearest proof 6b0e43f3",
		true, "TheRock core/CMakeLists.txt:167-170@therock-7.12 (ON only in split builds; other builds reject HIPK with hipErrorNotSupported)",
		Cell[bool]{true, srcOverrideBug}),
	rel2622("7.13", "therock-7.13 (rocm-systems pin 79e85e14)",
		Cite{Kpack: cite2622 + " (" + citeInferred + ")", KpackOff: citeOff2622, Fat: citeStop64 + " (" + citeInferred + ")", Launch: citeLaunch26},
		"PR 2622 per-process loads; nearest proof 6b0e43f3 (therock-10.0)", true, srcBuiltInTheRock,
		Cell[bool]{true, srcOverrideBug + "; pin 79e85e14 (2026-05-04) predates rocm-systems PR 5686's review (2026-05-05/06)"}),
	rel2622("10.0", "therock-7.14 and therock-10.0 (rocm-systems pins 2b22ab01, ca887ee8, 6b0e43f3)",
		Cite{Kpack: cite2622 + " (" + citeAt10 + "; inferred for therock-7.14)" + "; the loader is the legacy one (first match): whether the fall-through fix (rocm-systems PR 9953) is in the therock-7.14 and therock-10.0 pins could not be found, it postdates both branch points", KpackOff: citeOff2622, Fat: citeStop64 + " (" + citeAt10 + "; inferred for therock-7.14)", Launch: citeLaunch26},
		srcPR2622+" (proven)", true, srcBuiltInTheRock,
		Cell[bool]{false, "inferred: rocm-systems PR 5686 (empty value as unset) was reviewed 2026-05-05/06, the 7.14 branch point is 2026-06-25; the merged code was not read"}),
	{
		Name:   "newest",
		Covers: "rocm-systems develop after PRs 9167, 9498, 9741 and 10150 (August 2026; therock-10.1 inferred, main d134b782)",
		Cite: Cite{
			Kpack: "rocm-systems PR 9167: FatBinaryInfo::ExtractKpackBinary (projects/clr/hipamd/src/hip_fatbin.cpp) loads once per distinct device ISA; " +
				"KPACK_ERROR_ARCHIVE_NOT_FOUND (13) and ARCH_NOT_FOUND (14) leave that ISA's devices without code, any other error rolls every device back " +
				"(read in rocm-systems develop after the PR; the exact commit was not identified)",
			KpackOff: "built without ROCM_KPACK_ENABLED, ExtractKpackBinary returns hipErrorNotSupported, and since rocm-systems PR 10150 the launch returns it too",
			Fat: "rocm-systems PR 9498: FatBinaryInfo::ExtractFatBinaryUsingCOMGR (hipamd/src/hip_fatbin.cpp) skips a device with no compatible code object " +
				"(\"Skipping device with no compatible code object\") instead of stopping, so every other device loads its code",
			Launch: citeLaunchNw,
		},
		Kpack:            Cell[KpackMode]{KpackPerDevice, srcPR9167},
		KpackBuiltIn:     Cell[bool]{true, srcBuiltInTheRock},
		Loader:           Cell[Loader]{FallthroughLoader, "SPEC 4.5: rocm-systems #9953 and the follow-up (rocm-kpack loader.cpp:355-482@1ddbe7e9)"},
		Fat:              Cell[FatMode]{FatPerDevice, srcPR9498},
		Generic:          Cell[[]GenericEntry]{genericMap30, srcGeneric30},
		SPIRV:            Cell[bool]{true, srcSPIRV},
		OverrideBug:      Cell[bool]{false, "rocm-systems PR 5686 (merged: empty value handled, cross-major override refused); its final code was not read"},
		PerNodeOverride:  Cell[bool]{true, srcPerNodeYes},
		HIPVisibleUUIDs:  Cell[bool]{true, srcUUIDYes},
		Launch:           Cell[LaunchRule]{LaunchKeepAll, srcLaunchNewest},
		FuncBySymbol:     Cell[bool]{true, srcBySymbolLater},
		KpackUnsupported: Cell[Symptom]{Symptom{Registration: ErrNotSupported, Launch: ErrNotSupported}, "rocm-systems PR 10150 (the launch returns hipErrorNotSupported)"},
		KpackFailed:      Cell[Symptom]{effFailed2026, srcPR9167 + "; " + srcFailed2026},
		KpackNoCode:      Cell[Symptom]{effNoCode2026, srcPR9167 + " (LogPrintfWarning \"Could not load device type specific kpack object\"); " + srcNoCode2026},
		KpackNoneLoaded:  Cell[Symptom]{Symptom{Registration: ErrInvalidKernelFile, Launch: ErrInvalidKernelFile}, srcNoneLoaded},
		KpackForeign:     Cell[Symptom]{effNone, srcNotApplicable + " (per-device loads)"},
		KpackRejected:    Cell[Symptom]{effRejected, srcRejected9167},
		FatFailed:        Cell[Symptom]{effFailed2026, srcPR9498 + " (no device loaded: the initial hipErrorInvalidImage); " + srcFailed2026},
		FatNoCode:        Cell[Symptom]{effNoCode2026, srcPR9498 + "; " + srcNoCode2026},
	},
}

// relAllOrNothing is a row of the 5.4-5.7 releases: no kpack, no generic
// map, a fat binary loads on every device or on none (any device without
// code fails the module for all); fatCite words the launch after it and
// fatFailed is what the user sees then.
func relAllOrNothing(name, covers, fatCite string, launch Cell[LaunchRule], bySymbol Cell[bool], fatFailed Cell[Symptom]) Release {
	return Release{
		Name:             name,
		Covers:           covers,
		Cite:             Cite{Kpack: citeNoKpack, KpackOff: citeNoKpack, Fat: citeAllOrNone + fatCite, Launch: citeLaunch56},
		Kpack:            Cell[KpackMode]{KpackUnknown, srcUnknownMagic},
		KpackBuiltIn:     Cell[bool]{false, srcUnknownMagic},
		Loader:           Cell[Loader]{LegacyLoader, srcNoLoader},
		Fat:              Cell[FatMode]{FatAllOrNothing, srcAllOrNothing},
		Generic:          Cell[[]GenericEntry]{nil, srcNoGeneric},
		SPIRV:            Cell[bool]{false, srcNoSPIRV},
		OverrideBug:      Cell[bool]{true, srcOverrideBug},
		PerNodeOverride:  Cell[bool]{false, srcPerNodeNo},
		HIPVisibleUUIDs:  Cell[bool]{false, srcUUIDNo},
		Launch:           launch,
		FuncBySymbol:     bySymbol,
		KpackUnsupported: Cell[Symptom]{effNilModule, srcNilModule},
		KpackFailed:      Cell[Symptom]{effNone, srcNotApplicable},
		KpackNoCode:      Cell[Symptom]{effNone, srcNotApplicable},
		KpackNoneLoaded:  Cell[Symptom]{effNone, srcNotApplicable},
		KpackForeign:     Cell[Symptom]{effNone, srcNotApplicable},
		KpackRejected:    Cell[Symptom]{effNone, srcNotApplicable},
		FatFailed:        fatFailed,
		FatNoCode:        Cell[Symptom]{effNone, srcNotApplicable + " (all or nothing)"},
	}
}

// rel6 is a row of the 6.0-6.3 releases: no kpack, no generic map, the
// fat-binary loop stops at the first device without code, launches give
// hipErrorInvalidDeviceFunction.
func rel6(name, covers string, perNode, uuids bool, launchSrc string, bySymbol Cell[bool]) Release {
	node := Cell[bool]{false, srcPerNodeNo}
	if perNode {
		node = Cell[bool]{true, srcPerNodeYes}
	}
	uuid := Cell[bool]{false, srcUUIDNo}
	if uuids {
		uuid = Cell[bool]{true, srcUUIDYes}
	}
	fat6 := Symptom{Registration: ErrNoBinaryForGpu, Launch: ErrInvalidDeviceFunction}
	return Release{
		Name:             name,
		Covers:           covers,
		Cite:             Cite{Kpack: citeNoKpack, KpackOff: citeNoKpack, Fat: citeStop6 + "; a launch on a device without code returns hipErrorInvalidDeviceFunction (hip_platform.cpp:611-617)", Launch: citeLaunch6},
		Kpack:            Cell[KpackMode]{KpackUnknown, srcUnknownMagic},
		KpackBuiltIn:     Cell[bool]{false, srcUnknownMagic},
		Loader:           Cell[Loader]{LegacyLoader, srcNoLoader},
		Fat:              Cell[FatMode]{FatStopAtFirst, srcStop6},
		Generic:          Cell[[]GenericEntry]{nil, srcNoGeneric},
		SPIRV:            Cell[bool]{false, srcNoSPIRV},
		OverrideBug:      Cell[bool]{true, srcOverrideBug},
		PerNodeOverride:  node,
		HIPVisibleUUIDs:  uuid,
		Launch:           Cell[LaunchRule]{LaunchKeepNoBinary, launchSrc},
		FuncBySymbol:     bySymbol,
		KpackUnsupported: Cell[Symptom]{effNilModule, srcNilModule},
		KpackFailed:      Cell[Symptom]{effNone, srcNotApplicable},
		KpackNoCode:      Cell[Symptom]{effNone, srcNotApplicable},
		KpackNoneLoaded:  Cell[Symptom]{effNone, srcNotApplicable},
		KpackForeign:     Cell[Symptom]{effNone, srcNotApplicable},
		KpackRejected:    Cell[Symptom]{effNone, srcNotApplicable},
		FatFailed:        Cell[Symptom]{fat6, srcStop6 + " (the status is only logged); " + srcFat6Launch},
		FatNoCode:        Cell[Symptom]{fat6, srcStop6 + "; " + srcFat6Launch},
	}
}

// rel2622 is a row of the TheRock releases with PR 2622's per-process kpack
// loads, the 29-entry generic map and the stop-at-first fat-binary loop.
func rel2622(name, covers string, cite Cite, kpackSrc string, builtIn bool, builtInSrc string, bug Cell[bool]) Release {
	return Release{
		Name:             name,
		Covers:           covers,
		Cite:             cite,
		Kpack:            Cell[KpackMode]{KpackPerProcess, kpackSrc},
		KpackBuiltIn:     Cell[bool]{builtIn, builtInSrc},
		Loader:           Cell[Loader]{LegacyLoader, srcLegacyLoader},
		Fat:              Cell[FatMode]{FatStopAtFirst, srcStop64},
		Generic:          Cell[[]GenericEntry]{genericMap29, srcGeneric29},
		SPIRV:            Cell[bool]{true, srcSPIRV},
		OverrideBug:      bug,
		PerNodeOverride:  Cell[bool]{true, srcPerNodeYes},
		HIPVisibleUUIDs:  Cell[bool]{true, srcUUIDYes},
		Launch:           Cell[LaunchRule]{LaunchKeepThree, srcLaunch2026},
		FuncBySymbol:     Cell[bool]{true, srcBySymbolLater},
		KpackUnsupported: Cell[Symptom]{effKpackOffOld, srcKpackOffCrash},
		KpackFailed:      Cell[Symptom]{effFailed2026, srcPR2622 + " (any error: hipErrorInvalidImage); " + srcFailed2026},
		KpackNoCode:      Cell[Symptom]{effNone, srcNotApplicable + " (one load for all devices)"},
		KpackNoneLoaded:  Cell[Symptom]{effNone, srcNotApplicable + " (one load for all devices)"},
		KpackForeign:     Cell[Symptom]{effForeign, srcPR2622 + "; " + srcForeign + "; ROCm/rccl#2189 (7.14.0-3, 10.0.0-4: gfx1200 + gfx1201) reports \"invalid device function\" from RCCL's hipGetFuncBySymbol"},
		KpackRejected:    Cell[Symptom]{effRejected, srcRejected2622},
		FatFailed:        Cell[Symptom]{effFailed2026, srcStop64 + "; " + srcFailed2026},
		FatNoCode:        Cell[Symptom]{effNoCode2026, srcStop64 + " (a later gap: the load returns hipSuccess); " + srcNoCode2026},
	}
}
