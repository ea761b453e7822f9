package sim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// ErrGenericAgent is the cause of an agent option whose value is a generic
// target: no device reports one (its members' ISAs do).
var ErrGenericAgent = errors.New("a generic target is not a device ISA")

// NotDeviceError is the cause of an agent option whose value is an ISA no
// device reports ("gfx942" without features, "gfx90c:xnack+"); Hint names
// the ISAs devices of its processor report (policy.DeviceISAHint).
type NotDeviceError struct {
	Hint string
}

func (e *NotDeviceError) Error() string {
	return fmt.Sprintf("not an ISA a device reports (%s)", e.Hint)
}

// DeviceISA reads an agent a device reports (targetid.IsDeviceISA), in
// canonical feature order. A value that is no target ID, a generic target
// (ErrGenericAgent) or an ISA no device reports (*NotDeviceError) is an
// *errs.OptionError for option "agent".
func DeviceISA(s string) (targetid.ID, error) {
	id, err := targetid.Parse(s)
	if err != nil {
		return targetid.ID{}, &errs.OptionError{Option: "agent", Value: s, Err: err}
	}
	if p, _ := targetid.LookupProcessor(id.Processor); p.Generic {
		return targetid.ID{}, &errs.OptionError{Option: "agent", Value: s, Err: ErrGenericAgent}
	}
	if !targetid.IsDeviceISA(id) {
		return targetid.ID{}, &errs.OptionError{Option: "agent", Value: s, Err: &NotDeviceError{Hint: policy.DeviceISAHint(id)}}
	}
	return targetid.Parse(id.Canonical())
}

// NewAgents expands targets into agent ISAs (targetid.AgentISAs, or the
// variant's explicit agents), or takes the agents given (DeviceISA), and
// lists the targets that stand for no agent. Each agent's arch_list is
// what rel's HIP passes for it (ArchList).
func NewAgents(targets []string, v *policy.Variant, override []string, rel hip.Release) ([]*Agent, []BadTarget, error) {
	var bads []BadTarget
	byISA := map[string]*Agent{}
	var order []string
	add := func(isa targetid.ID, target string) {
		a := byISA[isa.String()]
		if a == nil {
			a = &Agent{ISA: isa.String(), ArchList: ArchList(v, isa, rel)}
			byISA[a.ISA] = a
			order = append(order, a.ISA)
		}
		if target != "" && !slices.Contains(a.Targets, target) {
			a.Targets = append(a.Targets, target)
		}
	}
	if len(override) > 0 {
		for _, s := range override {
			id, err := DeviceISA(s)
			if err != nil {
				return nil, nil, err
			}
			add(id, matchingTarget(targets, id))
		}
	} else {
		for _, t := range targets {
			isas, bad := expandTarget(v, t)
			if bad != nil {
				bads = append(bads, *bad)
				continue
			}
			for _, isa := range isas {
				add(isa, t)
			}
		}
	}
	out := make([]*Agent, 0, len(order))
	for _, isa := range order {
		out = append(out, byISA[isa])
	}
	return out, bads, nil
}

// expandTarget returns the agent ISAs target stands for, or why it stands
// for none.
func expandTarget(v *policy.Variant, t string) ([]targetid.ID, *BadTarget) {
	id, err := targetid.Parse(t)
	if err != nil {
		return nil, &BadTarget{Target: t, Reason: fmt.Sprintf("it is not a valid target ID (%v)", err)}
	}
	if agents := v.AgentsFor(t); len(agents) > 0 {
		var out []targetid.ID
		for _, a := range agents {
			isa, _ := targetid.Parse(a) // policy.Parse checked them
			out = append(out, isa)
		}
		return out, nil
	}
	if isas := targetid.AgentISAs(id); len(isas) > 0 {
		return isas, nil
	}
	reason := "no device reports an ISA compatible with it"
	if src, bare := targetid.ReportsBareISA(id.Processor); bare {
		reason = fmt.Sprintf("%s devices report the bare ISA %s (%s), which accepts only code objects built without feature settings",
			id.Processor, id.Processor, src)
	}
	return nil, &BadTarget{Target: t, Reason: reason, Hint: id.Processor}
}

// matchingTarget names the first policy target an explicit agent satisfies.
func matchingTarget(targets []string, agent targetid.ID) string {
	for _, t := range targets {
		if id, err := targetid.Parse(t); err == nil && targetid.CompatibleOrGeneric(id, agent) {
			return t
		}
	}
	return ""
}

// ArchList is what rel's HIP passes for the agent (hip.Release.ArchList:
// the ISA, then its generic target in the release's TargetGenericMap),
// unless the variant's arch_list replaces the entries after the ISA for
// its processor.
func ArchList(v *policy.Variant, isa targetid.ID, rel hip.Release) []string {
	if v != nil {
		if entries, ok := v.ArchList[isa.Processor]; ok {
			return append([]string{isa.String()}, entries...)
		}
	}
	return rel.ArchList(isa)
}
