package queue

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// EASY protects only the queue head: on 8 nodes with 6 busy until minute
// 60, head B (7 nodes) gets shadow time 60 on A's 6 nodes plus one idle
// node, leaving one idle node "extra". D (2 nodes past the shadow) would
// delay B and waits; E (1 node past the shadow) takes the extra node; F
// (1 node, ending by the shadow) may use B's idle node.
func TestEASYProtectsOnlyTheHead(t *testing.T) {
	s := simple(t)
	easy := NewEASY(s)
	a := submit(t, s, nodes(6, time.Hour), at(0))
	require.Len(t, easy.Backfill(at(0)), 1)
	b := submit(t, s, nodes(7, time.Hour), at(1))
	d := submit(t, s, nodes(2, 2*time.Hour), at(1))
	e := submit(t, s, nodes(1, 2*time.Hour), at(1))
	f := submit(t, s, nodes(1, 30*time.Minute), at(1))
	started := easy.Backfill(at(2))
	var ids []JobID
	for _, st := range started {
		ids = append(ids, st.Job)
	}
	assert.Equal(t, []JobID{e, f}, ids)
	assert.Equal(t, Pending, state(t, s, b))
	assert.Equal(t, Pending, state(t, s, d))
	j, _ := s.Job(d)
	assert.Equal(t, ReasonResources, j.Reason)
	assert.Empty(t, s.Reservations(), "EASY publishes no reservation")
	// the head starts at its shadow time, as promised
	require.NoError(t, s.Finish(f, Outcome{Kind: Completed}, at(32)))
	assert.Empty(t, easy.Backfill(at(32)), "D still may not delay B")
	require.NoError(t, s.Finish(a, Outcome{Kind: Completed}, at(60)))
	started = easy.Backfill(at(60))
	require.NotEmpty(t, started)
	assert.Equal(t, b, started[0].Job)
	require.NoError(t, s.Cluster().CheckInvariants())
}

// Unlike conservative backfill, EASY lets a job delay the second job in
// the queue: X runs long on the node the head leaves, which S (all 8
// nodes, after the head) needs.
func TestEASYMayDelayTheSecondJob(t *testing.T) {
	run := func(easy bool) State {
		s := simple(t)
		e := NewEASY(s)
		submit(t, s, nodes(6, time.Hour), at(0))
		s.Schedule(at(0))
		submit(t, s, nodes(7, time.Hour), at(1))        // the head
		submit(t, s, nodes(8, time.Hour), at(1))        // S
		x := submit(t, s, nodes(1, 5*time.Hour), at(1)) // X
		if easy {
			e.Backfill(at(2))
		} else {
			s.Backfill(at(2))
		}
		return state(t, s, x)
	}
	assert.Equal(t, Running, run(true))
	assert.Equal(t, Pending, run(false))
}

// The head's plan is kept between passes, and a job that ends before its
// limit makes it be recomputed (the shadow moves earlier).
func TestEASYHeadReplans(t *testing.T) {
	s := simple(t)
	easy := NewEASY(s)
	a := submit(t, s, nodes(8, time.Hour), at(0))
	easy.Backfill(at(0))
	b := submit(t, s, nodes(8, time.Hour), at(1))
	c := submit(t, s, nodes(1, 10*time.Minute), at(1))
	assert.Empty(t, easy.Backfill(at(1)))
	assert.Equal(t, b, easy.plan.head)
	assert.Equal(t, at(60), easy.plan.shadow)
	require.NoError(t, s.Finish(a, Outcome{Kind: Completed}, at(5)))
	started := easy.Backfill(at(5))
	require.Len(t, started, 1)
	assert.Equal(t, b, started[0].Job, "the early end lets the head start at once")
	assert.Equal(t, Pending, state(t, s, c))
}

func TestSmallestTrue(t *testing.T) {
	for _, tt := range []struct{ lo, hi, want int }{{0, 10, 4}, {4, 10, 4}, {0, 3, -1}, {6, 10, 6}, {0, 0, -1}} {
		calls := 0
		got, ok := smallestTrue(tt.lo, tt.hi, func(k int) bool { calls++; return k >= 4 })
		if tt.want < 0 {
			assert.False(t, ok, "%+v", tt)
			continue
		}
		assert.True(t, ok)
		assert.Equal(t, tt.want, got, "%+v", tt)
		assert.LessOrEqual(t, calls, 5)
	}
	got, ok := smallestTrue(4, 10, func(k int) bool { return k >= 4 })
	assert.True(t, ok)
	assert.Equal(t, 4, got)
}

// EASY backfill: the head (all 8 nodes) waits for the 6-node job to end;
// a 2-node job that ends before then runs at once, in the idle nodes.
func ExampleEASY() {
	cfg, err := slurmconf.Parse(strings.NewReader("NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := selectnodes.FromConfig(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := New(c)
	easy := NewEASY(s)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, spec := range []Spec{
		{Name: "six", Request: selectnodes.Request{MinNodes: 6}, TimeLimit: time.Hour},
		{Name: "head", Request: selectnodes.Request{MinNodes: 8}, TimeLimit: time.Hour},
		{Name: "short", Request: selectnodes.Request{MinNodes: 2}, TimeLimit: 30 * time.Minute},
	} {
		if _, err := s.Submit(spec, t0); err != nil {
			fmt.Println(err)
			return
		}
	}
	for _, st := range easy.Backfill(t0) {
		j, _ := s.Job(st.Job)
		fmt.Println("started", j.Name, "on", st.Nodes)
	}
	head, _ := s.Job(2)
	fmt.Println(head.Name, head.State, head.Reason)
	// Output:
	// started six on n[0-5]
	// started short on n[6-7]
	// head PENDING Resources
}

// A job started outside EASY (Schedule, Start) after the head was planned
// makes EASY plan the head again instead of trusting stale nodes.
func TestEASYReplansAfterOutsideStarts(t *testing.T) {
	s := simple(t)
	easy := NewEASY(s)
	submit(t, s, nodes(4, time.Hour), at(0))
	easy.Backfill(at(0))
	head := submit(t, s, nodes(8, time.Hour), at(1))
	assert.Empty(t, easy.Backfill(at(1)))
	require.Equal(t, head, easy.plan.head)
	other := submit(t, s, nodes(4, 3*time.Hour), at(2))
	err := s.Start(other, nil, at(2)) // an operator's start, on the head's nodes
	require.NoError(t, err)
	easy.Backfill(at(3))
	assert.Equal(t, at(2).Add(3*time.Hour), easy.plan.shadow, "the head now waits for the started job")
}

// planWithBackfill makes an EASY plan on simple: a job on 4 nodes for an
// hour, the head (8 nodes) planned behind it, and a short one-node job
// backfilled beside them, which it returns with the plan's allocation
// number.
func planWithBackfill(t *testing.T) (s *Scheduler, easy *EASY, small JobID, planned uint64) {
	s = simple(t)
	easy = NewEASY(s)
	submit(t, s, nodes(4, time.Hour), at(0))
	head := submit(t, s, nodes(8, time.Hour), at(0))
	small = submit(t, s, nodes(1, 30*time.Minute), at(0))
	require.Len(t, easy.Backfill(at(0)), 2, "the first job and the backfilled one")
	require.Equal(t, head, easy.plan.head)
	return s, easy, small, easy.plan.allocSeq
}

// A backfilled job that is requeued and backfilled again is one start
// under the plan, not two: the plan stands while the job it counted on
// runs and the head is the same (a double count of the job once made the
// next pass plan afresh, and an incremental pass, which does not check,
// then decided otherwise).
func TestEASYKeepsItsPlanOverARestartedBackfill(t *testing.T) {
	s, easy, small, planned := planWithBackfill(t)
	require.NoError(t, s.Requeue(small, at(1)))
	require.Len(t, easy.Backfill(at(1)), 1, "the requeued job is backfilled again")
	require.Equal(t, Running, state(t, s, small))
	easy.Backfill(at(2))
	assert.Equal(t, planned, easy.plan.allocSeq, "nothing the plan counted on ended: it stands")
	assert.Equal(t, at(60), easy.plan.shadow)
}

// A job EASY backfilled, requeued and then started by someone else is an
// outside start: the plan is made again.
func TestEASYReplansAfterAnOutsideRestart(t *testing.T) {
	s, easy, small, planned := planWithBackfill(t)
	require.NoError(t, s.Requeue(small, at(1)))
	require.NoError(t, s.Start(small, nil, at(1))) // an operator's start
	easy.Backfill(at(2))
	assert.NotEqual(t, planned, easy.plan.allocSeq, "the operator's start was not seen")
}
