package queue

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Nil and negative arguments panic with a message naming the function and
// the argument, never with a bare nil dereference; Restore, which has an
// error, returns one.
func TestNilAndNegativeArgumentsAreNamed(t *testing.T) {
	c := cluster(t, "NodeName=n[0-1] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n")
	for want, f := range map[string]func(){
		"queue.New: c is nil":                              func() { New(nil) },
		"queue.New: opts[1] is nil":                        func() { New(c, WithForgetFinished(), nil) },
		"queue.WithPolicy: p is nil":                       func() { WithPolicy(nil) },
		"queue.WithPlanner: p is nil":                      func() { WithPlanner(nil, 3) },
		"queue.WithPlanner: window is -1, want >= 0":       func() { WithPlanner(&meddler{}, -1) },
		"queue.WithIDSource: src is nil":                   func() { WithIDSource(nil) },
		"queue.WithPlugins: ps[0] is nil":                  func() { WithPlugins(nil) },
		"queue.WithBackfillDepth: n is -2, want >= 0":      func() { WithBackfillDepth(-2) },
		"queue.WithBackfillSelections: n is -1, want >= 0": func() { WithBackfillSelections(-1) },
		"queue.WithBackfillWindow: d is -1, want >= 0":     func() { WithBackfillWindow(-1) },
		"queue.WithBackfillResolution: d is -1, want >= 0": func() { WithBackfillResolution(-1) },
		"queue.WithRecalcInterval: d is -5, want >= 0":     func() { WithRecalcInterval(-5) },
		"queue.Scheduler.Subscribe: f is nil":              func() { New(c).Subscribe(nil) },
		"queue.NewEASY: s is nil":                          func() { NewEASY(nil) },
		"queue.WithBackfillResolution: d is 48h0m0s, above MaxBackfillResolution (24h0m0s)": func() {
			WithBackfillResolution(48 * time.Hour)
		},
		"queue: a Scheduler must be made by New or Restore, not used as a zero value": func() {
			var s Scheduler
			_, _ = s.Submit(Spec{}, at(0))
		},
		// what a caller holds after ignoring Restore's error
		"queue: nil *Scheduler: New and Restore make one (a Restore that failed returns nil with its error)": func() {
			s, err := Restore(bytes.NewReader([]byte("{}")), c)
			require.Error(t, err)
			s.Jobs()
		},
	} {
		assert.PanicsWithValue(t, want, f)
	}
	_, err := Restore(nil, c)
	assert.Error(t, err)
	_, err = Restore(bytes.NewReader(nil), nil)
	assert.Error(t, err)
}

// Zero means the default for every option: a zero backfill window
// reserves a day ahead like no option at all, and a zero resolution
// rounds to a minute. No reservations takes an option of its own.
func TestZeroOptionsMeanTheDefault(t *testing.T) {
	plan := func(opts ...Option) []Reservation {
		s := simple(t, opts...)
		submit(t, s, nodes(8, time.Hour), at(0))
		submit(t, s, nodes(8, time.Hour), at(0))
		s.Schedule(at(0))
		_, res := s.Backfill(at(0).Add(30 * time.Second))
		return res
	}
	def := plan()
	require.Len(t, def, 1)
	assert.Equal(t, def, plan(WithBackfillWindow(0), WithBackfillResolution(0), WithBackfillDepth(0),
		WithBackfillSelections(0), WithRecalcInterval(0), WithFirstJobID(0), WithRetention(0)))
	assert.Empty(t, plan(WithNoReservations()))
	assert.Equal(t, at(60), def[0].Start, "an hour's job from minute 0 frees its nodes at minute 60")

	s := simple(t, WithFirstJobID(0))
	assert.Equal(t, JobID(1), submit(t, s, nodes(1, time.Hour), at(0)))
}

// A Spec states its time limit once: TimeLimit, or Request.TimeLimit, or
// both equal; two different ones are refused (so is an Update's pair).
func TestOneTimeLimitPerSpec(t *testing.T) {
	s := simple(t)
	both := Spec{Request: selectnodes.Request{MinNodes: 1, TimeLimit: 2 * time.Hour}, TimeLimit: time.Hour}
	_, err := s.Submit(both, at(0))
	assert.ErrorIs(t, err, ErrInvalidSpec)
	_, _, err = s.WillRunSpec(context.Background(), both, at(0))
	assert.ErrorIs(t, err, ErrInvalidSpec)

	viaRequest := submit(t, s, Spec{Request: selectnodes.Request{MinNodes: 1, TimeLimit: 2 * time.Hour}}, at(0))
	j, _ := s.Job(viaRequest)
	assert.Equal(t, 2*time.Hour, j.TimeLimit)
	assert.Equal(t, 2*time.Hour, j.Request.TimeLimit)
	equal := submit(t, s, Spec{Request: selectnodes.Request{MinNodes: 1, TimeLimit: time.Hour}, TimeLimit: time.Hour}, at(0))
	j, _ = s.Job(equal)
	assert.Equal(t, time.Hour, j.TimeLimit)

	req := selectnodes.Request{MinNodes: 2, TimeLimit: 3 * time.Hour}
	assert.ErrorIs(t, s.Update(viaRequest, Update{Request: &req, TimeLimit: time.Hour}, at(1)), ErrInvalidSpec)
	require.NoError(t, s.Update(viaRequest, Update{Request: &req}, at(1)))
	j, _ = s.Job(viaRequest)
	assert.Equal(t, 3*time.Hour, j.TimeLimit)
	assert.Equal(t, 3*time.Hour, j.Request.TimeLimit)
	req = selectnodes.Request{MinNodes: 1}
	require.NoError(t, s.Update(viaRequest, Update{Request: &req}, at(1)))
	j, _ = s.Job(viaRequest)
	assert.Equal(t, 3*time.Hour, j.TimeLimit, "a request without a limit keeps the job's")
	assert.Equal(t, 3*time.Hour, j.Request.TimeLimit)
}

type brokenIDs struct{ zero bool }

var errIDService = errors.New("ID service unreachable")

func (b brokenIDs) NextJobID(context.Context) (JobID, error) {
	if b.zero {
		return 0, nil
	}
	return 0, errIDService
}

// An IDSource's failure matches ErrIDSource, the sentinel Submit
// documents, and keeps the source's own error.
func TestIDSourceErrorsMatchTheirSentinel(t *testing.T) {
	_, err := simple(t, WithIDSource(brokenIDs{})).Submit(nodes(1, time.Hour), at(0))
	assert.ErrorIs(t, err, ErrIDSource)
	assert.ErrorIs(t, err, errIDService)
	_, err = simple(t, WithIDSource(brokenIDs{zero: true})).Submit(nodes(1, time.Hour), at(0))
	assert.ErrorIs(t, err, ErrIDSource)
}
