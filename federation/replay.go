package federation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/sim"
)

// ClusterSpec names a member cluster and builds it afresh for each
// replay (a replay takes its clusters over).
type ClusterSpec struct {
	Name  string
	Build func() (*selectnodes.Cluster, error)
}

// ReplayOptions steer Replay.
type ReplayOptions struct {
	Backfill bool
	Policy   queue.Policy // FCFS when nil
	// Period is the grid's re-evaluation period in virtual time: a minute
	// when 0, else at least a second (a shorter or negative one is an
	// error). Threshold is its move threshold: 5 minutes when 0; a
	// negative one moves a job whenever another member would start it
	// sooner at all (WithMoveThreshold).
	Period, Threshold time.Duration
	// Epoch is the virtual time of the workload's start (2000-01-01 UTC
	// when zero).
	Epoch time.Time
	// Pin says which member job i is submitted to in pinned mode (round
	// robin when nil); out-of-range answers wrap.
	Pin func(i int, j sim.Job) int
}

// Mode is how Replay submits.
type Mode string

const (
	// GridMode submits every job to the grid with every member a
	// candidate.
	GridMode Mode = "grid"
	// PinnedMode submits each job to its Pin member directly.
	PinnedMode Mode = "pinned"
)

// ReplayResult is a replay's outcome.
type ReplayResult struct {
	Mode      Mode
	Jobs      int // in the workload
	Completed int // started and ended
	Rejected  int // refused at submission (no candidate, or the pinned member can never run it)
	Stuck     int // never started though accepted
	MeanWait  time.Duration
	Moves     int            // grid mode: jobs moved before they started
	PerMember map[string]int // jobs that ran on each member
}

// replay is one run's state.
type replay struct {
	w       *sim.Workload
	o       ReplayOptions
	names   []string
	scheds  []*queue.Scheduler
	grid    *Grid
	ends    endQueue
	submit  []time.Time
	started []bool
	res     *ReplayResult
	waitSum time.Duration
	waiting int // accepted, not started
}

// Replay replays w on the members in the given mode and measures it.
// Job i gets ID i+1 in both modes, so results compare job for job.
func Replay(members []ClusterSpec, w *sim.Workload, o ReplayOptions, mode Mode) (*ReplayResult, error) {
	if len(members) == 0 || w == nil {
		return nil, errors.New("federation: Replay needs members and a workload")
	}
	if mode != GridMode && mode != PinnedMode {
		return nil, fmt.Errorf("federation: Replay: unknown mode %q (%q or %q)", mode, GridMode, PinnedMode)
	}
	if o.Period < 0 || o.Period > 0 && o.Period < time.Second {
		// a pass every virtual nanosecond would never end a replay
		return nil, fmt.Errorf("federation: Replay: Period %v: want 0 (a minute) or at least a second", o.Period)
	}
	if o.Epoch.IsZero() {
		o.Epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if o.Policy == nil {
		o.Policy = queue.FCFS{}
	}
	rp := &replay{w: w, o: o, submit: make([]time.Time, len(w.Jobs)), started: make([]bool, len(w.Jobs)),
		res: &ReplayResult{Mode: mode, Jobs: len(w.Jobs), PerMember: map[string]int{}}}
	if err := rp.build(members, mode); err != nil {
		return nil, err
	}
	if err := rp.run(mode); err != nil {
		return nil, err
	}
	for i := range rp.started {
		if !rp.started[i] && !rp.submit[i].IsZero() {
			rp.res.Stuck++
		}
	}
	if rp.res.Completed > 0 {
		rp.res.MeanWait = rp.waitSum / time.Duration(rp.res.Completed)
	}
	if rp.grid != nil {
		rp.res.Moves = rp.grid.Stats().Moves
	}
	return rp.res, nil
}

// build makes the members' schedulers (and the grid in grid mode).
func (rp *replay) build(members []ClusterSpec, mode Mode) error {
	if mode == GridMode {
		rp.grid = New(NewMemoryIDs(queue.JobID(len(rp.w.Jobs)+1)), WithCallTimeout(0),
			WithPeriod(rp.o.Period, 10*time.Second), WithMoveThreshold(rp.o.Threshold))
		if rp.o.Period == 0 {
			rp.grid.opts.period = time.Minute
		}
		if rp.o.Threshold == 0 {
			rp.grid.opts.threshold = 5 * time.Minute
		}
	}
	for k, m := range members {
		if m.Build == nil {
			return fmt.Errorf("federation: member %s: Build is nil", m.Name)
		}
		c, err := m.Build()
		if err == nil && c == nil {
			err = errors.New("Build returned no cluster")
		}
		if err != nil {
			return fmt.Errorf("federation: member %s: %w", m.Name, err)
		}
		s := queue.New(c, queue.WithPolicy(rp.o.Policy), queue.WithFirstJobID(queue.JobID(len(rp.w.Jobs)+1)))
		s.Subscribe(func(e queue.Event) {
			if e.Kind == queue.EventStart {
				rp.started1(k, e)
			}
		})
		rp.names, rp.scheds = append(rp.names, m.Name), append(rp.scheds, s)
		if rp.grid != nil {
			if err := rp.grid.Add(context.Background(), NewLocal(m.Name, s)); err != nil {
				return err
			}
		}
	}
	return nil
}

// started1 records a start and schedules the job's end.
func (rp *replay) started1(member int, e queue.Event) {
	i := int(e.Job) - 1
	if i < 0 || i >= len(rp.w.Jobs) || rp.started[i] {
		return
	}
	rp.started[i] = true
	rp.waiting--
	rp.res.Completed++ // every started job ends within the replay
	rp.res.PerMember[rp.names[member]]++
	rp.waitSum += e.Time.Sub(rp.submit[i])
	j := rp.w.Jobs[i]
	limit := j.Spec.TimeLimit
	if limit > 0 && j.Run >= limit {
		rp.ends.push(endEvent{at: e.Time.Add(limit), member: member, id: e.Job})
	} else {
		rp.ends.push(endEvent{at: e.Time.Add(j.Run), member: member, id: e.Job, out: true})
	}
}

// run is the event loop: ends, submissions, the grid's tick while jobs
// wait, and a scheduling pass on every member at each moment something
// happens. When nothing else will happen, the grid gets one more tick
// (a move may still start a job); if that starts nothing, the rest are
// stuck.
func (rp *replay) run(mode Mode) error {
	ctx := context.Background()
	next := 0
	lastTick := rp.o.Epoch
	for {
		t, ok := time.Time{}, false
		if next < len(rp.w.Jobs) {
			t, ok = rp.o.Epoch.Add(rp.w.Jobs[next].Submit), true
		}
		if len(rp.ends) > 0 && (!ok || rp.ends[0].at.Before(t)) {
			t, ok = rp.ends[0].at, true
		}
		idle := false
		if rp.grid != nil && rp.waiting > 0 {
			tick := lastTick.Add(rp.grid.opts.period)
			if !ok || tick.Before(t) {
				t, idle = tick, !ok
				ok = true
			}
		}
		if !ok {
			return nil
		}
		before := rp.res.Completed
		if err := rp.step(ctx, t, &next, &lastTick, mode); err != nil {
			return err
		}
		if idle && rp.res.Completed == before && len(rp.ends) == 0 {
			return nil
		}
	}
}

// step handles one moment.
func (rp *replay) step(ctx context.Context, t time.Time, next *int, lastTick *time.Time, mode Mode) error {
	if err := rp.endAt(t); err != nil {
		return err
	}
	for *next < len(rp.w.Jobs) && !rp.o.Epoch.Add(rp.w.Jobs[*next].Submit).After(t) {
		rp.submit1(ctx, *next, t, mode)
		*next++
	}
	if rp.grid != nil {
		if _, ran := rp.grid.Tick(ctx, t); ran {
			*lastTick = t
		}
	}
	for _, s := range rp.scheds {
		s.Schedule(t)
		if rp.o.Backfill {
			s.Backfill(t)
		}
	}
	return nil
}

// endAt ends the jobs due by t.
func (rp *replay) endAt(t time.Time) error {
	ticks := map[int]bool{}
	for len(rp.ends) > 0 && !rp.ends[0].at.After(t) {
		e := rp.ends.pop()
		if !e.out {
			ticks[e.member] = true
			continue
		}
		if err := rp.scheds[e.member].Finish(e.id, queue.Outcome{Kind: queue.Completed}, t); err != nil {
			return err
		}
	}
	for k := range rp.scheds {
		if ticks[k] {
			rp.scheds[k].Tick(t)
		}
	}
	return nil
}

// submit1 submits job i at t.
func (rp *replay) submit1(ctx context.Context, i int, t time.Time, mode Mode) {
	spec := rp.w.Jobs[i].Spec
	spec.ID = queue.JobID(i + 1)
	rp.submit[i] = t
	var err error
	if mode == GridMode {
		_, err = rp.grid.Submit(ctx, spec, nil, t)
	} else {
		k := i % len(rp.scheds)
		if rp.o.Pin != nil {
			k = rp.o.Pin(i, rp.w.Jobs[i]) % len(rp.scheds)
			k = (k + len(rp.scheds)) % len(rp.scheds)
		}
		_, err = rp.scheds[k].Submit(spec, t)
	}
	if err != nil {
		rp.res.Rejected++
		rp.submit[i] = time.Time{}
		return
	}
	rp.waiting++
}

type endEvent struct {
	at     time.Time
	member int
	id     queue.JobID
	out    bool // false: killed at the time limit (Tick ends it)
}

// endQueue holds the coming ends in time order (then by job); it stays as
// short as the number of running jobs, so a sorted insert is enough.
type endQueue []endEvent

func (q *endQueue) push(e endEvent) {
	i, _ := slices.BinarySearchFunc(*q, e, func(a, b endEvent) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	*q = slices.Insert(*q, i, e)
}

func (q *endQueue) pop() endEvent {
	e := (*q)[0]
	*q = (*q)[1:]
	return e
}
