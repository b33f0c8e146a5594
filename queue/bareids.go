package queue

import "github.com/google/btree"

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
// target.
func WithoutTombstones() Option { return func(o *options) { o.noTombstones = true } }

// idRange is a run of consecutive job IDs, lo to hi inclusive.
type idRange struct{ lo, hi JobID }

// bareIDs are the IDs of jobs forgotten without a tombstone
// (WithoutTombstones), as disjoint runs ordered by their first ID (add
// joins the runs an ID touches). The zero value is empty.
type bareIDs struct{ t *btree.BTreeG[idRange] }

// has reports whether id is one of the set.
func (b *bareIDs) has(id JobID) bool {
	if b.t == nil {
		return false
	}
	in := false
	b.t.DescendLessOrEqual(idRange{lo: id}, func(r idRange) bool {
		in = id <= r.hi
		return false
	})
	return in
}

// insertRun puts a run that overlaps none of the set's into it (Restore).
func (b *bareIDs) insertRun(r idRange) {
	if b.t == nil {
		b.t = btree.NewG(32, func(x, y idRange) bool { return x.lo < y.lo })
	}
	b.t.ReplaceOrInsert(r)
}

// add puts id in the set, joining the runs it touches.
func (b *bareIDs) add(id JobID) {
	if b.t == nil {
		b.t = btree.NewG(32, func(x, y idRange) bool { return x.lo < y.lo })
	}
	var prev, next idRange
	hasPrev, hasNext := false, false
	b.t.DescendLessOrEqual(idRange{lo: id}, func(r idRange) bool {
		prev, hasPrev = r, true
		return false
	})
	if hasPrev && id <= prev.hi {
		return // already in
	}
	if id < lastJobID {
		b.t.AscendGreaterOrEqual(idRange{lo: id + 1}, func(r idRange) bool {
			next, hasNext = r, r.lo == id+1
			return false
		})
	}
	joinPrev := hasPrev && prev.hi+1 == id // prev.hi < id: no overflow
	switch {
	case joinPrev && hasNext:
		b.t.Delete(next)
		prev.hi = next.hi
		b.t.ReplaceOrInsert(prev)
	case joinPrev:
		prev.hi = id
		b.t.ReplaceOrInsert(prev)
	case hasNext:
		b.t.Delete(next)
		b.t.ReplaceOrInsert(idRange{lo: id, hi: next.hi})
	default:
		b.t.ReplaceOrInsert(idRange{lo: id, hi: id})
	}
}

// runs lists the set's runs in order.
func (b *bareIDs) runs() []idRange {
	if b.t == nil {
		return nil
	}
	out := make([]idRange, 0, b.t.Len())
	b.t.Ascend(func(r idRange) bool {
		out = append(out, r)
		return true
	})
	return out
}

// forgottenBare is the error for a dependency on a job forgotten without
// its tombstone.
func forgottenBare(id JobID) error {
	return invalid("dependency on job %d, forgotten without its end state (WithoutTombstones)", id)
}
