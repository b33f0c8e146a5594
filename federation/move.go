package federation

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/queue"
)

// move moves pending job r from its member to dst, so that it never runs
// twice and is never lost:
//
//  1. hold it on its member: a hold that succeeds proves it has not
//     started and keeps it from starting;
//  2. submit a held copy to dst under the same ID;
//  3. cancel it on its member — the commit: from here the grid says dst;
//  4. release the copy.
//
// A step that fails undoes the ones before it. A step whose answer never
// came leaves a note the next pass settles when the member answers: a
// hold that may stand (fixHold), a copy that may exist (orphans), a
// cancel that may have happened (inDoubt, the held copy kept until the
// source answers). Every copy but one is held, so at most one can start.
func (g *Grid) move(ctx context.Context, r *record, dst *member, now time.Time) bool {
	src, id := g.byName[r.member], r.id
	if err := call0(g, ctx, src, func(ctx context.Context) error { return src.m.Hold(ctx, id, now) }); err != nil {
		if isDown(err) && !errors.Is(err, errNotSent) {
			r.fixHold = true
		}
		return false // started, held by someone else, or src down: stays
	}
	spec := r.spec
	spec.Hold = true
	if err := call0(g, ctx, dst, func(ctx context.Context) error { return dst.m.Submit(ctx, spec, now) }); err != nil {
		if isDown(err) && !errors.Is(err, errNotSent) {
			r.orphans = append(r.orphans, dst.name)
		}
		g.release(ctx, r, src, now)
		g.stats.Aborted++
		return false
	}
	err := call0(g, ctx, src, func(ctx context.Context) error { return src.m.Cancel(ctx, id, now) })
	switch {
	case err == nil:
		g.commit(ctx, r, dst, now)
		return true
	case isDown(err) && !errors.Is(err, errNotSent):
		r.phase, r.to, r.reason = inDoubt, dst.name, "move unconfirmed"
		return false
	}
	// the job is not there to cancel (ended by someone else): keep the
	// record where it was and drop the copy
	g.dropCopy(ctx, r, dst, now)
	g.release(ctx, r, src, now)
	g.stats.Aborted++
	return false
}

// commit makes dst the job's member and releases the copy there.
func (g *Grid) commit(ctx context.Context, r *record, dst *member, now time.Time) {
	if !slices.Contains(r.left, r.member) {
		r.left = append(r.left, r.member)
	}
	r.phase, r.member, r.to, r.reason = placed, dst.name, "", ""
	r.state, r.heldThere = queue.Pending, true
	r.moves++
	g.stats.Moves++
	g.release(ctx, r, dst, now)
}

// release lifts the grid's hold on r at m, or notes that it must.
func (g *Grid) release(ctx context.Context, r *record, m *member, now time.Time) {
	id := r.id
	err := call0(g, ctx, m, func(ctx context.Context) error { return m.m.Release(ctx, id, now) })
	r.fixHold = err != nil && isDown(err)
	if err == nil {
		r.heldThere = false
	}
}

// dropCopy cancels a held copy of r on m, or notes that it must.
func (g *Grid) dropCopy(ctx context.Context, r *record, m *member, now time.Time) {
	id := r.id
	err := call0(g, ctx, m, func(ctx context.Context) error { return m.m.Cancel(ctx, id, now) })
	if err != nil && isDown(err) {
		r.orphans = append(r.orphans, m.name)
	}
}

// evict moves r off a member that is no longer its candidate, to the
// soonest candidate that answers.
func (g *Grid) evict(ctx context.Context, r *record, now time.Time) {
	var lastErr error
	for _, m := range g.rank(ctx, r, g.notLeft(r, up(g.eligible(r))), now, &lastErr) {
		if g.move(ctx, r, m, now) || r.phase != placed {
			return
		}
	}
}

// absorb updates r from what member m says of it.
func (g *Grid) absorb(ctx context.Context, r *record, m *member, in JobInfo, now time.Time) {
	switch {
	case r.phase == inDoubt && m.name == r.member:
		g.settle(ctx, r, m, in, now)
		return
	case r.phase == inDoubt:
		return // news of the held copy: settled when the source answers
	case !in.Found && !r.start.IsZero():
		// it started there and the member lost it with its state: it may
		// have run, so it is not run again — it ended with its node
		r.phase, r.state, r.end, r.reason = ended, queue.NodeFail, now, "lost with member "+m.name
		return
	case r.phase == unconfirmed && !in.Found, r.phase == placed && !in.Found:
		// not there (never arrived, or the member lost its state before
		// it started): the job can start nowhere, so placing it again is
		// safe
		if r.phase == placed {
			g.stats.Replaced++
		}
		r.phase, r.member, r.reason = atGrid, "", "to be placed again"
		return
	}
	r.phase = placed
	r.state, r.heldThere, r.reason = in.State, in.Held, string(in.Reason)
	r.start, r.end, r.exitCode = in.Start, in.End, in.ExitCode
	if in.State.Terminal() {
		r.phase = ended
		return
	}
	if r.fixHold && in.State == queue.Pending && in.Held && !r.spec.Hold {
		g.release(ctx, r, m, now)
	} else if in.State != queue.Pending || !in.Held {
		r.fixHold = false
	}
}

// settle decides a move whose cancel on the source got no answer, now
// that the source answers.
func (g *Grid) settle(ctx context.Context, r *record, src *member, in JobInfo, now time.Time) {
	dst := g.byName[r.to]
	if in.Found && in.State == queue.Pending && in.Held {
		id := r.id
		if err := call0(g, ctx, src, func(ctx context.Context) error { return src.m.Cancel(ctx, id, now) }); err != nil {
			return // still in doubt
		}
		in.State = queue.Cancelled
	}
	if !in.Found || in.State == queue.Cancelled && in.Start.IsZero() {
		g.commit(ctx, r, dst, now)
		return
	}
	// it ran, or someone released it there: the copy goes
	r.phase, r.to = placed, ""
	g.dropCopy(ctx, r, dst, now)
	g.stats.Aborted++
	g.absorb(ctx, r, src, in, now)
}

// notLeft are the members of ms r has not left: a member keeps the ID of
// a job moved away (cancelled there), so it refuses the job again.
func (g *Grid) notLeft(r *record, ms []*member) []*member {
	return slices.DeleteFunc(ms, func(m *member) bool { return slices.Contains(r.left, m.name) })
}
