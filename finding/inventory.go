package finding

import (
	"path"
	"strings"
)

// InventoryItem is what a build ships for one kpack group and one target
// ID: the archives that declare or hold the target, the distinct kernel
// keys with a TOC entry for it, and the code object bytes those entries
// declare (original_size). The nightly gate compares these against an
// earlier build (KPL012, TheRock PR 6362: a stray 3-kernel
// blas_lib_gfx906 artifact overwrote the 646-kernel one).
type InventoryItem struct {
	Group    string       `json:"group"`
	Target   string       `json:"target"`
	Archives []ArchiveRef `json:"archives"`
	Kernels  int          `json:"kernels"`
	Bytes    uint64       `json:"bytes"`
}

// ArchiveRef names an archive by its input (0-based, in command-line
// order) and its slash path inside that input.
type ArchiveRef struct {
	Input int    `json:"input"`
	Path  string `json:"path"`
}

// Cell is one kpack group x policy target of the simulated matrix: how
// many kernel x agent loads were simulated for the target's agents and how
// many fail. The job summary draws these as a table.
type Cell struct {
	Group  string `json:"group"`  // kpack group; a host binary's path when it names no group
	Target string `json:"target"` // policy target the agents stand for (the agent ISA with --agent)
	Agents int    `json:"agents"`
	Loads  int    `json:"loads"`  // kernels x agents
	Failed int    `json:"failed"` // loads the policy's loader fails
	// OtherFailed counts loads only the other loader fails (legacy-only
	// failures are KPL002 under the fall-through loader).
	OtherFailed int `json:"otherFailed"`
}

// IsArchiveName reports whether a file name is a kpack archive's (*.kpack).
func IsArchiveName(p string) bool { return strings.HasSuffix(p, ".kpack") }

// SplitArchiveName splits an archive file name "<group>_<tag>.kpack"
// (rocm-kpack names archives after their kpack group and target ID) at the
// last underscore: group names hold underscores, target IDs do not. Both
// are "" when the name has no such shape.
func SplitArchiveName(p string) (group, tag string) {
	base := strings.TrimSuffix(path.Base(p), ".kpack")
	i := strings.LastIndex(base, "_")
	if i <= 0 || i == len(base)-1 {
		return "", ""
	}
	return base[:i], base[i+1:]
}
