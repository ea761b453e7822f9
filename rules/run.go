package rules

import (
	"time"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/util/par"
	"github.com/rocm-tools/kpack-lint/policy"
)

// Run runs every rule's checks over c, gives each finding its rule's ID
// and level (the policy's rule levels first; a rule set to "off" drops its
// findings) and returns the findings in report order (finding.Sort), at
// most MaxFindingsPerFile per rule and file (the rest
// merged into one). Findings of one root cause are one (mergeCauses). Checks run on c.Workers goroutines after the indexes
// they share are built (prepare); the findings do not depend on it. With
// c.RuleTimes set, Run adds each rule's time to it ("prepare" for the
// shared indexes).
func Run(c *Context) []finding.Finding {
	t0 := time.Now()
	c.prepare()
	c.addTime("prepare", time.Since(t0))
	type job struct {
		rule  *Rule
		check Check
	}
	var jobs []job
	for _, r := range registry {
		for _, check := range r.Checks {
			jobs = append(jobs, job{r, check})
		}
	}
	found := make([][]finding.Finding, len(jobs))
	took := make([]time.Duration, len(jobs))
	par.Each[any](len(jobs), c.Workers, 1, nil, func(_ any, i int) {
		t := time.Now()
		found[i] = jobs[i].check(c)
		took[i] = time.Since(t)
	})
	var out []finding.Finding
	for i, j := range jobs {
		c.addTime(j.rule.ID, took[i])
		for _, f := range found[i] {
			f.RuleID = j.rule.ID
			f.Level = levelFor(c.Policy, j.rule.Rule, f)
			if f.Level != finding.LevelNone {
				out = append(out, f)
			}
		}
	}
	folded := c.tails.take(out)
	out = mergeCauses(c, out, registryCause)
	finding.Sort(out)
	return capPerFile(c, out, folded)
}

func (c *Context) addTime(name string, d time.Duration) {
	if c.RuleTimes != nil {
		c.RuleTimes[name] += d
	}
}

// levelFor is a finding's level: the policy's level for its rule, else
// the rule's for the finding (finding.Rule.LevelOf).
func levelFor(p *policy.Policy, r finding.Rule, f finding.Finding) finding.Level {
	if l := p.RuleLevel(r.ID); l != "" {
		return finding.Level(l)
	}
	return r.LevelOf(f)
}
