package federation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/queue"
)

// depState evaluates r's dependency on the grid's records.
func (g *Grid) depState(r *record) depState {
	if len(r.deps.Terms) == 0 {
		return depMet
	}
	met, never := 0, 0
	for _, t := range r.deps.Terms {
		var st depState
		if t.Kind == Singleton {
			st = g.singleton(r)
		} else {
			st = termState(t, g.jobs[t.Job]) // targets were checked at submit
		}
		switch st {
		case depMet:
			met++
		case depNever:
			never++
		}
	}
	n := len(r.deps.Terms)
	switch {
	case r.deps.Any && met > 0, !r.deps.Any && met == n:
		return depMet
	case r.deps.Any && never == n, !r.deps.Any && never > 0:
		return depNever
	}
	return depWaiting
}

// singleton is met when no earlier grid job of the same user and name is
// still pending or running.
func (g *Grid) singleton(r *record) depState {
	for _, o := range g.byUserName[r.spec.User+"\x00"+r.spec.Name] {
		earlier := o.submit.Before(r.submit) || o.submit.Equal(r.submit) && o.id < r.id
		if earlier && o.phase != ended {
			return depWaiting
		}
	}
	return depMet
}

// up are the members of ms that answer.
func up(ms []*member) []*member {
	return slices.DeleteFunc(slices.Clone(ms), func(m *member) bool { return !m.up })
}

// place submits r to the eligible member that would start it soonest,
// falling back to the next when one refuses.
func (g *Grid) place(ctx context.Context, r *record, now time.Time) error {
	ms := up(g.eligible(r))
	if len(ms) == 0 {
		r.phase, r.reason = atGrid, "no candidate member answers"
		return fmt.Errorf("%w: no candidate of job %d answers", ErrMemberDown, r.id)
	}
	var lastErr error
	for _, m := range g.rank(ctx, r, ms, now, &lastErr) {
		spec := r.spec
		err := call0(g, ctx, m, func(ctx context.Context) error { return m.m.Submit(ctx, spec, now) })
		switch {
		case err == nil:
			r.phase, r.member, r.state, r.reason = placed, m.name, queue.Pending, ""
			return nil
		case errors.Is(err, errNotSent):
			lastErr = err
		case isDown(err):
			// it may have arrived: the job is there until m says not
			r.phase, r.member, r.reason = unconfirmed, m.name, "submission unconfirmed"
			return nil
		default:
			lastErr = err
		}
	}
	r.phase = atGrid
	if lastErr == nil {
		lastErr = errors.New("no candidate answered")
	}
	r.reason = lastErr.Error()
	if isDown(lastErr) {
		return lastErr
	}
	return fmt.Errorf("%w: job %d: %w", ErrNoCandidate, r.id, lastErr)
}

// rank orders ms by forecast start, soonest first, leaving out members
// that cannot run r; with one member it asks nothing.
func (g *Grid) rank(ctx context.Context, r *record, ms []*member, now time.Time, lastErr *error) []*member {
	if len(ms) == 1 {
		return ms
	}
	type cand struct {
		m *member
		e Estimate
	}
	var cs []cand
	for _, m := range ms {
		q := EstimateQuery{Specs: []queue.Spec{r.spec}}
		rep, err := call(g, ctx, m, func(ctx context.Context) (EstimateReply, error) { return m.m.Estimate(ctx, q, now) })
		if err != nil || len(rep.Specs) != 1 {
			*lastErr = err
			continue
		}
		e := rep.Specs[0]
		if e.Err != nil {
			*lastErr = e.Err
			continue
		}
		e.Start = later(e.Start, now.Add(drainTime(rep.Backlog, rep.Capacity)))
		cs = append(cs, cand{m, e})
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		switch {
		case sooner(a.e, b.e):
			return -1
		case sooner(b.e, a.e):
			return 1
		}
		return 0
	})
	out := make([]*member, len(cs))
	for i, c := range cs {
		out[i] = c.m
	}
	return out
}

// Status is a job as the grid sees it.
type Status struct {
	ID queue.JobID
	// Member is where the job is; "" while it waits at the grid.
	Member string
	State  queue.State
	// Reason says why a pending job waits (a member's reason, or the
	// grid's: a dependency, no candidate answering, a move unconfirmed).
	Reason     string
	Submit     time.Time
	Start, End time.Time
	ExitCode   int
	Moves      int
	Candidates []string // nil: every member
	// Local: the grid did not submit the job; Member has it.
	Local bool
	// Stale: Member did not answer, so State is as last seen.
	Stale bool
}

// Status reports job id by its ID alone, wherever it is: a grid job from
// its record, refreshed from its member; any other job from the member
// that has it (the members that answer are asked in order). A grid job
// the grid has forgotten (WithRetention) is any other job: Local, or
// ErrUnknownJob when no member that answers has it.
func (g *Grid) Status(ctx context.Context, id queue.JobID, now time.Time) (Status, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r, ok := g.jobs[id]; ok {
		stale := false
		if r.phase != atGrid && r.phase != ended {
			stale = !g.refresh(ctx, r, now)
		}
		st := r.status()
		st.Stale = stale
		return st, nil
	}
	for _, m := range g.members {
		if !m.up {
			continue
		}
		ids := []queue.JobID{id}
		infos, err := call(g, ctx, m, func(ctx context.Context) ([]JobInfo, error) { return m.m.Jobs(ctx, ids) })
		if err != nil || !answered(ids, infos) || !infos[0].Found {
			continue
		}
		in := infos[0]
		return Status{ID: id, Member: m.name, State: in.State, Reason: string(in.Reason), Start: in.Start,
			End: in.End, ExitCode: in.ExitCode, Local: true}, nil
	}
	return Status{}, fmt.Errorf("%w: %d", ErrUnknownJob, id)
}

func (r *record) status() Status {
	st := Status{ID: r.id, State: r.state, Reason: r.reason, Submit: r.submit, Start: r.start, End: r.end,
		ExitCode: r.exitCode, Moves: r.moves, Candidates: slices.Clone(r.candidates)}
	if r.phase != atGrid {
		st.Member = r.member
	}
	return st
}

// refresh asks r's member about it and absorbs the answer; false when the
// member did not answer.
func (g *Grid) refresh(ctx context.Context, r *record, now time.Time) bool {
	m := g.byName[r.member]
	if !m.up {
		return false
	}
	ids := []queue.JobID{r.id}
	infos, err := call(g, ctx, m, func(ctx context.Context) ([]JobInfo, error) { return m.m.Jobs(ctx, ids) })
	if err != nil || !answered(ids, infos) {
		return false
	}
	g.absorb(ctx, r, m, infos[0], now)
	return true
}

// Cancel cancels a grid job wherever it is. A job whose member does not
// answer cannot be cancelled until it does (ErrMemberDown); one being
// moved, until the move is settled (ErrJobState).
func (g *Grid) Cancel(ctx context.Context, id queue.JobID, now time.Time) error {
	if err := queue.CheckTime(now); err != nil {
		return fmt.Errorf("federation: Cancel: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	r, ok := g.jobs[id]
	if !ok {
		return fmt.Errorf("%w: %d", ErrUnknownJob, id)
	}
	switch r.phase {
	case ended:
		return fmt.Errorf("%w: job %d has ended (%s)", ErrJobState, id, r.state)
	case atGrid:
		g.finish(r, queue.Cancelled, now)
		return nil
	case inDoubt, unconfirmed:
		return fmt.Errorf("%w: job %d is being placed or moved; try again after the next pass", ErrJobState, id)
	}
	m := g.byName[r.member]
	if err := call0(g, ctx, m, func(ctx context.Context) error { return m.m.Cancel(ctx, id, now) }); err != nil {
		if errors.Is(err, queue.ErrJobState) {
			// it ended there since the grid last looked: say so as the
			// grid does for a job it knows ended, and learn how it ended
			g.refresh(ctx, r, now)
			return fmt.Errorf("%w: job %d on %s: %w", ErrJobState, id, m.name, err)
		}
		return err
	}
	g.refresh(ctx, r, now)
	return nil
}

// finish ends a record the grid itself ends (a job cancelled at the grid).
func (g *Grid) finish(r *record, st queue.State, now time.Time) {
	r.phase, r.state, r.end, r.reason = ended, st, now, ""
}

// AddCandidates adds members to a pending job's candidates.
func (g *Grid) AddCandidates(ctx context.Context, id queue.JobID, names []string, now time.Time) error {
	return g.editCandidates(ctx, id, now, func(cur []string) []string {
		if cur == nil {
			return nil // already every member
		}
		for _, n := range names {
			if !slices.Contains(cur, n) {
				cur = append(cur, n)
			}
		}
		return cur
	}, names)
}

// RemoveCandidates removes members from a pending job's candidates. If
// the job is pending on one of them it is moved at once (or on the next
// pass, when the move cannot be made now).
func (g *Grid) RemoveCandidates(ctx context.Context, id queue.JobID, names []string, now time.Time) error {
	return g.editCandidates(ctx, id, now, func(cur []string) []string {
		if cur == nil {
			for _, m := range g.members {
				cur = append(cur, m.name)
			}
		}
		return slices.DeleteFunc(cur, func(n string) bool { return slices.Contains(names, n) })
	}, names)
}

// editCandidates changes a pending job's candidates with edit, refusing a
// change that leaves no member able to run it.
func (g *Grid) editCandidates(ctx context.Context, id queue.JobID, now time.Time, edit func([]string) []string, names []string) error {
	if err := queue.CheckTime(now); err != nil {
		return fmt.Errorf("federation: candidates: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.checkCandidates(names); err != nil {
		return err
	}
	r, ok := g.jobs[id]
	if !ok {
		return fmt.Errorf("%w: %d", ErrUnknownJob, id)
	}
	if r.phase == placed {
		g.refresh(ctx, r, now)
	}
	if r.phase == ended || r.state != queue.Pending {
		return fmt.Errorf("%w: job %d is %s; only a pending job's candidates change", ErrJobState, id, r.state)
	}
	old := r.candidates
	r.candidates = edit(slices.Clone(old))
	if len(g.eligible(r)) == 0 {
		r.candidates = old
		return fmt.Errorf("%w: job %d would have no candidate", ErrNoCandidate, id)
	}
	r.group = g.groupID(r)
	if r.phase == placed && !g.isCandidate(r, r.member) {
		g.evict(ctx, r, now)
	}
	return nil
}

// isCandidate reports whether r may run on the named member.
func (g *Grid) isCandidate(r *record, name string) bool {
	return slices.ContainsFunc(g.eligible(r), func(m *member) bool { return m.name == name })
}
