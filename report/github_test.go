package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

func githubOf(t *testing.T, r Run) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteGitHub(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The notifications about the configuration (waivers, baseline) are
// annotations too: a warning ::warning, a note ::notice, at the line
// their source names, escaped as workflow commands want.
func TestGitHubNotifications(t *testing.T) {
	r := scaleRun(1, 0, false)
	r.Notifications = []Notification{
		{Level: finding.LevelWarning, Kind: "expiring-waiver", Source: "ci/waivers.yaml:31",
			Message: "waiver (KPL003, group fft_test) expires on 2027-01-15, in 24 days (--warn-expiring 60): 100% sure\nsecond line"},
		{Level: finding.LevelWarning, Kind: "expired-waiver", Source: "policies.yaml:5", Message: "waiver (KPL004) expired on 2026-01-01"},
		{Level: finding.LevelNote, Kind: "unused-waiver", Source: "policies.yaml:9", Message: "waiver (KPL009, path a,b) matched no finding; delete it"},
		{Level: finding.LevelWarning, Kind: "baseline-mismatch", Source: "nightly.sarif", Message: "the baseline checked another matrix"},
	}
	out := githubOf(t, r)
	for _, want := range []string{
		"::warning file=ci/waivers.yaml,line=31,title=kpack-lint expiring-waiver::waiver (KPL003, group fft_test) expires on 2027-01-15, in 24 days (--warn-expiring 60): 100%25 sure\\x0asecond line\n",
		"::warning file=policies.yaml,line=5,title=kpack-lint expired-waiver::waiver (KPL004) expired on 2026-01-01\n",
		"::notice file=policies.yaml,line=9,title=kpack-lint unused-waiver::waiver (KPL009, path a,b) matched no finding; delete it\n",
		"::warning file=nightly.sarif,title=kpack-lint baseline-mismatch::the baseline checked another matrix\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "expiring-waiver") < strings.Index(out, "title=KPL001") {
		t.Errorf("notifications before the findings:\n%s", out)
	}
}

// Notifications share the per-level cap with the findings; the final
// notice counts what was left out of either, in the singular for one.
func TestGitHubCap(t *testing.T) {
	r := scaleRun(MaxAnnotations+1, 0, false)
	out := githubOf(t, r)
	if n := strings.Count(out, "::warning "); n != MaxAnnotations {
		t.Errorf("%d warnings, want %d", n, MaxAnnotations)
	}
	if !strings.Contains(out, "::notice title=kpack-lint::1 more finding is not annotated (at most 10 per level); see the job summary") {
		t.Errorf("one left out:\n%s", out)
	}
	r = scaleRun(MaxAnnotations+2, 0, false)
	for i := 0; i < 3; i++ {
		r.Notifications = append(r.Notifications, Notification{Level: finding.LevelWarning, Kind: "expired-waiver", Source: fmt.Sprintf("w.yaml:%d", i+1), Message: "expired"})
	}
	r.Notifications = append(r.Notifications, Notification{Level: finding.LevelNote, Kind: "unused-waiver", Source: "w.yaml:9", Message: "unused"})
	out = githubOf(t, r)
	if n := strings.Count(out, "::warning "); n != MaxAnnotations {
		t.Errorf("%d warnings, want %d", n, MaxAnnotations)
	}
	if !strings.Contains(out, "::notice file=w.yaml,line=9,title=kpack-lint unused-waiver::unused\n") ||
		!strings.Contains(out, "::notice title=kpack-lint::2 more findings and 3 more configuration notifications are not annotated (at most 10 per level)") {
		t.Errorf("cap:\n%s", out)
	}
}
