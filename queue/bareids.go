package queue

import "slices"

// WithoutTombstones makes Forget (and WithRetention, WithForgetFinished)
// keep of a forgotten job only that its ID is in use — no end state, no
// start — as long as no job has named another in a dependency. The IDs
// are kept as runs of consecutive IDs, so a replay whose jobs end as
// they come holds a few runs whatever its length, where tombstones would
// grow with every job. The price: a dependency given afterwards (Submit,
// Update) that names such a job is refused with ErrInvalidSpec, since its
// end state is not known any more. Once a job with a dependency on
// another has been submitted (or restored, or updated to one), Forget
// keeps tombstones again, so no dependency already given ever loses its
// target. A Forget costs a search among the runs and a move of the runs
// above the ID: little when IDs are mostly consecutive or forgotten about
// in the order they came (the runs then number about the jobs still
// held), but every run when jobs with gaps between their IDs are
// forgotten newest first.
func WithoutTombstones() Option { return func(o *options) { o.noTombstones = true } }

// idRange is a run of consecutive job IDs, lo to hi inclusive.
type idRange struct{ lo, hi JobID }

// bareIDs are the IDs of jobs forgotten without a tombstone
// (WithoutTombstones), as disjoint runs in a slice ordered by their first
// ID (add joins the runs an ID touches). A replay forgets its jobs about
// in the order they came, so an ID mostly extends the last run, or joins
// or starts one near the end: a search by halves finds its place, and an
// insertion or a join moves only the runs above it, one for each job
// still unforgotten above the ID. (A B-tree of the runs cost some 900
// instructions an ID, two searches through closures and a node
// allocation per new run.) The zero value is empty.
type bareIDs struct {
	r []idRange
}

// above is the index of the first run starting above id.
func (b *bareIDs) above(id JobID) int {
	lo, hi := 0, len(b.r)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if b.r[m].lo > id {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// has reports whether id is one of the set.
func (b *bareIDs) has(id JobID) bool {
	k := b.above(id)
	return k > 0 && id <= b.r[k-1].hi
}

// insertRun puts a run that overlaps none of the set's into it (Restore,
// which gives them ascending: each goes at the end).
func (b *bareIDs) insertRun(r idRange) {
	b.r = slices.Insert(b.r, b.above(r.lo), r)
}

// add puts id in the set, joining the runs it touches.
func (b *bareIDs) add(id JobID) {
	n := len(b.r)
	if n > 0 && id > b.r[n-1].hi {
		// no run starts above the last: id joins it or starts the next
		if id == b.r[n-1].hi+1 { // hi < id: no overflow
			b.r[n-1].hi = id
		} else {
			b.r = append(b.r, idRange{lo: id, hi: id})
		}
		return
	}
	k := b.above(id) // runs below k start at or below id
	if k > 0 && id <= b.r[k-1].hi {
		return // already in
	}
	joinPrev := k > 0 && b.r[k-1].hi+1 == id // hi < id: no overflow
	joinNext := k < n && b.r[k].lo-1 == id   // lo > id: no underflow
	switch {
	case joinPrev && joinNext:
		b.r[k-1].hi = b.r[k].hi
		b.r = slices.Delete(b.r, k, k+1)
	case joinPrev:
		b.r[k-1].hi = id
	case joinNext:
		b.r[k].lo = id // still above the run below's hi + 1: the order holds
	default:
		b.r = slices.Insert(b.r, k, idRange{lo: id, hi: id})
	}
}

// runs lists the set's runs in order.
func (b *bareIDs) runs() []idRange {
	if len(b.r) == 0 {
		return nil
	}
	return slices.Clone(b.r)
}

// forgottenBare is the error for a dependency on a job forgotten without
// its tombstone.
func forgottenBare(id JobID) error {
	return invalid("dependency on job %d, forgotten without its end state (WithoutTombstones)", id)
}
