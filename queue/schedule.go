package queue

import (
	"errors"
	"fmt"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// Started is a job Schedule, Backfill or Start started.
type Started struct {
	Job   JobID
	Nodes string // hostlist
}

// Planner decides a whole window of pending jobs at once, as an auction
// does, instead of Schedule's one-job-at-a-time loop.
type Planner interface {
	// Plan returns which jobs of window (eligible, in priority order) to
	// start now and on which nodes. It must not change the cluster.
	Plan(c *selectnodes.Cluster, window []Job, now time.Time) []Decision
}

// Decision starts Job on Nodes (empty: let the pipeline choose).
type Decision struct {
	Job   JobID
	Nodes []string
}

// unlimited stands for "no time limit" when a job's end must be planned.
const unlimited = 100 * 365 * 24 * time.Hour

func (j *job) expectedEnd(start time.Time) time.Time {
	if j.TimeLimit <= 0 {
		return start.Add(unlimited)
	}
	return start.Add(j.TimeLimit)
}

// eligible reports whether a pending job may be considered now, updating
// its reason when not (and cancelling it when its dependencies can never
// be met and the scheduler was told to).
func (s *Scheduler) eligible(j *job, now time.Time) bool {
	r := s.pendingReason(j, now)
	if r == ReasonDependencyNeverSatisfied && s.opts.cancelNever {
		s.end(j, Cancelled, EventCancel, now, "dependency can never be satisfied")
		return false
	}
	if r != ReasonPriority {
		j.Reason = r
		return false
	}
	return true
}

// recalc recomputes a dynamic policy's priorities, at most once per
// RecalcInterval, moving only jobs whose priority changed.
func (s *Scheduler) recalc(now time.Time) {
	if !s.opts.policy.Dynamic() || (!s.lastRecalc.IsZero() && now.Sub(s.lastRecalc) < s.opts.recalc) {
		return
	}
	s.lastRecalc = now
	var changed []*job
	s.queue.Ascend(func(j *job) bool {
		if j.AdminPriority == 0 {
			changed = append(changed, j)
		}
		return true
	})
	for _, j := range changed {
		old := j.Priority
		if s.computePriority(j, now) {
			s.enqueue(j)
			s.jobEvent(EventPriority, j, now, fmt.Sprintf("%d -> %d", old, j.Priority))
		}
	}
}

// Schedule is Slurm's schedule (seed 000 §3.2.1): eligible pending jobs in
// order of partition priority, job priority and submit order; each gets a
// RunNow selection. A busy job locks its partition and withholds the
// partition's nodes from the jobs after it; a job that can never run on
// this configuration fails. It returns the jobs started.
func (s *Scheduler) Schedule(now time.Time) []Started {
	s.mu.Lock()
	defer s.unlock()
	s.recalc(now)
	if s.opts.planner != nil {
		return s.plan(now)
	}
	var out []Started
	locked := map[string]bool{}
	var withheld *bitset.BitSet
	for _, j := range s.ordered() {
		if !s.eligible(j, now) {
			continue
		}
		if locked[j.Partition] {
			j.Reason = ReasonPriority
			continue
		}
		req := j.Request
		req.ExcludeNodes = withheld
		p, err := s.c.Try(&req, selectnodes.RunNow) // Explain(id) gives the why on demand
		if err == nil {
			if st, err := s.start(j, p, now); err == nil {
				out = append(out, st)
			}
			continue
		}
		if errors.Is(err, selectnodes.ErrBusy) {
			locked[j.Partition] = true
			if nodes, ok := s.c.PartitionNodes(j.Partition); ok {
				if withheld == nil {
					withheld = nodes
				} else {
					withheld.InPlaceUnion(nodes)
				}
			}
		}
		s.setFailure(j, err, now)
	}
	return out
}

// ordered is the pending queue as a slice, so jobs may leave it while it
// is walked.
func (s *Scheduler) ordered() []*job {
	out := make([]*job, 0, s.queue.Len())
	s.queue.Ascend(func(j *job) bool {
		out = append(out, j)
		return true
	})
	return out
}

// setFailure records why a selection failed: a configuration the job can
// never run on fails it, anything else leaves it pending with a reason.
func (s *Scheduler) setFailure(j *job, err error, now time.Time) {
	var e *selectnodes.Error
	if errors.As(err, &e) {
		j.Explanation = e.Explanation
	}
	switch {
	case neverRuns(err):
		j.Reason = ReasonNodeConfig
		s.end(j, Failed, EventFinish, now, err.Error())
	case errors.Is(err, selectnodes.ErrBusy):
		j.Reason = ReasonResources
	case errors.Is(err, selectnodes.ErrHeld):
		j.Reason = ReasonHeld
	default:
		j.Reason = s.partitionReason(j)
	}
}

// partitionReason names which partition limit holds a job back.
func (s *Scheduler) partitionReason(j *job) Reason {
	p, _ := s.c.Partition(j.Partition)
	req := j.Request
	switch {
	case p.State != selectnodes.PartitionUp:
		return ReasonPartitionDown
	case p.MaxTime > 0 && j.TimeLimit > p.MaxTime:
		return ReasonPartitionTimeLimit
	case p.MaxNodes > 0 && max(req.MinNodes, 1) > p.MaxNodes, req.MaxNodes > 0 && req.MaxNodes < p.MinNodes:
		return ReasonPartitionNodeLimit
	}
	return ReasonNodesUnavailable
}

// start allocates p to j and marks it running.
func (s *Scheduler) start(j *job, p *selectnodes.Placement, now time.Time) (Started, error) {
	if err := s.c.Allocate(j.ID, p, now, j.expectedEnd(now)); err != nil {
		return Started{}, err // not expected: p comes from RunNow on this state
	}
	alloc, _, _, _ := s.c.Allocation(j.ID)
	s.active[j.ID] = j
	s.dequeue(j)
	j.State, j.Reason, j.Start, j.Placement, j.Explanation = Running, ReasonNone, now, alloc, nil
	j.End = now.Add(j.TimeLimit)
	if j.TimeLimit <= 0 {
		j.End = time.Time{}
	}
	s.jobEvent(EventStart, j, now, alloc.Hostlist())
	return Started{Job: j.ID, Nodes: alloc.Hostlist()}, nil
}

// plan hands the eligible window to the Planner and applies its valid
// decisions.
func (s *Scheduler) plan(now time.Time) []Started {
	var window []Job
	for _, j := range s.ordered() {
		if len(window) == s.opts.plannerWindow {
			break
		}
		if s.eligible(j, now) {
			window = append(window, j.Job)
		}
	}
	var out []Started
	for _, d := range s.opts.planner.Plan(s.c, window, now) {
		j, ok := s.jobs[d.Job]
		if !ok || j.State != Pending {
			continue
		}
		if st, err := s.startOn(j, d.Nodes, now); err == nil {
			out = append(out, st)
		}
	}
	return out
}

// startOn runs the whole pipeline with the given nodes required and every
// other node withheld, as wiki2's STARTJOB should have.
func (s *Scheduler) startOn(j *job, nodes []string, now time.Time) (Started, error) {
	req := j.Request
	if len(nodes) > 0 {
		want, err := s.c.NodeSet(nodes)
		if err != nil {
			return Started{}, err
		}
		others := bitset.New(uint(s.c.NodeCount())).Complement()
		others = others.Difference(want)
		req.Required = nodes
		req.ExcludeNodes = others
		req.MinNodes = max(req.MinNodes, len(nodes))
		if req.MaxNodes > 0 && req.MaxNodes < len(nodes) {
			return Started{}, fmt.Errorf("queue: job %d allows at most %d nodes, %d given", j.ID, req.MaxNodes, len(nodes))
		}
	}
	p, err := s.c.SelectNodes(&req, selectnodes.RunNow)
	if err != nil {
		return Started{}, err
	}
	return s.start(j, p, now)
}

// Start starts a pending job now (external-scheduler mode's STARTJOB, or
// an administrator forcing a job): on exactly nodes when given, validated
// by the full pipeline, else where the pipeline chooses. Held jobs may be
// started this way; dependencies and begin times must be met.
func (s *Scheduler) Start(id JobID, nodes []string, now time.Time) error {
	s.mu.Lock()
	defer s.unlock()
	j, err := s.get(id)
	if err != nil {
		return err
	}
	if j.State != Pending {
		return stateErr(j, "start")
	}
	if now.Before(j.Begin) {
		return fmt.Errorf("queue: job %d may not begin before %s", id, j.Begin.Format(time.RFC3339))
	}
	if st := j.deps.evaluate(s, j, now); st != depMet {
		return fmt.Errorf("queue: job %d has unmet dependencies (%s)", id, j.Dependency)
	}
	_, err = s.startOn(j, nodes, now)
	return err
}

// WillRun answers JOBWILLRUN: when and where job id could start given the
// running jobs' expected ends (it changes nothing).
func (s *Scheduler) WillRun(id JobID, now time.Time) (time.Time, []string, error) {
	s.mu.Lock()
	defer s.unlock()
	j, err := s.get(id)
	if err != nil {
		return time.Time{}, nil, err
	}
	if j.State != Pending {
		return time.Time{}, nil, stateErr(j, "plan")
	}
	p, err := s.c.SelectNodes(&j.Request, selectnodes.WillRun)
	if err != nil {
		return time.Time{}, nil, err
	}
	start := p.Start
	if p.Immediate || start.Before(now) {
		start = now
	}
	return start, p.Names, nil
}

// Explain says what the node-selection pipeline makes of a pending job's
// request now (selectnodes.Explanation), e.g. to show why it waits.
func (s *Scheduler) Explain(id JobID) (*selectnodes.Explanation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, err := s.get(id)
	if err != nil {
		return nil, err
	}
	return s.c.Explain(&j.Request, selectnodes.RunNow), nil
}
