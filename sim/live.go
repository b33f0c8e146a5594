package sim

import "github.com/hpcsched/hpcsched/queue"

// liveJobs are a run's jobs submitted and not ended, by ID. The
// scheduler's counter hands IDs out in order, so most of them sit in a
// window of consecutive IDs from the oldest live one, where a start or an
// end finds its job by one subtraction rather than a map's hashing; an ID
// out of that order (a Spec's own) goes to the map.
type liveJobs struct {
	base  queue.JobID // the ID of win[0]
	win   []*liveJob  // win[k] is job base+k, nil once ended
	other map[queue.JobID]*liveJob
	n     int // jobs held, in both
}

// put records job id, which holds no record.
func (l *liveJobs) put(id queue.JobID, lj *liveJob) {
	l.n++
	if len(l.win) == 0 {
		l.base = id // an empty window starts anywhere
	}
	// the window holds base and the IDs after it, never wrapping past the
	// largest ID to the smallest: get and drop look there only for an ID
	// not below base
	if id >= l.base && id-l.base == queue.JobID(len(l.win)) {
		l.win = append(l.win, lj)
		return
	}
	if l.other == nil {
		l.other = map[queue.JobID]*liveJob{}
	}
	l.other[id] = lj
}

// get is job id's record, nil when it has none.
func (l *liveJobs) get(id queue.JobID) *liveJob {
	if k := id - l.base; id >= l.base && k < queue.JobID(len(l.win)) && l.win[k] != nil {
		return l.win[k]
	}
	return l.other[id]
}

// drop forgets job id's record. The window's front moves past the ended
// jobs at its head (each slot once, whatever the order of the ends).
func (l *liveJobs) drop(id queue.JobID) {
	if k := id - l.base; id >= l.base && k < queue.JobID(len(l.win)) && l.win[k] != nil {
		l.win[k] = nil
		l.n--
		for len(l.win) > 0 && l.win[0] == nil {
			l.win = l.win[1:]
			l.base++
		}
		return
	}
	if _, ok := l.other[id]; ok {
		delete(l.other, id)
		l.n--
	}
}

// all lists every record held, in no order.
func (l *liveJobs) all() []*liveJob {
	out := make([]*liveJob, 0, l.n)
	for _, lj := range l.win {
		if lj != nil {
			out = append(out, lj)
		}
	}
	for _, lj := range l.other {
		out = append(out, lj)
	}
	return out
}
