package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// quotedOptions are the options whose value an error quotes: keywords, as
// opposed to target IDs, names and paths.
var quotedOptions = map[string]bool{"loader": true, "shard": true}

// worded runs a command's action and names the options its error is
// about by their flags (flagWords), keeping the error's kind.
func worded(cmd string, action ucli.ActionFunc) ucli.ActionFunc {
	return func(c *ucli.Context) error {
		err := action(c)
		if err == nil || errors.Is(err, lint.ErrFindings) {
			return err
		}
		msg := flagWords(cmd, err)
		if msg == err.Error() {
			return err
		}
		return &errs.Error{Kind: errs.KindOf(err), Err: errors.New(msg)}
	}
}

// flagWords is err's message with the structured errors of the libraries
// and the pipeline, which name an option as a key or not at all, worded
// with the flags of the command cmd.
func flagWords(cmd string, err error) string {
	msg := err.Error()
	var oe *errs.OptionError
	if errors.As(err, &oe) {
		msg = strings.Replace(msg, oe.Error(), optionText(cmd, oe), 1)
	}
	var ve *lint.VariantError
	if errors.As(err, &ve) {
		msg = strings.Replace(msg, ve.Error(), variantText(ve), 1)
	}
	var le *inflate.LimitError
	if errors.As(err, &le) {
		msg = strings.Replace(msg, le.Error(), limitText(le), 1)
	}
	var me *lint.MemoryError
	if errors.As(err, &me) {
		msg = strings.Replace(msg, me.Error(), memoryText(cmd, me), 1)
	}
	var ml *lint.MachineLimitError
	if errors.As(err, &ml) {
		msg = strings.Replace(msg, "check fewer machines, or the build in parts",
			"check fewer machines (policy machines:, --machine), or split the build with --shard I/N and join the reports with kpack-lint merge", 1)
	}
	var kn *lint.KernelNotFoundError
	if errors.As(err, &kn) && kn.Near == "" {
		msg = strings.Replace(msg, kn.Error(), kn.Error()+"; pass --search PATH", 1)
	}
	if errors.Is(err, lint.ErrNoDevices) {
		msg = strings.Replace(msg, lint.ErrNoDevices.Error(), "explain: give --agent ISA (the device), or --policy/--variant to load on a variant's agents", 1)
	}
	return msg
}

// memoryText words code objects --deep-memory could not verify.
func memoryText(cmd string, e *lint.MemoryError) string {
	if cmd == "explain" {
		return fmt.Sprintf("%s in %s (target %s) needs more than --deep-memory %d MiB to decompress (%s); raise --deep-memory",
			e.Key.Kernel, e.Key.Archive, e.Key.Arch, e.Budget>>20, e.Err)
	}
	return fmt.Sprintf("--deep: %d code objects need more than --deep-memory %d MiB to decompress and were not verified "+
		"(first: %s in %s, target %s: %s); raise --deep-memory", e.Objects, e.Budget>>20, e.Key.Kernel, e.Key.Archive, e.Key.Arch, e.Err)
}

// optionText words a bad option value with its flag: "--loader "newest":
// want fallthrough or legacy", "--target gfx90c: ...", and "--agent: " for
// a value that is no target ID (the parse error quotes it).
func optionText(cmd string, e *errs.OptionError) string {
	flag := "--" + e.Option
	var parse *lint.TargetIDError
	var notDevice *lint.NotDeviceError
	switch {
	case errors.As(e.Err, &parse):
		return flag + ": " + e.Err.Error()
	case errors.Is(e.Err, lint.ErrGenericAgent):
		switch cmd {
		case "check":
			return fmt.Sprintf("%s %s: %v (use --target %s to simulate its member devices)", flag, e.Value, e.Err, e.Value)
		case "explain":
			return fmt.Sprintf("%s %s: %v; give the device's ISA (HIP adds its generic target)", flag, e.Value, e.Err)
		}
		return fmt.Sprintf("%s %s: %v; give a member device's ISA", flag, e.Value, e.Err)
	case errors.As(e.Err, &notDevice) && cmd == "check":
		return fmt.Sprintf("%s %s: %v; --target %s simulates every one that fits", flag, e.Value, e.Err, e.Value)
	case quotedOptions[e.Option]:
		return fmt.Sprintf("%s %q: %v", flag, e.Value, e.Err)
	}
	return fmt.Sprintf("%s %s: %v", flag, e.Value, e.Err)
}

// variantText words a variant the policy cannot give with --variant.
func variantText(e *lint.VariantError) string {
	switch {
	case len(e.Declared) == 0:
		return fmt.Sprintf("--variant %s: the policy declares no variants (no --policy given and no ./%s here?)", e.Name, lint.DefaultPolicy)
	case e.Name == "":
		return fmt.Sprintf("several variants declared (%s): choose one with --variant", strings.Join(e.Declared, ", "))
	}
	return fmt.Sprintf("--variant %s: not declared%s (have %s%s)", e.Name, e.In(), strings.Join(e.Declared, ", "), e.HintSuffix())
}

// noteWriter writes the run's notes and warnings to w, one line each.
func noteWriter(w io.Writer) func(lint.Note) {
	return func(n lint.Note) { io.WriteString(w, noteLine(n)) }
}

// noteLine words a note of the pipeline with the flags it points to.
// Values from the inputs are escaped; the baseline's warning quotes the
// baseline's words as they are.
func noteLine(n lint.Note) string {
	switch n := n.(type) {
	case lint.PolicyNote:
		more := ""
		if n.FromVariant {
			more = fmt.Sprintf("; without --agent, every agent of its %s variant (%d) is loaded on", n.Variant, n.Agents)
		}
		return fmt.Sprintf("kpack-lint: note: using %s (found %s; --no-policy for none): its loader, env: and arch_list apply%s\n", n.Path, n.Found, more)
	case lint.AgentNote:
		return "kpack-lint: note: " + escape.String(fmt.Sprintf("--agent %s: not an ISA a device reports (%s); explain simulates the arch_list as given, "+
			"as the runtime's own tests call the loader (check and explain-db refuse it)", n.Agent, n.Hint)) + "\n"
	case lint.ForeignAgentNote:
		return "kpack-lint: note: " + escape.String(fmt.Sprintf("agent %s cannot run code built for %s: it is simulated as a %s device reporting %s, "+
			"as under HSA_OVERRIDE_GFX_VERSION, which no such device reports by itself (--machine ISA --env HSA_OVERRIDE_GFX_VERSION=X.Y.Z simulates the override itself)",
			n.Agent, n.Target, n.Target, n.Agent)) + "\n"
	case lint.BinariesNote:
		return "kpack-lint: note: " + escape.String(fmt.Sprintf("%d host binaries have kernel_name %q; using %s (others: %s); choose with --binary",
			len(n.Others)+1, n.Name, n.Using, strings.Join(n.Others, ", "))) + "\n"
	case lint.CUsNote:
		return fmt.Sprintf("kpack-lint: note: MIOpen's CU-specific databases (<DbId><CUs>.kdb, .HIP.fdb.txt, .db.txt) were not checked for %s: "+
			"give cu_counts in the policy\n", strings.Join(n.Processors, ", "))
	case lint.NoTargetsNote:
		return fmt.Sprintf("kpack-lint: note: %s ships a kernel database but there are no targets to simulate: give --target or a policy\n", escape.String(n.Library))
	case lint.StreamedNote:
		return "kpack-lint: note: " + escape.String(fmt.Sprintf("input %s: %s", n.Input, n.Why)) + "\n"
	case lint.BaselineNote:
		return fmt.Sprintf("kpack-lint: warning: --baseline %s: %s\n", n.Baseline, n.Message)
	case lint.MergeMatrixNote:
		return "kpack-lint: note: " + escape.String(fmt.Sprintf("the shards' targets (%s) come from %s: merge does not read the build, so it takes them as the shards wrote them "+
			"(give the check and merge a policy variant or --target to have them checked)", orNoneWord(strings.Join(n.Targets, " ")), n.TargetSource)) + "\n"
	case lint.MergeWaiversNote:
		return "kpack-lint: note: " + escape.String(fmt.Sprintf("the shards were checked with waivers %s; merge applies its own (%s) and takes no waived state from a shard "+
			"(give merge the policy and --waivers of the check)", orNoneWord(n.Shards), orNoneWord(n.Merge))) + "\n"
	case lint.MergeBaselineNote:
		if n.Merge == "" {
			return "kpack-lint: note: " + escape.String(fmt.Sprintf("the shards were checked against baseline %s; merge takes no baseline state from a shard, "+
				"so without --baseline every finding counts as new (pass --baseline %s to compare)", n.Shards, n.Shards)) + "\n"
		}
		return "kpack-lint: note: " + escape.String(fmt.Sprintf("the shards were checked without --baseline: merge compares their findings with %s, "+
			"but KPL012 (inventory-regression) is found only by check --baseline (check the shards with --baseline %s too)", n.Merge, n.Merge)) + "\n"
	}
	return ""
}

func orNoneWord(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
