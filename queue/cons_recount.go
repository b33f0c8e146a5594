package queue

import (
	"time"
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

// recount counts, for every start a full plan of j would try before r
// (d long, needing need nodes), the nodes of j's partition free
// throughout its window, as earliest does, on the profile with r given
// back; ok is false when one reaches need or when the plan would not
// come back to r.
func (b *bfRun) recount(j *job, r *reservation, d time.Duration, need int, lastTried time.Time) (most int, ok bool) {
	part := b.pass.partition(b.s.c, j.Partition)
	if part == nil || b.open == nil || b.s.maxNodeCPUs() != 1 || lastTried.After(b.now.Add(b.s.opts.bfWindow)) {
		return 0, false // no bound a plan would record, or no certificate it would write
	}
	pr := b.pr
	pr.give(r.nodes, r.Start, r.End)
	defer pr.take(r.nodes, r.Start, r.End) // as the plan would take it again
	if k, found := pr.find(r.Start); !found || !pr.freeThroughout(r.nodes, k, d) {
		return 0, false
	}
	shorts := pr.shortScan(d, need)
	w := b.pass.w
	for i := 0; i < len(pr.times) && !pr.times[i].After(lastTried); i++ {
		if k := shorts.at(i); k >= 0 {
			most = max(most, pr.count[k])
			i = k
			continue
		}
		pr.window(i, d, w)
		c := int(w.IntersectionCardinality(part))
		if c >= need {
			return 0, false // a plan would select here
		}
		most = max(most, c)
	}
	return most, true
}
