package kpack

// GfxArch is the placeholder in kpack search paths (a host binary's
// kpack_search_paths, ROCM_KPACK_PATH_PREFIX) that the runtime replaces
// with each compatible target of each requested arch.
const GfxArch = "@GFXARCH@"

// Opened is an archive that exists and opens, as the runtime's kpack_open
// sees it: what the loader simulation (resolver.Source) needs of it.
type Opened struct {
	Path   string   // real path inside the tree, symlinks resolved
	Arches []string // the archive's declared gfx_arches
	// Fault is non-empty when the archive's TOC holds a value the runtime
	// converts at open and cannot (a mistyped or out-of-range ordinal,
	// original_size, blob offset/size or zstd field): the fixed runtime's
	// kpack_open fails with MSGPACK_PARSE_FAILED and the loader skips the
	// archive; the legacy runtime throws std::bad_cast through kpack_open
	// and the process aborts (SPEC 1; rocm-systems toc_parser.cpp).
	Fault string
}
