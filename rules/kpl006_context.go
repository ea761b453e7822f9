package rules

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/sim"
)

// siteKernels names the kernels of a site for messages: their keys
// ("bin/rocfft-test#0-2"), after the binary's own path when the keys name
// another file (a copy or a moved library keeps the kernel_name it was
// built with: "lib64/librocsparse.so.1 (kernel keys
// lib/librocsparse.so.1#0-2)"); a kernel_name relative to an install
// prefix the path adds (opt/rocm/bin/x, bin/x) names the file itself.
func siteKernels(s *sim.Site, kernels []string) string {
	keys := finding.ShortKernels(kernels)
	if s.Binary == nil || len(kernels) == 0 {
		return keys
	}
	if name, _, _ := finding.SplitKey(kernels[0]); finding.NamesFile(name, s.Path) {
		return keys
	}
	return fmt.Sprintf("%s (kernel keys %s)", s.Path, keys)
}

// aliases lists the paths of the tree that reach path p through a
// symlink (to the file, or to a folder above it), sorted: what a user
// sees in place of a moved library. Links that do not resolve are left
// out.
func aliases(c *Context, p string) []string {
	var out []string
	for _, e := range c.Build.Tree.Files() {
		if !e.IsLink() {
			continue
		}
		real, err := c.Build.Tree.RealPath(e.Path)
		switch {
		case err != nil:
		case real == p:
			out = append(out, e.Path)
		case strings.HasPrefix(p, real+"/"):
			out = append(out, e.Path+p[len(real):])
		}
	}
	slices.Sort(out)
	return out
}

// copiesOf lists the other host binaries with bin's kernel_name, by path.
func copiesOf(c *Context, bin *model.Binary) []string {
	if bin.Info == nil || bin.Info.Ref == nil {
		return nil
	}
	var out []string
	for _, other := range c.Build.Binaries {
		if other != bin && other.Info != nil && other.Info.Ref != nil && other.Info.Ref.KernelName == bin.Info.Ref.KernelName {
			out = append(out, other.Path)
		}
	}
	return out
}

// archiveDirs lists the folders holding the group's archives, sorted.
func archiveDirs(c *Context, group string) []string {
	var out []string
	for _, g := range c.Build.Groups {
		if g.Name != group {
			continue
		}
		for _, a := range g.Archives {
			if d := path.Dir(a.Path); !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return out
}

// missingContext is what a failing load's message must not lose: that the
// binary is reached through a symlink (the runtime resolves its search
// paths from the folder of the file it loaded, as /proc/self/maps names
// it, not from the link's), that it is a copy of a binary elsewhere (a
// copy looks from its own folder), and where the group's archives are
// when the load looked elsewhere. It returns the sentences ("" when
// nothing applies) and a fix to use instead of the default one.
func missingContext(c *Context, s *sim.Site, looked []string) (words, fix string) {
	if s.Binary == nil || s.Group == "" {
		return "", ""
	}
	dir := s.Binary.Dir()
	dirs := archiveDirs(c, s.Group)
	lookedIn := map[string]bool{}
	for _, p := range looked {
		lookedIn[path.Dir(p)] = true
	}
	var elsewhere []string
	for _, d := range dirs {
		if !lookedIn[d] {
			elsewhere = append(elsewhere, d)
		}
	}
	if len(elsewhere) == 0 {
		return "", ""
	}
	var parts []string
	if links := aliases(c, s.Path); len(links) > 0 {
		link := namesake(links, s.Path)
		parts = append(parts, fmt.Sprintf("The binary is loaded through %s (%s): the runtime resolves its kpack_search_paths from the folder of the file it loads, %s (as /proc/self/maps names it), not from the symlink's, %s.",
			plural(len(links), "symlink"), finding.CapList(links, 3, ", "), dir, path.Dir(link)))
		fix = fmt.Sprintf("install the binary itself at %s (not a symlink to %s), move group %s's archives to %s, or make its kpack_search_paths reach %s from %s.",
			link, s.Path, s.Group, path.Join(dir, ".kpack"), elsewhere[0], dir)
	} else if copies := copiesOf(c, s.Binary); len(copies) > 0 {
		parts = append(parts, fmt.Sprintf("The binary is a copy of %s (the same kernel_name), and a copy looks for archives from its own folder, %s.",
			finding.CapList(copies, 3, ", "), dir))
		fix = fmt.Sprintf("make %s a symlink to %s (a symlink loads from its target's folder), ship group %s's archives in %s too, or drop the copy.",
			s.Path, copies[0], s.Group, path.Join(dir, ".kpack"))
	}
	parts = append(parts, fmt.Sprintf("Group %s's archives are in %s.", s.Group, finding.CapList(elsewhere, 3, ", ")))
	return strings.Join(parts, " "), fix
}

// namesake is the link of links with p's file name (the library's own
// name left behind when it moved), else the first.
func namesake(links []string, p string) string {
	for _, l := range links {
		if path.Base(l) == path.Base(p) {
			return l
		}
	}
	return links[0]
}
