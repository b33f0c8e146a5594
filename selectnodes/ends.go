package selectnodes

import (
	"time"

	"github.com/google/btree"
)

// endKey orders running jobs by expected end, then ID: the order in which
// WillRun releases them. It carries the job's placement (the one its
// record in Cluster.jobs holds; not compared), so a walk in end order
// reads the nodes without a lookup by ID.
type endKey struct {
	end time.Time
	id  JobID
	p   *Placement
}

func endLess(a, b endKey) bool {
	if c := a.end.Compare(b.end); c != 0 {
		return c < 0
	}
	return a.id < b.id
}

// newEnds is an empty end index.
func newEnds() *btree.BTreeG[endKey] { return btree.NewG(16, endLess) }

// The running jobs are kept twice: by ID (jobs) and by expected end
// (ends), the availability profile WillRun walks. Every change goes
// through addJob and dropJob, so the index is kept up to date by
// Allocate, Release and SetAllocationEnd instead of sorted per call.

// addJob records r, replacing the record of the same ID.
func (c *Cluster) addJob(r running) {
	if old, ok := c.jobs[r.id]; ok {
		c.ends.Delete(endKey{end: old.end, id: old.id})
	}
	c.jobs[r.id] = r
	c.ends.ReplaceOrInsert(endKey{r.end, r.id, r.p})
}

// dropJob forgets job's record.
func (c *Cluster) dropJob(job JobID) {
	if old, ok := c.jobs[job]; ok {
		c.ends.Delete(endKey{end: old.end, id: old.id})
		delete(c.jobs, job)
	}
}

// endGroups lists the running jobs by expected end into order and returns
// where each group of jobs ending at the same moment starts (bounds, with
// len(order) last) and the groups' ends, reusing the slices given.
func (c *Cluster) endGroups(order []JobID, bounds []int, ends []time.Time) ([]JobID, []int, []time.Time) {
	order, bounds, ends = order[:0], bounds[:0], ends[:0]
	c.ends.Ascend(func(k endKey) bool {
		if len(ends) == 0 || !ends[len(ends)-1].Equal(k.end) {
			ends = append(ends, k.end)
			bounds = append(bounds, len(order))
		}
		order = append(order, k.id)
		return true
	})
	return order, append(bounds, len(order)), ends
}
