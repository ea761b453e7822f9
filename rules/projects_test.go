package rules

import (
	"slices"
	"testing"

	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/sim"
)

// TestSplitProjectsRuns: a project's kernels alias its site's while they
// are one run; kernels from elsewhere in the site or from another site are
// copied, and the sites' kernel lists stay as they were.
func TestSplitProjectsRuns(t *testing.T) {
	s1 := &sim.Site{Group: "g", Path: "lib", Kernels: []string{"a1#0", "a1#1", "b1#0", "a2#0", "c#0", "c#1"}}
	s2 := &sim.Site{Group: "g", Path: "lib2", Kernels: []string{"a0#0", "d#0"}}
	want1, want2 := slices.Clone(s1.Kernels), slices.Clone(s2.Kernels)
	pol := &policy.Policy{Groups: map[string]*policy.Group{"g": {Owners: map[string][]string{"A": {"a*"}, "B": {"b*"}}}}}
	c := &Context{Policy: pol, Result: sim.Result{Sites: []*sim.Site{s1, s2}}}
	got := map[string][]string{}
	paths := map[string][]string{}
	for _, p := range splitProjects(c, "g") {
		got[p.Name], paths[p.Name] = p.Kernels, p.Paths
	}
	wantK := map[string][]string{
		"A": {"a0#0", "a1#0", "a1#1", "a2#0"},
		"B": {"b1#0"},
		"c": {"c#0", "c#1"},
		"d": {"d#0"},
	}
	for name, w := range wantK {
		if !slices.Equal(got[name], w) {
			t.Errorf("project %s kernels %q, want %q", name, got[name], w)
		}
	}
	if len(got) != len(wantK) {
		t.Errorf("projects %v, want %d", got, len(wantK))
	}
	if !slices.Equal(paths["A"], []string{"a1", "a2", "a0"}) || !slices.Equal(paths["c"], []string{"c"}) {
		t.Errorf("paths A %q, c %q", paths["A"], paths["c"])
	}
	if !slices.Equal(s1.Kernels, want1) || !slices.Equal(s2.Kernels, want2) {
		t.Errorf("site kernels changed: %q, %q", s1.Kernels, s2.Kernels)
	}
	// appending to a project's kernels never writes into a site's
	_ = append(got["c"], "x#0")
	if !slices.Equal(s1.Kernels, want1) {
		t.Errorf("append wrote into the site: %q", s1.Kernels)
	}
}

// TestSplitProjectsOrder: names arriving in order need no map; a name
// that comes back after a later one still joins its project.
func TestSplitProjectsOrder(t *testing.T) {
	for _, c := range []struct {
		sites [][]string
		want  map[string][]string
	}{
		{[][]string{{"a#0", "a#1", "b#0"}, {"c#0"}}, map[string][]string{"a": {"a#0", "a#1"}, "b": {"b#0"}, "c": {"c#0"}}},
		{[][]string{{"b#0", "c#0"}, {"a#0", "b#1", "c#2"}}, map[string][]string{"a": {"a#0"}, "b": {"b#0", "b#1"}, "c": {"c#0", "c#2"}}},
	} {
		var sites []*sim.Site
		for i, ks := range c.sites {
			sites = append(sites, &sim.Site{Group: "g", Path: string(rune('p' + i)), Kernels: ks})
		}
		ctx := &Context{Policy: &policy.Policy{}, Result: sim.Result{Sites: sites}}
		got := map[string][]string{}
		var names []string
		for _, p := range splitProjects(ctx, "g") {
			got[p.Name] = p.Kernels
			names = append(names, p.Name)
		}
		if len(got) != len(c.want) || !slices.IsSorted(names) {
			t.Errorf("%q: projects %q", c.sites, names)
		}
		for name, w := range c.want {
			if !slices.Equal(got[name], w) {
				t.Errorf("%q: project %s kernels %q, want %q", c.sites, name, got[name], w)
			}
		}
	}
}
