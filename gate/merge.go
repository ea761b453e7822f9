package gate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/report"
)

// Merge combines the reports of shards 1/N to N/N of one check (check
// --shard, read back with report.Read) into the report the unsharded run
// writes, byte for byte in the same format: findings (with their baseline
// states, growth and coverage keys), inventory and load matrix are joined
// and sorted, file sizes pooled, a waiver is unused only when it is unused
// in every shard, and the baseline-coverage-unknown warning counts the
// findings of every shard (CoverageUnknown). It fails unless the runs are
// exactly the N shards of one check (same tool version, same inputs,
// policy, variant, loader, targets, agents, baseline and waivers), or when
// one holds what check --shard does not write (CheckShard). The baseline
// states are still the shards': Rebase replaces them. names, when given,
// name each run in errors (its file); else runs are "report 1", "report 2"...
func Merge(runs []report.Run, names ...string) (report.Run, error) {
	if err := checkShards(runs, names); err != nil {
		return report.Run{}, err
	}
	out := runs[0]
	k := *out.Checked
	k.Shard = ""
	out.Checked = &k
	out.Findings, out.Inventory, out.Matrix, out.Notifications = nil, nil, nil, nil
	machines, err := report.MergeMachines(runs)
	if err != nil {
		return report.Run{}, fmt.Errorf("merge: %w", err)
	}
	out.Machines = machines
	unused := map[string]int{}
	for _, r := range runs {
		out.Findings = append(out.Findings, r.Findings...)
		out.Inventory = append(out.Inventory, r.Inventory...)
		out.Matrix = append(out.Matrix, r.Matrix...)
		for _, n := range r.Notifications {
			if n.Kind == CoverageUnknownKind { // counted again over every shard's findings, below
				continue
			}
			key := n.Source + "\x00" + n.Kind + "\x00" + n.Message
			unused[key]++
			if unused[key] == 1 {
				out.Notifications = append(out.Notifications, n)
			}
		}
	}
	out.Notifications = slices.DeleteFunc(out.Notifications, func(n report.Notification) bool {
		return n.Kind == "unused-waiver" && unused[n.Source+"\x00"+n.Kind+"\x00"+n.Message] < len(runs)
	})
	for i, n := range out.Notifications {
		if n.Kind == "unused-waiver" { // unused in every shard: unused in the run
			out.Notifications[i].Message = strings.TrimSuffix(n.Message, ShardUnused)
		}
	}
	if n := CoverageUnknown(out.Findings, k.Baseline); n != nil {
		out.Notifications = append(out.Notifications, *n)
	}
	SortNotifications(out.Notifications)
	finding.Sort(out.Findings)
	slices.SortFunc(out.Inventory, func(a, b finding.InventoryItem) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Target, b.Target))
	})
	slices.SortFunc(out.Matrix, func(a, b finding.Cell) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Target, b.Target))
	})
	sizes := make([]func(int, string) (int64, bool), 0, len(runs))
	for _, r := range runs {
		if r.FileSize != nil {
			sizes = append(sizes, r.FileSize)
		}
	}
	out.FileSize = func(input int, p string) (int64, bool) {
		for _, s := range sizes {
			if n, ok := s(input, p); ok {
				return n, true
			}
		}
		return 0, false
	}
	return out, nil
}

// checkShards requires runs to be the shards 1/N..N/N of one check;
// errors name a run by names[i] when given.
func checkShards(runs []report.Run, names []string) error {
	label := func(i int) string {
		if i < len(names) && names[i] != "" {
			return names[i]
		}
		return fmt.Sprintf("report %d", i+1)
	}
	if len(runs) == 0 {
		return fmt.Errorf("merge: no reports")
	}
	var n int
	have := map[int]bool{}
	var first []byte
	for i, r := range runs {
		if r.Checked == nil || r.Checked.Shard == "" {
			return fmt.Errorf("merge: %s is not a shard (written by check --shard I/N)", label(i))
		}
		sh, err := finding.ParseShard(r.Checked.Shard)
		if err != nil {
			return fmt.Errorf("merge: %s: %w", label(i), err)
		}
		if i == 0 {
			n = sh.Count
		}
		if sh.Count != n {
			return fmt.Errorf("merge: %s is shard %s, %s one of %d", label(i), r.Checked.Shard, label(0), n)
		}
		if have[sh.Index] {
			return fmt.Errorf("merge: shard %s given twice (%s)", r.Checked.Shard, label(i))
		}
		have[sh.Index] = true
		if err := CheckShard(r); err != nil {
			return fmt.Errorf("merge: %s (shard %s): %w", label(i), r.Checked.Shard, err)
		}
		k := *r.Checked
		k.Shard, k.Rerun = "", nil // shards may run from other folders
		same, _ := json.Marshal(struct {
			V string
			K report.Checked
		}{r.ToolVersion, k})
		if i == 0 {
			first = same
		} else if string(same) != string(first) {
			diff := differences(first, same)
			verb := "differ"
			if len(diff) == 1 {
				verb = "differs"
			}
			return fmt.Errorf("merge: %s did not check what %s checked (%s %s): "+
				"merge the shards of one check, run with the same flags", label(i), label(0), strings.Join(diff, ", "), verb)
		}
	}
	for i := 1; i <= n; i++ {
		if !have[i] {
			return fmt.Errorf("merge: shard %d/%d is missing", i, n)
		}
	}
	return nil
}

// differences names the fields of two marshalled {V, K: Checked} values
// that differ: "tool version", "env", "deep", "targets"...
func differences(a, b []byte) []string {
	var x, y struct {
		V string
		K map[string]any
	}
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return []string{"the reports"}
	}
	var out []string
	if x.V != y.V {
		out = append(out, "tool version")
	}
	keys := map[string]bool{}
	for k := range x.K {
		keys[k] = true
	}
	for k := range y.K {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !reflect.DeepEqual(x.K[k], y.K[k]) {
			out = append(out, k)
		}
	}
	return out
}
