package lint

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/input/vfs/xzra"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
	"github.com/rocm-tools/kpack-lint/report"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
)

// InputName is how reports and findings name input i (0-based), given as
// in: its last path element (a wheel's file name, a folder's name; for
// "." the working directory's name), never the machine path that leads
// to it; "input-<i+1>" for a path with no name (the root folder).
func InputName(i int, in string) string {
	name := filepath.Base(filepath.Clean(in))
	if name == "." || name == string(filepath.Separator) {
		if abs, err := filepath.Abs(in); err == nil {
			name = filepath.Base(abs)
		}
	}
	if name == "" || name == "." || name == string(filepath.Separator) || strings.ContainsAny(name, `/\`) {
		return fmt.Sprintf("input-%d", i+1)
	}
	return name
}

// InputLabel is how a report's header (text, markdown) and its "checked"
// inputs (JSON, SARIF) name input i, given as in: a relative path as given
// (cleaned, '/'-separated: dist/torch-2.9.whl, ../build/dist), so several
// inputs with one base name stay apart; an absolute path by InputName (no
// machine paths), as reports name the policy file. Findings keep InputName:
// their fingerprints must not depend on where check ran.
func InputLabel(i int, in string) string {
	if in == "" || filepath.IsAbs(in) || filepath.VolumeName(in) != "" {
		return InputName(i, in)
	}
	clean := filepath.ToSlash(filepath.Clean(in))
	if clean == "." {
		return InputName(i, in)
	}
	return clean
}

// InputLabels labels every input (InputLabel).
func InputLabels(inputs []string) []string {
	out := make([]string, len(inputs))
	for i, in := range inputs {
		out[i] = InputLabel(i, in)
	}
	return out
}

// InputNames names every input (InputName).
func InputNames(inputs []string) []string {
	out := make([]string, len(inputs))
	for i, in := range inputs {
		out[i] = InputName(i, in)
	}
	return out
}

// XZ is the decoder of the xz blocks of packages read in place
// (vfs.Options.XZ and Liblzma): liblzma loaded into the process, an xz
// program run per block, or (the zero XZ) github.com/xi2/xz.
type XZ struct {
	// Auto: the first xz stream read in place picks the decoder
	// (xzra.AutoDecoder), so a run without one neither loads liblzma
	// nor looks for xz.
	Auto    bool
	Liblzma bool   // liblzma.so.5, loaded into the process
	Path    string // else the absolute path of XZ Utils' xz, or ""
}

// XZDecoder resolves a choice of xz decoder (check --xz) to Config.XZ:
// "auto" (or "") is liblzma where it loads (xzra.HaveLiblzma), else XZ
// Utils' xz found on PATH (xzra.FindXZ), else the built-in decoder,
// chosen when an xz stream is first read (XZ.Auto); "liblzma" is
// liblzma or an error; "go" is the built-in decoder; and anything else
// is the path of an xz program, made absolute, which must be XZ Utils
// 5.2 or newer (xzra.CheckXZ's error otherwise).
func XZDecoder(choice string) (XZ, error) {
	switch choice {
	case "auto", "":
		return XZ{Auto: true}, nil
	case "liblzma":
		if !xzra.HaveLiblzma() {
			return XZ{}, errors.New("liblzma.so.5 of XZ Utils 5.2 or newer does not load (or this build has no cgo)")
		}
		return XZ{Liblzma: true}, nil
	case "go":
		return XZ{}, nil
	}
	path, err := filepath.Abs(choice)
	if err != nil {
		return XZ{}, err
	}
	if err := xzra.CheckXZ(path); err != nil {
		return XZ{}, err
	}
	return XZ{Path: path}, nil
}

// openTree opens the inputs as one file tree (stage 1) with the run's
// budget of decompressed bytes (cfg.MaxDecompressed), which every later
// stage draws on through vfs.Tree.Budget; an input that does not open,
// or whose streams pass the budget, is an input error.
func openTree(cfg *Config, opt vfs.Options) (*vfs.Tree, error) {
	opt.Budget = inflate.New(cfg.MaxDecompressed)
	opt.BlockMemory = cfg.DeepOptions.MaxMemory
	opt.XZAuto, opt.XZ, opt.Liblzma = cfg.XZ.Auto, cfg.XZ.Path, cfg.XZ.Liblzma
	tree, err := vfs.Open(cfg.Inputs, opt)
	if err != nil {
		return nil, errs.AsInput(err)
	}
	tellStreamed(cfg, tree)
	if err := budgetSpent(tree); err != nil {
		tree.Close()
		return nil, err
	}
	return tree, nil
}

// budgetSpent is the input error of a run that passed its budget of
// decompressed bytes (the *inflate.LimitError of the stream that passed
// it first): what was not decompressed was not checked, so the run must
// not pass, and its findings would be partial.
func budgetSpent(t *vfs.Tree) error {
	return errs.AsInput(t.Budget().Err())
}

// wholeInputProblem is an input error for a wheel, tarball or package
// that cannot be read at all (not a zip, .deb or .rpm, a corrupt or
// truncated stream): an input that was not read must never pass the gate.
func wholeInputProblem(t *vfs.Tree) error {
	for _, p := range t.Problems {
		if p.Path == "" {
			fix := "rebuild or re-download the package"
			if strings.HasSuffix(p.Msg, "(--deep-memory)") { // a dictionary past the memory allowed
				fix = "raise --deep-memory, or rebuild the package with a smaller xz dictionary"
			}
			return errs.AsInput(fmt.Errorf("%s: %s (%s)", t.Inputs[p.Input].Name, p.Msg, fix))
		}
	}
	return nil
}

// wanted tells vfs which members of compressed tarballs to keep: archives,
// host binaries and the wheels' METADATA (kerneldb.Requirements), and with
// deep the lazy Tensile indexes kerneldb parses (other database files are
// needed by name or first bytes only).
func wanted(deep bool) func(string, []byte) bool {
	if !deep {
		return func(p string, head []byte) bool { return model.Wanted(p, head) || kerneldb.IsMetadata(p) }
	}
	return func(p string, head []byte) bool {
		return model.Wanted(p, head) || kerneldb.IsLazyIndex(p) || kerneldb.IsMetadata(p)
	}
}

// tellStreamed notes each large xz stream that could not be read in place
// through its block index (vfs.Input.Streamed) and was decompressed front
// to back instead.
func tellStreamed(cfg *Config, t *vfs.Tree) {
	for i, in := range t.Inputs {
		if in.Streamed != "" {
			cfg.tell(StreamedNote{Input: InputLabel(i, in.Name), Why: in.Streamed})
		}
	}
}

// streamedNotifications are the report's notes (kind "input-streamed")
// of the inputs tellStreamed notes.
func streamedNotifications(t *vfs.Tree) []report.Notification {
	var out []report.Notification
	for i, in := range t.Inputs {
		if in.Streamed != "" {
			out = append(out, report.Notification{Level: finding.LevelNote, Kind: "input-streamed",
				Message: fmt.Sprintf("input %s: %s", InputLabel(i, in.Name), in.Streamed)})
		}
	}
	return out
}
