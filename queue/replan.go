package queue

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// keptPlan is Backfill's availability profile and reservation index kept
// from one pass to the next (the incremental re-planning), so a
// pass after a single event does not rebuild what the event left alone.
//
// The profile a pass starts from must equal the one buildProfile would
// make, slot for slot: earliest tries every slot boundary as a start, so
// one boundary too many or a node wrongly free would change decisions.
// The kept profile is therefore not patched event by event; each pass
// first compares what the profile is a function of — each node's rounded
// free time, the nodes that can never be used, the standing reservations
// — with what the kept profile reflects (plan), and
//
//   - recomputes, slot by slot, the columns of the nodes whose inputs
//     changed (dirty), and of the nodes a reservation was given back on
//     during the last pass (a give frees a node that a job backfilled
//     beside the reservation holds into it only by the profile's rounding
//     of ends, giveback.go, so only a recomputation is exact);
//   - makes the boundaries exactly the rebuilt profile's: the new now
//     (slots before it fold into slot 0), the rounded free times after
//     now and the reservations' starts and ends. A boundary nothing
//     references any more is dropped (its slot equals the one before by
//     then), a missing one is inserted.
//
// A take is exact (it clears nodes that stay busy in every rebuilt
// profile too), so a reservation given back and taken again unchanged,
// the usual case, costs no recomputation. The kept state is derived: it
// is never saved, and a restored scheduler rebuilds it on its first pass.
type keptPlan struct {
	pr  *profile
	idx *resvIndex
	// freeFrom is, per node, the start of the slot the node's column is
	// free from (its last allocation's end rounded up, or a time not after
	// the pass's now when free then; math.MinInt64 when never allocated).
	freeFrom []int64
	never    *bitset.BitSet
	resv     map[JobID]reservation // the reservations the profile holds
	dirty    *bitset.BitSet        // nodes whose columns must be recomputed
	// refs counts, per boundary after now, what references it: nodes'
	// free times and reservations' starts and ends; a boundary whose
	// count drops to zero goes at the next pass. added lists the ones
	// whose count rose from zero since then.
	refs  []refEntry // sorted by instant: targets reads them in order
	added []slotTime
	// refsChanged says a boundary was forgotten, or became a node's free
	// time, since the last regrid (one newly referenced is in added);
	// slots and loc are the profile's slot count and now's location then
	// (see planProfile).
	refsChanged bool
	slots       int
	loc         *time.Location
	buf         bfBuffers  // the initial profile's storage, owned
	heldBuf     []int64    // storage of a pass's heldUntil (giveback.go)
	latestBuf   []int64    // storage of a pass's wordFreeFrom (giveback.go)
	bounds      []slotTime // targets' buffer
	merged      []slotTime // targets' other buffer, for a merge
	spare       []int64    // freeFrom's other buffer
	// spareNever is never's other buffer
	spareNever *bitset.BitSet
	// skip is the change log and the jobs' certificates that let a pass
	// keep a reservation without a plan (see cons_skip.go); it lives and
	// dies with this profile.
	skip  *skipLog
	pass  bfPass // each pass's scratch, reused
	order []*job // the queue in order, each pass's
	ch    inputChanges
	// started lists the nodes the last pass started jobs on, until when;
	// seen is seenFree's storage (see cons_seen.go)
	started []nodeUntil
	seen    []int64
	// read is when freeFrom and never were read (see cons_still.go);
	// ends the allocation ends it rounded
	read nodesRead
	ends endMemo
	// resvFrom bounds the reservations' starts (see walkResv)
	resvFrom resvFrom
	// walkEvery makes every pass walk the reservations (tests compare
	// with it)
	walkEvery bool
}

// slotTime is a slot boundary: the instant, and the time.Time value a
// rebuilt profile would give it.
type slotTime struct {
	at  int64
	t   time.Time
	ord int // the order found in, for ties
}

// roundUp is the profile's rounding of a free time: up to a multiple of res
// in absolute time (so that the same release falls on the same slot
// boundary in every pass), now when not after now.
func roundUp(t, now time.Time, res time.Duration) time.Time {
	if !t.After(now) {
		return now
	}
	if res > 0 {
		if r := t.Truncate(res); r.Before(t) {
			return r.Add(res)
		}
	}
	return t
}

// planProfile returns the profile and reservation index a Backfill pass at
// now starts from: the kept ones brought up to date, or a fresh build the
// first time (or when the cluster changed size, or now is before the last
// pass's now: slots before that are gone).
func (s *Scheduler) planProfile(now time.Time) (*profile, *resvIndex) {
	clamped := false
	for id, r := range s.resv {
		clamped = clamped || (r.Start.Before(now) && r.End.After(now))
		s.overtaken(id, r, now)
	}
	return s.keptProfile(now, clamped)
}

// keptProfile is planProfile once the reservations time has overtaken
// are dropped and the ones due are started at now (overtaken); clamped
// says whether one was.
func (s *Scheduler) keptProfile(now time.Time, clamped bool) (*profile, *resvIndex) {
	n := s.c.NodeCount()
	nowAt := now.UnixNano()
	k := s.kept
	if k == nil || len(k.freeFrom) != n || nowAt < k.pr.at[0] { // (time ran backwards)
		k = &keptPlan{dirty: bitset.New(uint(n)), skip: newSkipLog()}
		k.pr, k.idx = s.buildProfile(now, &k.buf)
		k.freeFrom, k.never, k.read = s.freeFrom(now, nil, nil, &k.ends)
		k.resv = make(map[JobID]reservation, len(s.resv))
		for i, at := range k.freeFrom {
			if !k.never.Test(uint(i)) {
				k.ref(at, now, nowAt)
			}
		}
		for id, r := range s.resv {
			k.hold(id, r, nowAt)
		}
		k.added = k.added[:0]
		s.kept = k
		return k.pr, k.idx
	}
	// boundaries time has passed are no boundaries any more
	for _, at := range k.pr.at[1:] {
		if at > nowAt {
			break
		}
		k.forgetRef(at)
		k.refsChanged = true
	}
	clear(k.ch.runs)
	k.ch = inputChanges{nowAt: nowAt, freed: k.ch.freed[:0], grew: k.ch.grew[:0], down: k.ch.down[:0], runs: k.ch.runs[:0]}
	ch := &k.ch // its lists' storage is kept from pass to pass
	if !k.nodesStill(s.c, nowAt) {
		s.readNodes(k, now, ch)
	}
	k.skip.prune(nowAt, s.resv)
	// Outside a pass reservations are only deleted (a start, an end, a
	// hold), and a pass keeps k.resv with every change it makes; so
	// unless one was clamped to now or some are gone, s.resv is k.resv
	// (the kept-profile property test holds the two equal after every
	// kind of call).
	if clamped || len(s.resv) != len(k.resv) {
		s.syncResv(k, nowAt, ch)
	}
	var moved []int64
	if k.refsChanged || now.Location() != k.loc || !k.splitAsAdded() {
		moved = k.pr.regrid(now, k.targets(now))
	} else {
		// The boundaries are the last regrid's, none passed (its
		// reference would have gone), with the values it gave them, and
		// the ones referenced since, each split in by the take that
		// referenced it and none other: regrid would only move slot 0's
		// start to now.
		k.pr.times[0], k.pr.at[0] = now, nowAt
		k.added = k.added[:0]
	}
	k.refsChanged, k.slots, k.loc = false, len(k.pr.at), now.Location()
	words := k.pr.recolumn(k.dirty, k.freeFrom, k.never, k.idx.list, nowAt) // the index holds s.resv now
	k.dirty.ClearAll()
	k.pr.refreshBlocks(nowAt, moved, words)
	ch.log(s, k.skip, k.pr, n) // on the profile as it now is
	return k.pr, k.idx
}

// splitAsAdded reports, when no boundary was forgotten since the last
// regrid, whether the profile's slots are that regrid's and the
// boundaries added since, no more: each added one is a slot start, and
// the slots number as many more as were added. (Splits only insert, and
// an added boundary is none of the last regrid's, each referenced then.)
func (k *keptPlan) splitAsAdded() bool {
	if len(k.pr.at) != k.slots+len(k.added) {
		return false
	}
	for _, b := range k.added {
		if _, found := slices.BinarySearch(k.pr.at, b.at); !found {
			return false
		}
	}
	return true
}

// refCount is what references a boundary: nodes' free times (which
// give it its value in a rebuilt profile) and reservations' ends.
type refCount struct{ free, resv int32 }

// refEntry is a boundary's instant and its references.
type refEntry struct {
	at int64
	refCount
}

// findRef is where the boundary at is in refs, or would be inserted.
func (k *keptPlan) findRef(at int64) (int, bool) {
	i, j := 0, len(k.refs)
	for i < j {
		if h := int(uint(i+j) >> 1); k.refs[h].at < at {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < len(k.refs) && k.refs[i].at == at
}

// ref counts one more node free at at (when after now); unref one less.
func (k *keptPlan) ref(at int64, now time.Time, nowAt int64) {
	if at > nowAt {
		k.count(at, time.Time{}, now.Location(), 1, 0)
	}
}

func (k *keptPlan) unref(at, nowAt int64) {
	if at > nowAt {
		k.count(at, time.Time{}, nil, -1, 0)
	}
}

// count adds to the references of the boundary at, forgetting it when
// none are left. A new boundary's value is t, or with loc not nil the
// instant in loc (made only then: most counts find the boundary).
func (k *keptPlan) count(at int64, t time.Time, loc *time.Location, free, resv int32) {
	i, ok := k.findRef(at)
	if !ok {
		if free < 0 || resv < 0 {
			return // a boundary time has passed
		}
		if loc != nil {
			t = time.Unix(0, at).In(loc)
		}
		k.added = append(k.added, slotTime{at: at, t: t})
		k.refs = slices.Insert(k.refs, i, refEntry{at: at})
	}
	c := &k.refs[i].refCount
	if c.free <= 0 && free > 0 {
		k.refsChanged = true // the boundary's value becomes the free time's (see targets)
	}
	c.free += free
	c.resv += resv
	if c.free <= 0 && c.resv <= 0 {
		k.refs = slices.Delete(k.refs, i, i+1)
		k.refsChanged = true
	}
}

// forgetRef drops the boundary at's references.
func (k *keptPlan) forgetRef(at int64) {
	if i, ok := k.findRef(at); ok {
		k.refs = slices.Delete(k.refs, i, i+1)
	}
}

// hold records that the profile holds reservation r: its interval's ends
// are boundaries. release undoes it.
func (k *keptPlan) hold(id JobID, r reservation, nowAt int64) {
	k.resv[id] = r
	for _, t := range []time.Time{r.End, r.Start} {
		if at := t.UnixNano(); at > nowAt {
			k.count(at, t, nil, 0, 1)
		}
	}
}

func (k *keptPlan) release(id JobID, nowAt int64) {
	r, ok := k.resv[id]
	if !ok {
		return
	}
	delete(k.resv, id)
	for _, t := range []time.Time{r.End, r.Start} {
		if at := t.UnixNano(); at > nowAt {
			k.count(at, time.Time{}, nil, 0, -1)
		}
	}
}

// targets lists the boundaries after now that something references,
// sorted: the kept profile's own and the ones added since it was last
// brought up to date. A node's free time has the value newProfile gives
// it; a boundary only reservations name keeps the value it came with
// (the first reservation's to name it since it became a boundary).
func (k *keptPlan) targets(now time.Time) []slotTime {
	pr, nowAt := k.pr, now.UnixNano()
	out := k.bounds[:0]
	r := 0 // refs and pr.at are both sorted: walked together
	for i := 1; i < len(pr.at); i++ {
		at := pr.at[i]
		if at <= nowAt {
			continue
		}
		for r < len(k.refs) && k.refs[r].at < at {
			r++
		}
		if r < len(k.refs) && k.refs[r].at == at {
			c := &k.refs[r]
			t := pr.times[i]
			if c.free > 0 {
				t = time.Unix(0, at).In(now.Location())
			}
			out = append(out, slotTime{at: at, t: t})
		}
	}
	kept := len(out)
	for _, b := range k.added {
		if r, ok := k.findRef(b.at); ok {
			if k.refs[r].free > 0 {
				b.t = time.Unix(0, b.at).In(now.Location())
			}
			if _, found := slices.BinarySearch(pr.at, b.at); !found {
				out = append(out, b)
			}
		}
	}
	k.added = k.added[:0]
	if len(out) > kept {
		slices.SortStableFunc(out[kept:], func(a, b slotTime) int { return cmp.Compare(a.at, b.at) })
		tail := slices.CompactFunc(out[kept:], func(a, b slotTime) bool { return a.at == b.at })
		out, k.merged = mergeSlotTimes(k.merged[:0], out[:kept], tail), out
	}
	k.bounds = out
	return out
}

// mergeSlotTimes appends to out (storage apart from a's and b's) the
// merge of the sorted a and b.
func mergeSlotTimes(out, a, b []slotTime) []slotTime {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || (i < len(a) && a[i].at < b[j].at) {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return out
}

// syncResv brings the kept reservations and index to s.resv: a
// reservation removed, changed or added outside a pass (a start, a
// cancel, a hold, a start clamped to now) dirties its nodes. Each change
// but a clamp to now (which changes nothing from now on) goes to the
// change log.
func (s *Scheduler) syncResv(k *keptPlan, nowAt int64, ch *inputChanges) {
	var clamped []JobID
	for id, r := range k.resv {
		if cur, ok := s.resv[id]; !ok || !sameResv(r, cur) {
			if ok && clampedToNow(r, cur, nowAt) {
				clamped = append(clamped, id)
			} else {
				ch.runs = append(ch.runs, freedRun{r.nodes, r.Start.UnixNano(), r.End.UnixNano()})
			}
			k.dirty.InPlaceUnion(r.nodes)
			k.idx.remove(id)
			k.release(id, nowAt)
			k.skip.forget(id) // a certificate names its job's reservation as it stands
		}
	}
	if len(k.resv) == len(s.resv) {
		return // k.resv is now within s.resv, so equal to it: nothing to add
	}
	for id, r := range s.resv { // the order of adds does not matter
		if _, ok := k.resv[id]; !ok {
			if !slices.Contains(clamped, id) {
				k.skip.taken(r.nodes, r.Start.UnixNano(), r.End.UnixNano())
			}
			k.dirty.InPlaceUnion(r.nodes)
			k.idx.add(id, r)
			k.hold(id, r, nowAt)
		}
	}
}

// clampedToNow reports whether cur is r with its start, due by now, moved
// to now: the same nodes from now to the same end.
func clampedToNow(r, cur reservation, nowAt int64) bool {
	return r.nodes == cur.nodes && r.End.Equal(cur.End) && r.Start.UnixNano() <= nowAt && cur.Start.UnixNano() == nowAt
}

func sameResv(a, b reservation) bool {
	return a.nodes == b.nodes && a.Start.Equal(b.Start) && a.End.Equal(b.End)
}

// freeFrom returns each node's rounded free time as buildProfile sees it
// (math.MinInt64 when no allocation holds it), in buf's storage, the
// nodes that are down or not available (in neverBuf's, when it fits), and
// when it read them (see nodesStill). It walks the cluster's allocations
// by end, each with its placement (no lookup by job), and takes each end
// rounded from m when the last read rounded it.
func (s *Scheduler) freeFrom(now time.Time, buf []int64, neverBuf *bitset.BitSet, m *endMemo) ([]int64, *bitset.BitSet, nodesRead) {
	c := s.c
	out := grown(buf, c.NodeCount())
	for i := range out {
		out[i] = math.MinInt64
	}
	nowAt, res := now.UnixNano(), s.opts.bfResolution
	read := nodesRead{changes: c.Changes(), nextEnd: math.MaxInt64, ok: true}
	prev, next, cur := m.last, m.next[:0], 0
	c.DescendAllocations(func(_ selectnodes.JobID, end time.Time, p *selectnodes.Placement) bool {
		at := nowAt
		if end.After(now) {
			e := end.UnixNano()
			read.nextEnd = e // (the ends descend: the last one after now is the earliest)
			if k := len(next) - 1; k >= 0 && next[k].end == e {
				at = next[k].at
			} else {
				// the last read's ends descend too: a cursor finds e's
				for cur < len(prev) && prev[cur].end > e {
					cur++
				}
				if cur < len(prev) && prev[cur].end == e {
					at = prev[cur].at
				} else {
					at = roundUp(end, now, res).UnixNano()
				}
				next = append(next, roundedAt{e, at})
			}
		}
		for _, a := range p.Alloc {
			out[a.Node] = max(out[a.Node], at)
		}
		return true
	})
	m.last, m.next = next, prev
	return out, c.UnusableInto(neverBuf), read
}

// endMemo is the allocation ends after now a read of the free times
// rounded, latest first, and storage for the next read's. (Once an end
// is after now its rounding does not depend on now.)
type endMemo struct {
	last, next []roundedAt
}

// roundedAt is an allocation's end and the same rounded up to the
// backfill resolution, in Unix nanoseconds.
type roundedAt struct{ end, at int64 }
