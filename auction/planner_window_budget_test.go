package auction_test

import (
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/auction"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A queue window of more than MaxJobs jobs made every pass's problem over
// the budget: each pass failed (EventPlanFailed) and nothing ever
// started. The planner now decides the window's first MaxJobs jobs, and
// the rest wait for a later pass.
func TestPlannerWindowOverMaxJobsStillStartsJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("12,000 jobs")
	}
	c, err := selectnodes.Seed001()
	require.NoError(t, err)
	s := queue.New(c, queue.WithPlanner(&auction.Planner{Budget: -1, Solve: auction.ReplayOptions()}, auction.MaxJobs+2000))
	failed := 0
	s.Subscribe(func(e queue.Event) {
		if e.Kind == queue.EventPlanFailed {
			failed++
		}
	})
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for range auction.MaxJobs + 2000 {
		_, err := s.Submit(queue.Spec{Request: selectnodes.Request{CPUs: 1}, TimeLimit: time.Hour}, now)
		require.NoError(t, err)
	}
	started := s.Schedule(now)
	assert.Zero(t, failed)
	assert.NotEmpty(t, started)
	for _, st := range started {
		assert.LessOrEqual(t, int(st.Job), auction.MaxJobs, "a job past the first MaxJobs started")
	}
}
