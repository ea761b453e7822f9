package kerneldb

import (
	"bufio"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/vfs"
)

// Device wheels' requirements. TheRock's multi-arch wheels split a
// package's device files into per-arch and family device wheels
// (amd-torch-device-gfx1100, amd-torch-device-gfx11, rocm-sdk-device-...):
// the per-arch torch wheel holds the kpack archives, the family wheel
// AOTriton's images, the ROCm SDK device wheel the kernel databases, and
// each device wheel's METADATA names what it needs (Requires-Dist,
// written by rocm-kpack's wheel splitter; the family wheel only since
// rocm-systems PR 10685). A requirement that is not among the inputs
// installs files this check never saw.

// Requirement is a device wheel of the inputs whose METADATA requires
// wheels that are not among them.
type Requirement struct {
	// Wheel is the device wheel's name (METADATA Name:), Metadata the
	// tree path of its METADATA and Input the input it came from.
	Wheel, Metadata string
	Input           int
	// Missing are the first MaxMissingRequirements required
	// distributions not among the inputs, as the METADATA writes them,
	// sorted and distinct; MissingTotal counts them all.
	Missing      []string
	MissingTotal int
}

// MaxMissingRequirements bounds Requirement.Missing: the note names
// finding.MaxListed of them and counts the rest (a real device wheel
// requires a handful; a METADATA of maxMetadataBytes can hold 48,000).
const MaxMissingRequirements = finding.MaxListed

// maxMetadataBytes bounds the METADATA read per wheel (its headers come
// first; a real one is a few KB, with its description a few hundred).
const maxMetadataBytes = 1 << 20

// deviceWheel matches the name of a device wheel (amd-torch-device-gfx1100,
// rocm-sdk-device-gfx942), normalised.
var deviceWheel = regexp.MustCompile(`^[a-z0-9-]+-device-[a-z0-9-]+$`)

// requirementName is the distribution a Requires-Dist value names (PEP
// 508: the name comes first, before any version, extras or marker).
var requirementName = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)`)

// separators are what PEP 503's name normalisation folds into one '-'.
var separators = regexp.MustCompile(`[-_.]+`)

// normalize is PEP 503's name normalisation.
func normalize(name string) string {
	return strings.ToLower(separators.ReplaceAllString(name, "-"))
}

// IsMetadata reports whether p is a distribution's METADATA
// (<name>.dist-info/METADATA), which Requirements reads.
func IsMetadata(p string) bool {
	return path.Base(p) == "METADATA" && strings.HasSuffix(path.Dir(p), ".dist-info")
}

// metadata is one installed distribution's METADATA headers.
type metadata struct {
	path     string
	input    int
	name     string
	requires []string // Requires-Dist values without an extra marker
	// provides are the Provides-Extra values and extras the Requires-Dist
	// values under an extra marker (extras.go), at most maxExtraLines
	// of both together.
	provides []string
	extras   []extraRequirement
}

// Requirements lists the device wheels of the tree (each
// <name>.dist-info/METADATA) whose unconditional Requires-Dist names a
// distribution no METADATA of the tree is for, sorted by METADATA path.
// Requirements under an extra (extra == "device-gfx1100": optional) are
// not counted.
func Requirements(t *vfs.Tree) []Requirement {
	return requirementsOf(readAllMetadata(t))
}

// readAllMetadata reads every METADATA of the tree, in path order.
func readAllMetadata(t *vfs.Tree) []metadata {
	var all []metadata
	for _, e := range t.Files() {
		if IsMetadata(e.Path) && !e.IsLink() {
			if m, ok := readMetadata(e); ok {
				all = append(all, m)
			}
		}
	}
	return all
}

// requirementsOf is Requirements over METADATA already read.
func requirementsOf(all []metadata) []Requirement {
	present := map[string]bool{}
	for _, m := range all {
		present[normalize(m.name)] = true
	}
	var out []Requirement
	for _, m := range all {
		if !deviceWheel.MatchString(normalize(m.name)) {
			continue
		}
		missing := missingRequirements(m.requires, present)
		if len(missing) > 0 {
			out = append(out, Requirement{Wheel: m.name, Metadata: m.path, Input: m.input,
				Missing: missing[:min(len(missing), MaxMissingRequirements)], MissingTotal: len(missing)})
		}
	}
	return out
}

// missingRequirements returns the distinct distributions the Requires-Dist
// values reqs name that are not present (by PEP 503 name), sorted.
func missingRequirements(reqs []string, present map[string]bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, req := range reqs {
		n := requirementName.FindStringSubmatch(req)
		if n == nil || seen[n[1]] || present[normalize(n[1])] {
			continue
		}
		seen[n[1]] = true
		out = append(out, n[1])
	}
	slices.Sort(out)
	return out
}

// readMetadata reads the headers of a METADATA file (RFC 822 style, up
// to the first blank line), at most maxMetadataBytes.
func readMetadata(e *vfs.Entry) (metadata, bool) {
	r, err := e.Open()
	if err != nil {
		return metadata{}, false
	}
	defer r.Close()
	m := metadata{path: e.Path, input: e.Input}
	sc := bufio.NewScanner(io.NewSectionReader(r, 0, min(e.Size, maxMetadataBytes)))
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			break
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "name":
			m.name = value
		case "requires-dist":
			if _, marker, _ := strings.Cut(value, ";"); !strings.Contains(marker, "extra") {
				m.requires = append(m.requires, value)
			} else {
				m.addExtraRequirement(value, marker)
			}
		case "provides-extra":
			m.addProvides(value)
		}
	}
	return m, m.name != ""
}
