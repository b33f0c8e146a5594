package queue

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

// twinIterations is how many random twin runs a test makes: full in a
// whole run, short under -short, race under the race detector (which is
// slower still, and runs with -short in CI).
func twinIterations(full, short, race int) int {
	switch {
	case raceEnabled:
		return race
	case testing.Short():
		return short
	}
	return full
}

// seeded is a random source on a fresh seed, logged so that a failure can
// be replayed with it.
func seeded(t testing.TB, stream uint64) *rand.Rand {
	seed := testseed.Draw(t)
	return rand.New(rand.NewPCG(seed, stream))
}

func cluster(t testing.TB, conf string, opts ...selectnodes.Option) *selectnodes.Cluster {
	t.Helper()
	cfg, err := slurmconf.Parse(strings.NewReader(conf))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg, opts...)
	require.NoError(t, err)
	return c
}

// simple is 8 nodes n[0-7] of 4 CPUs in partition "batch".
func simple(t testing.TB, opts ...Option) *Scheduler {
	c := cluster(t, "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n")
	return New(c, opts...)
}

func nodes(n int, limit time.Duration) Spec {
	return Spec{Name: "job", User: "u", Request: selectnodes.Request{MinNodes: n}, TimeLimit: limit}
}

func submit(t testing.TB, s *Scheduler, spec Spec, now time.Time) JobID {
	t.Helper()
	id, err := s.Submit(spec, now)
	require.NoError(t, err)
	return id
}

func state(t testing.TB, s *Scheduler, id JobID) State {
	t.Helper()
	j, ok := s.Job(id)
	require.True(t, ok)
	return j.State
}

func expr(t testing.TB, e string) *features.Expr {
	x, err := features.Parse(e)
	require.NoError(t, err)
	return x
}

// recorder collects events.
type recorder struct{ events []Event }

func (r *recorder) on(e Event) { r.events = append(r.events, e) }

func (r *recorder) kinds() string {
	var b []string
	for _, e := range r.events {
		if e.Job != 0 {
			b = append(b, fmt.Sprintf("%s:%d", e.Kind, e.Job))
		} else {
			b = append(b, string(e.Kind))
		}
	}
	return strings.Join(b, " ")
}
