package federation

import (
	"context"
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/queue"
)

// Report says what one re-evaluation pass did.
type Report struct {
	Placed int // jobs placed (dependencies met, or placed again)
	Moved  int // pending jobs moved to a sooner member
	Down   int // members that did not answer
}

// Tick re-evaluates when it is due: a period after the last pass, or the
// minimum gap after one when an event (see Observe) or a member coming
// back asked for it. The caller calls it as often as it likes (a grid
// reads no clock); ran says whether a pass ran. A now outside the years
// queue.CheckTime accepts runs no pass (one in year 9999 would otherwise
// keep every later Tick from being due).
func (g *Grid) Tick(ctx context.Context, now time.Time) (rep Report, ran bool) {
	if queue.CheckTime(now) != nil {
		return Report{}, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	since := now.Sub(g.lastPass)
	due := g.stats.Passes == 0 || since >= g.opts.period || g.trigger.Load() && since >= g.opts.minGap
	if !due {
		return Report{}, false
	}
	return g.pass(ctx, now), true
}

// Reevaluate runs a pass now: it asks every member about the grid's jobs
// there (and down members whether they are back), settles what earlier
// calls left unconfirmed, places the jobs whose dependencies are now met,
// and moves pending jobs another member would start sooner by more than
// the threshold. A now outside the years queue.CheckTime accepts does
// nothing.
func (g *Grid) Reevaluate(ctx context.Context, now time.Time) Report {
	if queue.CheckTime(now) != nil {
		return Report{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pass(ctx, now)
}

func (g *Grid) pass(ctx context.Context, now time.Time) Report {
	g.trigger.Store(false)
	g.lastPass = now
	g.stats.Passes++
	g.sync(ctx, now)
	rep := Report{Placed: g.placeReady(ctx, now)}
	rep.Moved = g.rebalance(ctx, now)
	g.retire()
	for _, m := range g.members {
		if !m.up {
			rep.Down++
		}
	}
	return rep
}

// sync asks each member about the grid's jobs there and absorbs the
// answers; a member that was down is asked its Info first.
func (g *Grid) sync(ctx context.Context, now time.Time) {
	asks := map[string][]*record{}
	for _, r := range g.live {
		if r.phase == placed || r.phase == unconfirmed || r.phase == inDoubt {
			asks[r.member] = append(asks[r.member], r)
		}
		for _, o := range r.orphans {
			asks[o] = append(asks[o], r)
		}
	}
	for _, m := range g.members {
		if !m.up || !m.known {
			if g.refreshInfo(ctx, m); !m.up {
				continue
			}
		}
		recs := asks[m.name]
		ids := make([]queue.JobID, len(recs))
		for i, r := range recs {
			ids[i] = r.id
		}
		infos, err := call(g, ctx, m, func(ctx context.Context) ([]JobInfo, error) { return m.m.Jobs(ctx, ids) })
		if err != nil || !answered(ids, infos) {
			continue
		}
		for i, r := range recs {
			if slices.Contains(r.orphans, m.name) {
				g.dropOrphan(ctx, r, m, infos[i], now)
			} else if r.phase != ended && r.member == m.name {
				g.absorb(ctx, r, m, infos[i], now)
			}
		}
	}
}

// dropOrphan cancels a copy a failed move may have left on m.
func (g *Grid) dropOrphan(ctx context.Context, r *record, m *member, in JobInfo, now time.Time) {
	gone := func() { r.orphans = slices.DeleteFunc(r.orphans, func(n string) bool { return n == m.name }) }
	if r.member == m.name || r.to == m.name {
		gone() // the job itself is there: the copy, if any, is the job
		if r.member == m.name && r.phase != inDoubt {
			g.absorb(ctx, r, m, in, now)
		}
		return
	}
	if in.Found && in.State == queue.Pending {
		id := r.id
		if err := call0(g, ctx, m, func(ctx context.Context) error { return m.m.Cancel(ctx, id, now) }); err != nil {
			return
		}
	}
	gone()
}

// placeReady places the jobs waiting at the grid whose dependencies are
// met, and notes why the others wait.
func (g *Grid) placeReady(ctx context.Context, now time.Time) int {
	n := 0
	for _, r := range g.live {
		if r.phase != atGrid {
			continue
		}
		switch g.depState(r) {
		case depMet:
			r.deps = &Dependency{} // met for good, as Slurm clears it
			if g.place(ctx, r, now) == nil {
				n++
			}
		case depNever:
			r.reason = string(queue.ReasonDependencyNeverSatisfied)
		default:
			r.reason = string(queue.ReasonDependency)
		}
	}
	return n
}

// forecasts are one member's answers for a pass.
type forecasts struct {
	reply   EstimateReply
	specIdx []int32 // shape ID -> index in reply.Specs, -1 when not asked
	added   float64 // work moved there this pass
}

// rebalance moves pending jobs that another member would start sooner by
// more than the threshold (or that left their member's candidates). Jobs
// and members are numbered (shape, candidate group, member index) so the
// per-job work of a pass is slice indexing, not hashing.
func (g *Grid) rebalance(ctx context.Context, now time.Time) int {
	var movable []*record
	for _, r := range g.live {
		if r.phase == placed && r.state == queue.Pending && !r.heldThere && !r.fixHold && !r.spec.Hold && g.byName[r.member].up {
			movable = append(movable, r)
		}
	}
	if len(movable) == 0 {
		return 0
	}
	elig := make([][]*member, len(g.groups))
	for i, k := range g.groups {
		elig[i] = g.eligibleFor(k.candidates, k.partition, k.account)
	}
	fc, pendPos := g.forecast(ctx, movable, elig, now)
	moved := 0
	for i, r := range movable {
		if moved >= g.opts.maxMoves {
			break
		}
		own := g.byName[r.member]
		src := fc[own.idx]
		if src == nil {
			continue
		}
		cur := src.reply.Pending[pendPos[i]]
		if cur.Err != nil {
			continue
		}
		dst, best := g.soonest(r, own, elig[r.group], fc, now)
		if dst == nil {
			continue
		}
		mustMove := !slices.Contains(elig[r.group], own)
		gain := cur.Start.Sub(best.Start)
		if cur.Unavailable && !best.Unavailable {
			gain = maxDrain
		}
		if (mustMove || gain > g.opts.threshold && sooner(best, cur)) && g.move(ctx, r, dst, now) {
			moved++
			fc[dst.idx].added += cpuSeconds(r.spec.Request, r.spec.TimeLimit)
		}
	}
	return moved
}

// soonest is the member other than own, and other than those r left
// (they keep its ID), that would start r first.
func (g *Grid) soonest(r *record, own *member, elig []*member, fc []*forecasts, now time.Time) (*member, Estimate) {
	var dst *member
	var best Estimate
	for _, m := range elig {
		f := fc[m.idx]
		if m == own || f == nil || !m.up || slices.Contains(r.left, m.name) {
			continue
		}
		i := f.specIdx[r.shape]
		if i < 0 {
			continue
		}
		e := f.reply.Specs[i]
		if e.Err != nil {
			continue
		}
		e.Start = later(e.Start, now.Add(drainTime(f.reply.Backlog+f.added, f.reply.Capacity)))
		if dst == nil || sooner(e, best) {
			dst, best = m, e
		}
	}
	return dst, best
}

// forecast asks every member that answers, once, for the shapes of the
// movable jobs it could take and for the movable jobs pending on it.
// pendPos[i] is where rs[i] is in its member's answer.
func (g *Grid) forecast(ctx context.Context, rs []*record, elig [][]*member, now time.Time) ([]*forecasts, []int32) {
	qs := make([]EstimateQuery, len(g.members))
	fc := make([]*forecasts, len(g.members))
	for i, m := range g.members {
		if m.up {
			fc[i] = &forecasts{specIdx: make([]int32, len(g.shapeSpecs))}
			for k := range fc[i].specIdx {
				fc[i].specIdx[k] = -1
			}
		}
	}
	pendPos := make([]int32, len(rs))
	asked := map[int64]bool{} // (group, shape) pairs already asked for
	for i, r := range rs {
		own := g.byName[r.member].idx
		pendPos[i] = int32(len(qs[own].Pending))
		qs[own].Pending = append(qs[own].Pending, r.id)
		pair := int64(r.group)<<32 | int64(r.shape)
		if asked[pair] {
			continue
		}
		asked[pair] = true
		for _, m := range elig[r.group] {
			if f := fc[m.idx]; f != nil && m.idx != own && f.specIdx[r.shape] < 0 {
				f.specIdx[r.shape] = int32(len(qs[m.idx].Specs))
				qs[m.idx].Specs = append(qs[m.idx].Specs, g.shapeSpecs[r.shape])
			}
		}
	}
	for i, m := range g.members {
		if fc[i] == nil {
			continue
		}
		q := qs[i]
		rep, err := call(g, ctx, m, func(ctx context.Context) (EstimateReply, error) { return m.m.Estimate(ctx, q, now) })
		if err != nil || len(rep.Specs) != len(q.Specs) || len(rep.Pending) != len(q.Pending) {
			fc[i] = nil
			continue
		}
		fc[i].reply = rep
	}
	return fc, pendPos
}
