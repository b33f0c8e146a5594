package queue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WithBackfillSelections stops a pass once its selections are spent: each
// blocked whole-cluster job costs two (the start attempt and the probe of
// the slot where it fits), so the budget decides how many get a
// reservation; the jobs not reached keep none and stay pending.
func TestBackfillSelectionBudget(t *testing.T) {
	for _, tc := range []struct {
		budget, reserved int
	}{
		{budget: 0, reserved: 3}, // no bound
		{budget: 1, reserved: 1}, // the first job's search finishes
		{budget: 2, reserved: 1},
		{budget: 3, reserved: 2},
		{budget: 6, reserved: 3},
	} {
		s := simple(t, WithBackfillSelections(tc.budget))
		running := submit(t, s, nodes(8, time.Hour), at(0))
		s.Schedule(at(0))
		require.Equal(t, Running, state(t, s, running))
		var waiting []JobID
		for k := range 3 {
			waiting = append(waiting, submit(t, s, nodes(8, time.Hour), at(1+k)))
		}
		started, resv := s.Backfill(at(5))
		assert.Empty(t, started, "budget %d", tc.budget)
		require.Len(t, resv, tc.reserved, "budget %d", tc.budget)
		for k, r := range resv { // queue order, one hour apart
			assert.Equal(t, waiting[k], r.Job, "budget %d", tc.budget)
			assert.Equal(t, at(60*(k+1)), r.Start, "budget %d", tc.budget)
		}
		for _, id := range waiting {
			assert.Equal(t, Pending, state(t, s, id))
		}
	}
}
