package sim

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/topology"
)

// Options steer a run.
type Options struct {
	Backfill bool
	// BackfillDepth is how many pending jobs each backfill pass plans
	// (Slurm's bf_max_job_test); 100 when 0, -1 for the whole queue.
	BackfillDepth int
	Policy        queue.Policy  // FCFS when nil
	Planner       queue.Planner // replaces the Schedule loop when set
	Window        int           // the planner's window (100 when 0)
	// Interval adds a scheduling pass every Interval of virtual time
	// (besides the pass after every batch of events); 0 for none.
	Interval time.Duration
	// Epoch is the virtual time of the workload's start (2000-01-01 UTC
	// when zero).
	Epoch time.Time
	// Progress, when set, is told how many jobs have ended so far.
	Progress func(done, total int)
	// Record keeps every job's record in the result (for charts).
	Record bool
}

// Record is one job's life in a run.
type Record struct {
	Job           queue.JobID
	Submit, Start time.Time
	End           time.Time
	State         queue.State
	Nodes         []int // node indices
	CPUs          int   // allocated
	Cores         int   // requested (seed 001 utilization)
}

// Result is a run's outcome.
type Result struct {
	Workload string
	Policy   string
	Backfill bool
	Jobs     int // submitted
	Rejected int // refused at submit (can never run here)
	Started  int
	Finished int // ended in any way after starting
	Timeouts int
	Stuck    int // still pending when nothing else could happen
	Metrics  Metrics
	Records  []Record
	// Nodes and Cores of the cluster, for charts.
	Nodes, Cores int
}

type endEvent struct {
	at  time.Time
	id  queue.JobID
	out bool // false: killed at the time limit (Tick ends it)
}

type endHeap []endEvent

func (h endHeap) Len() int { return len(h) }
func (h endHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].id < h[j].id
}
func (h endHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)   { *h = append(*h, x.(endEvent)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Run replays w on c (which it takes over) and measures it.
func Run(c *selectnodes.Cluster, w *Workload, o Options) (*Result, error) {
	if c == nil || w == nil {
		return nil, errors.New("sim: Run needs a cluster and a workload")
	}
	epoch := o.Epoch
	if epoch.IsZero() {
		epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	policy := o.Policy
	if policy == nil {
		policy = queue.FCFS{}
	}
	depth := o.BackfillDepth
	switch {
	case depth == 0:
		depth = 100
	case depth < 0:
		depth = 0 // the queue's "no limit"
	}
	qopts := []queue.Option{queue.WithPolicy(policy), queue.WithBackfillDepth(depth)}
	if o.Planner != nil {
		qopts = append(qopts, queue.WithPlanner(o.Planner, o.Window))
	}
	s := queue.New(c, qopts...)
	res := &Result{Workload: w.Name, Policy: strings.TrimPrefix(fmt.Sprintf("%T", policy), "queue."), Backfill: o.Backfill, Jobs: len(w.Jobs), Nodes: c.NodeCount()}
	for i := 0; i < c.NodeCount(); i++ {
		res.Cores += c.Node(i).CPUs
	}
	byID := map[queue.JobID]int{}
	recs := make([]Record, len(w.Jobs))
	var ends endHeap
	next := 0
	pending := 0
	nextTick := time.Time{}
	if o.Interval > 0 {
		nextTick = epoch.Add(o.Interval)
	}
	done := 0
	for {
		// the next moment something happens
		t, ok := time.Time{}, false
		if next < len(w.Jobs) {
			t, ok = epoch.Add(w.Jobs[next].Submit), true
		}
		if len(ends) > 0 && (!ok || ends[0].at.Before(t)) {
			t, ok = ends[0].at, true
		}
		if !ok {
			break // nothing left that could change anything
		}
		if o.Interval > 0 && pending > 0 && nextTick.Before(t) {
			t = nextTick
		}
		for o.Interval > 0 && !nextTick.After(t) {
			nextTick = nextTick.Add(o.Interval)
		}
		tick := false
		for len(ends) > 0 && !ends[0].at.After(t) {
			e := heap.Pop(&ends).(endEvent)
			if e.out {
				if err := s.Finish(e.id, queue.Outcome{Kind: queue.Completed}, t); err != nil {
					return nil, err
				}
			} else {
				tick = true
			}
		}
		if tick {
			for _, id := range s.Tick(t) {
				_ = id
				res.Timeouts++
			}
		}
		for next < len(w.Jobs) && !epoch.Add(w.Jobs[next].Submit).After(t) {
			j := w.Jobs[next]
			id, err := s.Submit(j.Spec, t)
			recs[next] = Record{Submit: t, Cores: j.Cores}
			if err != nil {
				if errors.Is(err, selectnodes.ErrNodeConfig) || errors.Is(err, selectnodes.ErrInvalidRequest) {
					res.Rejected++
					recs[next].State = queue.Failed
					next++
					continue
				}
				return nil, fmt.Errorf("sim: submitting job %d: %w", next, err)
			}
			byID[id] = next
			recs[next].Job = id
			pending++
			next++
		}
		started := s.Schedule(t)
		if o.Backfill {
			more, _ := s.Backfill(t)
			started = append(started, more...)
		}
		for _, st := range started {
			i := byID[st.Job]
			job, _ := s.Job(st.Job)
			recs[i].Start, recs[i].CPUs = t, job.Placement.TotalCPUs
			for _, a := range job.Placement.Alloc {
				recs[i].Nodes = append(recs[i].Nodes, a.Node)
			}
			run := w.Jobs[i].Run
			limit := job.TimeLimit
			if limit > 0 && run >= limit {
				heap.Push(&ends, endEvent{at: t.Add(limit), id: st.Job})
			} else {
				heap.Push(&ends, endEvent{at: t.Add(run), id: st.Job, out: true})
			}
			pending--
			res.Started++
		}
		if o.Progress != nil && res.Started+res.Rejected != done {
			done = res.Started + res.Rejected
			o.Progress(done, len(w.Jobs))
		}
	}
	for i := range recs {
		if recs[i].Job == 0 {
			continue
		}
		j, _ := s.Job(recs[i].Job)
		recs[i].State = j.State
		switch {
		case j.State == queue.Pending:
			res.Stuck++
		case j.State == queue.Failed && recs[i].Start.IsZero():
			res.Rejected++
		case !recs[i].Start.IsZero():
			recs[i].End = j.End
			res.Finished++
		}
	}
	res.Metrics = measure(recs, res.Cores, c.Topology())
	if o.Record {
		res.Records = recs
	}
	return res, nil
}

// Metrics are a run's measures (seed 001 Table 4 and the usual ones).
type Metrics struct {
	// LowestCommonLevel and Spread are the means and standard deviations
	// over started jobs; LevelKnown is false without a switch tree.
	LevelMean, LevelStd   float64
	LevelKnown            bool
	SpreadMean, SpreadStd float64
	// Utilization is seed 001's: core-seconds asked for over the system's
	// cores, divided by the time from first submission to last end.
	Utilization float64
	// BusyFraction is allocated core-seconds over cores times makespan.
	BusyFraction                  float64
	WaitMean, WaitMedian, WaitP95 time.Duration
	BoundedSlowdown               float64 // mean, 10 s bound
	Makespan                      time.Duration
}

func measure(recs []Record, cores int, tree *topology.Tree) Metrics {
	var m Metrics
	var first, last time.Time
	var waits []time.Duration
	var levels, spreads []float64
	var coreSec, busySec, slow float64
	n := 0
	for _, r := range recs {
		if r.Start.IsZero() {
			continue
		}
		n++
		if first.IsZero() || r.Submit.Before(first) {
			first = r.Submit
		}
		if r.End.After(last) {
			last = r.End
		}
		wait := r.Start.Sub(r.Submit)
		run := r.End.Sub(r.Start)
		waits = append(waits, wait)
		coreSec += run.Seconds() * float64(r.Cores)
		busySec += run.Seconds() * float64(r.CPUs)
		slow += math.Max(1, (wait+run).Seconds()/math.Max(run.Seconds(), 10))
		nodes := bitset.New(0)
		for _, i := range r.Nodes {
			nodes.Set(uint(i))
		}
		spreads = append(spreads, float64(topology.Spread(nodes)))
		if tree != nil {
			if l, ok := tree.LowestCommonLevel(nodes); ok {
				levels = append(levels, float64(l))
			}
		}
	}
	if n == 0 {
		return m
	}
	m.Makespan = last.Sub(first)
	if m.Makespan > 0 && cores > 0 {
		m.Utilization = coreSec / float64(cores) / m.Makespan.Seconds()
		m.BusyFraction = busySec / float64(cores) / m.Makespan.Seconds()
	}
	m.SpreadMean, m.SpreadStd = meanStd(spreads)
	if len(levels) > 0 {
		m.LevelKnown = true
		m.LevelMean, m.LevelStd = meanStd(levels)
	}
	slices.Sort(waits)
	var sum time.Duration
	for _, w := range waits {
		sum += w
	}
	m.WaitMean = sum / time.Duration(len(waits))
	m.WaitMedian = waits[len(waits)/2]
	m.WaitP95 = waits[min(len(waits)-1, int(math.Ceil(0.95*float64(len(waits))))-1)]
	m.BoundedSlowdown = slow / float64(n)
	return m
}

func meanStd(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	mean := s / float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(v / float64(len(xs)))
}
