package queue

import (
	"context"
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

// start asks the ReservePlugins, allocates p to j and marks it running.
// A refusal is applied to j (see refuse) and returned as a *StatusError.
func (s *Scheduler) start(j *job, p *selectnodes.Placement, now time.Time) (Started, error) {
	for _, a := range p.Alloc { // a layout may say 0; a job holds a CPU of each node
		if a.CPUs < 1 {
			return Started{}, invalid("job %d: node %s would get no CPU", j.ID, s.c.Node(a.Node).Name)
		}
	}
	ctx := s.context()
	if name, st := s.runReserve(ctx, j, p, now); st != nil {
		s.refuse(j, name, st, now)
		return Started{}, &StatusError{Plugin: name, Status: st}
	}
	end := j.expectedEnd(now) // the allocation's; the job's own End too when it has a limit
	if err := s.allocate(j, p, now, end); err != nil {
		s.runUnreserve(ctx, j, p, len(s.opts.reserve), now)
		return Started{}, err // not expected: p comes from a selection on this state
	}
	alloc, _, _, _ := s.c.Allocation(j.ID)
	s.active[j.ID] = j
	s.running.add(j)
	s.dequeue(j)
	delete(s.resv, j.ID)
	s.allocSeq++
	j.allocSeq, j.suspendedFor = s.allocSeq, 0
	j.State, j.Reason, j.ReasonDetail, j.Start, j.Placement, j.Explanation = Running, ReasonNone, "", now, alloc, nil
	j.End = end // later(now, j.TimeLimit)
	if j.TimeLimit <= 0 {
		j.End = time.Time{}
	}
	hosts := ""
	if !s.quietStarts || s.queuesEvents() { // emit drops the event otherwise
		hosts = alloc.Hostlist()
	}
	var p0 Payload
	if s.queuesEvents() {
		p0 = &StartPayload{Placement: alloc} // (and its payload)
	}
	s.jobEventWith(EventStart, j, now, hosts, p0)
	return Started{Job: j.ID, Nodes: hosts}, nil
}

// allocate records p for j on the cluster, expected to end at end. The
// placement comes from a selection on this state, which the cluster
// trusts without checking its nodes again when it is the last one made
// and nothing changed since (a ReservePlugin that changed the cluster gets
// the full checks).
func (s *Scheduler) allocate(j *job, p *selectnodes.Placement, now, end time.Time) error {
	if s.fullAllocChecks {
		return s.c.Allocate(j.ID, p, now, end)
	}
	return s.c.AllocateSelected(j.ID, p, now, end)
}

// refuse applies a ReservePlugin's refusal to j: Hold holds it, Fail fails
// it, anything else leaves it pending with ReasonRefused.
func (s *Scheduler) refuse(j *job, plugin string, st *Status, now time.Time) {
	msg := plugin + ": " + st.Message()
	payload := &RefusedPayload{Plugin: plugin, Status: st}
	switch st.Code {
	case Hold:
		j.Held, j.Reason, j.ReasonDetail = true, ReasonHeld, msg
		delete(s.resv, j.ID)
		s.jobEventWith(EventHold, j, now, msg, payload)
	case Fail:
		s.end(j, Failed, EventFinish, now, msg, Outcome{})
		j.ReasonDetail = msg
	default:
		j.Reason, j.ReasonDetail = ReasonRefused, msg
		s.jobEventWith(EventRefused, j, now, msg, payload)
	}
}

// startOn runs the whole pipeline with the given nodes required and every
// other node withheld, as wiki2's STARTJOB should have.
func (s *Scheduler) startOn(j *job, nodes []string, now time.Time) (Started, error) {
	req := j.Request
	if len(nodes) > 0 {
		want, err := s.c.NodeSet(nodes)
		if err != nil {
			return Started{}, invalidErr(err)
		}
		if int(want.Count()) < len(nodes) { // else counted as more nodes than there are
			return Started{}, invalid("job %d: node %s is given twice", j.ID, twice(nodes))
		}
		others := bitset.New(uint(s.c.NodeCount())).Complement()
		others = others.Difference(want)
		req.Required = nodes
		req.ExcludeNodes = others
		req.MinNodes = max(req.MinNodes, len(nodes))
		if req.MaxNodes > 0 && req.MaxNodes < len(nodes) {
			return Started{}, invalid("job %d allows at most %d nodes, %d given", j.ID, req.MaxNodes, len(nodes))
		}
	}
	p, err := s.c.SelectNodes(&req, selectnodes.RunNow)
	if err != nil {
		return Started{}, err
	}
	return s.start(j, p, now)
}

// twice is the first name given twice in names.
func twice(names []string) string {
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			return n
		}
		seen[n] = true
	}
	return ""
}

// Start starts a pending job now (external-scheduler mode's STARTJOB, or
// an administrator forcing a job): on exactly nodes when given, validated
// by the full pipeline, else where the pipeline chooses. Held jobs may be
// started this way; dependencies and begin times must be met.
func (s *Scheduler) Start(id JobID, nodes []string, now time.Time) error {
	return s.StartContext(context.Background(), id, nodes, now)
}

// StartContext is Start with a context for the ReservePlugins.
func (s *Scheduler) StartContext(ctx context.Context, id JobID, nodes []string, now time.Time) error {
	s.lock(ctx)
	defer s.unlock()
	j, err := s.getIn(id, "start", func(st State) bool { return st == Pending })
	if err != nil {
		return err
	}
	if err := j.since(now); err != nil {
		return err
	}
	s.saw(now)
	if now.Before(j.Begin) {
		return fmt.Errorf("%w: job %d may not begin before %s", ErrJobState, id, j.Begin.Format(time.RFC3339))
	}
	if st := j.deps.evaluate(s, j, now); st != depMet {
		return fmt.Errorf("%w: job %d has unmet dependencies (%s)", ErrJobState, id, j.Dependency)
	}
	_, err = s.startOn(j, nodes, now)
	return err
}

// WillRun answers JOBWILLRUN: when and where job id could start given the
// running jobs' expected ends, not before its begin time (it changes
// nothing). Like WillRunSpec it answers for the job alone: other pending
// jobs, a hold and dependencies are not counted.
func (s *Scheduler) WillRun(id JobID, now time.Time) (time.Time, []string, error) {
	s.enterRead()
	defer s.unlock()
	j, err := s.get(id)
	if err != nil {
		return time.Time{}, nil, err
	}
	if j.State != Pending {
		return time.Time{}, nil, stateErr(j, "plan")
	}
	if err := CheckTime(now); err != nil {
		return time.Time{}, nil, err
	}
	now = maxTime(now, s.clock)
	p, err := s.c.SelectNodes(&j.Request, selectnodes.WillRun)
	if err != nil {
		return time.Time{}, nil, err
	}
	start := p.Start
	if p.Immediate || start.Before(now) {
		start = now
	}
	if j.Begin.After(start) { // as WillRunSpec: not before its begin time
		start = j.Begin
	}
	return start, p.Names, nil
}

// WillRunSpec answers JOBWILLRUN for a job not submitted here: when and
// where spec could start on this scheduler's cluster given the running
// jobs' expected ends, after the same admission checks as Submit (the
// AdmitPlugins, the limits, a request that can never run here). It
// changes nothing, so a grid can ask every member before it submits.
// Pending jobs are not counted: like Slurm's --test-only it answers for
// the job alone.
func (s *Scheduler) WillRunSpec(ctx context.Context, spec Spec, now time.Time) (time.Time, []string, error) {
	if err := CheckTime(now); err != nil {
		return time.Time{}, nil, err
	}
	spec.own() // the AdmitPlugins may rewrite it
	if err := s.runAdmit(ctx, &spec, now); err != nil {
		return time.Time{}, nil, err
	}
	if err := checkSpec(&spec); err != nil {
		return time.Time{}, nil, err
	}
	s.lock(ctx)
	defer s.unlock()
	req := spec.Request
	if req.Partition == "" {
		req.Partition = s.c.DefaultPartition()
	}
	if req.QOS == "" {
		req.QOS = DefaultQOS
	}
	req.TimeLimit = s.timeLimit(spec.TimeLimit, req.Partition)
	if err := s.admissible(&req); err != nil {
		return time.Time{}, nil, err
	}
	p, err := s.c.SelectNodes(&req, selectnodes.WillRun)
	if err != nil {
		return time.Time{}, nil, err
	}
	start := p.Start
	if p.Immediate || start.Before(now) {
		start = now
	}
	start = maxTime(start, s.clock)
	if spec.Begin.After(start) {
		start = spec.Begin
	}
	return start, p.Names, nil
}

// Explain says what the node-selection pipeline makes of a pending job's
// request now (selectnodes.Explanation), e.g. to show why it waits.
func (s *Scheduler) Explain(id JobID) (*selectnodes.Explanation, error) {
	s.enterRead()
	defer s.mu.Unlock()
	j, err := s.get(id)
	if err != nil {
		return nil, err
	}
	return s.c.Explain(&j.Request, selectnodes.RunNow), nil
}
