package queue

import (
	"math/bits"
	"time"

	"github.com/bits-and-blooms/bitset"
)

// Room freed on more nodes than a certificate's bound allows (see
// cons_gain.go) need not move the job: the bound adds every gained node
// to every start, while a node usually joins only some windows. When the
// certificate still holds otherwise (nothing taken touched its
// reservation), the plan it stands for ruled out every start by count:
// so counting again, on the profile as a full plan reads it (the
// reservation given back), what each start the plan would try has of
// the job's partition free throughout its window tells what the plan
// would do. If no start reaches the job's need, a full plan would make
// no selection, come to its reservation still free and keep it, and
// record as its bound the largest count (what recount returns); its
// start-now attempt fails too, its nodes being within the window of the
// slot holding now (nodes of one CPU: see bfRun.most). Otherwise the job
// is planned in full.
//
// Where the count can be made it is made as soon as the gained nodes of
// the job's partition outnumber the bound, before any node's runs are
// weighed (see bfRun.weigh): it settles the question, and its bound is
// the exact one a full plan would record, not the bound plus the gain.
//
// The count reads the profile as it stands, the reservation's nodes
// counted free over its interval, rather than giving the reservation
// back and taking it again; it is done only on clusters of a few words
// of nodes, where a window is a plain AND of its slots.

// recount counts, for every start a full plan of the job of r would try
// before r (d long, needing need nodes), the nodes of its partition part
// free throughout its window, as earliest does, on the profile with r
// given back; ok is false when one reaches need. It must only be called
// when recountable holds.
func (b *bfRun) recount(r *reservation, part *bitset.BitSet, d time.Duration, need int, lastTried time.Time) (most int, ok bool) {
	pr := b.pr
	rs, re := r.Start.UnixNano(), r.End.UnixNano()
	g := givenBack{pr: pr, own: r.nodes.Words(), rs: rs, re: re}
	last := -1 // the last slot read with fewer than need free, as shortScan
	next := 0
	lastAt := lastTried.UnixNano()
	for i := 0; i < len(pr.at) && pr.at[i] <= lastAt; i++ {
		end := laterAt(pr.at[i], d)
		for next = max(next, i); next < len(pr.at) && (next == i || pr.at[next] < end); next++ {
			if g.count(next) < need {
				last = next
			}
		}
		if last >= i { // a short slot rules out every start up to it
			most = max(most, g.count(last))
			i = last
			continue
		}
		c := g.window(i, next, part.Words())
		if c >= need {
			// a plan would select here, having come as far as the
			// count has: it may carry on from here (see resumeAt)
			b.pass.resume = resumeAt{at: pr.at[i], most: most, ok: true}
			return 0, false
		}
		most = max(most, c)
	}
	return most, true
}

// resumeAt is where a full plan of the job a recount just failed for
// may start its search: the slot (by its start) where the count first
// reached the job's need, and the bound of the starts before it. The
// plan reads the profile the count read (its reservation given back, no
// start made since), so its search would rule out the same starts by
// the same counts before making its first selection there.
type resumeAt struct {
	at   int64
	most int
	ok   bool
}

// recountable reports whether recount can tell what a full plan of the
// job of r (d long, in partition part) would do: nodes of one CPU, the
// plan's bound and certificate written, a cluster of a few words of
// nodes, and r's own check (free at its start for the job's length)
// one the plan would pass.
func (b *bfRun) recountable(r *reservation, part *bitset.BitSet, d time.Duration, lastTried time.Time) bool {
	pr := b.pr
	if part == nil || b.open == nil || b.s.maxNodeCPUs() != 1 || lastTried.After(b.horizon) ||
		len(part.Words()) > smallWindowWords || len(pr.free[0].Words()) != len(part.Words()) {
		return false // no bound a plan would record, no certificate it would write, or a large cluster
	}
	_, found := pr.find(r.Start)
	return found && laterAt(r.Start.UnixNano(), d) <= r.End.UnixNano() // else the plan's check of r, left to it
}

// givenBack reads a profile as if the reservation of own over [rs, re)
// were given back.
type givenBack struct {
	pr     *profile
	own    []uint64
	rs, re int64
}

// count is slot s's free nodes.
func (g *givenBack) count(s int) int {
	c := g.pr.count[s]
	if at := g.pr.at[s]; at >= g.rs && at < g.re {
		for k, w := range g.pr.free[s].Words() {
			c += bits.OnesCount64(g.own[k] &^ w)
		}
	}
	return c
}

// window counts the nodes of part free in every slot of [i, last).
func (g *givenBack) window(i, last int, part []uint64) int {
	c := 0
	for k, p := range part {
		w := p
		for s := i; s < last && w != 0; s++ {
			f := g.pr.free[s].Words()[k]
			if at := g.pr.at[s]; at >= g.rs && at < g.re {
				f |= g.own[k]
			}
			w &= f
		}
		c += bits.OnesCount64(w)
	}
	return c
}
