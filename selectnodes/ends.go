package selectnodes

import (
	"cmp"
	"math"
	"time"
)

// endKey orders running jobs by expected end, then ID: the order in which
// WillRun releases them. It carries the job's placement (the one its
// record in Cluster.jobs holds; not compared), so a walk in end order
// reads the nodes without a lookup by ID. sec and nsec are the end's Unix
// seconds and nanoseconds, which order ends as Time.Compare does with two
// integer compares instead of Compare's call (newEndKey sets them). Two
// ends with monotonic clock readings Compare compares by those readings,
// and seconds more than 1<<62 from 1970 could have wrapped around in
// Unix: such an end has sec farSec, and is compared by Compare.
type endKey struct {
	end  time.Time
	id   JobID
	p    *Placement
	sec  int64
	nsec int32
}

// farSec marks an end that only Compare orders (see endKey).
const farSec = math.MinInt64

// newEndKey is the key of job's end, with its placement p.
func newEndKey(end time.Time, job JobID, p *Placement) endKey {
	sec := end.Unix()
	// In drops the monotonic reading, and is inlined where Round(0) is
	// called: it changes end exactly when end has one
	if sec < -1<<62 || sec > 1<<62 || end.In(end.Location()) != end {
		sec = farSec
	}
	return endKey{end: end, id: job, p: p, sec: sec, nsec: int32(end.Nanosecond())}
}

func endLess(a, b endKey) bool { return endCompare(&a, &b) < 0 }

// endCompare is the three-way form of endLess.
func endCompare(a, b *endKey) int {
	switch {
	case a.sec == farSec || b.sec == farSec:
		if c := a.end.Compare(b.end); c != 0 {
			return c
		}
	case a.sec != b.sec:
		return cmp.Compare(a.sec, b.sec)
	case a.nsec != b.nsec:
		return cmp.Compare(a.nsec, b.nsec)
	}
	return cmp.Compare(a.id, b.id)
}

// newEnds is an empty end index.
func newEnds() endIndex { return endIndex{} }

// The running jobs are kept twice: by ID (jobs) and by expected end
// (ends), the availability profile WillRun walks. Every change goes
// through addJob and dropJob, so the index is kept up to date by
// Allocate, Release and SetAllocationEnd instead of sorted per call.

// addJob records r, replacing the record of the same ID.
func (c *Cluster) addJob(r running) {
	if old, ok := c.jobs[r.id]; ok {
		c.ends.Delete(newEndKey(old.end, old.id, nil))
	}
	c.jobs[r.id] = r
	c.ends.ReplaceOrInsert(newEndKey(r.end, r.id, r.p))
}

// dropJob forgets job's record.
func (c *Cluster) dropJob(job JobID) {
	if old, ok := c.jobs[job]; ok {
		c.ends.Delete(newEndKey(old.end, old.id, nil))
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
