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
// joins the runs an ID touches). The tree holds the runs by pointer so
// that add grows a run in place: a run's first ID moves only down to
// just above the run before it, which keeps the order. The zero value
// is empty.
type bareIDs struct {
	t     *btree.BTreeG[*idRange]
	pivot *idRange // a search key, reused (the scheduler's lock covers it)
	// top is the run with the greatest first ID (nil when empty): an ID
	// above it, as a replay's newest jobs mostly are, extends it or starts
	// a run after it without searching the tree
	top *idRange
}

func (b *bareIDs) init() {
	if b.t == nil {
		b.t = btree.NewG(32, func(x, y *idRange) bool { return x.lo < y.lo })
		b.pivot = new(idRange)
	}
}

// key is the search key for runs starting at or around id.
func (b *bareIDs) key(id JobID) *idRange {
	*b.pivot = idRange{lo: id}
	return b.pivot
}

// has reports whether id is one of the set.
func (b *bareIDs) has(id JobID) bool {
	if b.t == nil {
		return false
	}
	in := false
	b.t.DescendLessOrEqual(b.key(id), func(r *idRange) bool {
		in = id <= r.hi
		return false
	})
	return in
}

// insertRun puts a run that overlaps none of the set's into it (Restore).
func (b *bareIDs) insertRun(r idRange) {
	b.init()
	b.put(&r)
}

// put inserts run r, which overlaps none of the set's, keeping top.
func (b *bareIDs) put(r *idRange) {
	b.t.ReplaceOrInsert(r)
	if b.top == nil || r.lo > b.top.lo {
		b.top = r
	}
}

// add puts id in the set, joining the runs it touches.
func (b *bareIDs) add(id JobID) {
	b.init()
	if top := b.top; top != nil && id > top.hi {
		// no run starts above top: id joins it or starts the next one
		if id == top.hi+1 { // top.hi < id: no overflow
			top.hi = id
		} else {
			b.put(&idRange{lo: id, hi: id})
		}
		return
	}
	var prev, next *idRange
	b.t.DescendLessOrEqual(b.key(id), func(r *idRange) bool {
		prev = r
		return false
	})
	if prev != nil && id <= prev.hi {
		return // already in
	}
	if id < lastJobID {
		b.t.AscendGreaterOrEqual(b.key(id+1), func(r *idRange) bool {
			if r.lo == id+1 {
				next = r
			}
			return false
		})
	}
	joinPrev := prev != nil && prev.hi+1 == id // prev.hi < id: no overflow
	switch {
	case joinPrev && next != nil:
		b.t.Delete(next)
		prev.hi = next.hi
		if b.top == next {
			b.top = prev
		}
	case joinPrev:
		prev.hi = id
	case next != nil:
		next.lo = id // still above prev.hi + 1: the order holds
	default:
		b.put(&idRange{lo: id, hi: id})
	}
}

// runs lists the set's runs in order.
func (b *bareIDs) runs() []idRange {
	if b.t == nil {
		return nil
	}
	out := make([]idRange, 0, b.t.Len())
	b.t.Ascend(func(r *idRange) bool {
		out = append(out, *r)
		return true
	})
	return out
}

// forgottenBare is the error for a dependency on a job forgotten without
// its tombstone.
func forgottenBare(id JobID) error {
	return invalid("dependency on job %d, forgotten without its end state (WithoutTombstones)", id)
}
