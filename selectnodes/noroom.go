package selectnodes

import (
	"math/bits"

	"github.com/bits-and-blooms/bitset"
)

// A probe too few nodes can take. Replaying a trace of many-core nodes
// (MetaCentrum's: nodes of 80 and 12 cores, jobs asking 8-80 cores on one
// node), most probes of an EASY pass are jobs asking more cores on a node
// than any node has free: the cluster's free cores are many but spread
// thin. Conservative backfill's probes on the empty cluster, with the
// nodes busy in a window withheld, mostly find too few of the nodes left
// with enough cores. The pipeline found that out at the end of a whole
// selection (the partition's checks, the node sets and their features,
// the load filter node by node over every set's span), and a probe reads
// only that it failed. noRoom finds it first, from the nodes' CPUs and
// the load alone, reading each node of the partition at most once and
// stopping as soon as enough might be usable.

// noRoom reports whether fewer nodes of job's partition than the job's
// minimum can be usable to it in mode (RunNow or TestOnly), so that the
// selection fails whatever its node sets, counts and selector would do:
// accumulate calls the selector only with at least NodeCounts' Min usable
// nodes, and Min is at least max(MinNodes, 1, the partition's MinNodes).
// It answers only when that follows from the nodes' CPUs: for a job
// without counted feature terms, in TestOnly (no load: every node is as
// idle), or in RunNow under a built-in selector's load filter for a job
// that does not share nodes; otherwise it reports false and the pipeline
// decides.
//
// A node the pipeline finds usable is available, in the partition, and
// either idle, or busy under ConsRes for a job that is not exclusive, in
// the share mask and with room: its free CPUs (freeOf, at most its CPUs
// less their load) at least the job's CPUs per node. An idle node is in a
// node set only if its record's CPUs, or under FastSchedule 0 its own
// reported ones, reach the job's MinCPUsPerNode (baselineFits,
// reportedFits; idleUnits never exceeds the CPUs it is given). noRoom
// counts the nodes passing these tests, a superset of the usable ones.
func (c *Cluster) noRoom(job *Job, mode Mode) bool {
	if job.Req.Features != nil && len(job.Req.Features.Counts()) > 0 {
		return false
	}
	t := roomTest{job: job, empty: mode == TestOnly, own: c.fastSchedule == 0 && c.reported != nil}
	if !t.empty {
		lf, ok := builtinFilter(c.selector)
		if !ok || job.Shared {
			return false
		}
		_, consRes := lf.(ConsRes)
		t.busy = consRes && !job.Exclusive
	}
	part := &c.parts[job.partIndex]
	left := max(job.Req.MinNodes, 1, job.Part.MinNodes)
	// the idle nodes first, a word at a time: when they are enough, no
	// busy node is read
	for r := range c.records {
		if part.inRec[r] > 0 {
			if left -= c.idleRoom(&c.records[r], part.nodes, t, left); left <= 0 {
				return false
			}
		}
	}
	for r := range c.records {
		if t.busy && part.inRec[r] > 0 {
			if left -= c.busyRoom(&c.records[r], part.nodes, t, left); left <= 0 {
				return false
			}
		}
	}
	return true
}

// roomTest is what noRoom asks of every node: empty, whether the load is
// none (TestOnly: every node counts as idle); busy, whether a busy node
// may have room at all (ConsRes, a job not exclusive); own, whether a
// node's CPUs may be the ones it reported (FastSchedule 0), else they are
// its record's.
type roomTest struct {
	job              *Job
	empty, busy, own bool
}

// idleRoom counts the idle nodes of rec in the partition (part) that may
// be usable to the job, up to enough (it stops there). Nodes of one
// record have its CPUs, so unless they may have their own, the record's
// CPUs rule its idle nodes in or out all at once; else each is judged by
// the more of its record's CPUs and its own (an idle node is in a node
// set only if either reaches the job's MinCPUsPerNode: baselineFits,
// reportedFits).
func (c *Cluster) idleRoom(rec *record, part *bitset.BitSet, t roomTest, enough int) int {
	minCPUs := t.job.Req.MinCPUsPerNode
	may := rec.cpus >= minCPUs
	if !t.own && !may {
		return 0
	}
	words := part.Words()[rec.wlo:rec.whi]
	avail, idle := t.job.availNodes.Words()[rec.wlo:], c.use.idle.Words()[rec.wlo:]
	n := 0
	for k, rw := range rec.words {
		w := words[k] & avail[k] & rw
		if !t.empty {
			w &= idle[k]
		}
		if may {
			n += bits.OnesCount64(w)
		} else {
			for ; w != 0; w &= w - 1 {
				if i := (rec.wlo+k)*64 + bits.TrailingZeros64(w); c.effective(i).CPUs >= minCPUs {
					n++
				}
			}
		}
		if n >= enough {
			break
		}
	}
	return n
}

// busyRoom counts the busy nodes of rec in the partition (part) that may
// be usable to the job, up to enough: in the share mask, with their CPUs
// (the record's, or their own when they may have reported some) less
// their load at least the job's CPUs per node. A record of too few CPUs
// rules out all its busy nodes at once, and a word whose every node has
// room by the load's word bounds (room.go) counts whole.
func (c *Cluster) busyRoom(rec *record, part *bitset.BitSet, t roomTest, enough int) int {
	job, v := t.job, c.live()
	if !t.own && rec.cpus < job.cpusPerNode {
		return 0
	}
	words := part.Words()[rec.wlo:rec.whi]
	avail, idle, share := job.availNodes.Words()[rec.wlo:], c.use.idle.Words()[rec.wlo:], c.use.share.Words()[rec.wlo:]
	used, most := c.use.cpus, rec.cpus-job.cpusPerNode // a node of the record has room with at most most CPUs in use
	n := 0
	for k, rw := range rec.words {
		w := words[k] & avail[k] & rw &^ idle[k] & share[k]
		if w != 0 && v.roomy(job, rec.wlo+k) {
			n += bits.OnesCount64(w)
			w = 0
		}
		base := (rec.wlo + k) * 64
		for ; w != 0 && n < enough; w &= w - 1 {
			i := base + bits.TrailingZeros64(w)
			if t.own {
				most = c.effective(i).CPUs - job.cpusPerNode
			}
			if used[i] <= most {
				n++
			}
		}
		if n >= enough {
			break
		}
	}
	return n
}
