package placementtest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/hostlist"
)

// Request is a stated request and the site's answer to it now.
type Request struct {
	site *Site
	line string
	now  *check.Answer
	// start is the WillRun answer, made when the request is stated so
	// that StartsAt judges the load RunsOn judges, whatever changes to
	// the site come between: the RunNow answer when that places the job
	// (it starts now, or at its --begin), else the site's WillRun.
	start *check.Answer
}

// Answer is the site's answer, for assertions of your own.
func (r *Request) Answer() *check.Answer { return r.now }

// RunsOn asserts the request runs now on exactly the nodes of hl.
func (r *Request) RunsOn(t testing.TB, hl string) bool {
	t.Helper()
	want := r.expand(t, hl)
	if r.now.Err == nil && sameSet(r.now.Names, want) {
		return true
	}
	t.Errorf("placementtest: %q: want it on %s, %s", r.line, hl, r.got())
	return false
}

// RunsWithin asserts the request runs now, on nodes all within hl.
func (r *Request) RunsWithin(t testing.TB, hl string) bool {
	t.Helper()
	want := r.expand(t, hl)
	if r.now.Err == nil && subset(r.now.Names, want) {
		return true
	}
	t.Errorf("placementtest: %q: want it within %s, %s", r.line, hl, r.got())
	return false
}

// Prefers asserts that the request runs now on nodes of preferred and
// none of other: given both, it chooses preferred.
func (r *Request) Prefers(t testing.TB, preferred, other string) bool {
	t.Helper()
	a, b := r.expand(t, preferred), r.expand(t, other)
	if r.now.Err == nil && subset(r.now.Names, a) && !overlaps(r.now.Names, b) {
		return true
	}
	t.Errorf("placementtest: %q: want it on %s rather than %s, %s", r.line, preferred, other, r.got())
	return false
}

// IsRejected asserts the request cannot run now; with a class (node_config,
// part_config, busy, held, invalid) it asserts the reason too. A class
// not among those stops the test: it is a typo, which no answer could meet.
func (r *Request) IsRejected(t testing.TB, class ...string) bool {
	t.Helper()
	classes := []string{"node_config", "part_config", "busy", "held", "invalid"} // check.Answer.Class's names
	for _, c := range class {
		if !slices.Contains(classes, c) {
			t.Fatalf("placementtest: IsRejected: %q is not a class (%s)", c, strings.Join(classes, ", "))
		}
	}
	if r.now.Err != nil && (len(class) == 0 || slices.Contains(class, r.now.Class())) {
		return true
	}
	want := "rejected"
	if len(class) > 0 {
		want += " (" + strings.Join(class, " or ") + ")"
	}
	t.Errorf("placementtest: %q: want it %s, %s", r.line, want, r.got())
	return false
}

// StartsAt asserts when the request would start (WillRun: the running
// jobs ending at their expected ends).
func (r *Request) StartsAt(t testing.TB, at time.Time) bool {
	t.Helper()
	a := r.start
	if a.Err == nil && a.Start.Equal(at) {
		return true
	}
	got := "it would start at " + a.Start.Format(time.RFC3339) + " on " + a.Nodes
	if a.Err != nil {
		got = "it can never start: " + a.Err.Error()
	}
	t.Errorf("placementtest: %q: want a start at %s, %s%s", r.line, at.Format(time.RFC3339), got, explain(a))
	return false
}

func (r *Request) expand(t testing.TB, hl string) []string {
	t.Helper()
	names, err := hostlist.Expand(hl)
	if err != nil {
		t.Fatalf("placementtest: %v", err)
	}
	return names
}

// got says what happened, with the explanation.
func (r *Request) got() string {
	if r.now.Err != nil {
		return "but it is rejected (" + r.now.Class() + "): " + r.now.Err.Error() + explain(r.now)
	}
	return "but it runs on " + r.now.Nodes + " in partition " + r.now.Partition + "\n" + r.site.s.Explain(r.now).String()
}

func explain(a *check.Answer) string {
	if a == nil || a.Explanation == nil {
		return ""
	}
	return "\n" + a.Explanation.String()
}

// sameSet compares as sets: a hostlist may name a node twice ("n[1-2],n1").
func sameSet(a, b []string) bool { return subset(a, b) && subset(b, a) }

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}
