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
	for r := range c.records {
		if part.inRec[r] > 0 {
			if left -= c.recordRoom(&c.records[r], part.nodes, t, left); left <= 0 {
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

// recordRoom counts the nodes of rec in the partition (part) that may be
// usable to the job, up to enough (it stops there), a word at a time:
// its idle nodes, then its busy ones.
func (c *Cluster) recordRoom(rec *record, part *bitset.BitSet, t roomTest, enough int) int {
	job := t.job
	idleMay, busyMay := rec.cpus >= job.Req.MinCPUsPerNode, t.busy && rec.cpus >= job.cpusPerNode
	if !t.own && !idleMay && !busyMay {
		return 0 // the record's CPUs rule out all its nodes
	}
	words := part.Words()[rec.wlo:rec.whi]
	avail, idle := job.availNodes.Words()[rec.wlo:], c.use.idle.Words()[rec.wlo:]
	n := 0
	for k, rw := range rec.words {
		cand, idleW := words[k]&avail[k]&rw, ^uint64(0)
		if !t.empty {
			idleW = idle[k]
		}
		if idleMay || t.own {
			n += c.idleRoom(cand&idleW, rec.wlo+k, idleMay, job)
		}
		if n < enough && t.busy && (busyMay || t.own) {
			n += c.busyRoom(cand&^idleW, rec, rec.wlo+k, t.own, job, enough-n)
		}
		if n >= enough {
			break
		}
	}
	return n
}

// idleRoom counts the idle candidates w of word k that may be in a node
// set: all of them when their record's CPUs reach the job's
// MinCPUsPerNode (may), else those whose own reported CPUs do (an idle
// node is in a set only if either does: baselineFits, reportedFits; with
// no reports a node's CPUs are its record's).
func (c *Cluster) idleRoom(w uint64, k int, may bool, job *Job) int {
	if may {
		return bits.OnesCount64(w)
	}
	n := 0
	for ; w != 0; w &= w - 1 {
		if i := k*64 + bits.TrailingZeros64(w); c.effective(i).CPUs >= job.Req.MinCPUsPerNode {
			n++
		}
	}
	return n
}

// busyRoom counts the busy candidates w of word k of rec that may be
// usable, up to enough: in the share mask, with their CPUs (the
// record's, or their own when they may have reported some: own) less
// their load at least the job's CPUs per node. A word whose every node
// has room by the load's word bounds (room.go) counts whole.
func (c *Cluster) busyRoom(w uint64, rec *record, k int, own bool, job *Job, enough int) int {
	w &= c.use.share.Words()[k]
	if w != 0 && c.live().roomy(job, k) {
		return bits.OnesCount64(w)
	}
	used, most := c.use.cpus, rec.cpus-job.cpusPerNode // room: at most most CPUs in use
	n := 0
	for ; w != 0 && n < enough; w &= w - 1 {
		i := k*64 + bits.TrailingZeros64(w)
		if own {
			most = c.effective(i).CPUs - job.cpusPerNode
		}
		if used[i] <= most {
			n++
		}
	}
	return n
}
